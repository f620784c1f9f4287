// ankita for Node and Electron: trim an OpenAI-style chat history to its context budget.
//
// Every call is JSON in, JSON out through the C ABI (DESIGN §8, §9): the request is serialised
// (lib/request.js), the native call runs (on a koffi worker thread for the *Async variants,
// lib/call-async.js), and the answer is parsed back; a failed answer becomes an AnkitaError.
// This file holds the public functions; lib/ the rest: lib/tail-trim.js the stateless trim's
// and sanitize's conversations with the library (lib/tail.js picks the messages a tail
// sends), lib/session.js the Session class, lib/images.js the image stand-ins, lib/native.js
// the library's discovery and binding (lib/native-browser.js and lib/wasm*.js the
// WebAssembly build's).

import { native } from "#native";
import { base64 } from "./lib/bytes.js";
import { AnkitaError } from "./lib/error.js";
import { probeText, probeTextOfString } from "./lib/images.js";
import { answer, describe, pricingOptions, trimRequest } from "./lib/request.js";
import { converse, converseAsync, TailSanitize, TailTrim } from "./lib/tail-trim.js";

export { AnkitaError };
export { trimMany } from "./lib/batch.js";
export { Session } from "./lib/session.js";

const MAX_U32 = 0xffff_ffff;

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
 * A long history is read from its newest messages (docs/long-histories.md): the answer is
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
