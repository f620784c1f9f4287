// The WebAssembly build of the core (wasm/ankita.wasm, docs/wasm.md) bound as lib/native.js
// binds the native library: the same C ABI, with each pointer an offset into the module's
// memory. A string argument is written there (UTF-8 and a NUL, in a buffer of ankita_alloc),
// an answer is read up to its NUL and released with ankita_string_free, as a C caller does.
// No Node module is imported here: the browser entry (lib/native-browser.js) binds with it too.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Binds an instance of the module.
 *
 * @param {WebAssembly.Exports} exports the instance's exports
 * @param {object} where
 * @param {string} where.path where the module was read from (libraryPath() answers it)
 * @param {{ released: number }} [where.stringStats] counts the strings released
 * @param {{ made: number, freed: number }} [where.sessionStats] counts the sessions made and freed
 */
export function bindWasm(
  exports,
  { path, stringStats = { released: 0 }, sessionStats = { made: 0, freed: 0 } },
) {
  const x = /** @type {Record<string, any>} */ (exports);
  const memory = /** @type {WebAssembly.Memory} */ (x.memory);
  // The view is made again after the memory grows (its buffer is then a new one).
  let view = new Uint8Array(memory.buffer);
  const bytes = () =>
    view.buffer === memory.buffer ? view : (view = new Uint8Array(memory.buffer));

  /** Buffers to release once a call returns: [pointer, length] pairs. */
  const held = [];
  const alloc = (len) => {
    const pointer = x.ankita_alloc(len) >>> 0;
    if (pointer === 0)
      throw new RangeError(`ankita: the WebAssembly memory cannot hold ${len} bytes`);
    held.push(pointer, len);
    return pointer;
  };
  const release = () => {
    while (held.length > 0) {
      const len = held.pop();
      x.ankita_dealloc(held.pop(), len);
    }
  };

  /** A `const char *` argument, as koffi writes one: UTF-8 and a NUL; null is NULL. */
  const cString = (text) => {
    if (text === null || text === undefined) return 0;
    const text_ = String(text);
    const room = text_.length * 3 + 1;
    const pointer = alloc(room);
    const { written } = encoder.encodeInto(text_, bytes().subarray(pointer, pointer + room - 1));
    bytes()[pointer + written] = 0;
    return pointer;
  };

  /** The text of a library string at `pointer` (NULL: null), released. */
  const take = (pointer) => {
    pointer >>>= 0;
    if (pointer === 0) return null;
    const text = read(pointer);
    stringStats.released++;
    x.ankita_string_free(pointer);
    return text;
  };
  const read = (pointer) => {
    const all = bytes();
    return decoder.decode(all.subarray(pointer, all.indexOf(0, pointer)));
  };

  // A panic traps (nothing unwinds in the module): the stack pointer is put back, and a call
  // answering a string answers what the native library answers for the panic (an `internal`
  // error naming it, kept by the module's panic hook: src/wasm.rs).
  x.ankita_wasm_init?.();
  const stack = /** @type {WebAssembly.Global | undefined} */ (x.__stack_pointer);

  /**
   * Runs `body`, then releases every argument buffer it wrote.
   *
   * @param {() => any} body
   * @param {boolean} [answers] whether `body` answers a library string
   */
  const call = (body, answers = false) => {
    const top = stack?.value;
    try {
      return body();
    } catch (error) {
      if (!(error instanceof WebAssembly.RuntimeError)) throw error;
      if (stack) stack.value = top;
      const panic = x.ankita_wasm_panic ? take(x.ankita_wasm_panic()) : "";
      if (answers && panic) return panic;
      throw error;
    } finally {
      release();
    }
  };

  /** A function answering a library string, with `.async` as koffi's functions have it. */
  const answering = (fn) => {
    const sync = (...args) => call(() => take(fn(...args)), true);
    sync.async = (...args) => {
      const done = args.pop();
      setTimeout(() => {
        let answer;
        try {
          answer = sync(...args);
        } catch (error) {
          done(error);
          return;
        }
        done(null, answer);
      }, 0);
    };
    return sync;
  };
  const text1 = (name) => answering((a) => x[name](cString(a)));
  const text2 = (name) => answering((a, b) => x[name](cString(a), cString(b)));

  const bound = {
    path,
    trim: text1("ankita_trim"),
    trimTail: text1("ankita_trim_tail"),
    sanitizeTail: text1("ankita_sanitize_tail"),
    tailSelect: answering((request, shapes, len) => {
      const request_ = cString(request);
      let pointer = 0;
      if (shapes !== null && shapes !== undefined) {
        pointer = alloc(Math.max(len, 1));
        bytes().set(shapes.subarray(0, len), pointer);
      }
      return x.ankita_tail_select(request_, pointer, len);
    }),
    sanitize: text1("ankita_sanitize"),
    countTokens: text1("ankita_count_tokens"),
    probeImage: text1("ankita_probe_image"),
    probeImageWith: text2("ankita_probe_image_with"),
    probeFile: text2("ankita_probe_file"),
    estimateImageTokens: answering((width, height, options) =>
      x.ankita_estimate_image_tokens(width, height, cString(options)),
    ),
    standInLen: (head, headLen, totalLen) =>
      call(() => x.ankita_stand_in_len(cString(head), headLen, totalLen) >>> 0),
    standInLenWith: (head, headLen, totalLen, minChars, payloadChars, count) =>
      call(() => {
        const head_ = cString(head);
        let lengths = 0;
        if (payloadChars !== null && payloadChars !== undefined) {
          lengths = alloc(Math.max(count, 1) * 4);
          const words = new DataView(memory.buffer); // after the last allocation
          for (let i = 0; i < count; i++) words.setUint32(lengths + 4 * i, payloadChars[i], true);
        }
        return x.ankita_stand_in_len_with(head_, headLen, totalLen, minChars, lengths, count) >>> 0;
      }),
    version: () => read(x.ankita_version() >>> 0),
    formats: JSON.parse(take(x.ankita_formats())),

    /**
     * A batch, one request after another (the module has no threads): `done` is called on a
     * later turn of the event loop, as koffi calls it.
     *
     * @param {string[]} texts
     * @param {string | null} defaults
     * @param {number} threads
     * @param {(error: unknown, status: string | null, answers: (string | null)[]) => void} done
     */
    trimManyAsync(texts, defaults, threads, done) {
      setTimeout(() => {
        let status;
        const answers = [];
        try {
          status = call(() => {
            const requests = alloc(Math.max(texts.length, 1) * 4);
            const slots = alloc(Math.max(texts.length, 1) * 4);
            const pointers = texts.map(cString);
            const defaults_ = cString(defaults);
            // Written once every argument is in place: an allocation may grow the memory,
            // which detaches the views made before it.
            const words = new DataView(memory.buffer);
            pointers.forEach((pointer, i) => {
              words.setUint32(requests + 4 * i, pointer, true);
              words.setUint32(slots + 4 * i, 0, true);
            });
            const answer = x.ankita_trim_many(requests, 0, texts.length, defaults_, threads, slots);
            const after = new DataView(memory.buffer);
            for (let i = 0; i < texts.length; i++) {
              answers.push(take(after.getUint32(slots + 4 * i, true)));
            }
            return take(answer);
          });
        } catch (error) {
          done(error, null, []);
          return;
        }
        done(null, status, answers);
      }, 0);
    },

    /**
     * @param {string} options the options JSON
     * @returns {{ handle: number | null, error: string | null }}
     */
    sessionNew(options) {
      return call(() => {
        const out = alloc(4);
        new DataView(memory.buffer).setUint32(out, 0, true);
        const handle = x.ankita_session_new(cString(options), out) >>> 0;
        if (handle !== 0) sessionStats.made++;
        const error = take(new DataView(memory.buffer).getUint32(out, true));
        return { handle: handle === 0 ? null : handle, error };
      });
    },
    sessionFree(handle) {
      sessionStats.freed++;
      x.ankita_session_free(handle);
    },
    sessionAppend: answering((handle, text) => x.ankita_session_append(handle, cString(text))),
    sessionTruncate: answering((handle, len) => x.ankita_session_truncate(handle, len)),
    sessionPlan: answering((handle) => x.ankita_session_plan(handle)),
    // A uint64_t is a wasm i64: a BigInt on the JavaScript side.
    sessionObserveUsage: answering((handle, tokens) =>
      x.ankita_session_observe_usage(handle, BigInt(tokens)),
    ),
  };
  return bound;
}
