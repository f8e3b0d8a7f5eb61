// driver.mjs runs official provider SDKs against the xk6-llmstream mock.
// conformance/sdk_test.go starts the mock and runs:
//   node driver.mjs BASE_URL < cases.json
// cases.json is a JSON array of {id, sdk, dialect, model, stream}; the answer
// on stdout is a JSON array of results, one per case, in the same order:
// {id, deltas (text from the stream's deltas), text, reasoning, input_tokens,
// output_tokens, finish, events, error: {class, status, message} | null}.
// text, usage and finish come from the SDK's own final object where it has
// one (finalChatCompletion, finalResponse, finalMessage, the whole answer).
//
// Send mode (conformance/shapes_test.go): node driver.mjs BASE_URL send < cases.json
// where each case is {id, sdk, dialect, params}: the SDK's own request method
// is called with params as they are (in the SDK's own parameter shape, which
// cohere-ai and @google/genai turn into the wire shape) and not streamed; the
// answer is a JSON array of {id, error: message | null}. The request bodies
// are what the test's capture server saw.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { CohereClientV2 } from 'cohere-ai';
import { Ollama } from 'ollama';

const base = process.argv[2];
if (!base || !base.startsWith('http://127.0.0.1:')) {
  console.error('usage: node driver.mjs http://127.0.0.1:PORT [send] < cases.json');
  process.exit(2);
}
const key = 'sk-conformance';
const prompt = 'three word prompt';

const openai = new OpenAI({ apiKey: key, baseURL: base + '/v1', maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base, apiVersion: 'v1beta' } });
const cohere = new CohereClientV2({ token: key, environment: base });
const ollama = new Ollama({ host: base, headers: { Authorization: 'Bearer ' + key } });

const messages = [{ role: 'user', content: prompt }];

async function run(c) {
  const r = { id: c.id, deltas: '', text: '', reasoning: '', input_tokens: -1, output_tokens: -1, finish: '', events: 0, error: null };
  try {
    await runners[c.sdk + '/' + c.dialect](c, r);
  } catch (e) {
    r.error = {
      class: e?.constructor?.name ?? typeof e,
      status: e?.status ?? e?.statusCode ?? e?.status_code ?? 0,
      message: String(e?.message ?? e).slice(0, 300),
    };
  }
  return r;
}

const runners = {
  async 'openai/chat'(c, r) {
    const req = { model: c.model, messages, max_tokens: c.max_tokens };
    let f;
    if (c.stream) {
      const s = openai.chat.completions.stream({ ...req, stream_options: { include_usage: true } });
      for await (const chunk of s) {
        r.events++;
        r.deltas += chunk.choices[0]?.delta?.content ?? '';
        // reasoning_content is DeepSeek's field, which the SDK's accumulator
        // does not know: it is read from the deltas.
        r.reasoning += chunk.choices[0]?.delta?.reasoning_content ?? '';
      }
      f = await s.finalChatCompletion();
    } else {
      f = await openai.chat.completions.create(req);
    }
    const m = f.choices[0];
    r.text = m.message.content ?? '';
    if (!c.stream) r.reasoning = m.message.reasoning_content ?? '';
    r.finish = m.finish_reason;
    r.input_tokens = f.usage?.prompt_tokens ?? -1;
    r.output_tokens = f.usage?.completion_tokens ?? -1;
  },
  async 'openai/completions'(c, r) {
    const req = { model: c.model, prompt, max_tokens: c.max_tokens };
    if (c.stream) {
      const s = await openai.completions.create({ ...req, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of s) {
        r.events++;
        const ch = chunk.choices[0];
        if (ch) {
          r.deltas += ch.text;
          if (ch.finish_reason) r.finish = ch.finish_reason;
        }
        if (chunk.usage) {
          r.input_tokens = chunk.usage.prompt_tokens;
          r.output_tokens = chunk.usage.completion_tokens;
        }
      }
      r.text = r.deltas;
      return;
    }
    const f = await openai.completions.create(req);
    r.text = f.choices[0].text;
    r.finish = f.choices[0].finish_reason;
    r.input_tokens = f.usage.prompt_tokens;
    r.output_tokens = f.usage.completion_tokens;
  },
  async 'openai/responses'(c, r) {
    const req = { model: c.model, input: prompt, max_output_tokens: c.max_tokens };
    let f;
    if (c.stream) {
      const s = openai.responses.stream(req);
      for await (const ev of s) {
        r.events++;
        if (ev.type === 'response.output_text.delta') r.deltas += ev.delta;
      }
      f = await s.finalResponse();
    } else {
      f = await openai.responses.create(req);
    }
    r.text = f.output_text;
    for (const it of f.output) if (it.type === 'reasoning') for (const s of it.summary) r.reasoning += s.text;
    r.finish = f.status;
    r.input_tokens = f.usage?.input_tokens ?? -1;
    r.output_tokens = f.usage?.output_tokens ?? -1;
  },
  async 'anthropic/messages'(c, r) {
    const req = { model: c.model, messages, max_tokens: c.max_tokens || 1024 };
    let f;
    if (c.stream) {
      const s = anthropic.messages.stream(req);
      for await (const ev of s) {
        r.events++;
        if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') r.deltas += ev.delta.text;
      }
      f = await s.finalMessage();
    } else {
      f = await anthropic.messages.create(req);
    }
    for (const b of f.content) {
      if (b.type === 'text') r.text += b.text;
      if (b.type === 'thinking') r.reasoning += b.thinking;
    }
    r.finish = f.stop_reason;
    r.input_tokens = f.usage.input_tokens;
    r.output_tokens = f.usage.output_tokens;
  },
  async 'genai/gemini'(c, r) {
    const req = { model: c.model, contents: prompt, config: c.max_tokens ? { maxOutputTokens: c.max_tokens } : {} };
    const take = (resp) => {
      const cand = resp.candidates?.[0];
      for (const p of cand?.content?.parts ?? []) {
        if (p.thought) r.reasoning += p.text ?? '';
        else if (p.text) r.deltas += p.text;
      }
      if (cand?.finishReason) r.finish = cand.finishReason;
      if (resp.usageMetadata) {
        r.input_tokens = resp.usageMetadata.promptTokenCount;
        r.output_tokens = (resp.usageMetadata.candidatesTokenCount ?? 0) + (resp.usageMetadata.thoughtsTokenCount ?? 0);
      }
    };
    if (c.stream) {
      for await (const chunk of await genai.models.generateContentStream(req)) {
        r.events++;
        take(chunk);
      }
      r.text = r.deltas;
      return;
    }
    const resp = await genai.models.generateContent(req);
    take(resp);
    r.text = resp.text ?? '';
    r.deltas = '';
  },
  async 'cohere/cohere'(c, r) {
    const req = { model: c.model, messages, maxTokens: c.max_tokens };
    const opts = { maxRetries: 0 };
    if (c.stream) {
      for await (const ev of await cohere.chatStream(req, opts)) {
        r.events++;
        if (ev.type === 'content-delta') {
          const ct = ev.delta?.message?.content;
          if (ct?.text !== undefined) r.deltas += ct.text;
          if (ct?.thinking !== undefined) r.reasoning += ct.thinking;
        }
        if (ev.type === 'message-end') {
          r.finish = ev.delta?.finishReason ?? '';
          r.input_tokens = ev.delta?.usage?.tokens?.inputTokens ?? -1;
          r.output_tokens = ev.delta?.usage?.tokens?.outputTokens ?? -1;
        }
      }
      r.text = r.deltas;
      return;
    }
    const f = await cohere.chat(req, opts);
    for (const ct of f.message?.content ?? []) {
      if (ct.type === 'text') r.text += ct.text;
      if (ct.type === 'thinking') r.reasoning += ct.thinking;
    }
    r.finish = f.finishReason;
    r.input_tokens = f.usage?.tokens?.inputTokens ?? -1;
    r.output_tokens = f.usage?.tokens?.outputTokens ?? -1;
  },
  // Endpoints the mock does not serve: each SDK must get its API's own error.
  async 'ollama/unknown-path'(c, r) {
    await ollama.generate({ model: c.model, prompt, stream: false });
  },
  async 'cohere/unknown-path'(c, r) {
    // /v2/parse: the mock serves embed and rerank now, not parse.
    await cohere.parse({ model: c.model, document: { type: 'image_url', imageUrl: 'data:image/png;base64,iVBORw0KGgo=' }, outputFormat: 'markdown' }, { maxRetries: 0 });
  },
  async 'ollama/ollama'(c, r) {
    const req = { model: c.model, messages, options: c.max_tokens ? { num_predict: c.max_tokens } : {} };
    const take = (part) => {
      r.reasoning += part.message?.thinking ?? '';
      if (part.done) {
        r.finish = part.done_reason;
        r.input_tokens = part.prompt_eval_count;
        r.output_tokens = part.eval_count;
      }
    };
    if (c.stream) {
      for await (const part of await ollama.chat({ ...req, stream: true })) {
        r.events++;
        r.deltas += part.message?.content ?? '';
        take(part);
      }
      r.text = r.deltas;
      return;
    }
    const f = await ollama.chat({ ...req, stream: false });
    r.text = f.message.content;
    take(f);
  },
};

// senders call each SDK's request method with a case's params as they are.
const senders = {
  'openai/chat': (p) => openai.chat.completions.create(p),
  'openai/responses': (p) => openai.responses.create(p),
  'anthropic/messages': (p) => anthropic.messages.create(p),
  'genai/gemini': (p) => genai.models.generateContent(p),
  'cohere/cohere': (p) => cohere.chat(p, { maxRetries: 0 }),
  'ollama/ollama': (p) => ollama.chat({ ...p, stream: false }),
};

async function send(c) {
  const f = senders[c.sdk + '/' + c.dialect];
  if (!f) return { id: c.id, error: `no sender for ${c.sdk}/${c.dialect}` };
  try {
    await f(c.params);
    return { id: c.id, error: null };
  } catch (e) {
    return { id: c.id, error: String(e?.message ?? e).slice(0, 300) };
  }
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
const results = [];
for (const c of cases) results.push(process.argv[3] === 'send' ? await send(c) : await run(c));
process.stdout.write(JSON.stringify(results) + '\n');
