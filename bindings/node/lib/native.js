// The one file that touches koffi: finds libankita, declares its C ABI, and makes sure every
// string the library returns is released by the library's own ankita_string_free.

import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadWasm, wasmPath } from "./wasm.js";

const require = createRequire(import.meta.url);

/** The package directory (bindings/node in the repository, node_modules/ankita when installed). */
export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The file name of the shared library on a platform.
 *
 * @param {string} [platform] a `process.platform` value
 * @returns {string} `libankita.so`, `libankita.dylib` or `ankita.dll`
 */
export function libraryFileName(platform = process.platform) {
  if (platform === "win32") return "ankita.dll";
  if (platform === "darwin") return "libankita.dylib";
  return "libankita.so";
}

/**
 * Whether this process runs on musl (Alpine Linux) rather than glibc: Node's diagnostic report
 * names the glibc it runs on (`header.glibcVersionRuntime`) and has no such field on musl.
 *
 * @param {string} [platform] a `process.platform` value
 * @returns {boolean} false on every platform but a Linux without glibc
 */
export function isMusl(platform = process.platform) {
  if (platform !== "linux") return false;
  try {
    return !process.report?.getReport?.().header?.glibcVersionRuntime;
  } catch {
    return false;
  }
}

/**
 * The directory of the prebuild for a platform under `prebuilds/`: `<platform>-<arch>`, and
 * `linux-<arch>-musl` for a Linux on musl (a glibc library does not load there).
 *
 * @param {string} [platform] a `process.platform` value
 * @param {string} [arch] a `process.arch` value
 * @param {boolean} [musl] whether the C library is musl (detected by default)
 * @returns {string} e.g. `win32-x64`, `darwin-arm64`, `linux-x64`, `linux-x64-musl`
 */
export function prebuildName(
  platform = process.platform,
  arch = process.arch,
  musl = isMusl(platform),
) {
  return `${platform}-${arch}${platform === "linux" && musl ? "-musl" : ""}`;
}

/**
 * Every place the library is looked for, in order.
 *
 * 1. the `ANKITA_LIB` environment variable (a path to the library file);
 * 2. the repository's build output, `../../target/release/<file>` from the package (in a clone,
 *    the fresh build wins over a prebuild left by `make prebuilds`);
 * 3. the prebuild bundled in the package: `prebuilds/<platform>-<arch>[-musl]/<file>` (first its
 *    `app.asar.unpacked` twin when the package sits inside an Electron asar archive, since a
 *    shared library cannot be loaded from inside the archive);
 * 4. `process.resourcesPath` of a packaged Electron app: `<resources>/<file>` and
 *    `<resources>/prebuilds/<platform>-<arch>/<file>` (where `extraResources` puts it).
 *
 * @param {object} [where] overrides, for tests
 * @param {Record<string, string | undefined>} [where.env]
 * @param {string} [where.packageDir]
 * @param {string} [where.resourcesPath]
 * @param {string} [where.platform]
 * @param {string} [where.arch]
 * @param {boolean} [where.musl] whether the C library is musl (detected by default)
 * @returns {{ source: string, path: string }[]}
 */
export function candidatePaths({
  env = process.env,
  packageDir = PACKAGE_DIR,
  resourcesPath = process.resourcesPath,
  platform = process.platform,
  arch = process.arch,
  musl = isMusl(platform),
} = {}) {
  const file = libraryFileName(platform);
  const prebuild = path.join("prebuilds", prebuildName(platform, arch, musl), file);
  const candidates = [];
  if (env.ANKITA_LIB) candidates.push({ source: "ANKITA_LIB", path: path.resolve(env.ANKITA_LIB) });
  candidates.push({
    source: "repository build",
    path: path.resolve(packageDir, "..", "..", "target", "release", file),
  });
  const asar = `${path.sep}app.asar${path.sep}`;
  if (packageDir.includes(asar)) {
    candidates.push({
      source: "prebuild (asar unpacked)",
      path: path.join(
        packageDir.replace(asar, `${path.sep}app.asar.unpacked${path.sep}`),
        prebuild,
      ),
    });
  }
  candidates.push({ source: "prebuild", path: path.join(packageDir, prebuild) });
  if (resourcesPath) {
    candidates.push({ source: "resourcesPath", path: path.join(resourcesPath, file) });
    candidates.push({ source: "resourcesPath prebuild", path: path.join(resourcesPath, prebuild) });
  }
  return candidates;
}

/**
 * Loads the first candidate that `load` accepts.
 *
 * @template T
 * @param {{ source: string, path: string }[]} candidates
 * @param {(path: string) => T} load throws when the file cannot be loaded
 * @param {(path: string) => boolean} exists
 * @returns {{ path: string, lib: T }}
 * @throws {Error} listing every path tried and why each failed
 */
export function loadFirst(candidates, load, exists) {
  const failures = [];
  for (const candidate of candidates) {
    if (!exists(candidate.path)) {
      failures.push(`  ${candidate.path} (${candidate.source}): not found`);
      continue;
    }
    try {
      return { path: candidate.path, lib: load(candidate.path) };
    } catch (error) {
      const why = String(error?.message ?? error).split("\n")[0];
      failures.push(`  ${candidate.path} (${candidate.source}): ${why}`);
    }
  }
  const error = new Error(
    `ankita: cannot load the native library (this package has no loadable prebuild for ` +
      `${prebuildName()}). Build libankita from the ankita sources ` +
      `(\`cargo build --release\` gives target/release/${libraryFileName()}) and set ANKITA_LIB ` +
      `to its path. Tried:\n${failures.join("\n")}`,
  );
  error.code = "library_not_found";
  error.tried = failures;
  throw error;
}

let bound = null;

/** How many library strings have been released through ankita_string_free (for the tests). */
export const stringStats = { released: 0 };

/** How many sessions have been made and freed through ankita_session_free (for the tests). */
export const sessionStats = { made: 0, freed: 0 };

/**
 * @typedef {{
 *   default: string,
 *   formats: {
 *     name: string, takes_system: boolean, merges_turns: boolean, user_turn_first: boolean,
 *     rebuilds_messages: boolean, content_key: string,
 *     plain: {
 *       user: string, model: string, other_roles: string[], text_key: string,
 *       text_parts: boolean, extra_key: string | null, extra_value: string | null,
 *     },
 *     stand_in: {
 *       longer_than: number, replacement: string, text_keys: string[], data_keys: string[],
 *     },
 *     turns: { user_parts: object[] | null, call: object[], reply: object[] },
 *   }[],
 *   tail: {
 *     min_before: number, first_with_budget: number, count_times: number, count_plus: number,
 *     first_at_least: number, default_max_messages: number, budget_keys: string[],
 *     default_budget_keys: string[], whole_with: string[], widen_times: number,
 *     widen_by_scale: number, widen_at_least: number, pair_run: number,
 *   },
 * }} FormatFacts what `ankita_formats` answers (but `ok`)
 */

/**
 * Loads the library once and declares its functions.
 *
 * @returns {{
 *   path: string,
 *   trim: Function, sanitize: Function, tailSelect: Function, countTokens: Function, probeImage: Function, probeImageWith: Function,
 *   probeFile: Function,
 *   estimateImageTokens: Function, standInLen: Function, standInLenWith: Function,
 *   version: () => string, formats: FormatFacts,
 * }}
 */
export function native() {
  if (bound) return bound;
  const fs = require("node:fs");
  // The WebAssembly build (lib/wasm.js, docs/wasm.md) answers where no native library loads,
  // and when ANKITA_BACKEND=wasm asks for it; never in place of a library ANKITA_LIB names.
  const backend = process.env.ANKITA_BACKEND;
  if (backend === "wasm") return (bound = loadWasm({ stringStats, sessionStats }));
  let koffi;
  let found;
  try {
    koffi = require("koffi");
    found = loadFirst(candidatePaths(), (file) => koffi.load(file), fs.existsSync);
  } catch (error) {
    if (backend !== "native" && !process.env.ANKITA_LIB && fs.existsSync(wasmPath())) {
      return (bound = loadWasm({ stringStats, sessionStats }));
    }
    throw error;
  }
  const lib = found.lib;

  // A library older than this package lacks some function: say so, rather than koffi's bare
  // "cannot find function".
  const declare = (...signature) => {
    try {
      return lib.func(...signature);
    } catch (error) {
      throw new Error(
        `ankita: ${found.path} does not match this package (${error.message}); rebuild it ` +
          "with `cargo build --release` or point ANKITA_LIB to a current build",
        { cause: error },
      );
    }
  };

  const stringFree = declare("void ankita_string_free(void *s)");
  // Koffi copies the returned char* into a JS string, then hands the original pointer to this
  // finaliser: the library's own free function, never C free(). The type is anonymous, so that
  // two copies of this package in one process do not clash over a type name.
  const AnkitaString = koffi.disposable("const char *", (pointer) => {
    stringStats.released++;
    stringFree(pointer);
  });

  bound = {
    path: found.path,
    trim: declare("ankita_trim", AnkitaString, ["const char *"]),
    trimTail: declare("ankita_trim_tail", AnkitaString, ["const char *"]),
    sanitizeTail: declare("ankita_sanitize_tail", AnkitaString, ["const char *"]),
    tailSelect: declare("ankita_tail_select", AnkitaString, [
      "const char *",
      "const uint8_t *",
      "size_t",
    ]),
    sanitize: declare("ankita_sanitize", AnkitaString, ["const char *"]),
    countTokens: declare("ankita_count_tokens", AnkitaString, ["const char *"]),
    probeImage: declare("ankita_probe_image", AnkitaString, ["const char *"]),
    probeImageWith: declare("ankita_probe_image_with", AnkitaString, [
      "const char *",
      "const char *",
    ]),
    probeFile: declare("ankita_probe_file", AnkitaString, ["const char *", "const char *"]),
    estimateImageTokens: declare("ankita_estimate_image_tokens", AnkitaString, [
      "uint32_t",
      "uint32_t",
      "const char *",
    ]),
    // The stand-in policy of the core (lib/images.js): where a long data URL may be cut.
    standInLen: declare(
      "size_t ankita_stand_in_len(const char *head, size_t head_len, size_t total_len)",
    ),
    standInLenWith: declare(
      "size_t ankita_stand_in_len_with(const char *head, size_t head_len, size_t total_len, " +
        "size_t min_chars, const size_t *payload_chars, size_t count)",
    ),
    // Static string: a plain (non-disposable) type, never released.
    version: declare("const char *ankita_version(void)"),
  };
  // What each format is (lib/formats.js), as the core states it: read once, here.
  bound.formats = JSON.parse(declare("ankita_formats", AnkitaString, [])());

  // A batch (lib/batch.js): ankita_trim_many on a koffi worker thread. The answers come back
  // in an array of `count` library strings, each decoded and released here.
  const trimMany = declare("ankita_trim_many", AnkitaString, [
    "const char **",
    "const size_t *",
    "size_t",
    "const char *",
    "size_t",
    "void *",
  ]);
  const POINTER_SIZE = koffi.sizeof("void *");
  /**
   * @param {string[]} texts the requests (no NUL character in any)
   * @param {string | null} defaults the defaults JSON, or null
   * @param {number} threads 0: every core
   * @param {(error: unknown, status: string | null, answers: (string | null)[]) => void} done
   */
  bound.trimManyAsync = (texts, defaults, threads, done) => {
    const slots = koffi.alloc("void *", Math.max(texts.length, 1));
    const finish = (error, status) => {
      const answers = [];
      try {
        for (let i = 0; i < texts.length; i++) {
          const pointer = koffi.decode(slots, i * POINTER_SIZE, "void *");
          if (pointer === null) {
            answers.push(null);
            continue;
          }
          answers.push(koffi.decode(pointer, "char", -1));
          stringStats.released++;
          stringFree(pointer);
        }
      } finally {
        koffi.free(slots);
      }
      done(error, status, answers);
    };
    try {
      trimMany.async(texts, null, texts.length, defaults, threads, slots, finish);
    } catch (error) {
      koffi.free(slots);
      done(error, null, []);
    }
  };

  // Incremental sessions (index.js, Session). The handle type is anonymous, as above.
  const SessionHandle = koffi.pointer(koffi.opaque());
  const sessionNew = declare("ankita_session_new", SessionHandle, [
    "const char *",
    koffi.out(koffi.pointer("void *")),
  ]);
  const freeSession = declare("ankita_session_free", "void", [SessionHandle]);
  Object.assign(bound, {
    /**
     * @param {string} options the options JSON
     * @returns {{ handle: unknown, error: string | null }}
     */
    sessionNew(options) {
      const error = [null];
      const handle = sessionNew(options, error);
      if (handle) sessionStats.made++;
      let text = null;
      if (error[0] !== null) {
        text = koffi.decode(error[0], "char", -1);
        stringStats.released++;
        stringFree(error[0]);
      }
      return { handle, error: text };
    },
    sessionFree(handle) {
      sessionStats.freed++;
      freeSession(handle);
    },
    sessionAppend: declare("ankita_session_append", AnkitaString, [SessionHandle, "const char *"]),
    sessionTruncate: declare("ankita_session_truncate", AnkitaString, [SessionHandle, "size_t"]),
    sessionPlan: declare("ankita_session_plan", AnkitaString, [SessionHandle]),
    sessionObserveUsage: declare("ankita_session_observe_usage", AnkitaString, [
      SessionHandle,
      "uint64_t",
    ]),
  });
  return bound;
}
