// The request body fields some API takes, and the warning for one none takes.

// The top-level request body fields some API the module speaks takes: the
// OpenAI chat, completions and responses APIs, Anthropic messages, Gemini,
// Cohere v2 chat, Ollama, and the extras of OpenAI-compatible servers (vLLM,
// SGLang, llama.cpp). A chat() body field outside all of them is most likely
// a typo: warnUnknownFields says so (it is still sent).
const KNOWN_FIELDS = new Set([
  // OpenAI chat completions / completions
  'model', 'messages', 'prompt', 'suffix', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n',
  'stream', 'stream_options', 'stop', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs',
  'top_logprobs', 'user', 'seed', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format',
  'reasoning_effort', 'modalities', 'audio', 'prediction', 'service_tier', 'store', 'metadata', 'functions',
  'function_call', 'web_search_options', 'verbosity', 'prompt_cache_key', 'safety_identifier', 'echo', 'best_of',
  // OpenAI responses
  'input', 'instructions', 'max_output_tokens', 'previous_response_id', 'reasoning', 'text', 'truncation',
  'include', 'background', 'max_tool_calls', 'conversation',
  // Anthropic messages
  'system', 'stop_sequences', 'top_k', 'thinking', 'container', 'mcp_servers', 'output_config', 'output_format',
  // Gemini
  'contents', 'systemInstruction', 'generationConfig', 'safetySettings', 'toolConfig', 'cachedContent',
  // Cohere v2 chat
  'documents', 'citation_options', 'safety_mode', 'k', 'p', 'strict_tools',
  // Ollama
  'format', 'options', 'keep_alive', 'think', 'images',
  // vLLM, SGLang, llama.cpp extras
  'min_p', 'repetition_penalty', 'ignore_eos', 'min_tokens', 'use_beam_search', 'length_penalty',
  'stop_token_ids', 'skip_special_tokens', 'spaces_between_special_tokens', 'include_stop_str_in_output',
  'chat_template', 'chat_template_kwargs', 'add_generation_prompt', 'continue_final_message',
  'add_special_tokens', 'guided_json', 'guided_regex', 'guided_choice', 'guided_grammar',
  'guided_decoding_backend', 'structured_outputs', 'priority', 'request_id', 'truncate_prompt_tokens',
  'return_tokens_as_token_ids', 'mm_processor_kwargs', 'cache_salt', 'kv_transfer_params', 'vllm_xargs',
  'regex', 'ebnf', 'json_schema', 'lora_path', 'separate_reasoning', 'stream_reasoning', 'return_hidden_states',
  'cache_prompt', 'n_predict', 'n_probs', 'id_slot', 'grammar', 'typical_p', 'mirostat',
]);
const warnedFields = {}; // per VU: every runtime loads its own copy of this module

// warnUnknownFields warns once per key per VU about body fields no API
// takes, naming the nearest known field when it is a near miss.
export function warnUnknownFields(body) {
  for (const k of Object.keys(body)) {
    if (KNOWN_FIELDS.has(k) || warnedFields[k]) continue;
    warnedFields[k] = true;
    const near = nearestField(k);
    console.warn(`llmstream: chat: unknown request field ${k}${near ? ` (did you mean ${near}?)` : ''}: ` +
      'no API the module speaks takes it; it is sent as given');
  }
}

// nearestField is the known field at most 2 edits from k (and fewer edits
// than k has characters), the nearest first; '' when none is.
function nearestField(k) {
  let best = '';
  let bestD = 3;
  for (const f of KNOWN_FIELDS) {
    if (f.length < 3) continue;
    const d = editDistance(k, f, bestD);
    if (d < bestD && d < k.length) {
      best = f;
      bestD = d;
    }
  }
  return best;
}

// editDistance is the Levenshtein distance of a and b, or at least limit
// when it is limit or more.
function editDistance(a, b, limit) {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let prev = [];
  for (let j = 0; j <= b.length; j++) prev.push(j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur.push(Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = cur;
  }
  return prev[b.length];
}
