// Images in prompts and structured output (issue 25): image() parts and
// response_format, mapped to each dialect's shape; the helper's verdict on
// a structured answer.

import { METRICS } from './names.js';
import { plainObject, truncate } from './internal/values.js';

// A chat() body is in the OpenAI chat shape: a message content may hold
// image parts ({type: 'image_url', image_url: {url, detail}}, as image()
// makes them) beside text parts, and response_format asks for JSON
// ({type: 'json_object'} or {type: 'json_schema', json_schema: {name,
// schema, strict}}). mediaBody turns both into the dialect's own shape.

/**
 * An image part of a chat message: url is a data URL
 * (data:image/png;base64,...) or an http(s) URL; options.detail is
 * 'low', 'high' or 'auto' (OpenAI's; other APIs ignore it).
 */
export function image(url, options) {
  const o = options === undefined || options === null ? {} : plainObject(options, 'image options');
  if (typeof url !== 'string' || !(parseDataURL(url) !== null || /^https?:\/\/[^/]/i.test(url))) {
    throw new TypeError(`llmstream: image(url): want a data URL (data:image/png;base64,...) or an http(s) URL, got ${JSON.stringify(truncate(String(url), 60))}`);
  }
  const part = { type: 'image_url', image_url: { url: url } };
  if (o.detail !== undefined) {
    if (['low', 'high', 'auto'].indexOf(o.detail) < 0) {
      throw new TypeError(`llmstream: image: detail must be 'low', 'high' or 'auto', got ${JSON.stringify(o.detail)}`);
    }
    part.image_url.detail = o.detail;
  }
  return part;
}

export function isImagePart(p) {
  return p !== null && typeof p === 'object' && p.type === 'image_url' && p.image_url !== null &&
    typeof p.image_url === 'object' && typeof p.image_url.url === 'string';
}

// parseDataURL splits data:<media type>;base64,<data>; null for anything else.
function parseDataURL(url) {
  const m = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/i.exec(url);
  return m === null ? null : { mediaType: m[1].toLowerCase(), data: m[2] };
}

// The media type of an image by URL, from its extension (Gemini's fileData
// needs one); image/jpeg when it has none we know.
function urlMediaType(url) {
  const m = /\.(png|jpe?g|gif|webp)(?:[?#]|$)/i.exec(url);
  if (m === null) return 'image/jpeg';
  const ext = m[1].toLowerCase();
  return ext === 'jpg' ? 'image/jpeg' : 'image/' + ext;
}

// Gemini: inlineData for a data URL, fileData for a URL, in the
// lowerCamelCase of the rest of the body (as @google/genai sends them; the
// API reads the snake_case spelling too).
export function geminiImagePart(p) {
  const d = parseDataURL(p.image_url.url);
  if (d !== null) return { inlineData: { mimeType: d.mediaType, data: d.data } };
  return { fileData: { mimeType: urlMediaType(p.image_url.url), fileUri: p.image_url.url } };
}

// Anthropic: an image block with a base64 or url source.
function anthropicImagePart(p) {
  const d = parseDataURL(p.image_url.url);
  if (d !== null) return { type: 'image', source: { type: 'base64', media_type: d.mediaType, data: d.data } };
  return { type: 'image', source: { type: 'url', url: p.image_url.url } };
}

// OpenAI Responses: input_text and input_image parts.
function responsesPart(p) {
  if (isImagePart(p)) return { type: 'input_image', image_url: p.image_url.url, detail: p.image_url.detail || 'auto' };
  if (p && p.type === 'text' && typeof p.text === 'string') return { type: 'input_text', text: p.text };
  return p;
}

// ollama: the text in content, the images (base64 only) in images.
function ollamaMessage(m, i) {
  const texts = [];
  const images = [];
  for (const p of m.content) {
    if (isImagePart(p)) {
      const d = parseDataURL(p.image_url.url);
      if (d === null) {
        throw new TypeError(`llmstream: chat: messages[${i}]: ollama takes images as base64 only; give a data URL, not ${JSON.stringify(truncate(p.image_url.url, 60))}`);
      }
      images.push(d.data);
    } else if (p && typeof p.text === 'string') {
      texts.push(p.text);
    }
  }
  const out = Object.assign({}, m, { content: texts.join('\n') });
  if (images.length > 0) out.images = (Array.isArray(m.images) ? m.images : []).concat(images);
  return out;
}

// mapContent returns messages with each array content's parts mapped by fn
// (a message in the caller's body is never changed).
function mapContent(messages, fn) {
  return messages.map((m) => (m && Array.isArray(m.content) ? Object.assign({}, m, { content: m.content.map(fn) }) : m));
}

// responseSchema is a response_format's JSON schema: null for json_object,
// undefined when it asks for no JSON ('text' or none).
function responseSchema(rf, api) {
  if (rf === null || typeof rf !== 'object') {
    throw new TypeError(`llmstream: chat: response_format must be an object ({type: 'json_object'} or {type: 'json_schema', json_schema: {name, schema}}) for api ${api}`);
  }
  if (rf.type === 'json_object') return null;
  if (rf.type === 'json_schema') {
    const js = rf.json_schema;
    if (js === null || typeof js !== 'object' || js.schema === null || typeof js.schema !== 'object') {
      throw new TypeError('llmstream: chat: response_format {type: \'json_schema\'} needs json_schema: {name, schema: {...}}');
    }
    return js.schema;
  }
  return undefined;
}

// mediaBody maps a chat() body's image parts and response_format to api's
// shape (OpenAI chat and Cohere v2 take both as they are, but Cohere's
// json_schema is the schema itself); Gemini's parts are made by geminiParts.
// A body field the dialect names itself (text, output_config,
// generationConfig, format) wins over response_format.
export function mediaBody(api, b) {
  const msgs = Array.isArray(b.messages) ? b.messages : null;
  if (msgs !== null) {
    if (api === 'openai-responses') b.messages = mapContent(msgs, responsesPart);
    if (api === 'anthropic-messages') b.messages = mapContent(msgs, (p) => (isImagePart(p) ? anthropicImagePart(p) : p));
    if (api === 'ollama') b.messages = msgs.map((m, i) => (m && Array.isArray(m.content) ? ollamaMessage(m, i) : m));
  }
  if (b.response_format === undefined || api === 'openai-chat' || api === 'openai-completions') return b;
  const rf = b.response_format;
  const schema = responseSchema(rf, api);
  if (schema === undefined) return b; // plain text
  delete b.response_format;
  switch (api) {
    case 'openai-responses': {
      const f = schema === null ? { type: 'json_object' } : Object.assign({ type: 'json_schema', name: rf.json_schema.name || 'response', schema: schema },
        rf.json_schema.strict === undefined ? {} : { strict: rf.json_schema.strict });
      if (b.text === undefined) b.text = { format: f };
      break;
    }
    case 'anthropic-messages':
      if (schema === null) {
        throw new TypeError('llmstream: chat: anthropic-messages has no JSON mode without a schema: give response_format {type: \'json_schema\', json_schema: {schema}} (sent as output_config.format)');
      }
      if (b.output_config === undefined && b.output_format === undefined) b.output_config = { format: { type: 'json_schema', schema: schema } };
      break;
    case 'gemini': {
      const gc = Object.assign({ responseMimeType: 'application/json' }, schema === null ? {} : { responseJsonSchema: schema });
      b.generationConfig = Object.assign(gc, b.generationConfig);
      break;
    }
    case 'cohere':
      b.response_format = schema === null ? { type: 'json_object' } : { type: 'json_object', json_schema: schema };
      break;
    case 'ollama':
      if (b.format === undefined) b.format = schema === null ? 'json' : schema;
      break;
  }
  return b;
}

// entryImages turns a dataset message's images (docs/dataset.md) into image
// parts after its text.
export function entryImages(m) {
  if (!m || !Array.isArray(m.images) || m.images.length === 0) return m;
  const parts = [{ type: 'text', text: m.content }];
  for (const im of m.images) parts.push(image(im.url));
  return { role: m.role, content: parts };
}

// outputInvalidOf is a request's structured-output verdict: null when the
// answer was not checked, '' when valid, else the reason (not_json, schema,
// tool_calls, too_long).
export function outputInvalidOf(samples, sampleTags) {
  const v = samples[METRICS.outputInvalid];
  if (v === undefined) return null;
  if ((typeof v === 'number' ? v : v[0]) !== 1) return '';
  const own = sampleTags ? sampleTags[METRICS.outputInvalid] : undefined;
  return (own && own[0] && own[0].reason) || 'invalid';
}
