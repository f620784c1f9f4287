// lib/native.js for browsers and web workers, the `browser` and `worker` conditions of the
// package's "#native" import (package.json "imports", docs/wasm.md): the WebAssembly build,
// fetched from beside this file (../wasm/ankita.wasm, a URL bundlers copy as an asset) and
// instantiated while the package is imported, so that every call after it is synchronous.

import { bindWasm } from "./wasm-bind.js";

/** How many library strings have been released (as lib/native.js counts them). */
export const stringStats = { released: 0 };

/** How many sessions have been made and freed (as lib/native.js counts them). */
export const sessionStats = { made: 0, freed: 0 };

const url = new URL("../wasm/ankita.wasm", import.meta.url);

async function instantiate() {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`ankita: cannot fetch the WebAssembly module ${url} (HTTP ${response.status})`);
  }
  // Streaming compilation needs the server to say application/wasm; else the bytes are read.
  if (response.headers.get("content-type")?.startsWith("application/wasm")) {
    return (await WebAssembly.instantiateStreaming(response, {})).instance;
  }
  return (await WebAssembly.instantiate(await response.arrayBuffer(), {})).instance;
}

const bound = bindWasm((await instantiate()).exports, {
  path: url.href,
  stringStats,
  sessionStats,
});

/** The bound module, as lib/native.js's native() answers the library. */
export function native() {
  return bound;
}
