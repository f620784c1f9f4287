// Sessions: a chat history fed to the native session as it happens (DESIGN §8; docs/sessions.md).

import { native } from "#native";
import { AnkitaError } from "./error.js";
import { takesSystem } from "./formats.js";
import { restoreOriginals, withStandIns } from "./images.js";
import { answer, describe, rejectNonFinite, serialise, withDroppedMessages } from "./request.js";

// Symbol.dispose (Node 20+; `using` declarations); the well-known name before that.
const DISPOSE = Symbol.dispose ?? Symbol.for("nodejs.dispose");

// `async function`s are instances of it: `trim()` refuses them before calling one.
const AsyncFunction = (async () => {}).constructor;

/**
 * Frees the native session of a Session that was garbage-collected without `close()`.
 *
 * @type {FinalizationRegistry<unknown>}
 */
const sessions = new FinalizationRegistry((handle) => native().sessionFree(handle));

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
 * `summarize(messages, previous)` (optional) summarises what the cut removes (see `trim`); an
 * async one (or one returning a Promise) is awaited by `await session.trimAsync()`.
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
  /** Truncations that removed messages (one while `summarize` ran may remove what it read). */
  #truncations = 0;
  /** The provider's counts observed, as `observed_usage` pairs `[counted, input_tokens]`: a
   * native session made anew (to place a summary) is given them, so the factor they set holds. */
  #observed = [];
  /** `report.token_factor.counted` of the last trim (what `observeUsage` is paired with). */
  #counted;

  /**
   * @param {import("../index.js").TrimOptions & { messages?: import("../index.js").Message[], summarize?: Function }} [options]
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
   * @param {import("../index.js").Message[]} messages
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
    this.#truncations++;
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
   * With `summarize`, a trim whose cut moved calls it with the messages to fold in (the objects
   * given, as `report.compaction` names them) and the previous summary's text (or `null`), and
   * trims again with the string it returns placed right after the pinned message; a throw, a
   * result that is not a string, or a summary that does not fit leaves the trim as it was, with
   * a warning (`process.emitWarning`). An async `summarize` is refused (an `AnkitaError`
   * `invalid_argument` naming `trimAsync`): a sync trim cannot wait for it, and a summary
   * silently never written would leave the history to plain trimming.
   *
   * @returns {import("../index.js").TrimResult}
   * @throws {AnkitaError}
   */
  trim() {
    if (this.#summarize instanceof AsyncFunction) {
      throw new AnkitaError(
        "invalid_argument",
        "summarize is an async function: await session.trimAsync() instead of session.trim()",
        { path: "summarize" },
      );
    }
    const step = this.#step();
    if (step.fold === undefined) return step.out;
    let text;
    try {
      text = this.#summarize(step.fold.messages, step.fold.previous);
    } catch (error) {
      return this.#place(step, { error });
    }
    if (typeof text?.then === "function") {
      // Not left to reject unhandled; its text is not waited for.
      text.then(undefined, () => {});
      throw new AnkitaError(
        "invalid_argument",
        "summarize returned a Promise: await session.trimAsync() instead of session.trim()",
        { path: "summarize" },
      );
    }
    return this.#place(step, { text });
  }

  /**
   * Trims the history held as `trim()` does, awaiting `summarize` when it returns a Promise
   * (a sync one is called as `trim()` calls it). The summariser runs outside the session, which
   * may be used meanwhile; the plans themselves run on this thread (milliseconds).
   *
   * @returns {Promise<import("../index.js").TrimResult>}
   * @throws {AnkitaError}
   */
  async trimAsync() {
    const step = this.#step();
    if (step.fold === undefined) return step.out;
    let text;
    try {
      text = await this.#summarize(step.fold.messages, step.fold.previous);
    } catch (error) {
      return this.#place(step, { error });
    }
    return this.#place(step, { text });
  }

  /**
   * A trim, and what its moved cut asks `summarize` for (`fold`: the messages, the previous
   * summary's text and the last index folded in; undefined without `summarize` or when the
   * cut stands), with the session as the trim saw it.
   */
  #step() {
    const out = this.#trimOnce();
    const compaction = out.report.compaction;
    const seen = { length: this.#messages.length, truncations: this.#truncations };
    if (this.#summarize === undefined || compaction === undefined) return { out, seen };
    const fold = {
      messages: compaction.messages.map((i) => this.#messages[i]),
      previous: this.#summary?.text ?? null,
      through: compaction.through,
    };
    return { out, fold, seen };
  }

  /**
   * Places what `summarize` answered (`text`, or the `error` it threw) and trims again. A
   * throw, a result that is not a string, a truncation while it ran, or a summary that does
   * not fit: the trim as it was, the summary as it was, with a warning; never an error.
   */
  #place({ out, fold, seen }, { text, error }) {
    this.#live();
    let why;
    if (error !== undefined) why = `summarize failed (${error})`;
    else if (typeof text !== "string")
      why = `summarize must return a string, not ${describe(text)}`;
    else if (this.#truncations !== seen.truncations) {
      why = "the session was truncated while summarize ran";
    } else {
      const before = this.#summary;
      this.#summary = { text, through: fold.through };
      this.#remake(out.report.cut);
      const again = this.#trimOnce();
      if (!again.report.warnings.some((w) => w.code === "summary_over_budget")) return again;
      why = "the summary does not fit the budget";
      this.#summary = before;
      this.#remake(out.report.cut);
    }
    process.emitWarning(`${why}: the turn is trimmed without a new summary`);
    const same = this.#truncations === seen.truncations && this.#messages.length === seen.length;
    return same ? out : this.#trimOnce();
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
    if (this.#observed.length > 0) {
      options.observed_usage = [...(this.#options.observed_usage ?? []), ...this.#observed];
    }
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
    this.#counted = response.report.token_factor?.counted;
    if (this.#system !== undefined) out.system = this.#system;
    return out;
  }

  /**
   * Gives the provider's count of the input tokens of the request that sent the last trim's
   * messages (the response's `usage.input_tokens`; Gemini's `usageMetadata.promptTokenCount`):
   * the session compares it with its own count and, for a model counted with a margin (Claude,
   * Gemini), sets the factor the next trims count with from the evidence (see
   * docs/tokens-and-models.md).
   *
   * @param {number} inputTokens
   * @returns {import("../index.js").TokenFactor} the factor the next trim uses, as its
   *   `report.token_factor` will say
   * @throws {AnkitaError} `invalid_argument` for a session counting bytes, before the first
   *   trim, for a count below 1, or for one no factor from 0.1 to 10 explains
   */
  observeUsage(inputTokens) {
    const handle = this.#live();
    if (!Number.isSafeInteger(inputTokens) || inputTokens < 0) {
      throw new AnkitaError(
        "invalid_argument",
        `inputTokens must be the provider's count of the request (an integer), not ${describe(inputTokens)}`,
        { path: "inputTokens" },
      );
    }
    const factor = answer(native().sessionObserveUsage(handle, inputTokens)).token_factor;
    if (this.#counted !== undefined) this.#observed.push([this.#counted, inputTokens]);
    return factor;
  }

  /**
   * The messages held (a new array of the objects given), to save: a session restored with
   * `Session.restore(saved, options)` answers as this one.
   *
   * @returns {import("../index.js").Message[]}
   */
  snapshot() {
    return this.#messages.slice();
  }

  /**
   * A session holding `messages` (a snapshot, or the JSON an app saved).
   *
   * @param {import("../index.js").Message[]} messages
   * @param {import("../index.js").TrimOptions & { summarize?: Function }} [options]
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
