// The error every ankita call throws: the core's error object (DESIGN §8) as a JS Error.

/**
 * An error reported by ankita, with the core's stable `code`.
 *
 * `code` is one of `invalid_json`, `invalid_request`, `context_budget_exceeded`,
 * `history_budget_too_small`, `image_overflow`, `invalid_argument`, `internal`; `path` names the
 * part of the request at fault (e.g. `messages[3].content[1].type`) when there is one; `details`
 * holds every other field of the core's error object, such as the `breakdown` of
 * `context_budget_exceeded` and `history_budget_too_small`.
 *
 * @example
 * try {
 *   trim(messages, { max_bytes: 1000 });
 * } catch (error) {
 *   if (error instanceof AnkitaError && error.code === "context_budget_exceeded") {
 *     console.log(error.details.breakdown);
 *   }
 * }
 */
export class AnkitaError extends Error {
  /**
   * @param {string} code the core's error code
   * @param {string} message for people
   * @param {{ path?: string, details?: Record<string, unknown>, cause?: unknown }} [extra]
   */
  constructor(code, message, { path, details, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "AnkitaError";
    /** @type {string} */
    this.code = code;
    /** @type {string | undefined} */
    this.path = path;
    /** @type {Record<string, unknown>} */
    this.details = details ?? {};
  }

  /**
   * Builds the error from the `error` object of a failed response.
   *
   * @param {{ code?: unknown, message?: unknown, path?: unknown, [key: string]: unknown }} error
   * @returns {AnkitaError}
   */
  static fromJSON(error) {
    const { code, message, path, ...details } = error ?? {};
    return new AnkitaError(
      typeof code === "string" ? code : "internal",
      typeof message === "string" ? message : "the library reported an error without a message",
      { path: typeof path === "string" ? path : undefined, details },
    );
  }

  /**
   * The error object of the JSON contract: `{code, message, path?, ...details}`.
   *
   * @returns {{ code: string, message: string, path?: string, [key: string]: unknown }}
   */
  toJSON() {
    return {
      code: this.code,
      message: this.message,
      ...(this.path === undefined ? {} : { path: this.path }),
      ...this.details,
    };
  }
}
