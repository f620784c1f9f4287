// ankita for Node and Electron: trim an OpenAI-style chat history to its context budget.
//
// Every call is JSON in, JSON out through the C ABI (DESIGN §8, §9): the request is serialised
// here, the native call runs (on a koffi worker thread for the *Async variants), and the answer
// is parsed back; a failed answer becomes an AnkitaError.

import { AnkitaError } from "./lib/error.js";
import { takesSystem } from "./lib/formats.js";
import { probeText, probeTextOfString, restoreOriginals, withStandIns } from "./lib/images.js";
import { base64 } from "./lib/bytes.js";
import { native } from "#native";
import {
  firstTail,
  planMessages,
  sanitizeTailRequest,
  sanitizesFromTail,
  sizedOf,
  tailOf,
  tailRequest,
  tailStats,
  windows,
} from "./lib/tail.js";

export { AnkitaError };
export { trimMany } from "./lib/batch.js";

const MAX_U32 = 0xffff_ffff;

// Symbol.dispose (Node 20+; `using` declarations); the well-known name before that.
const DISPOSE = Symbol.dispose ?? Symbol.for("nodejs.dispose");

/**
 * Trims a chat history to its budget (DESIGN §6).
 *
 * `options` are the request keys of the JSON contract, in its snake_case: `max_bytes`,
 * `context_tokens`, `max_output_tokens`, `tools`, `memory`, `overhead_bytes`,
 * `bytes_per_token`, `max_messages`, `image_profile`, `on_image_overflow`, `format` (`openai`,
 * `anthropic`, `responses`, `gemini` or `ai-sdk`), `system` (the Anthropic format's top-level system,
 * the Responses format's instructions or Gemini's system instruction, answered back as
 * `result.system`), …; they are passed through unchanged, so an unknown key is an
 * `invalid_request` error, not a silent default.
 *
 * A long history is read from its newest messages (README, "Long histories"): the answer is
 * the whole history's, and messages returned unchanged are the caller's own objects.
 *
 * @param {import("./index.js").Message[]} messages the history, oldest first
 * @param {import("./index.js").TrimOptions} [options]
 * @returns {import("./index.js").TrimResult} the kept messages and what was removed or changed
 * @throws {AnkitaError} with `code`, `path` and `details` (such as `breakdown`)
 *
 * @example
 * const { messages: kept, report } = trim(history, { context_tokens: 8192, max_output_tokens: 1024 });
 * if (report.dropped_images.length) console.log("some screenshots were left out");
 */
export function trim(messages, options) {
  return converse(new TailTrim(messages, options));
}

/**
 * Like {@link trim}, but the native work runs on a worker thread: the event loop (Electron's
 * main process) stays free while the history is trimmed. Serialising the request and parsing
 * the answer still happen on the calling thread.
 *
 * @param {import("./index.js").Message[]} messages
 * @param {import("./index.js").TrimOptions} [options]
 * @returns {Promise<import("./index.js").TrimResult>} rejects with an AnkitaError
 */
export async function trimAsync(messages, options) {
  return converseAsync(new TailTrim(messages, options, true));
}

/**
 * Repairs a restored session (DESIGN §5): orphan tool replies, broken or unanswered tool calls,
 * unknown roles and empty messages. Nothing is trimmed.
 *
 * @param {import("./index.js").Message[]} messages
 * @param {import("./index.js").SanitizeOptions} [options] `format`: `openai` (default),
 *   `anthropic` (Anthropic Messages: `tool_use`/`tool_result` blocks), `gemini` (Gemini
 *   contents: `functionCall`/`functionResponse` parts) — in these two, turns of one role that
 *   repair leaves side by side merge — or `responses` (OpenAI Responses input items: orphan
 *   outputs, calls without outputs and their reasoning items, reasoning items with nothing
 *   after them)
 * @returns {import("./index.js").SanitizeResult}
 * @throws {AnkitaError}
 *
 * @example
 * const { messages: repaired, report } = sanitize(JSON.parse(savedSession));
 * sanitize(claudeHistory, { format: "anthropic" });
 */
export function sanitize(messages, options) {
  return converse(new TailSanitize(messages, options));
}

/**
 * Like {@link sanitize}, with the native work on a worker thread.
 *
 * @param {import("./index.js").Message[]} messages
 * @param {import("./index.js").SanitizeOptions} [options]
 * @returns {Promise<import("./index.js").SanitizeResult>} rejects with an AnkitaError
 */
export async function sanitizeAsync(messages, options) {
  return converseAsync(new TailSanitize(messages, options, true));
}

/**
 * Runs a tail conversation (`TailTrim`, `TailSanitize`) with the library: each request it asks
 * for (a window of the newest messages, wider ones, or the whole history) until it has its
 * answer.
 *
 * @template T
 * @param {{ next(): { call: string, text: string }, read(answer: string, request: { call: string, text: string }): T | null }} conversation
 * @returns {T}
 */
function converse(conversation) {
  for (;;) {
    const request = conversation.next();
    const done = conversation.read(native()[request.call](request.text), request);
    if (done !== null) return done;
  }
}

/**
 * {@link converse} with each native call on a worker thread.
 *
 * @template T
 * @param {{ next(): { call: string, text: string }, read(answer: string, request: { call: string, text: string }): T | null }} conversation
 * @returns {Promise<T>}
 */
async function converseAsync(conversation) {
  for (;;) {
    const request = conversation.next();
    const done = conversation.read(await callAsync(native()[request.call], request.text), request);
    if (done !== null) return done;
  }
}

/**
 * Counts a chat history the way {@link trim} prices it: in the model's own tokens when its
 * tokenizer is known (`model` such as `gpt-4o`, or `tokenizer`: `o200k_base`, `cl100k_base`;
 * an estimate with a safety factor for Claude and Gemini models), else in bytes.
 *
 * @param {import("./index.js").Message[]} messages
 * @param {import("./index.js").CountOptions} [options] `model`, `tokenizer`, `token_factor`,
 *   `format`, `system`, `image_profile`
 * @returns {import("./index.js").TokenCount} `total`, `messages` (each message's cost),
 *   `unit`, `tokenizer`, `exact`
 * @throws {AnkitaError}
 *
 * @example
 * countTokens([{ role: "user", content: "Hello, world" }], { model: "gpt-4o" }).total; // 7
 */
export function countTokens(messages, options) {
  const request = trimRequest(messages, options);
  const { ok, ...count } = answer(native().countTokens(request.text), request);
  void ok;
  return count;
}

/**
 * Reads an image's format and pixel size from its header alone, and prices it.
 *
 * @param {string | Uint8Array | ArrayBuffer} image a data URL or bare base64 text, or the
 *   image's bytes (a Buffer, Uint8Array or ArrayBuffer)
 * @param {import("./index.js").PricingOptions} [options] `profile` or `model` (not both;
 *   default profile `ankita`), `detail` (`low` | `high` | `auto`), `bytes_per_token` (default 4)
 * @returns {import("./index.js").ImageInfo | null} null when the image cannot be decoded
 *   (unknown format, truncated header, zero size…)
 * @throws {AnkitaError} `invalid_argument` for anything else than text or bytes,
 *   `invalid_request` for an unknown profile or option (a model no family claims is priced by
 *   the default profile, with an `unknown_model` entry in `warnings`; `strict_model: true`
 *   makes it an error)
 *
 * @example
 * probeImage(fs.readFileSync("screenshot.png"));
 * // { format: "png", width: 1700, height: 2200, tokens: 765, budget_bytes: 3060 }
 */
export function probeImage(image, options) {
  let text;
  if (typeof image === "string") {
    text = probeTextOfString(image);
  } else if (image instanceof Uint8Array) {
    text = probeText(image);
  } else if (image instanceof ArrayBuffer) {
    text = probeText(new Uint8Array(image));
  } else {
    throw new AnkitaError(
      "invalid_argument",
      `image must be a data URL, base64 text or the image's bytes, not ${describe(image)}`,
    );
  }
  // A C string ends at the first NUL: refuse rather than probe a prefix.
  if (text.includes("\0")) {
    throw new AnkitaError("invalid_argument", "image text holds a NUL character");
  }
  const pricing = pricingOptions(options);
  const response = answer(
    pricing === null ? native().probeImage(text) : native().probeImageWith(text, pricing),
  );
  if (response.format === null || response.format === undefined) return null;
  const { format, width, height, tokens, budget_bytes, warnings } = response;
  const info = { format, width, height, tokens, budget_bytes };
  if (warnings !== undefined) info.warnings = warnings;
  return info;
}

/**
 * Reads a PDF's page count and page size, or an audio file's duration (WAV, FLAC, MP3, Ogg
 * Vorbis/Opus, MP4), from its structure, and prices it.
 *
 * @param {string | Uint8Array | ArrayBuffer} file a data URL or bare base64 text, or the
 *   file's bytes (a Buffer, Uint8Array or ArrayBuffer)
 * @param {import("./index.js").PricingOptions} [options] `profile` or `model` (not both;
 *   default profile `ankita`), `detail` (Gemini 3's media resolution), `bytes_per_token`
 * @returns {import("./index.js").FileInfo | null} null when the file cannot be read
 *   (encrypted, damaged, neither a PDF nor audio)
 * @throws {AnkitaError} `invalid_argument` for anything else than text or bytes,
 *   `invalid_request` for an unknown profile, model or option
 *
 * @example
 * probeFile(fs.readFileSync("report.pdf"), { model: "gemini-2.5-flash" });
 * // { kind: "document", format: "pdf", pages: 10, page_width: 612, ..., tokens: 2580, ... }
 */
export function probeFile(file, options) {
  let text;
  if (typeof file === "string") {
    text = file;
  } else if (file instanceof Uint8Array) {
    text = base64(file);
  } else if (file instanceof ArrayBuffer) {
    text = base64(new Uint8Array(file));
  } else {
    throw new AnkitaError(
      "invalid_argument",
      `file must be a data URL, base64 text or the file's bytes, not ${describe(file)}`,
    );
  }
  if (text.includes("\0")) {
    throw new AnkitaError("invalid_argument", "file text holds a NUL character");
  }
  const pricing = pricingOptions(options);
  const response = answer(native().probeFile(text, pricing));
  if (response.kind === null || response.kind === undefined) return null;
  const { ok, error, ...info } = response;
  void ok;
  void error;
  return info;
}

/**
 * Vision tokens of an image of `width` × `height` pixels under a pricing profile.
 *
 * @param {number} width pixels, an integer from 1 to 2³²−1
 * @param {number} height pixels, an integer from 1 to 2³²−1
 * @param {import("./index.js").PricingOptions} [options] `profile` or `model` (not both;
 *   default profile `ankita`), `detail` (`low` | `high` | `auto`), `bytes_per_token` (default 4)
 * @returns {import("./index.js").ImageEstimate} `{ tokens, budget_bytes }`
 * @throws {AnkitaError} `invalid_argument` for a size that is not a positive integer,
 *   `invalid_request` for an unknown profile or option (a model no family claims is priced by
 *   the default profile, with an `unknown_model` entry in `warnings`; `strict_model: true`
 *   makes it an error)
 *
 * @example
 * estimateImageTokens(1700, 2200); // { tokens: 765, budget_bytes: 3060 }
 */
export function estimateImageTokens(width, height, options = {}) {
  for (const [name, value] of [
    ["width", width],
    ["height", height],
  ]) {
    if (!Number.isInteger(value) || value < 0 || value > MAX_U32) {
      throw new AnkitaError(
        "invalid_argument",
        `${name} must be an integer from 1 to ${MAX_U32}, not ${describe(value)}`,
      );
    }
  }
  const response = answer(
    native().estimateImageTokens(width, height, pricingOptions(options) ?? "{}"),
  );
  const estimate = { tokens: response.tokens, budget_bytes: response.budget_bytes };
  if (response.warnings !== undefined) estimate.warnings = response.warnings;
  return estimate;
}

/**
 * The native library's version, e.g. `"0.1.0"`.
 *
 * @returns {string}
 */
export function version() {
  return native().version();
}

/**
 * The path of the native library in use (see the README, "Library discovery"); of the
 * WebAssembly module (its URL in a browser) when the package runs on it (docs/wasm.md).
 *
 * @returns {string}
 */
export function libraryPath() {
  return native().path;
}

/**
 * Frees the native session of a Session that was garbage-collected without `close()`.
 *
 * @type {FinalizationRegistry<unknown>}
 */
const sessions = new FinalizationRegistry((handle) => native().sessionFree(handle));

/**
 * A plan answer's report as trim's: its `dropped_ranges` (`[start, end)` pairs) become
 * `dropped_messages`, in the same place, listed out when first read (a long session drops
 * thousands of messages a turn, which few callers read).
 */
function withDroppedMessages(report) {
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
 * An incremental session: a chat history fed to the library as it happens, trimmed at any
 * time. Each message crosses the boundary once (when appended), so a turn costs what changed,
 * not the whole history. `trim()` answers what {@link trim} answers for the same messages and
 * options, with the caller's own message objects for the messages it returns unchanged.
 *
 * Cache-stable by default: given neither `trim_to` nor `cut`, a session trims with
 * `trim_to: 0.75` and carries each answer's `report.cut` to the next trim, so the history's
 * prefix holds from call to call; `trim_to: null` opts out (the answers of {@link trim} without
 * `trim_to` and `cut`).
 *
 * A session holds a native handle: release it with `close()` (or a `using` declaration);
 * a FinalizationRegistry frees it if the session is garbage-collected first.
 *
 * @example
 * using session = new Session({ context_tokens: 128000, model: "gpt-4o" });
 * session.append([{ role: "user", content: "Hi" }]);
 * const { messages } = session.trim();
 */
export class Session {
  #handle;
  /** The caller's messages, in order. */
  #messages = [];
  /** Per message: its stand-in URLs (lib/images.js), or null. */
  #standIns = [];
  /** Stand-in URL → original URL, for every message held. */
  #originals = new Map();
  #system;
  /** The options the native session was made with (but `messages` and `summarize`). */
  #options;
  /** `summarize(messages, previous)`: called when the cut moves (see `trim`). */
  #summarize;
  /** The summary placed: `{ text, through }`, or undefined. */
  #summary;

  /**
   * @param {import("./index.js").TrimOptions & { messages?: import("./index.js").Message[], summarize?: Function }} [options]
   *   the request keys of {@link trim}; `messages`, when given, are appended; `summarize`, a
   *   function summarising what the cut removes (see `trim`)
   * @throws {AnkitaError} for invalid options
   */
  constructor(options) {
    if (options === null || options === undefined) options = {};
    if (typeof options !== "object" || Array.isArray(options)) {
      throw new AnkitaError(
        "invalid_request",
        `options must be an object, not ${describe(options)}`,
      );
    }
    rejectNonFinite(options);
    const { messages, summarize, ...rest } = options;
    if (summarize !== undefined && summarize !== null && typeof summarize !== "function") {
      throw new AnkitaError(
        "invalid_request",
        `summarize must be a function, not ${describe(summarize)}`,
        { path: "summarize" },
      );
    }
    this.#summarize = summarize ?? undefined;
    this.#options = rest;
    const made = native().sessionNew(serialise(rest, "options"));
    if (made.error !== null) answer(made.error);
    if (!made.handle) throw new AnkitaError("internal", "the native library made no session");
    this.#handle = made.handle;
    sessions.register(this, made.handle, this);
    if (rest.system !== undefined && takesSystem(rest.format)) {
      this.#system = rest.system;
    }
    if (messages !== undefined) this.append(messages);
  }

  /**
   * Appends messages (what happened since the last call).
   *
   * @param {import("./index.js").Message[]} messages
   * @returns {number} how many messages the session holds
   * @throws {AnkitaError} `invalid_request` when `messages` is not an array
   */
  append(messages) {
    const handle = this.#live();
    if (!Array.isArray(messages)) {
      throw new AnkitaError(
        "invalid_request",
        `append takes an array of messages, not ${describe(messages)}`,
        { path: "messages" },
      );
    }
    const sent = [];
    const standIns = [];
    for (const message of messages) {
      const one = withStandIns([message]);
      sent.push(one.messages[0]);
      standIns.push(one.originals === null ? null : [...one.originals.keys()]);
      for (const [url, original] of one.originals ?? []) this.#originals.set(url, original);
    }
    const text = serialise(sent, "messages");
    try {
      answer(native().sessionAppend(handle, text), { value: messages, text });
    } catch (error) {
      for (const urls of standIns) for (const url of urls ?? []) this.#originals.delete(url);
      throw error;
    }
    this.#messages.push(...messages);
    this.#standIns.push(...standIns);
    return this.#messages.length;
  }

  /**
   * Keeps the first `length` messages (an edit or a regeneration then appends the new tail).
   *
   * @param {number} length
   * @returns {number} how many messages the session holds
   */
  truncate(length) {
    const handle = this.#live();
    if (!Number.isInteger(length) || length < 0) {
      throw new AnkitaError(
        "invalid_argument",
        `length must be a non-negative integer, not ${describe(length)}`,
      );
    }
    if (length >= this.#messages.length) return this.#messages.length;
    answer(native().sessionTruncate(handle, length));
    // The core forgets a summary of messages that were replaced; so does the session.
    if (this.#summary !== undefined && length <= this.#summary.through) this.#summary = undefined;
    for (const urls of this.#standIns.slice(length)) {
      for (const url of urls ?? []) this.#originals.delete(url);
    }
    this.#messages.length = length;
    this.#standIns.length = length;
    return length;
  }

  /**
   * Trims the history held: what {@link trim} answers for the same messages and options.
   * Messages returned unchanged are the objects given to `append`; changed ones are new.
   *
   * @returns {import("./index.js").TrimResult}
   * @throws {AnkitaError}
   */
  trim() {
    const out = this.#trimOnce();
    const compaction = out.report.compaction;
    if (this.#summarize === undefined || compaction === undefined) return out;
    const folded = compaction.messages.map((i) => this.#messages[i]);
    let text;
    try {
      text = this.#summarize(folded, this.#summary?.text ?? null);
    } catch (error) {
      process.emitWarning(`summarize failed (${error}): the turn is trimmed without a new summary`);
      return out;
    }
    if (typeof text !== "string") {
      if (typeof text?.then === "function") text.then(undefined, () => {});
      process.emitWarning(
        `summarize must return a string (Session#trim is synchronous), not ${describe(text)}: ` +
          "the turn is trimmed without a new summary",
      );
      return out;
    }
    this.#summary = { text, through: compaction.through };
    this.#remake(out.report.cut);
    const again = this.#trimOnce();
    if (again.report.warnings.some((w) => w.code === "summary_over_budget")) {
      this.#summary = undefined;
      this.#remake(again.report.cut);
      process.emitWarning("the summary does not fit the budget: the turn is trimmed without it");
      return this.#trimOnce();
    }
    return again;
  }

  /**
   * A new native session with the summary placed and the cut carried, holding the same
   * messages (a cut moves rarely: every few dozen calls in an agent's loop).
   */
  #remake(cut) {
    const options = { ...this.#options, cut: cut ?? null };
    // Cache-stable as before: a cut alone would keep everything down to the whole budget.
    if (!Object.hasOwn(this.#options, "trim_to")) options.trim_to = 0.75;
    if (this.#summary !== undefined) options.summary = this.#summary;
    const made = native().sessionNew(serialise(options, "options"));
    if (made.error !== null) answer(made.error);
    if (!made.handle) throw new AnkitaError("internal", "the native library made no session");
    sessions.unregister(this);
    native().sessionFree(this.#handle);
    this.#handle = made.handle;
    sessions.register(this, made.handle, this);
    const messages = this.#messages;
    this.#messages = [];
    this.#standIns = [];
    this.#originals.clear();
    if (messages.length > 0) this.append(messages);
  }

  #trimOnce() {
    const response = answer(native().sessionPlan(this.#live()));
    const messages = response.plan.map((item) =>
      typeof item === "number"
        ? this.#messages[item]
        : restoreOriginals([item], this.#originals.size > 0 ? this.#originals : null)[0],
    );
    const out = { messages, report: withDroppedMessages(response.report) };
    if (this.#system !== undefined) out.system = this.#system;
    return out;
  }

  /**
   * The messages held (a new array of the objects given), to save: a session restored with
   * `Session.restore(saved, options)` answers as this one.
   *
   * @returns {import("./index.js").Message[]}
   */
  snapshot() {
    return this.#messages.slice();
  }

  /**
   * A session holding `messages` (a snapshot, or the JSON an app saved).
   *
   * @param {import("./index.js").Message[]} messages
   * @param {import("./index.js").TrimOptions} [options]
   * @returns {Session}
   */
  static restore(messages, options) {
    const session = new Session(options);
    session.append(messages);
    return session;
  }

  /** How many messages the session holds. */
  get length() {
    return this.#messages.length;
  }

  /** Releases the native session; later calls throw. Calling it again does nothing. */
  close() {
    if (this.#handle === undefined) return;
    sessions.unregister(this);
    native().sessionFree(this.#handle);
    this.#handle = undefined;
    this.#messages = [];
    this.#standIns = [];
    this.#originals.clear();
  }

  [DISPOSE]() {
    this.close();
  }

  #live() {
    if (this.#handle === undefined) {
      throw new AnkitaError("invalid_argument", "the session is closed");
    }
    return this.#handle;
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * A stateless trim in the making (README, "Long histories"): a long history is sent as its
 * newest messages and the older ones its answer may depend on, in growing tails, until the
 * core answers the whole history's trim from them; else (and for short histories) it is sent
 * whole. The core answers a plan: messages returned unchanged are the caller's own objects.
 */
class TailTrim {
  /** `copy`: read the caller's array as it is now (an async call answers after the caller
   * may have changed it). */
  constructor(messages, options, copy = false) {
    if (options === null || options === undefined) options = {};
    if (typeof options !== "object" || Array.isArray(options)) {
      throw new AnkitaError(
        "invalid_request",
        `options must be an object, not ${describe(options)}`,
      );
    }
    rejectNonFinite(options);
    this.messages = copy && Array.isArray(messages) ? messages.slice() : messages;
    this.options = options;
    this.format = options.format;
    // A `window` of the caller's is not the core's: the whole request answers it.
    this.size = Object.hasOwn(options, "window") ? Infinity : firstTail(options);
    // Nothing limits the trim: the plain messages may be sent as their sizes (once).
    this.sized =
      this.size === Infinity &&
      !Object.hasOwn(options, "window") &&
      sanitizesFromTail(this.format) &&
      windows(messages, options, 0);
  }

  /** The next request: a tail, the history with its plain messages' sizes, or it whole. */
  next() {
    if (this.sized) {
      this.sized = false;
      try {
        const tail = sizedOf(this.messages, this.format);
        if (tail !== null) {
          const request = tailRequest(this.options, tail, serialise);
          tailStats.sized++;
          return { call: "trimTail", whole: false, ...request };
        }
      } catch {
        // the whole request names what cannot be read or written
      }
    }
    while (this.size !== Infinity && windows(this.messages, this.options, this.size)) {
      try {
        const tail = tailOf(this.messages, this.format, this.size);
        if (tail !== null) {
          const request = tailRequest(this.options, tail, serialise);
          tailStats.tails++;
          return { call: "trimTail", whole: false, ...request };
        }
      } catch {
        break; // the whole request names what cannot be read or written
      }
      this.size *= 4;
    }
    this.size = Infinity;
    // A `window` of the caller's goes to ankita_trim, which names it as an unknown key.
    const call = Object.hasOwn(this.options, "window") ? "trim" : "trimTail";
    tailStats.whole++;
    return { call, whole: true, ...trimRequest(this.messages, this.options) };
  }

  /** The result, or null when the next request is to be sent. */
  read(text, request) {
    if (request.call === "trim") return result(answer(text, request), request.originals);
    let response;
    if (request.whole) {
      response = answer(text, request);
    } else {
      try {
        response = JSON.parse(text);
      } catch {
        response = null;
      }
      if (response?.ok !== true) {
        // The whole history's trim answers the error.
        this.size = Infinity;
        return null;
      }
      if (response.widen === true) {
        tailStats.widened++;
        // Every message sent fit: a tail `scale` times longer may (null: nothing limits).
        const scale = response.scale;
        if (scale === null) this.size = Infinity;
        else this.size *= typeof scale === "number" ? Math.max(2, 1.25 * scale) : 4;
        return null;
      }
    }
    const out = {
      messages: planMessages(this.messages, response.plan, request.originals),
      report: withDroppedMessages(response.report),
    };
    if (this.options.system !== undefined && takesSystem(this.format)) {
      out.system = this.options.system;
    }
    return out;
  }
}

/**
 * A sanitize in the making: a long history in a format that merges no turns is sent as its
 * last message and the older messages the answer may depend on (README, "Long histories");
 * else, or when the core asks for more, whole. The answer is a plan: messages returned
 * unchanged are the caller's own objects. Options other than `format` go to ankita_sanitize,
 * which names them.
 */
class TailSanitize {
  /** `copy`: as for TailTrim. */
  constructor(messages, options, copy = false) {
    if (options === null || options === undefined) options = {};
    if (typeof options !== "object" || Array.isArray(options)) {
      throw new AnkitaError(
        "invalid_request",
        `options must be an object, not ${describe(options)}`,
      );
    }
    this.messages = copy && Array.isArray(messages) ? messages.slice() : messages;
    this.given = options;
    const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
    const plain = Object.keys(given).every((key) => key === "format");
    this.call = Array.isArray(messages) && plain ? "sanitizeTail" : "sanitize";
    this.tail =
      this.call === "sanitizeTail" &&
      sanitizesFromTail(given.format) &&
      messages.length > MIN_SANITIZE_TAIL;
    this.options = given.format === undefined ? {} : { format: given.format };
  }

  next() {
    if (this.tail) {
      try {
        const request = sanitizeTailRequest(this.messages, this.options, serialise);
        tailStats.tails++;
        return { call: "sanitizeTail", whole: false, ...request };
      } catch {
        this.tail = false; // the whole request names what cannot be read or written
      }
    }
    this.tail = false;
    if (this.call === "sanitize") {
      return { ...sanitizeRequest(this.messages, this.given), call: "sanitize", whole: true };
    }
    tailStats.whole++;
    const sent = withStandIns(this.messages);
    return {
      call: "sanitizeTail",
      whole: true,
      value: { ...this.options, messages: this.messages },
      text: serialise({ ...this.options, messages: sent.messages }, "request"),
      originals: sent.originals,
    };
  }

  read(text, request) {
    if (request.call === "sanitize") return result(answer(text, request), request.originals);
    let response;
    if (request.whole) {
      response = answer(text, request);
    } else {
      try {
        response = JSON.parse(text);
      } catch {
        response = null;
      }
      if (response?.ok !== true || response.widen === true) {
        if (response?.widen === true) tailStats.widened++;
        return null; // the whole history answers (and names any error)
      }
    }
    return {
      messages: planMessages(this.messages, response.plan, request.originals),
      report: response.report,
    };
  }
}

/** Histories of at most this many messages are repaired whole. */
const MIN_SANITIZE_TAIL = 64;

function trimRequest(messages, options) {
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

function sanitizeRequest(messages, options) {
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
function rejectNonFinite(options) {
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
function pricingOptions(options) {
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
function result(response, originals) {
  const out = {
    messages: restoreOriginals(response.messages, originals),
    report: response.report,
  };
  if (response.system !== undefined) out.system = response.system;
  return out;
}

function serialise(value, what) {
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

// koffi throws once more than 256 async calls are queued (its max_async_calls): calls past
// MAX_IN_FLIGHT wait here, in order, so that any number of trimAsync calls may be pending.
const MAX_IN_FLIGHT = 64;
let inFlight = 0;
const waiting = [];

function callAsync(fn, ...args) {
  return new Promise((resolve, reject) => {
    const start = () => {
      inFlight++;
      const done = (error, result) => {
        inFlight--;
        if (waiting.length > 0) waiting.shift()();
        if (error) {
          const message = `native call failed: ${error?.message ?? error}`;
          reject(new AnkitaError("internal", message, { cause: error }));
        } else {
          resolve(result);
        }
      };
      try {
        fn.async(...args, done);
      } catch (error) {
        done(error);
      }
    };
    if (inFlight < MAX_IN_FLIGHT) start();
    else waiting.push(start);
  });
}

/**
 * Parses a library answer; throws its error as an AnkitaError.
 *
 * @param {string | null} text
 * @param {{ value: unknown, text: string }} [request] what was sent, to locate a lone surrogate
 */
function answer(text, request) {
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

function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return String(value);
  return `a ${typeof value}`;
}
