// The conversations of a stateless trim or sanitize with the library (docs/long-histories.md):
// the requests of a tail (lib/tail.js decides which older messages go), wider ones, or the whole
// history, until the core answers; run on the calling thread or with each native call on a
// worker thread.

import { native } from "#native";
import { callAsync } from "./call-async.js";
import { AnkitaError } from "./error.js";
import { tailDriver, takesSystem } from "./formats.js";
import { withStandIns } from "./images.js";
import {
  answer,
  describe,
  rejectNonFinite,
  result,
  sanitizeRequest,
  serialise,
  trimRequest,
  withDroppedMessages,
} from "./request.js";
import {
  firstTail,
  planMessages,
  sanitizeTailRequest,
  sanitizesFromTail,
  sizedOf,
  standInOf,
  tailOf,
  tailRequest,
  tailStats,
  widened,
  windows,
} from "./tail.js";

/**
 * Runs a tail conversation (`TailTrim`, `TailSanitize`) with the library: each request it asks
 * for (a window of the newest messages, wider ones, or the whole history) until it has its
 * answer.
 *
 * @template T
 * @param {{ next(): { call: string, text: string }, read(answer: string, request: { call: string, text: string }): T | null }} conversation
 * @returns {T}
 */
export function converse(conversation) {
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
export async function converseAsync(conversation) {
  for (;;) {
    const request = conversation.next();
    const done = conversation.read(await callAsync(native()[request.call], request.text), request);
    if (done !== null) return done;
  }
}

/**
 * A stateless trim in the making (docs/long-histories.md): a long history is sent as its
 * newest messages and the older ones its answer may depend on, in growing tails, until the
 * core answers the whole history's trim from them; else (and for short histories) it is sent
 * whole. The core answers a plan: messages returned unchanged are the caller's own objects.
 */
export class TailTrim {
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
          // The older messages as their stand-ins, with the lengths they stand for.
          const standIn = standInOf(this.format);
          const request = tailRequest(this.options, tail, serialise, standIn);
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
          // A trim with a limit: the older messages as their stand-ins.
          const standIn = standInOf(this.format);
          const request = tailRequest(this.options, tail, serialise, standIn);
          tailStats.tails++;
          return { call: "trimTail", whole: false, ...request };
        }
      } catch {
        break; // the whole request names what cannot be read or written
      }
      this.size = widened(this.size, undefined);
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
        this.size = widened(this.size, response.scale);
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
 * last message and the older messages the answer may depend on (docs/long-histories.md);
 * else, or when the core asks for more, whole. The answer is a plan: messages returned
 * unchanged are the caller's own objects. Options other than `format` go to ankita_sanitize,
 * which names them.
 */
export class TailSanitize {
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
      messages.length > tailDriver().min_before;
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
