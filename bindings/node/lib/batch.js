// trimMany: many requests at once (a dataset), answered by the core's batch
// (ankita_trim_many) on a koffi worker thread, itself spreading the requests over every core.

import { AnkitaError } from "./error.js";
import { native } from "#native";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Trims many requests at once, in order: each answer is the JSON text of the contract (DESIGN
 * §8) for its request, `{"ok":true,"messages":[...],"report":{...}}` or the request's own
 * `{"ok":false,"error":{...}}` — a bad request never rejects the batch. The native work runs
 * off the event loop, on `threads` threads (default: every core).
 *
 * A request is JSON text (a string, or a `Buffer`/`Uint8Array` of UTF-8: an object, or a bare
 * messages array read as `{"messages": [...]}`), a request object (`{ messages, context_tokens
 * }`) or a messages array. `options` are request keys (`context_tokens`, `model`, `format`, …)
 * that fill in the keys a request lacks — a request's own keys win — as `ankita trim --jsonl`
 * does with its flags; `threads` is not a request key.
 *
 * @param {Iterable<string | Uint8Array | object>} requests
 * @param {import("../index.js").TrimManyOptions} [options]
 * @returns {Promise<string[]>} rejects with an AnkitaError (`invalid_request`) for an unknown
 *   option or a bad option value, checked once before any request, and a TypeError for
 *   `requests` that are not iterable or a `threads` that is not a positive integer
 *
 * @example
 * const answers = await trimMany(lines, { context_tokens: 8192, model: "gpt-4o" });
 * const kept = answers.map((a) => JSON.parse(a)).filter((a) => a.ok);
 */
export async function trimMany(requests, options = {}) {
  const { threads, ...keys } = options ?? {};
  let count = 0;
  if (threads !== undefined && threads !== null) {
    if (!Number.isSafeInteger(threads) || threads < 1) {
      throw new TypeError(`threads must be a positive integer, not ${String(threads)}`);
    }
    count = threads;
  }
  if (requests === null || typeof requests !== "object" || !(Symbol.iterator in requests)) {
    throw new TypeError("requests must be an iterable of requests");
  }
  if (typeof requests === "string" || ArrayBuffer.isView(requests)) {
    throw new TypeError("requests must be an iterable of requests, not one request");
  }
  const texts = [];
  const failed = new Map();
  let i = 0;
  for (const request of requests) {
    const text = requestText(request, i);
    if (text.error) {
      failed.set(i, text.error);
      texts.push("{}");
    } else {
      texts.push(text.text);
    }
    i++;
  }
  const defaults = Object.keys(keys).length > 0 ? JSON.stringify(keys) : null;
  const { status, answers } = await new Promise((resolve, reject) => {
    native().trimManyAsync(texts, defaults, count, (error, status, answers) => {
      if (error) {
        const message = `native call failed: ${error?.message ?? error}`;
        reject(new AnkitaError("internal", message, { cause: error }));
      } else {
        resolve({ status, answers });
      }
    });
  });
  const response = JSON.parse(status);
  if (response?.ok !== true) throw AnkitaError.fromJSON(response?.error);
  return answers.map((answer, i) => {
    if (failed.has(i)) return failed.get(i);
    if (typeof answer !== "string") {
      throw new AnkitaError("internal", `the native library returned no answer for requests[${i}]`);
    }
    return answer;
  });
}

/** A request's JSON text, or its error answer. */
function requestText(request, i) {
  const fail = (code, message) => ({
    error: JSON.stringify({ ok: false, error: { code, message } }),
  });
  let text;
  if (typeof request === "string") {
    text = request;
  } else if (ArrayBuffer.isView(request)) {
    try {
      text = utf8.decode(request);
    } catch {
      return fail("invalid_json", `requests[${i}] is not valid UTF-8`);
    }
  } else if (request !== null && typeof request === "object") {
    const value = Array.isArray(request) ? { messages: request } : request;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      return fail("invalid_request", `requests[${i}] is not JSON: ${error?.message ?? error}`);
    }
  } else {
    return fail(
      "invalid_request",
      `a request must be JSON text, a request object or a messages array, not ${request === null ? "null" : typeof request}`,
    );
  }
  if (LONE_SURROGATE.test(text)) {
    return fail("invalid_json", `requests[${i}] holds a lone UTF-16 surrogate (not valid Unicode)`);
  }
  // The C entry reads NUL-terminated text; a raw NUL is never part of JSON text anyway.
  if (text.includes("\0")) {
    return fail("invalid_json", `requests[${i}] holds a NUL character (not valid in JSON text)`);
  }
  return { text };
}
