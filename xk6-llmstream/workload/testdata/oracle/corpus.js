// corpus.js writes ../tokcorpus.json: the strings the tokenizer goldens are
// made of (deterministic; no randomness). Run with node >= 18.
'use strict';
const fs = require('fs');
const path = require('path');

const S = [];
const add = (...xs) => { for (const x of xs) S.push(x); };

// English prose and contractions
add('Hello, world!', 'The quick brown fox jumps over the lazy dog.',
  "I'm sure you're right; they'll see it's what we'd've done.",
  "DON'T SHOUT. I'M HERE. YOU'RE LATE. WE'VE WAITED. HE'LL COME. SHE'D KNOW.",
  'Once upon a time, in a land far, far away, there lived a tokenizer.',
  'e.g. i.e. etc. Mr. Smith vs. Dr. Jones (Ph.D.) — 3:45 p.m.',
  'Well... that was unexpected!!! Was it?? Yes?! No!?',
  'A sentence with trailing space ', ' a sentence with leading space', '  two leading spaces',
  'CamelCaseIdentifiersAreCommon', 'snake_case_identifiers_are_too', 'kebab-case-words-here',
  'ALLCAPS and lowercase and MiXeD cAsE', "rock 'n' roll", "'quoted' \"double\" `back`",
  'Capitalized Words In A Title', 'The year 2024 had 366 days; 1234567890 is ten digits.',
  '3.14159265358979323846', '1,000,000 and 1.000.000 and 1 000 000', '-42 +17 ±3 ≈ 2.5e-10',
  '0x1F 0b1010 0o755 1e10 6.02214076e23', 'Version v1.2.3-beta.4+build.567',
  'https://example.com/path/to/page?query=value&other=1#fragment',
  'user@example.com, admin+tag@sub.domain.org', '192.168.0.1:8080 and [::1]:443',
  'C:\\Users\\name\\Documents\\file.txt', '/usr/local/bin/go build ./...',
  '#hashtag @mention $100 50% ^caret &amp; *star* _under_ ~tilde~ |pipe|',
  'Price: $19.99 (was $29.99) — save 33%!', '£50 €40 ¥1000 ₹500 ₿0.01',
);
// Code
add('func main() {\n\tfmt.Println("hello")\n}\n',
  'def f(x):\n    return x ** 2\n\nprint([f(i) for i in range(10)])\n',
  'const x = async (a, b) => { await a; return b?.c ?? null; };',
  '#include <stdio.h>\nint main(void) { printf("%d\\n", 42); return 0; }',
  'SELECT id, name FROM users WHERE age >= 18 ORDER BY name DESC LIMIT 10;',
  '{"key": "value", "list": [1, 2, 3], "nested": {"a": null, "b": true}}',
  '<html><body><p class="x">Text &lt;tag&gt;</p></body></html>',
  'if (a && b || !c) { x += 1; y -= 2; z *= 3; w /= 4; } else if (a != b) {}',
  'fn main() -> Result<(), Box<dyn Error>> { Ok(()) }',
  '    indented four\n        indented eight\n\t\ttabbed twice',
  '// comment\n/* block\n   comment */\n# shell comment', 'x=1;y=2;z=x+y;print(z)',
  '```python\nimport os\n```', 'a\\nb\\tc\\\\d', '=== --- *** ___ +++ ### ~~~',
  'matrix[i][j] = matrix[j][i]; arr->next->prev = NULL;',
);
// CJK and other scripts
add('你好，世界！', '我爱自然语言处理。今天天气很好。', '龍龜鬱齉', '𠀀𠀁𠀂 (CJK Extension B)',
  'こんにちは世界', 'カタカナとひらがなと漢字', '東京は日本の首都です。', '안녕하세요 세계',
  '한국어 텍스트입니다.', 'Привет, мир!', 'Ελληνικά γράμματα', 'مرحبا بالعالم', 'שלום עולם',
  'नमस्ते दुनिया', 'สวัสดีชาวโลก', 'Tiếng Việt có dấu: Xin chào thế giới', 'Ṁöřë dïäçřïţïçš',
  'Mixed 中文 and English 混合 text', '日本語とEnglishの混在', 'Ünïcödé ñoño façade naïve café',
  'ſtraße Straße STRASSE', 'ﬁ ﬂ ﬀ ligatures', 'Ⅻ ⅻ ① ② ③', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐛𝐨𝐥𝐝', 'ｆｕｌｌｗｉｄｔｈ　ＡＢＣ　１２３',
  'Ꭰ Ꭱ Ꭲ Cherokee', 'ᚠᚢᚦᚨᚱᚲ runes', '∀x∈ℝ: x²≥0 ∧ ∑ᵢ aᵢ = ∫f(x)dx', '→ ← ↑ ↓ ⇒ ⇔ ∞ ≠ ≤ ≥',
);
// Emoji
add('😀😃😄😁', '👍🏽 thumbs up with skin tone', '👨‍👩‍👧‍👦 family', '🏳️‍🌈 flag', '🇺🇸🇬🇧🇯🇵 flags',
  'I ❤️ tokens ✨🚀', '⌚⌛⏰ watch', '🧑‍💻 coding', 'emoji at end 🎉', '🎉 emoji at start',
  '1️⃣ 2️⃣ #️⃣ keycaps', '©️ ®️ ™️', '☺☹☠', '🫠🫡🫥 newer emoji', '🪿🫎🪼 newest emoji');
// Whitespace runs
for (const n of [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100]) add(' '.repeat(n));
for (const n of [1, 2, 3, 8, 16, 33]) add('\t'.repeat(n));
for (const n of [1, 2, 3, 5, 10]) add('\n'.repeat(n));
for (const n of [2, 4, 8, 16, 40]) add('word' + ' '.repeat(n) + 'word');
for (const n of [2, 8, 16, 33]) add('x' + ' '.repeat(n));
add('\r\n', '\r\n\r\n', 'a\r\nb\r\n', 'line1\nline2\n\nline4\n', ' \n \n ', '\t \t \n', '  \n\n  x',
  'a\u00a0b\u00a0\u00a0c', 'nbsp\u00a0\u00a0\u00a0\u00a0run', 'ideographic\u3000space', 'em\u2003space',
  'line\u2028separator', 'para\u2029separator', 'zero\u200bwidth', 'joiner\u200dtest', '\u000bvt\u000cff',
  'next\u0085line', 'trailing newline\n', '\n\nleading newlines', 'end with spaces   ');
// Long repeats
add('a'.repeat(5000), 'a'.repeat(100), 'ab'.repeat(500), 'abc'.repeat(333), 'ha'.repeat(200),
  '1'.repeat(1000), '12'.repeat(500), '!'.repeat(300), '.'.repeat(200), '-'.repeat(120), '='.repeat(80),
  '龍'.repeat(100), 'é'.repeat(200), '😀'.repeat(50), 'x y '.repeat(200), 'the '.repeat(300),
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(20),
  'supercalifragilisticexpialidocious', 'pneumonoultramicroscopicsilicovolcanoconiosis',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab', 'z'.repeat(1000));
// Special and added token texts
for (const t of ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<s>', '</s>', '<unk>', '<pad>',
  '<|begin_of_text|>', '<|eot_id|>', '<|start_header_id|>', '<｜begin▁of▁sentence｜>', '<｜end▁of▁sentence｜>',
  '<|start|>', '<|end|>', '<|return|>', '<|message|>', '<|channel|>', '<think>', '</think>',
  '<|fim_prefix|>', '<tool_call>', '<0x41>', '<0xE9>']) {
  add(t, 'before ' + t + ' after', t + t, 'x' + t + 'y', ' ' + t + ' ');
}
add('<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n',
  '<s>[INST] What is 2+2? [/INST] 4</s>', '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>',
  '<|endoftext', 'endoftext|>', '<|', '|>', '< s >', '<<s>>', '<|endoftext|><|endoftext|>x');
// Combining marks and normalization
add('e\u0301', 'cafe\u0301', 'e\u0301e\u0301e\u0301', 'n\u0303', 'a\u0300\u0301\u0302\u0303', 'A\u030a',
  '\u1100\u1161\u11a8', '\u1112\u1161\u11ab\u1100\u1173\u11af', 'Z\u0351\u036b\u0343\u036a\u0302a\u0310\u0357l\u0346g\u0308o\u0334',
  'o\u0308 vs \u00f6', '\u212b vs \u00c5', '\u2126 ohm', 'ﬃ ligature', '\u1e9b\u0323', 'x\u0301y\u0301z\u0301',
  'Vie\u0323\u0302t Nam', 'i\u0307', 'q\u0307\u0323', '\u0301 leading combining', '\u0915\u094d\u0937');
// Odd characters
add('▁', '▁▁▁', 'word▁word', 'Ġ', 'Ċ', '\u0000', 'nul\u0000inside', '\u007f', '\u001b[31mred\u001b[0m',
  '\ufeffBOM at start', '\ufffd', 'replacement \ufffd char', '\ue000 private use', '\u{10ffff}', '\u{1f600}\u{e0020}');
// Sentences mixing everything
const words = ['data', 'model', 'token', 'stream', 'latency', 'throughput', 'GPU', 'server', 'request', 'prompt',
  'answer', 'benchmark', 'ms', 'ok', 'the', 'of', 'and', 'to', 'in', 'is'];
const seps = [' ', '  ', ', ', '. ', '\n', '\t', '; ', ' - ', '/', '_', '', ' (', ') ', '"', "'"];
let k = 7;
while (S.length < 380) {
  let s = '';
  const n = 3 + (k % 17);
  for (let i = 0; i < n; i++) {
    k = (k * 1103515245 + 12345) % 2147483648;
    s += words[k % words.length];
    k = (k * 1103515245 + 12345) % 2147483648;
    s += seps[k % seps.length];
    if (k % 11 === 0) s += String(k % 10000);
    if (k % 13 === 0) s += '中文';
    if (k % 17 === 0) s += '🙂';
    if (k % 19 === 0) s += 'e\u0301';
  }
  add(s);
}
fs.writeFileSync(path.join(__dirname, '..', 'tokcorpus.json'), JSON.stringify(S, null, 0) + '\n');
console.log(S.length + ' strings');
