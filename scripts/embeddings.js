// embeddings.js — embeddings and rerank under load: each iteration embeds a
// batch of texts and ranks documents against a query, through the helper, with
// the llm_embed_* and llm_rerank_* metrics (docs/embeddings.md), apart from
// generation's.
//
//   xk6-llmstream run scripts/embeddings.js                   # against the built-in mock
//   LLM_BASE_URL=https://api.openai.com/v1 LLM_API_KEY=sk-... LLM_MODEL=text-embedding-3-small \
//     LLM_RERANK=0 xk6-llmstream run scripts/embeddings.js     # embeddings only
//   LLM_BASE_URL=http://127.0.0.1:8080 LLM_RERANK_API=tei LLM_EMBED=0 \
//     xk6-llmstream run scripts/embeddings.js                  # a TEI reranker
//
// Environment (k6 -e NAME=value or the process environment):
//   LLM_BASE_URL     API base URL (set to the mock by `xk6-llmstream run` when not given)
//   LLM_API_KEY      API key (never printed, never a tag)
//   LLM_MODEL        model name (default: mock)
//   LLM_EMBED_API    openai-embeddings (default) | cohere-embed
//   LLM_RERANK_API   rerank (vLLM, default) | cohere-rerank | tei
//   LLM_EMBED        1 (default) embeds each iteration, 0 does not
//   LLM_RERANK       1 (default) reranks each iteration, 0 does not
//   LLM_BATCH        texts per embeddings request, and documents per rerank (default: 8)
//   LLM_VUS          concurrent VUs (default: 2)
//   LLM_ITERATIONS   iterations per VU (default: 10)
//
// The module is imported by relative path; a copy of this script elsewhere must point
// the import at llmstream.js (a path, file:// or https:// URL).

import { check } from 'k6';
import { Client } from '../xk6-llmstream/js/llmstream.js';

const llm = new Client({
  baseURL: __ENV.LLM_BASE_URL,
  apiKey: __ENV.LLM_API_KEY,
  model: __ENV.LLM_MODEL || 'mock',
});

const embedAPI = /** @type {'openai-embeddings' | 'cohere-embed'} */ (__ENV.LLM_EMBED_API || 'openai-embeddings');
const rerankAPI = __ENV.LLM_RERANK_API || 'rerank';
const batch = Number(__ENV.LLM_BATCH || 8);
const doEmbed = (__ENV.LLM_EMBED || '1') !== '0';
const doRerank = (__ENV.LLM_RERANK || '1') !== '0';

/** @type {Record<string, string[]>} */
const thresholds = {};
if (doEmbed) thresholds.llm_embed_failed = ['rate==0'];
if (doRerank) thresholds.llm_rerank_failed = ['rate==0'];

export const options = {
  scenarios: {
    embeddings: {
      executor: 'per-vu-iterations', vus: Number(__ENV.LLM_VUS || 2),
      iterations: Number(__ENV.LLM_ITERATIONS || 10), maxDuration: '10m',
    },
  },
  // Any failed call fails the run (exit code 99).
  thresholds: thresholds,
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max', 'count'],
};

const words = ['latency', 'token', 'batch', 'vector', 'query', 'cache', 'stream', 'model', 'rank', 'score'];

/** A deterministic text of a few words for iteration i, item j. @param {number} i @param {number} j */
function text(i, j) {
  const n = 3 + ((i + j) % 5);
  const out = [];
  for (let k = 0; k < n; k++) out.push(words[(i * 7 + j * 3 + k) % words.length]);
  return out.join(' ');
}

export default function () {
  const texts = [];
  for (let j = 0; j < batch; j++) texts.push(text(__ITER, j));
  if (doEmbed) {
    const e = llm.embed({ input: texts }, { api: embedAPI });
    check(e, { 'embedded without error': (x) => x.ok, 'one vector per input': (x) => x.results === x.batch });
    if (!e.ok) console.warn(`embed failed: ${e.errorKind}: ${e.error ? e.error.message : ''}`);
  }
  if (doRerank) {
    const tei = rerankAPI === 'tei';
    const r = llm.rerank({ query: text(__ITER, batch), documents: texts },
      { api: /** @type {'rerank' | 'cohere-rerank'} */ (tei ? 'rerank' : rerankAPI), tei: tei });
    check(r, { 'ranked without error': (x) => x.ok, 'documents ranked': (x) => x.results > 0 });
    if (!r.ok) console.warn(`rerank failed: ${r.errorKind}: ${r.error ? r.error.message : ''}`);
  }
}
