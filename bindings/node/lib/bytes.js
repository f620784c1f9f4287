// Text lengths, base64 and a random tag without importing a Node module, so that the package's
// modules load in a browser too (docs/wasm.md); Node's Buffer does the work where it is there.

const NodeBuffer = /** @type {typeof Buffer | undefined} */ (globalThis.Buffer);

/**
 * The length of `text` in UTF-8 bytes (a lone surrogate counts the 3 bytes of U+FFFD, as
 * Buffer.byteLength counts it).
 *
 * @param {string} text
 * @returns {number}
 */
export function utf8Length(text) {
  if (NodeBuffer) return NodeBuffer.byteLength(text, "utf8");
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The base64 text of `bytes`.
 *
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function base64(bytes) {
  if (NodeBuffer) {
    return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  }
  const parts = [];
  // A multiple of 3 bytes a chunk, so the chunks' base64 texts join into the whole's.
  const chunk = 3 * 8192;
  for (let i = 0; i < bytes.length; i += chunk) {
    parts.push(btoa(String.fromCharCode(...bytes.subarray(i, i + chunk))));
  }
  return parts.join("");
}

/**
 * `count` random bytes as hex text (a tag that a caller's text does not hold by chance).
 *
 * @param {number} count
 * @returns {string}
 */
export function randomHex(count) {
  const bytes = new Uint8Array(count);
  if (globalThis.crypto?.getRandomValues) globalThis.crypto.getRandomValues(bytes);
  else for (let i = 0; i < count; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
