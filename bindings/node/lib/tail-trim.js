// The conversations of a stateless trim or sanitize with the library (docs/long-histories.md):
// the requests of a tail, wider ones, or the whole history — as ankita_tail_select answers,
// from the history's shapes (lib/tail.js) —, until the core answers; run on the calling thread
// or with each native call on a worker thread.

import { native } from "#native";
import { callAsync } from "./call-async.js";
import { AnkitaError } from "./error.js";
import { takesSystem } from "./formats.js";
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
import { planMessages, shapesOf, standInOf, tailRequest, tailStats } from "./tail.js";

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
 * Which request the core's selection (ankita_tail_select) says is next for `messages`: a tail
 * (its answer), or null for the whole history. The shapes are read once, when first asked for.
 */
class Selection {
  /**
   * @param {"trim" | "sanitize"} call
   * @param {unknown} messages
   * @param {Record<string, unknown>} options
   */
  constructor(call, messages, options) {
    this.call = call;
    this.messages = messages;
    this.options = options;
    this.format = options.format;
    /** @type {Uint8Array | null} */
    this.shapes = null;
    /** @type {object | null} the widen answer to the tail sent before, with its size */
    this.after = null;
  }

  /** The next tail's selection, or null: the whole history. */
  next() {
    // A history of at most `min_before` messages is always sent whole (the core's fact): a
    // short one is not asked about.
    const short = native().formats.tail.min_before;
    if (!Array.isArray(this.messages) || this.messages.length <= short) return null;
    try {
      for (;;) {
        const request = serialise(
          {
            call: this.call,
            messages: this.messages.length,
            options: this.options,
            ...(this.after === null ? {} : { after: this.after }),
          },
          "request",
        );
        const shapes = this.shapes;
        const answer = JSON.parse(
          native().tailSelect(request, shapes, shapes === null ? 0 : shapes.length),
        );
        if (answer.send === "shapes" && this.shapes === null) {
          this.shapes = shapesOf(this.messages, this.format, answer.lengths);
          continue;
        }
        return answer.send === "tail" ? answer : null;
      }
    } catch {
      return null; // the whole request names what cannot be read or written
    }
  }

  /** The core answered `widen` to the tail of `selected`. */
  widen(selected, response) {
    this.after = { size: selected.size, widen: response };
  }
}

/** How many older messages the runs of whole turns of a selection leave out (tailStats). */
function turnsLeftOut(selected) {
  const { earlier, window } = selected;
  let n = 0;
  (window.gaps ?? []).forEach((gap, k) => {
    if (gap === "turns") n += (earlier[k + 1]?.[0] ?? window.from) - earlier[k][1];
  });
  return n;
}

/**
 * The request of a selected tail, or null when it cannot be written (the whole history
 * then names what is wrong).
 */
function selectedRequest(selection, selected) {
  try {
    const request = tailRequest(
      selection.options,
      selection.messages,
      selected,
      serialise,
      standInOf(selection.format),
    );
    if (selected.window.sizes !== undefined) tailStats.sized++;
    else tailStats.tails++;
    tailStats.turns += turnsLeftOut(selected);
    return request;
  } catch {
    return null;
  }
}

/**
 * A stateless trim in the making (docs/long-histories.md): a long history is sent as the tails
 * the core selects — its newest messages and the older ones its answer may depend on, wider
 * each time the core asks — until the core answers the whole history's trim from them; else
 * (and for short histories) it is sent whole. The core answers a plan: messages returned
 * unchanged are the caller's own objects.
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
    this.selection = new Selection("trim", this.messages, options);
    this.whole = false;
  }

  /** The next request: a tail the core selected, or the whole history. */
  next() {
    const selected = this.whole ? null : this.selection.next();
    const request = selected === null ? null : selectedRequest(this.selection, selected);
    if (request !== null) return { call: "trimTail", whole: false, selected, ...request };
    this.whole = true;
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
        this.whole = true;
        return null;
      }
      if (response.widen === true) {
        tailStats.widened++;
        this.selection.widen(request.selected, response);
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
 * A sanitize in the making: a long history in a format that merges no turns is sent as the
 * tail the core selects (its last message and the older messages the answer may depend on);
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
    this.options = given.format === undefined ? {} : { format: given.format };
    this.selection = new Selection("sanitize", this.messages, this.options);
    // One tail at most: a sanitize's tail is never widened.
    this.tried = this.call !== "sanitizeTail";
  }

  next() {
    const selected = this.tried ? null : this.selection.next();
    this.tried = true;
    const request = selected === null ? null : selectedRequest(this.selection, selected);
    if (request !== null) return { call: "sanitizeTail", whole: false, ...request };
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
