// The request body of each dialect, built from a chat() body.

import { mediaBody, isImagePart, geminiImagePart } from './media.js';

/**
 * Turns a chat() body (OpenAI chat shape: messages, max_tokens, ...) into the
 * request body of dialect api. A body already in the dialect's own shape
 * (input, contents, ...) is left as it is; the dialect's own fields win.
 */
export function dialectBody(api, body) {
  const b = mediaBody(api, Object.assign({}, body));
  const move = (from, to) => {
    if (b[from] !== undefined && b[to] === undefined) b[to] = b[from];
    delete b[from];
  };
  switch (api) {
    case 'openai-responses':
      move('messages', 'input');
      move('max_tokens', 'max_output_tokens');
      break;
    case 'gemini':
      return geminiBody(b);
    case 'ollama':
      if (b.max_tokens !== undefined) {
        b.options = Object.assign({ num_predict: b.max_tokens }, b.options);
        delete b.max_tokens;
      }
      break;
  }
  return b;
}

// geminiBody maps messages to contents (assistant → model) and system
// messages to systemInstruction, max_tokens, temperature and top_p to
// generationConfig; the model goes into the URL, not the body.
function geminiBody(b) {
  delete b.model;
  if (Array.isArray(b.messages) && b.contents === undefined) {
    const system = [];
    b.contents = [];
    for (const m of b.messages) {
      const parts = geminiParts(m && m.content);
      if (m && (m.role === 'system' || m.role === 'developer')) system.push(...parts);
      else b.contents.push({ role: m && m.role === 'assistant' ? 'model' : 'user', parts: parts });
    }
    if (system.length > 0 && b.systemInstruction === undefined) b.systemInstruction = { parts: system };
  }
  delete b.messages;
  const gc = {};
  const fields = { max_tokens: 'maxOutputTokens', temperature: 'temperature', top_p: 'topP' };
  for (const k of Object.keys(fields)) {
    if (b[k] !== undefined) gc[fields[k]] = b[k];
    delete b[k];
  }
  if (Object.keys(gc).length > 0) b.generationConfig = Object.assign(gc, b.generationConfig);
  return b;
}

// geminiParts is a chat message content (a string, text and image parts)
// as parts; images become inlineData or fileData (geminiImagePart).
function geminiParts(content) {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter((p) => p && (typeof p.text === 'string' || isImagePart(p)))
    .map((p) => (isImagePart(p) ? geminiImagePart(p) : { text: p.text }));
}

/**
 * The dialects fixedOutputTokens can pin, and whether the vLLM/SGLang extras
 * (ignore_eos, min_tokens) are sent: OpenAI-compatible servers take them;
 * Anthropic's API refuses unknown fields. The length field is max_tokens (or
 * max_completion_tokens when the request uses it).
 */
export const FIXED_LENGTH_DIALECTS = Object.freeze({
  'openai-chat': Object.freeze({ extras: true }),
  'openai-completions': Object.freeze({ extras: true }),
  'anthropic-messages': Object.freeze({ extras: false }),
  // max_tokens becomes the dialect's own field (dialectBody); these servers
  // have no ignore_eos, so the length is a cap and mismatches are counted.
  'openai-responses': Object.freeze({ extras: false }),
  'gemini': Object.freeze({ extras: false }),
  'cohere': Object.freeze({ extras: false }),
  'ollama': Object.freeze({ extras: false }),
});
