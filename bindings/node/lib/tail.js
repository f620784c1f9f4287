// Stateless trims and sanitizes of long histories from their newest messages
// (ankita_tail_select, ankita_trim_tail; docs/long-histories.md, and docs/design.md §13).
//
// A trim that keeps the newest few messages of a long history need not have every message
// serialised: the core is sent the messages from some index `from` on, and of the older ones
// only those its answer may depend on. Which ones is the core's to say (ankita_tail_select):
// this module reads each of the caller's messages once into its *shape* — what the core's
// rules read of it, as each format's facts of ankita_formats describe it: a plain message (a
// role and a non-empty text, nothing else) and its role; the user's text parts; a message of
// tool calls or of replies, with their ids and names as numbers; anything else — and writes
// the request the core answers, from the caller's own objects. Of text the pass reads only
// that it is a non-empty well-formed string, and of a call's input or a reply's data that it
// is plain JSON (lib/turns.js): a message holding anything else (a toJSON, a class instance, a
// BigInt, undefined) is of no kind, so it is given, and the whole history's request, if it
// comes to that, names what is wrong with it in its order.
//
// Of the older messages sent, every one but message 0 goes as its *stand-in* where the core
// says so: the same JSON with its long free text replaced (the core's `stand_in` facts of each
// format). Only the objects on the way to a replaced string are copied, and the long strings
// are never serialised.

import { native } from "#native";
import { utf8Length } from "./bytes.js";
import { formatFacts } from "./formats.js";
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
 * non-empty text; no other key but `extra_key` (any non-empty text, or `extra_value`). It
 * answers the role's number in the shapes (0 the user's, 1 the model's, 2 + k the k-th other
 * role), or -1.
 *
 * @param {import("./native.js").FormatFacts["formats"][number]["plain"]} facts
 * @returns {(message: any) => number}
 */
function plainReader(facts) {
  const roles = new Map([facts.user, facts.model, ...facts.other_roles].map((r, i) => [r, i]));
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
      if (message === null || typeof message !== "object") return -1;
      const role = roles.get(message.role);
      if (role === undefined) return -1;
      const parts = message[key];
      if (!Array.isArray(parts) || parts.length === 0 || keysUpTo(message, 2) !== 2) return -1;
      if (Array.isArray(message) || message.toJSON !== undefined) return -1;
      for (const part of parts) {
        if (part === null || typeof part !== "object" || Array.isArray(part)) return -1;
        if (!isText(part.text) || keysUpTo(part, 1) !== 1 || part.toJSON !== undefined) {
          return -1;
        }
      }
      return role;
    };
  }
  return (message) => {
    if (message === null || typeof message !== "object") return -1;
    const role = roles.get(message.role);
    if (role === undefined || !isText(message[key])) return -1;
    const n = keysUpTo(message, 3);
    if (Array.isArray(message) || message.toJSON !== undefined) return -1;
    return n === 2 || (n === 3 && extraFits(message)) ? role : -1;
  };
}

/** Each format's plain-message reader, made when first needed. */
const readers = new Map();

/**
 * The plain-message reader of the format `format` names, or null for a name no format has.
 *
 * @param {unknown} format
 * @returns {((message: any) => number) | null}
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
 * The role of a plain message (as the core describes each format's plain messages), or null.
 *
 * @param {unknown} message
 * @param {string} format
 * @returns {string | null}
 */
export function plainRole(message, format) {
  const reader = readerOf(format);
  const role = reader === null ? -1 : reader(message);
  if (role < 0) return null;
  const plain = formatFacts(format).plain;
  return [plain.user, plain.model, ...plain.other_roles][role];
}

/** A plain message's length no one measured (ankita_tail_select's shapes). */
const NO_LENGTH = 0xffffffff;

/**
 * The shapes of a history's messages, as ankita_tail_select reads them (native-endian
 * uint32 words, one record a message): `0` any other message; `1, role, len` a plain one
 * (`len`, with `lengths`, its text's UTF-8 length when it holds its role and text alone);
 * `2` the user's text parts; `3, alone, n, id, name, ...` tool calls; `4, n, id, name, ...`
 * replies (each distinct id or name a number, none 0).
 *
 * @param {unknown[]} messages
 * @param {unknown} format
 * @param {boolean} lengths
 * @returns {Uint8Array}
 */
export function shapesOf(messages, format, lengths) {
  const plain = readerOf(format);
  const facts = formatFacts(format).plain;
  const bare = lengths && !facts.text_parts;
  const turns = turnsOf(format);
  const numbers = NUMBERS;
  numbers.reset();
  // Three words a message, most often; grown when calls or replies need more.
  let words = new Uint32Array(3 * (messages.length + 1));
  let at = 0;
  let calls = false;
  for (const message of messages) {
    const role = plain(message);
    const parts = role < 0 && turns !== null && turns.userParts(message);
    const found = role < 0 && !parts && turns !== null ? turns.exchange(message) : null;
    if (found !== null && found.call && !calls) numbers.newRun();
    calls = found !== null && found.call;
    const need = found === null ? 3 : 3 + 2 * found.list.length;
    if (at + need > words.length) words = grown(words, at + need);
    if (role >= 0) {
      words[at] = 1;
      words[at + 1] = role;
      words[at + 2] =
        bare && keysUpTo(message, 2) === 2
          ? Math.min(utf8Length(message[facts.text_key]), NO_LENGTH)
          : NO_LENGTH;
      at += 3;
    } else if (found !== null) {
      words[at++] = found.call ? 3 : 4;
      if (found.call) words[at++] = found.alone ? 1 : 0;
      words[at++] = found.list.length;
      for (const item of found.list) {
        words[at++] = numbers.id(item.id, found.call);
        words[at++] = numbers.name(item.name, found.call);
      }
    } else {
      words[at++] = parts ? 2 : 0;
    }
  }
  return new Uint8Array(words.buffer, 0, 4 * at);
}

/**
 * The numbers of ids and names in the shapes: the same string, the same number, as far as
 * pairing needs it. A call's replies come right after its run of call messages, so a string is
 * looked up among the calls of the latest run alone (no string hashed): a reply's id or name
 * found there gets its call's number, one not found a new number — it could pair with nothing
 * else, and the core, seeing no pair, gives those messages. Two different strings never share
 * a number. A run of more calls than the core's `pair_run` pairs nothing (its replies get new
 * numbers).
 */
class Numbers {
  constructor() {
    /** @type {unknown[]} the ids and names of the latest run's calls, in turn (to `count`) */
    this.run = [];
    /** @type {number[]} their numbers */
    this.numbers = [];
    this.count = 0;
    this.next = 1;
    /** How many entries of the run are looked through (two a call). */
    this.limit = 0;
  }

  /** A new history: no run, numbers from 1. */
  reset() {
    this.count = 0;
    this.next = 1;
    this.limit = 2 * native().formats.tail.pair_run;
  }

  newRun() {
    this.count = 0;
  }

  /** The number of a string met among the run's ids (`offset` 0) or names (1), or a new one. */
  lookup(text, offset) {
    const { run, numbers, count } = this;
    if (count <= this.limit) {
      for (let k = offset; k < count; k += 2) if (run[k] === text) return numbers[k];
    }
    return this.next++;
  }

  /** The number of the id `text` of a call (`call`), which joins the run, or of a reply. */
  id(text, call) {
    const n = text === undefined ? 0 : this.lookup(text, 0);
    if (call) {
      this.run[this.count] = text;
      this.numbers[this.count] = n;
      this.run[this.count + 1] = undefined;
      this.numbers[this.count + 1] = 0;
      this.count += 2;
    }
    return n;
  }

  /** The number of the name `text` of the call whose id came last (`call`), or of a reply. */
  name(text, call) {
    const n = text === undefined ? 0 : this.lookup(text, 1);
    if (call) {
      this.run[this.count - 1] = text;
      this.numbers[this.count - 1] = n;
    }
    return n;
  }
}

/** The one set of numbers: shapes are read synchronously, one history at a time (a set made
 * each time made V8 deoptimize the loop after each collection). */
const NUMBERS = new Numbers();

/** `words` copied into a buffer of at least `least` words. */
function grown(words, least) {
  const more = new Uint32Array(Math.max(2 * words.length, least));
  more.set(words);
  return more;
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
 * The request text of a tail the core selected (ankita_tail_select's `tail` answer: `earlier`,
 * `stand_ins`, `window`), with its stand-ins' originals: the options, the messages from
 * `window.from` on, and the window with the older runs given — as their stand-ins but message
 * 0 unless `stand_ins` is `"none"`, and with `"note"` the lengths of what each replaced string
 * stood for (`window.stood_in`).
 *
 * @param {Record<string, unknown>} options
 * @param {unknown[]} messages the caller's messages
 * @param {{ earlier: [number, number][], stand_ins: string, window: { from: number } }} tail
 * @param {(value: unknown, what: string) => string} serialise
 * @param {(message: unknown, noted?: number[] | null) => unknown} standIn
 */
export function tailRequest(options, messages, tail, serialise, standIn) {
  let originals = null;
  const stand = (list) => {
    const sent = withStandIns(list);
    if (sent.originals !== null) {
      originals ??= new Map();
      for (const [url, original] of sent.originals) originals.set(url, original);
    }
    return sent.messages;
  };
  const noted = tail.stand_ins === "note" ? [] : null;
  const earlier = tail.earlier.map(([start, end]) => {
    let list = stand(messages.slice(start, end));
    if (tail.stand_ins !== "none") {
      list = list.map((message, j) => {
        if (start + j === 0) return message;
        const sent = standIn(message, noted);
        if (sent !== message) tailStats.standIns++;
        return sent;
      });
    }
    return [start, list];
  });
  const window = { ...tail.window, earlier };
  if (noted !== null) window.stood_in = noted;
  return {
    text: serialise(
      { ...options, messages: stand(messages.slice(tail.window.from)), window },
      "request",
    ),
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
