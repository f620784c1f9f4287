// Keeps screenshot payloads on the JS side of the boundary (DESIGN §10).
//
// A pasted screenshot is a data URL of a megabyte or more, but the core reads only its header
// (DESIGN §3): a decodable image is priced by its pixels, whatever its length. So before a
// request is serialised, each large data-URL image is replaced by a stand-in: the same URL cut
// to its first kilobytes, tagged with a unique `;ankita-ref=` parameter. The stand-in is used
// only when the core's own probe decodes it, so the core prices it exactly as the original;
// images it cannot decode from a prefix go through whole, since an undecodable image costs its
// full length, and so does a URL holding a lone surrogate, which the core refuses. In the answer, every stand-in is put back
// to its original URL. The request serialised on the calling thread shrinks from megabytes to
// kilobytes, and so does the answer parsed there.

import { native } from "#native";
import { base64, randomHex, utf8Length } from "./bytes.js";

/**
 * The core decides where a long data URL may be cut (`ankita_stand_in_len`: the policy every
 * binding follows). Tests replace its thresholds to send every image through a stand-in:
 * `minLength` (characters) and `prefixLengths` (payload characters); `minLength: Infinity`
 * turns stand-ins off; `null` is the core's own.
 *
 * @type {{ minLength: number | null, prefixLengths: number[] | null }}
 */
export const standInSettings = { minLength: null, prefixLengths: null };

/** A data URL's header is within this many characters (ankita::probe::stand_in::MAX_HEADER). */
const MAX_HEADER = 1024;
/** The payload lengths the core's policy tries, in order (ankita::probe::stand_in::PAYLOAD_CHARS). */
const PAYLOAD_CHARS = [16 * 1024, 256 * 1024];
/** The most of a URL's beginning the core's policy reads (ankita::probe::stand_in::HEAD_CHARS). */
const HEAD_CHARS = MAX_HEADER + 1 + PAYLOAD_CHARS[1];

/**
 * Where the core cuts `text` (ASCII) for a stand-in, or 0 for no stand-in.
 *
 * @param {string} text
 * @returns {number}
 */
function standInLength(text) {
  const { minLength, prefixLengths } = standInSettings;
  if (minLength === Infinity) return 0;
  // The core tries its payload lengths in order and reads no further than the one that
  // decodes: the head of the first goes first (an image's header is in its first kilobytes),
  // the longest head only when that prefix does not decode.
  const first = MAX_HEADER + 1 + (prefixLengths ?? PAYLOAD_CHARS)[0];
  if (text.length > first && first < HEAD_CHARS) {
    const cut = cutWithin(text, first);
    if (cut > 0) return cut;
  }
  return cutWithin(text, HEAD_CHARS);
}

/**
 * Where the core cuts `text` for a stand-in, reading its first `headChars` characters only,
 * or 0 (no stand-in, or none within them).
 *
 * @param {string} text
 * @param {number} headChars
 * @returns {number}
 */
function cutWithin(text, headChars) {
  const head = text.length > headChars ? text.slice(0, headChars) : text;
  // Characters are bytes only in ASCII text; other text is handed over whole.
  if (utf8Length(head) !== head.length) return 0;
  const { minLength, prefixLengths } = standInSettings;
  if (minLength === null && prefixLengths === null) {
    return Number(native().standInLen(head, head.length, text.length));
  }
  const lengths = prefixLengths ?? PAYLOAD_CHARS;
  return Number(
    native().standInLenWith(
      head,
      head.length,
      text.length,
      minLength ?? 0,
      lengths,
      lengths.length,
    ),
  );
}

const nonce = randomHex(6);
let counter = 0;

/**
 * `messages` with every large data-URL image replaced by its stand-in. The input is never
 * changed: the messages, content arrays and parts on the way to a stand-in are copied.
 *
 * @param {unknown} messages
 * @returns {{ messages: unknown, originals: Map<string, string> | null }}
 */
export function withStandIns(messages) {
  if (!Array.isArray(messages)) return { messages, originals: null };
  let originals = null;
  let out = messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isPlainObject(message) || !Array.isArray(message.content)) continue;
    const content = message.content;
    let newContent = content;
    for (let p = 0; p < content.length; p++) {
      const bytes = withBase64(content[p]);
      if (bytes !== content[p]) {
        if (newContent === content) newContent = content.slice();
        newContent[p] = bytes;
        continue;
      }
      const found = standInPart(content[p]);
      if (found === null) continue;
      if (newContent === content) newContent = content.slice();
      newContent[p] = found.part;
      originals ??= new Map();
      originals.set(found.url, found.original);
    }
    if (newContent !== content) {
      if (out === messages) out = messages.slice();
      out[i] = { ...message, content: newContent };
    }
  }
  return { messages: out, originals };
}

/**
 * Puts the original URLs back in the messages of an answer (parsed from JSON: ours to change).
 *
 * @param {unknown[]} messages
 * @param {Map<string, string> | null} originals
 */
export function restoreOriginals(messages, originals) {
  if (originals === null || !Array.isArray(messages)) return messages;
  for (const message of messages) {
    if (!Array.isArray(message?.content)) continue;
    for (const part of message.content) {
      if (part?.type !== "image_url") continue;
      const image = part.image_url;
      if (typeof image === "string") {
        if (originals.has(image)) part.image_url = originals.get(image);
      } else if (typeof image?.url === "string" && originals.has(image.url)) {
        image.url = originals.get(image.url);
      }
    }
  }
  return messages;
}

/**
 * The first bytes of a large image that the probe decodes, or the whole image.
 *
 * @param {Uint8Array} bytes
 * @returns {string} base64 text
 */
export function probeText(bytes) {
  // A multiple of 3 bytes, so the prefix's base64 is a prefix of the whole image's base64.
  const prefix = 48 * 1024;
  if (bytes.length > 2 * prefix) {
    const text = base64(bytes.subarray(0, prefix));
    if (decodes(text)) return text;
  }
  return base64(bytes);
}

/**
 * The start of a long data URL or base64 text that the probe decodes, or the whole text.
 *
 * @param {string} text
 * @returns {string}
 */
export function probeTextOfString(text) {
  if (text.includes("\0")) return text;
  const cut = standInLength(text);
  return cut > 0 ? text.slice(0, cut) : text;
}

// Binary data in a part (the AI SDK's `image` and `file` parts take a Uint8Array, a Buffer or
// an ArrayBuffer, also inside a tagged `data` object) is given to the core as base64 text, the
// form the SDK takes too: JSON.stringify would write a Buffer as {"type":"Buffer","data":[…]}.
function withBase64(part) {
  if (!isPlainObject(part)) return part;
  let out = part;
  for (const key of ["image", "data"]) {
    const value = part[key];
    let text = base64Of(value);
    if (text === null && isPlainObject(value) && base64Of(value.data) !== null) {
      text = { ...value, data: base64Of(value.data) };
    }
    if (text === null) continue;
    if (out === part) out = { ...part };
    out[key] = text;
  }
  return out;
}

function base64Of(value) {
  if (value instanceof Uint8Array) return base64(value);
  if (value instanceof ArrayBuffer) return base64(new Uint8Array(value));
  return null;
}

function standInPart(part) {
  if (!isPlainObject(part) || part.type !== "image_url") return null;
  const image = part.image_url;
  let url;
  let rebuild;
  if (typeof image === "string") {
    url = image;
    rebuild = (standIn) => ({ ...part, image_url: standIn });
  } else if (isPlainObject(image) && typeof image.url === "string") {
    url = image.url;
    rebuild = (standIn) => ({ ...part, image_url: { ...image, url: standIn } });
  } else {
    return null;
  }
  // A lone surrogate makes the whole request invalid JSON for the core: it must see it.
  if (!isWellFormed(url)) return null;
  const cut = standInLength(url);
  if (cut === 0) return null;
  const comma = url.indexOf(",");
  const header = url.slice(0, comma);
  // Tagged so the answer's URL can be put back; the tag sits before ";base64", so the
  // stand-in still reads as the same image.
  const standIn =
    `${header.slice(0, -7)};ankita-ref=${nonce}.${++counter}${header.slice(-7)},` +
    url.slice(comma + 1, cut);
  return { part: rebuild(standIn), url: standIn, original: url };
}

// String.prototype.isWellFormed (Node 20+) answers at once for one-byte strings, as base64
// text is; older Node gets the stricter "plain ASCII" test.
function isWellFormed(text) {
  if (typeof text.isWellFormed === "function") return text.isWellFormed();
  return utf8Length(text) === text.length;
}

function decodes(text) {
  const response = JSON.parse(native().probeImage(text));
  return response.ok === true && typeof response.format === "string";
}

// Only plain data is copied: a class instance or an object with toJSON serialises its own way.
function isPlainObject(value) {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof value.toJSON !== "function";
}
