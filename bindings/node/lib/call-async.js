// Native calls on koffi's worker threads (the *Async functions): a queue in front of them.

import { AnkitaError } from "./error.js";

// koffi throws once more than 256 async calls are queued (its max_async_calls): calls past
// MAX_IN_FLIGHT wait here, in order, so that any number of trimAsync calls may be pending.
const MAX_IN_FLIGHT = 64;
let inFlight = 0;
const waiting = [];

/**
 * Calls `fn` on a worker thread (`fn.async`), queued past MAX_IN_FLIGHT calls in flight.
 *
 * @param {any} fn a koffi function (or the WebAssembly build's)
 * @param {...unknown} args
 * @returns {Promise<any>} rejects with an AnkitaError `internal` when the call fails
 */
export function callAsync(fn, ...args) {
  return new Promise((resolve, reject) => {
    const start = () => {
      inFlight++;
      const done = (error, result) => {
        inFlight--;
        if (waiting.length > 0) waiting.shift()();
        if (error) {
          const message = `native call failed: ${error?.message ?? error}`;
          reject(new AnkitaError("internal", message, { cause: error }));
        } else {
          resolve(result);
        }
      };
      try {
        fn.async(...args, done);
      } catch (error) {
        done(error);
      }
    };
    if (inFlight < MAX_IN_FLIGHT) start();
    else waiting.push(start);
  });
}
