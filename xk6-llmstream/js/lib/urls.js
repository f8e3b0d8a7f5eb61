// The endpoint URL of a Client: base URL plus the dialect's path.

import { APIS } from './names.js';

/**
 * Joins a base URL and the dialect's default path. A base URL that already ends
 * in /v1 (as OpenAI SDKs expect) does not get a second /v1. An explicit `path` is
 * appended to the base URL as given.
 */
export function endpointURL(baseURL, api, path) {
  const base = String(baseURL).replace(/\/+$/, '');
  if (path !== undefined && path !== null && path !== '') {
    const p = String(path);
    return base + (p.charAt(0) === '/' || p.charAt(0) === '?' ? p : '/' + p);
  }
  const def = APIS[api];
  if (def === undefined) {
    throw new TypeError(`llmstream: unknown api ${JSON.stringify(api)}`);
  }
  if (/\/v1$/.test(base) && def.indexOf('/v1/') === 0) return base + def.slice(3);
  return base + def;
}

// The request paths of the APIs (APIS' paths after /v1), which a base URL
// must not end in: the Client adds them.
const ENDPOINT_PATHS = ['/chat/completions', '/completions', '/messages', '/responses', '/v2/chat', '/api/chat', '/api/generate'];

// checkBaseURL refuses a base URL that ends in an endpoint path
// (…/v1/chat/completions), naming the base URL to give instead. The URL is
// shown without user info, query or fragment, which may hold a key.
export function checkBaseURL(baseURL) {
  const m = /^(https?:\/\/)(?:[^@/?#]*@)?([^/?#]*)([^?#]*)/i.exec(String(baseURL));
  if (m === null) return;
  const path = m[3].replace(/\/+$/, '');
  for (const p of ENDPOINT_PATHS) {
    if (path.length >= p.length && path.slice(path.length - p.length) === p) {
      throw new TypeError(`llmstream: new Client: baseURL ${m[1]}${m[2]}${m[3]} ends in the endpoint path ${p}: ` +
        `give the base URL, ${m[1]}${m[2]}${path.slice(0, path.length - p.length)} (the Client adds the API's path; ` +
        'or set the option path to the whole path)');
    }
  }
}

// modelURL puts the model into a path with {model} (Gemini's), escaped.
export function modelURL(template, model) {
  return template.indexOf('{model}') < 0 ? template : template.replace('{model}', encodeURIComponent(model));
}
