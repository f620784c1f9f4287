// Requests and answers of the JSON contract (DESIGN §8): the request JSON written from the
// caller's messages and options (images replaced by stand-ins, lib/images.js), the library's
// answer read back, and its error as an AnkitaError that names where a lone surrogate is.

import { AnkitaError } from "./error.js";
import { restoreOriginals, withStandIns } from "./images.js";

/**
 * The request of a trim (or a token count): `text` is sent, `value` is what it was written
 * from (to locate a lone surrogate), `originals` maps stand-in URLs back.
 *
 * @param {import("../index.js").Message[]} messages
 * @param {object | null | undefined} options
 */
export function trimRequest(messages, options) {
  if (options === null || options === undefined) options = {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new AnkitaError("invalid_request", `options must be an object, not ${describe(options)}`);
  }
  rejectNonFinite(options);
  const sent = withStandIns(messages);
  return {
    value: { ...options, messages },
    text: serialise({ ...options, messages: sent.messages }, "request"),
    originals: sent.originals,
  };
}

/**
 * The request of a sanitize: the bare array, or `{messages, format}` when options are given.
 *
 * @param {import("../index.js").Message[]} messages
 * @param {object | null | undefined} options
 */
export function sanitizeRequest(messages, options) {
  if (options === null || options === undefined) options = {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new AnkitaError("invalid_request", `options must be an object, not ${describe(options)}`);
  }
  const sent = withStandIns(messages);
  // The core takes the bare array, or {messages, format}; anything else it names as unknown.
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const request = Object.keys(given).length === 0 ? null : { ...given, messages: sent.messages };
  return {
    value: { ...given, messages },
    text: request === null ? serialise(sent.messages, "messages") : serialise(request, "request"),
    originals: sent.originals,
  };
}

// JSON.stringify writes NaN and ±Infinity as null, which the core takes for "not given": a
// budget computed as NaN must not silently turn into no budget.
export function rejectNonFinite(options) {
  for (const [key, item] of Object.entries(options)) {
    if (typeof item === "number" && !Number.isFinite(item)) {
      throw new AnkitaError("invalid_request", `${key} must be a finite number, not ${item}`, {
        path: key,
      });
    }
  }
}

// { profile, model, detail, bytes_per_token } as the core's options JSON (profile is sent as
// image_profile; undefined values are left out); null when there is none.
export function pricingOptions(options) {
  if (options === null || options === undefined) return null;
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new AnkitaError("invalid_request", `options must be an object, not ${describe(options)}`);
  }
  const { profile, model, detail, bytes_per_token, ...unknown } = options;
  const request = { image_profile: profile, model, detail, bytes_per_token, ...unknown };
  for (const key of Object.keys(request)) if (request[key] === undefined) delete request[key];
  rejectNonFinite(request);
  return Object.keys(request).length === 0 ? null : serialise(request, "options");
}

// `system` is there when the core answers it (Anthropic's top-level system, the Responses
// format's instructions, Gemini's system instruction).
export function result(response, originals) {
  const out = {
    messages: restoreOriginals(response.messages, originals),
    report: response.report,
  };
  if (response.system !== undefined) out.system = response.system;
  return out;
}

/**
 * `value` as JSON text; `what` names it in the error when it cannot be written.
 *
 * @param {unknown} value
 * @param {string} what
 * @returns {string}
 */
export function serialise(value, what) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new AnkitaError("invalid_json", `${what} cannot be written as JSON: ${error.message}`, {
      cause: error,
    });
  }
  // JSON.stringify(undefined) and the like: the core answers "not an array/object" for null.
  return text ?? "null";
}

/**
 * A plan answer's report as trim's: its `dropped_ranges` (`[start, end)` pairs) become
 * `dropped_messages`, in the same place, listed out when first read (a long session drops
 * thousands of messages a turn, which few callers read).
 */
export function withDroppedMessages(report) {
  const out = {};
  const define = (value) =>
    Object.defineProperty(out, "dropped_messages", {
      value,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  for (const key of Object.keys(report)) {
    if (key !== "dropped_ranges") {
      out[key] = report[key];
      continue;
    }
    const ranges = report[key];
    Object.defineProperty(out, "dropped_messages", {
      enumerable: true,
      configurable: true,
      get() {
        const list = [];
        for (const [start, end] of ranges) for (let i = start; i < end; i++) list.push(i);
        define(list);
        return list;
      },
      set: define,
    });
  }
  return out;
}

/**
 * Parses a library answer; throws its error as an AnkitaError.
 *
 * @param {string | null} text
 * @param {{ value: unknown, text: string }} [request] what was sent, to locate a lone surrogate
 */
export function answer(text, request) {
  if (typeof text !== "string") {
    throw new AnkitaError("internal", "the native library returned no answer");
  }
  let response;
  try {
    response = JSON.parse(text);
  } catch (error) {
    throw new AnkitaError("internal", `the native library answered invalid JSON: ${error.message}`);
  }
  if (response?.ok === true) return response;
  const error = AnkitaError.fromJSON(response?.error);
  if (error.code === "invalid_json" && request !== undefined) {
    const path = loneSurrogatePath(request);
    if (path !== null) {
      throw new AnkitaError(
        "invalid_json",
        `invalid JSON: ${path} holds a lone UTF-16 surrogate (not valid Unicode)`,
        { path, details: error.details },
      );
    }
  }
  throw error;
}

// JSON.stringify writes a lone UTF-16 surrogate as a "\udXXX" escape (a well-formed pair is
// written as is), which is not Unicode and which the core refuses as invalid JSON. Say where it
// is, so that the caller can mend that string.
function loneSurrogatePath(request) {
  if (!/\\ud[89a-f]/.test(request.text)) return null;
  try {
    return findLoneSurrogate(request.value, "")?.replace(/^\./, "") ?? null;
  } catch {
    return null; // nesting too deep to walk: the core's own message stands
  }
}

function findLoneSurrogate(value, path) {
  if (typeof value === "string") return isWellFormed(value) ? null : path;
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findLoneSurrogate(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!isWellFormed(key)) return `${path}.${key}`;
    const found = findLoneSurrogate(item, `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

function isWellFormed(text) {
  if (typeof text.isWellFormed === "function") return text.isWellFormed();
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/**
 * How a value is named in an error message: its number, `null`, `an array` or `a <type>`.
 *
 * @param {unknown} value
 * @returns {string}
 */
export function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}
