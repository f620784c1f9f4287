// Stateless trims of long histories from their newest messages (ankita_trim_tail;
// docs/long-histories.md, and docs/design.md).
//
// A trim that keeps the newest few messages of a long history need not have every message
// serialised: the core is sent the messages from some index `from` on, and of the older ones
// only those its answer may depend on. A light pass over the older messages reads each one's
// keys, role and content type (not its text): a *plain* message (a role and a non-empty string
// content, nothing else) is never repaired and never changes how its neighbours are, so a run
// of them is sent as its first and last message (and one that is not the model's, when
// neither is), the rest left out. The core answers the whole history's trim as a plan (the
// indices of the caller's messages returned as given), or asks for a longer tail; the last
// resort is the whole history.
//
// A trim with a limit, and a sanitize, also leave out runs of *whole turns* (`window.gaps`): from
// a message of the user's to right before a later one, plain messages, messages of the user's
// text parts and tool exchanges whose calls are all answered, in order, right after them, as
// each format's `turns` facts describe them (ankita_formats); on agent histories, nearly every
// older message. The pass over them reads keys, types, ids and names; of text only that it is a
// non-empty well-formed string, and of a call's input or a reply's data that it is plain JSON
// (plain objects and arrays, well-formed strings, finite numbers, booleans, null): a message
// holding anything else (a toJSON, a class instance, a BigInt, undefined) is given, and the
// whole history's request, if it comes to that, names what is wrong with it in its order.
//
// Of the older messages sent, every one but message 0 goes as its *stand-in* in a trim with a
// limit: the same JSON with its long free text replaced (the core's `stand_in` facts of each
// format: the strings under its `text_keys`, and every string inside the values of its
// `data_keys`). The trim reads of them only that they are non-empty strings, and a tail's answer
// keeps none of those messages, so only what they cost changes, which the answer never shows;
// only the objects on the way to a replaced string are copied, and the long strings are never
// serialised.
//
// Every number and rule of the driver (the first tail, its widening, the shortest history sent
// as a tail, the options that send it whole), what a plain message is and what a run of whole
// turns holds are the core's facts (`tail` and each format's `plain` and `turns` of
// ankita_formats; the Python binding reads the same from Rust). Only the walk over the caller's objects is here, and it has to be: its point is that
// the older messages are never serialised, so it reads JavaScript objects where they are.

import { utf8Length } from "./bytes.js";
import { formatFacts, tailDriver } from "./formats.js";
import { restoreOriginals, withStandIns } from "./images.js";
import { isText, keysUpTo, turnsOf } from "./turns.js";

/** What stateless trims sent (for the tests): tails, tails widened, histories with their
 * plain messages' sizes, whole histories, older messages sent as stand-ins, older messages
 * left out as runs of whole turns. */
export const tailStats = { tails: 0, widened: 0, sized: 0, whole: 0, standIns: 0, turns: 0 };

/**
 * The plain-message reader of a format, from the core's description of its plain messages
 * (`plain` of ankita_formats): a role among `user`, `model` and `other_roles`; the text at
 * `text_key`, a non-empty string or (`text_parts`) a non-empty list of `{text}` parts with
 * non-empty text; no other key but `extra_key` (any non-empty text, or `extra_value`).
 *
 * @param {import("./native.js").FormatFacts["formats"][number]["plain"]} facts
 * @returns {(message: any) => string | null}
 */
function plainReader(facts) {
  const roles = new Set([facts.user, facts.model, ...facts.other_roles]);
  const key = facts.text_key;
  const extra = facts.extra_key;
  const value = facts.extra_value;
  const extraFits =
    extra === null
      ? () => false
      : value === null
        ? (message) => isText(message[extra])
        : (message) => message[extra] === value;
  if (facts.text_parts) {
    return (message) => {
      if (message === null || typeof message !== "object") return null;
      const role = message.role;
      if (!roles.has(role)) return null;
      const parts = message[key];
      if (!Array.isArray(parts) || parts.length === 0 || keysUpTo(message, 2) !== 2) return null;
      if (Array.isArray(message) || message.toJSON !== undefined) return null;
      for (const part of parts) {
        if (part === null || typeof part !== "object" || Array.isArray(part)) return null;
        if (!isText(part.text) || keysUpTo(part, 1) !== 1 || part.toJSON !== undefined) {
          return null;
        }
      }
      return role;
    };
  }
  return (message) => {
    if (message === null || typeof message !== "object") return null;
    const role = message.role;
    if (!roles.has(role) || !isText(message[key])) return null;
    const n = keysUpTo(message, 3);
    if (Array.isArray(message) || message.toJSON !== undefined) return null;
    return n === 2 || (n === 3 && extraFits(message)) ? role : null;
  };
}

/** Each format's plain-message reader, made when first needed. */
const readers = new Map();

/**
 * The plain-message reader of the format `format` names, or null for a name no format has.
 *
 * @param {unknown} format
 * @returns {((message: any) => string | null) | null}
 */
function readerOf(format) {
  const facts = formatFacts(format);
  if (facts === undefined) return null;
  let reader = readers.get(facts.name);
  if (reader === undefined) {
    reader = plainReader(facts.plain);
    readers.set(facts.name, reader);
  }
  return reader;
}

/**
 * The role of a plain message (a role and a non-empty string content, or in Gemini parts that
 * are each `{text}` with non-empty text; `name` besides in the OpenAI format, `type: "message"`
 * in Responses: as the core describes each format), or null.
 *
 * @param {unknown} message
 * @param {string} format
 * @returns {string | null}
 */
export function plainRole(message, format) {
  const reader = readerOf(format);
  return reader === null ? null : reader(message);
}

/**
 * Whether a plain message of role `role` is not the model's.
 *
 * @param {string} format
 */
const isTurnOf = (format) => {
  const model = formatFacts(format)?.plain.model;
  return (role) => role !== model;
};

/**
 * The first tail of a history (the core's `tail` facts): `count_times × max_messages +
 * count_plus` (`default_max_messages` when neither it nor a budget is given), at least
 * `first_at_least`; `first_with_budget` with a budget and no count limit; none (Infinity) when
 * nothing limits the trim.
 *
 * @param {Record<string, unknown>} options
 * @returns {number}
 */
export function firstTail(options) {
  const facts = tailDriver();
  const given = (/** @type {string} */ key) => options[key] !== undefined && options[key] !== null;
  const count = (/** @type {number} */ max) =>
    Math.max(facts.first_at_least, facts.count_times * max + facts.count_plus);
  const max = options.max_messages;
  if (max === undefined) {
    return facts.default_budget_keys.some(given)
      ? facts.first_with_budget
      : count(facts.default_max_messages);
  }
  if (typeof max === "number" && Number.isInteger(max) && max >= 0) return count(max);
  return max === null && !facts.budget_keys.some(given) ? Infinity : facts.first_with_budget;
}

/**
 * The tail after one of `size` messages when the core asks for a wider one (the core's `tail`
 * facts): `scale` (a number) when every message sent fit; null: the whole history (Infinity);
 * none: `widen_times` longer.
 *
 * @param {number} size
 * @param {unknown} scale
 * @returns {number}
 */
export function widened(size, scale) {
  const facts = tailDriver();
  if (scale === null) return Infinity;
  if (typeof scale !== "number") return size * facts.widen_times;
  return Math.floor(size * Math.max(facts.widen_at_least, facts.widen_by_scale * scale));
}

/**
 * Whether a history may be sent as a tail of `size` messages with these options.
 *
 * @param {unknown} messages
 * @param {Record<string, unknown>} options
 * @param {number} size
 */
export function windows(messages, options, size) {
  const facts = tailDriver();
  return (
    Array.isArray(messages) &&
    readerOf(options.format) !== null &&
    !facts.whole_with.some((key) => options[key] !== undefined && options[key] !== null) &&
    messages.length >= size + facts.min_before
  );
}

/**
 * The request of a tail of about `size` messages: `{from, earlier, gaps, tail}` (the given
 * older messages as runs, and what each gap between them holds: {@link olderWithTurns}), or
 * null when no message fit to start a tail is near.
 *
 * @param {unknown[]} messages
 * @param {string} format
 * @param {number} size
 */
export function tailOf(messages, format, size) {
  const n = messages.length;
  const plain = readerOf(format);
  const user = formatFacts(format).plain.user;
  // The tail starts on a plain user message.
  let from = n - size;
  const lowest = Math.max(1, from - size);
  while (from >= lowest && plain(messages[from]) !== user) from--;
  if (from < lowest) return null;
  const { earlier, gaps } = olderWithTurns(messages, format, from);
  return { from, earlier, gaps, tail: messages.slice(from) };
}

/**
 * The messages before `from` to send, as runs `{start, end, messages}`: message 0, every
 * message that is not plain, and of each run of plain messages its first and last (and the
 * first one not the model's when neither is: a gap is bounded by one; all of them when none
 * is).
 *
 * @param {unknown[]} messages
 * @param {string} format
 * @param {number} from
 */
export function olderRuns(messages, format, from, plain = readerOf(format)) {
  const earlier = runsOf(messages);
  earlier.give(0);
  plainRuns(messages, plain, isTurnOf(format), 1, from, earlier.give);
  return earlier.runs;
}

/**
 * Runs of given messages, `{start, end, messages}`, and `give(i)` to add message `i` (past
 * every one given so far); `onGap(i)` is told of each gap, before the message `i` that ends it.
 *
 * @param {unknown[]} messages
 * @param {(i: number) => void} [onGap]
 */
function runsOf(messages, onGap) {
  /** @type {{ start: number, end: number, messages: unknown[] }[]} */
  const runs = [];
  /** @type {{ start: number, end: number, messages: unknown[] } | null} */
  let run = null;
  const give = (/** @type {number} */ i) => {
    if (run !== null && run.end === i) {
      run.messages.push(messages[i]);
      run.end++;
      return;
    }
    if (onGap !== undefined && i > (run === null ? 0 : run.end)) onGap(i);
    run = { start: i, end: i + 1, messages: [messages[i]] };
    runs.push(run);
  };
  return { runs, give };
}

/**
 * Of the messages `lo..hi` (the one before `lo` given, or `lo` = 1), gives every message
 * `plain` does not read, and of each run of plain ones its first and last (and the first one
 * not the model's when neither is: a gap is bounded by one; all of them when none is).
 *
 * @param {unknown[]} messages
 * @param {(message: any) => string | null} plain
 * @param {(role: string) => boolean} isTurn
 * @param {number} lo
 * @param {number} hi
 * @param {(i: number) => void} give
 */
function plainRuns(messages, plain, isTurn, lo, hi, give) {
  let i = lo;
  while (i < hi) {
    const role = plain(messages[i]);
    if (role === null) {
      give(i++);
      continue;
    }
    let end = i + 1;
    let lastRole = role;
    let turn = isTurn(role) ? i : -1;
    while (end < hi) {
      const next = plain(messages[end]);
      if (next === null) break;
      if (turn < 0 && isTurn(next)) turn = end;
      lastRole = next;
      end++;
    }
    give(i);
    if (end - i > 2 && !isTurn(role) && !isTurn(lastRole)) {
      if (turn < 0) for (let k = i + 1; k < end - 1; k++) give(k);
      else give(turn);
    }
    if (end - i > 1) give(end - 1);
    i = end;
  }
}

/**
 * The messages before `from` to send in a trim with a limit or a sanitize, as runs
 * `{start, end, messages}`, and what each gap between them holds (`gaps`: `"plain"` or
 * `"turns"`, in order): the runs of whole turns left out first, the plain rule of
 * {@link olderRuns} between them. A run of whole turns starts with a message of the user's
 * (plain, or of the format's `user_parts`) and ends right before the last message of the
 * user's of its stretch (messages that are plain, of user parts or whole exchanges), which is
 * given and is never `from`.
 *
 * @param {unknown[]} messages
 * @param {string} format
 * @param {number} from
 */
export function olderWithTurns(messages, format, from) {
  const plain = readerOf(format);
  const user = formatFacts(format).plain.user;
  const turns = turnsOf(format);
  /** @type {[number, number][]} the runs of whole turns, `[start, end)`, in order */
  const runs = [];
  if (turns !== null) {
    let start = -1;
    let last = -1;
    const close = () => {
      if (start >= 0 && last > start) runs.push([start, last]);
      start = last = -1;
    };
    let i = 1;
    while (i < from) {
      const message = messages[i];
      const role = plain(message);
      if (role === user || (role === null && turns.userParts(message))) {
        if (start < 0) start = i;
        last = i++;
      } else if (role !== null) {
        i++;
      } else {
        const end = turns.exchange(messages, i, from);
        if (end >= 0) {
          i = end;
        } else {
          close();
          i++;
        }
      }
    }
    close();
  }
  /** Where each run of whole turns ends (the given message after it). */
  const ends = new Set(runs.map((run) => run[1]));
  /** @type {string[]} */
  const gaps = [];
  const earlier = runsOf(messages, (i) => gaps.push(ends.has(i) ? "turns" : "plain"));
  earlier.give(0);
  const isTurn = isTurnOf(format);
  let lo = 1;
  for (const [start, end] of runs) {
    plainRuns(messages, plain, isTurn, lo, start, earlier.give);
    lo = end;
    tailStats.turns += end - start;
  }
  plainRuns(messages, plain, isTurn, lo, from, earlier.give);
  const last = earlier.runs[earlier.runs.length - 1];
  if (from > last.end) gaps.push("plain");
  return { earlier: earlier.runs, gaps };
}

/**
 * The request of a trim that nothing limits, of a long history in a format that merges no
 * turns: its last message, the older messages the answer may depend on, and of the plain
 * ones left out (a role and a string content, nothing else) their role and content's UTF-8
 * length (`window.sizes`): the core keeps them as given and prices them from these.
 *
 * @param {unknown[]} messages
 * @param {string} format
 * @returns {{ from: number, earlier: { start: number, end: number, messages: unknown[] }[], tail: unknown[], sizes: (string | number)[] } | null}
 */
export function sizedOf(messages, format) {
  const from = messages.length - 1;
  const loose = readerOf(format);
  const facts = formatFacts(format)?.plain;
  // A text in parts has no one length to send.
  if (from < tailDriver().min_before || loose === null || facts.text_parts) return null;
  const key = facts.text_key;
  // Only a role and a content: the core prices what it is told of.
  const plain = (message) => {
    const role = loose(message);
    return role !== null && keysUpTo(message, 2) === 2 ? role : null;
  };
  const earlier = olderRuns(messages, format, from, plain);
  const sizes = [];
  for (let k = 0; k < earlier.length; k++) {
    const next = k + 1 < earlier.length ? earlier[k + 1].start : from;
    for (let i = earlier[k].end; i < next; i++) {
      const message = messages[i];
      sizes.push(message.role, utf8Length(message[key]));
    }
  }
  return { from, earlier, tail: [messages[from]], sizes };
}

/**
 * Whether a sanitize in the format `format` names may leave plain messages out (a format that
 * merges no turns).
 *
 * @param {unknown} format
 */
export function sanitizesFromTail(format) {
  return formatFacts(format)?.merges_turns === false;
}

/**
 * The request of a sanitize of a long history: its last message, and of the older ones those
 * the answer may depend on (runs of whole turns left out as a trim with a limit leaves them).
 *
 * @param {unknown[]} messages
 * @param {Record<string, unknown>} options `format` alone, or nothing
 * @param {(value: unknown, what: string) => string} serialise
 */
export function sanitizeTailRequest(messages, options, serialise) {
  const from = messages.length - 1;
  const { earlier, gaps } = olderWithTurns(messages, options.format, from);
  return tailRequest(options, { from, earlier, gaps, tail: [messages[from]] }, serialise);
}

/**
 * The stand-in maker of a format, from the core's `stand_in` facts: a message with every string
 * longer than `longer_than` that is the value of a member named in `text_keys`, or lies
 * anywhere inside the value of a member named in `data_keys`, replaced by `replacement` (unless
 * it holds a lone surrogate: the core would answer that with an error). Only the objects and
 * arrays on the way to a replaced string are copied (the message itself when nothing is
 * replaced); an object that is not plain data (a toJSON, a class instance) is left as it is,
 * for JSON.stringify to write its own way.
 * With `noted` (an array), the strings equal to `replacement` are replaced too, and each
 * replaced string's UTF-8 and JSON lengths are pushed onto it, in the order JSON writes them.
 *
 * @param {import("./native.js").FormatFacts["formats"][number]["stand_in"]} facts
 * @returns {(message: unknown, noted?: number[] | null) => unknown}
 */
function standInMaker(facts) {
  const longer = facts.longer_than;
  const replacement = facts.replacement;
  const textKeys = new Set(facts.text_keys);
  const dataKeys = new Set(facts.data_keys);
  const free = (text) => text.length > longer && isText(text);
  // With `lengths` (a trim that prices what it keeps): the strings equal to the replacement too,
  // and each one's UTF-8 and JSON lengths noted, in order.
  let lengths = null;
  const replace = (text) => {
    if (lengths === null) return free(text) ? replacement : text;
    if (text !== replacement && !free(text)) return text;
    const utf8 = utf8Length(text);
    lengths.push(utf8, utf8 + (escaped.test(text) ? JSON.stringify(text).length - text.length : 2));
    return replacement;
  };
  const plain = (value) => {
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && value.toJSON === undefined;
  };
  // The value with its long strings replaced (inside `data`: every one), or itself.
  const make = (value, data) => {
    if (typeof value === "string") return data ? replace(value) : value;
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      if (value.toJSON !== undefined) return value;
      let out = value;
      for (let i = 0; i < value.length; i++) {
        const item = value[i];
        const made = make(item, data);
        if (made !== item) {
          if (out === value) out = value.slice();
          out[i] = made;
        }
      }
      return out;
    }
    if (!plain(value)) return value;
    let out = value;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = value[key];
      const made =
        typeof item === "string"
          ? data || textKeys.has(key)
            ? replace(item)
            : item
          : make(item, data || dataKeys.has(key));
      if (made !== item) {
        if (out === value) out = { ...value };
        out[key] = made;
      }
    }
    return out;
  };
  return (message, noted = null) => {
    lengths = noted;
    try {
      return make(message, false);
    } finally {
      lengths = null;
    }
  };
}

/** A character JSON writes as an escape. */
const escaped = /["\\\u0000-\u001f]/;

/** Each format's stand-in maker, made when first needed. */
const makers = new Map();

/**
 * The stand-in maker of the format `format` names.
 *
 * @param {unknown} format
 * @returns {(message: unknown, noted?: number[] | null) => unknown}
 */
export function standInOf(format) {
  const facts = formatFacts(format);
  let maker = makers.get(facts.name);
  if (maker === undefined) {
    maker = standInMaker(facts.stand_in);
    makers.set(facts.name, maker);
  }
  return maker;
}

/**
 * The request text of a tail, with its stand-ins' originals (`gaps`: what each gap between the
 * older runs holds, `window.gaps`); with `standIn`, every older
 * message but message 0 sent as its stand-in (with `sizes`, a trim nothing limits, with the
 * lengths of what each replaced string stood for: `window.stood_in`).
 *
 * @param {Record<string, unknown>} options
 * @param {{ from: number, earlier: { start: number, messages: unknown[] }[], gaps?: string[], tail: unknown[], sizes?: (string | number)[] }} tail
 * @param {(value: unknown, what: string) => string} serialise
 * @param {((message: unknown, noted?: number[] | null) => unknown) | null} [standIn]
 */
export function tailRequest(options, tail, serialise, standIn = null) {
  let originals = null;
  const stand = (list) => {
    const sent = withStandIns(list);
    if (sent.originals !== null) {
      originals ??= new Map();
      for (const [url, original] of sent.originals) originals.set(url, original);
    }
    return sent.messages;
  };
  const earlier = tail.earlier.map((run) => [run.start, stand(run.messages)]);
  const messages = stand(tail.tail);
  // A trim that prices what it keeps (sizes) is told what its stand-ins stand for.
  const noted = tail.sizes === undefined ? null : [];
  if (standIn !== null) {
    for (const run of earlier) {
      const [start, list] = run;
      run[1] = list.map((message, j) => {
        if (start + j === 0) return message;
        const sent = standIn(message, noted);
        if (sent !== message) tailStats.standIns++;
        return sent;
      });
    }
  }
  const window = { from: tail.from, earlier };
  // What each gap holds, when not all plain.
  if (tail.gaps?.some((gap) => gap !== "plain")) window.gaps = tail.gaps;
  if (tail.sizes !== undefined) window.sizes = tail.sizes;
  if (standIn !== null && noted !== null) window.stood_in = noted;
  return {
    text: serialise({ ...options, messages, window }, "request"),
    originals,
  };
}

/**
 * The messages of a plan answer: the caller's own objects for the numbers, the changed
 * messages (their stand-ins restored) for the objects.
 *
 * @param {unknown[]} messages the caller's messages
 * @param {(number | object)[]} plan
 * @param {Map<string, string> | null} originals
 */
export function planMessages(messages, plan, originals) {
  return plan.map((item) =>
    typeof item === "number" ? messages[item] : restoreOriginals([item], originals)[0],
  );
}
