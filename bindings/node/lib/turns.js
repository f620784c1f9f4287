// The shapes of whole turns (docs/long-histories.md): the reading of each format's `turns` facts
// (ankita_formats) into a check of the caller's objects — a message of the user's text parts, a
// message of tool calls or of replies, with their ids and names —, which lib/tail.js writes
// into the shapes ankita_tail_select reads (where runs of whole turns lie, and how calls pair
// with replies, is the core's to decide). The pass reads keys, types, ids and names; of text
// only that it is a non-empty well-formed string, and of a call's input or a reply's data that
// it is plain JSON.

import { formatFacts } from "./formats.js";

/**
 * The number of enumerable keys of `object` (own and inherited), counted to `most + 1`.
 *
 * @param {object} object
 * @param {number} most
 */
export function keysUpTo(object, most) {
  let n = 0;
  for (const key in object) if (++n > most) break;
  return n;
}

/** Whether `text` is a non-empty string of well-formed Unicode (no lone surrogate). */
export const isText =
  typeof String.prototype.isWellFormed === "function"
    ? (text) => typeof text === "string" && text.length > 0 && text.isWellFormed()
    : (text) =>
        typeof text === "string" &&
        text.length > 0 &&
        !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/** Whether `text` is a string of well-formed Unicode, empty or not. */
const isUnicode = (text) => typeof text === "string" && (text.length === 0 || isText(text));

/** Whether `value` is an object JSON writes as its own members: a plain object, no toJSON. */
function isPlainObject(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && value.toJSON === undefined;
}

/** Whether `value` is an array JSON writes as its items: a plain array, no toJSON. */
const isPlainArray = (value) =>
  Array.isArray(value) &&
  Object.getPrototypeOf(value) === Array.prototype &&
  value.toJSON === undefined;

/** How deep plain data may nest (deeper: a reference cycle, or what the core refuses). */
const MAX_DEPTH = 128;

/**
 * Whether `value` is plain JSON, written by JSON.stringify as it is and read by the core as
 * written: plain objects of own members with well-formed keys, plain arrays without holes,
 * well-formed strings, finite numbers, booleans and null.
 *
 * @param {unknown} value
 * @param {number} depth
 * @returns {boolean}
 */
function isJson(value, depth) {
  switch (typeof value) {
    case "string":
      return isUnicode(value);
    case "number":
      return Number.isFinite(value);
    case "boolean":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (isPlainArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isJson(value[i], depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !isUnicode(key) || !isJson(value[key], depth + 1)) {
      return false;
    }
  }
  return true;
}

/**
 * @typedef {{ kind: string | null, id: unknown, name: unknown }} Item an item met in a message:
 * its kind of part (null: the message itself), the id and name it holds
 * @typedef {(value: unknown, item: Item, parts: Item[]) => boolean} Want what a field's value is
 * @typedef {{ key: string, want: Want, optional: boolean }[]} Members a compiled list of fields
 */

/**
 * The fields of a `turns` fact compiled into checks: each value (`"text"`, `"string"`,
 * `"string_or_null"`, `"id"`, `"name"`, `"object"`, `"json"`, `{is}`, `{fields}`, `{parts}`)
 * as a function of the value met, the item it notes its id and name into, and the parts
 * found. A value the facts name and this reading does not know never fits.
 *
 * @param {any[]} fields
 * @returns {Members}
 */
function compileFields(fields) {
  return fields.map((field) => ({
    key: field.key,
    want: compileValue(field.value),
    optional: field.optional === true,
  }));
}

/**
 * @param {any} value
 * @returns {Want}
 */
function compileValue(value) {
  switch (value) {
    case "text":
      return isText;
    case "string":
      return isUnicode;
    case "string_or_null":
      return (v) => v === null || isUnicode(v);
    case "id":
      return (v, item) => {
        item.id = v;
        return isText(v);
      };
    case "name":
      return (v, item) => {
        item.name = v;
        return isText(v);
      };
    case "object":
      return (v) => isPlainObject(v) && isJson(v, 0);
    case "json":
      return (v) => isJson(v, 0);
  }
  if (value !== null && typeof value === "object") {
    if (typeof value.is === "string") {
      const constant = value.is;
      return (v) => v === constant;
    }
    if (Array.isArray(value.fields)) {
      const inner = compileFields(value.fields);
      return (v, item, parts) => fits(inner, v, item, parts);
    }
    if (Array.isArray(value.parts)) {
      const shapes = value.parts.map((p) => ({ kind: p.kind, fields: compileFields(p.fields) }));
      return (v, item, parts) => {
        if (!isPlainArray(v) || v.length === 0) return false;
        for (let i = 0; i < v.length; i++) {
          const part = v[i];
          let fit = false;
          for (const shape of shapes) {
            const found = { kind: shape.kind, id: undefined, name: undefined };
            if (fits(shape.fields, part, found, [])) {
              parts.push(found);
              fit = true;
              break;
            }
          }
          if (!fit) return false;
        }
        return true;
      };
    }
  }
  return () => false;
}

/**
 * Whether `value` is a plain object of the members `fields` and no other, noting the id and
 * name met into `item` and the parts of a parts list into `parts`.
 *
 * @param {Members} fields
 * @param {unknown} value
 * @param {Item} item
 * @param {Item[]} parts
 * @returns {boolean}
 */
function fits(fields, value, item, parts) {
  if (!isPlainObject(value)) return false;
  const object = /** @type {Record<string, unknown>} */ (value);
  let present = 0;
  for (const field of fields) {
    if (!Object.hasOwn(object, field.key)) {
      if (field.optional) continue;
      return false;
    }
    present++;
    if (!field.want(object[field.key], item, parts)) return false;
  }
  return keysUpTo(object, present) === present;
}

/**
 * The reader of a format's shapes of whole turns, from the core's `turns` facts
 * (ankita_formats): `userParts(message)`, whether a message is the user's text parts;
 * `exchange(message)`, the tool calls or the replies a message holds, with their ids and names.
 *
 * @param {import("./native.js").FormatFacts["formats"][number]["turns"]} facts
 */
function turnsReader(facts) {
  const userParts = facts.user_parts ? compileFields(facts.user_parts) : null;
  const call = compileFields(facts.call);
  const reply = compileFields(facts.reply);
  // A message whose first field is a constant (its role, or its type) and differs is of
  // another kind: told before its other fields are read.
  const gate = (/** @type {any[] | null} */ fields) => {
    const first = fields?.[0];
    const is = first?.value?.is;
    if (first === undefined || first.optional === true || typeof is !== "string") {
      return () => true;
    }
    const key = first.key;
    return (/** @type {any} */ message) =>
      message !== null && typeof message === "object" && message[key] === is;
  };
  const mayBeUserParts = gate(facts.user_parts);
  const mayBeCall = gate(facts.call);
  const mayBeReply = gate(facts.reply);
  /**
   * The calls or replies (`kind`) of a message of `fields`, and whether the message is one
   * itself; null when it does not fit or holds none.
   *
   * @param {Members} fields
   * @param {string} kind
   * @param {unknown} message
   */
  const items = (fields, kind, message) => {
    /** @type {Item} */
    const item = { kind: null, id: undefined, name: undefined };
    /** @type {Item[]} */
    const parts = [];
    if (!fits(fields, message, item, parts)) return null;
    const call = kind === "call";
    if (item.id !== undefined) return { call, alone: true, list: [item] };
    const list = parts.filter((p) => p.kind === kind);
    return list.length === 0 ? null : { call, alone: false, list };
  };
  return {
    /** @param {unknown} message */
    userParts: (message) =>
      userParts !== null &&
      mayBeUserParts(message) &&
      fits(userParts, message, { kind: null, id: undefined, name: undefined }, []),
    /**
     * The calls (`call`: true) or replies of a message, and whether it is one call itself; null
     * when it is neither.
     *
     * @param {unknown} message
     * @returns {{ call: boolean, alone: boolean, list: Item[] } | null}
     */
    exchange(message) {
      return (
        (mayBeCall(message) ? items(call, "call", message) : null) ??
        (mayBeReply(message) ? items(reply, "reply", message) : null)
      );
    },
  };
}

/** Each format's reader of whole turns (null: its facts name none), made when first needed. */
const turnReaders = new Map();

/**
 * The reader of whole turns of the format `format` names, or null.
 *
 * @param {unknown} format
 * @returns {ReturnType<typeof turnsReader> | null}
 */
export function turnsOf(format) {
  const facts = formatFacts(format);
  if (facts === undefined) return null;
  let reader = turnReaders.get(facts.name);
  if (reader === undefined) {
    reader = facts.turns ? turnsReader(facts.turns) : null;
    turnReaders.set(facts.name, reader);
  }
  return reader;
}
