// The WebAssembly build of the core for Node, Deno and Bun (docs/wasm.md): read from the package
// and instantiated synchronously, so the package's API stays synchronous where no native library
// loads. lib/native.js falls back to it; ANKITA_BACKEND=wasm asks for it.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bindWasm } from "./wasm-bind.js";

/**
 * Where the module is looked for: `ANKITA_WASM` (a path to a `.wasm` file), else the package's
 * `wasm/ankita.wasm`.
 *
 * @param {Record<string, string | undefined>} [env]
 * @returns {string}
 */
export function wasmPath(env = process.env) {
  if (env.ANKITA_WASM) return path.resolve(env.ANKITA_WASM);
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "wasm", "ankita.wasm");
}

/**
 * Compiles and instantiates the module (synchronously) and binds it as lib/native.js binds the
 * library.
 *
 * @param {object} [stats] the counters of lib/native.js
 * @param {{ released: number }} [stats.stringStats]
 * @param {{ made: number, freed: number }} [stats.sessionStats]
 * @returns {ReturnType<typeof bindWasm>}
 * @throws {Error} with code `library_not_found` when the module is missing
 */
export function loadWasm(stats = {}) {
  const file = wasmPath();
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (cause) {
    const error = new Error(`ankita: cannot read the WebAssembly module ${file}`, { cause });
    Object.assign(error, { code: "library_not_found" });
    throw error;
  }
  const module = new WebAssembly.Module(bytes);
  const instance = new WebAssembly.Instance(module, {});
  return bindWasm(instance.exports, { path: file, ...stats });
}
