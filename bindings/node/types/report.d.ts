// What a trim or a sanitize reports (index.d.ts re-exports every type).

import type { ImageFormat, MessageFormat, Tokenizer } from "./names.js";

/**
 * Where the cache breakpoint stands in the returned messages (Anthropic `cache_control`, OpenAI
 * `prompt_cache_breakpoint`).
 */
export interface CacheBreakpoint {
  /** Index among the returned messages. */
  output_index: number;
  /** The block's index in that message's content. */
  part: number;
  /** The caller's message had the breakpoint already. */
  given: boolean;
}

/**
 * Anthropic and Gemini formats: the user message that began the kept run's turn, brought back so
 * that the answer starts with the user's turn.
 */
export interface TurnStart {
  /** Index of the message in the input `messages`. */
  index: number;
  /** Whole, shrunk into the room left, or its content replaced by a short placeholder. */
  kept: "whole" | "shrunk" | "placeholder";
  /** Its cost before and after, in bytes (`report.unit` is `bytes`)… */
  from_bytes?: number;
  to_bytes?: number;
  /** …or in tokens (`report.unit` is `tokens`). */
  from_tokens?: number;
  to_tokens?: number;
}

/** A text shrunk to fit: head and tail kept around a marker. */
export interface Truncation {
  /** Index of the message in the input `messages`. */
  index: number;
  /** Index of the part in that message's content array; null for string content. */
  part: number | null;
  /** The text's cost before and after, in bytes (`report.unit` is `bytes`)… */
  from_bytes?: number;
  to_bytes?: number;
  /** …or in tokens (`report.unit` is `tokens`). */
  from_tokens?: number;
  to_tokens?: number;
}

/** An image left out; `format`, `width`, `height`, `tokens` are null when not decodable. */
export interface DroppedImage {
  index: number;
  part: number;
  format: ImageFormat | null;
  width: number | null;
  height: number | null;
  tokens: number | null;
  /** Null when costs are tokens. */
  budget_bytes: number | null;
}

/** A document or audio part left out (a placeholder says what it was): `pages` of a document
 * or `seconds` of audio as priced (estimated when unreadable); `format` ("pdf", "mp3", …) is
 * null when the file could not be read. */
export interface DroppedFile {
  index: number;
  part: number;
  kind: "document" | "audio";
  /** What the part calls the file (its file name or title, else its file id or its URL's last segment); null when it gives none. */
  name: string | null;
  format: string | null;
  pages?: number;
  seconds?: number;
  tokens: number | null;
  /** Null when costs are tokens. */
  budget_bytes: number | null;
}

/** An attachment body dropped as a last resort. */
export interface DroppedAttachment {
  index: number;
  part: number;
  /** The body's cost, in bytes or in tokens, as `report.unit` says. */
  bytes?: number;
  tokens?: number;
}

/** A repair of the restored session (DESIGN §5). */
export interface Repair {
  index: number;
  action:
    | "orphan_tool_removed"
    | "incomplete_tool_calls_removed"
    | "incomplete_tool_reply_removed"
    | "empty_tool_calls_removed"
    | "empty_message_removed"
    | "unknown_role_removed"
    | "incomplete_tool_use_removed"
    | "incomplete_tool_result_removed"
    | "orphan_tool_result_removed"
    | (string & {});
  reason?: string;
  path?: string;
  [key: string]: unknown;
}

/** Anthropic and Gemini formats: input message `index` was merged into input message `into`. */
export interface Merge {
  index: number;
  into: number;
}

/** Anthropic and Gemini formats: a block (part) removed from a message that stays (a
 * `tool_result` or `functionResponse` whose exchange was dropped). */
export interface DroppedBlock {
  index: number;
  part: number;
}

/** Something in the input the caller should know about, that did not stop the trim: `code`
 * `implausible_image` (a header whose size its payload cannot hold, priced as the profile's
 * largest typical image), with the image's `path`. */
export interface TrimWarning {
  /**
   * `unknown_model`: a model no family claims, and what was assumed; `no_context_window`: a
   * model given without a budget whose window is not known (only `max_messages` applied).
   * Both have `path` "model". `unreadable_file`: a PDF or audio file the probe could not read,
   * priced by a conservative estimate; `implausible_file`: one whose structure claims more pages
   * or a longer duration than its size can hold, priced the same way.
   */
  code:
    | "implausible_image"
    | "unknown_model"
    | "no_context_window"
    | "unreadable_file"
    | "implausible_file"
    | (string & {});
  /** `null` for a warning about the request rather than a message. */
  index: number | null;
  part: number | null;
  path: string;
  message: string;
}

/**
 * What token counts were multiplied by, and why (`report.token_factor`, in tokens; what
 * `Session#observeUsage` answers).
 */
export interface TokenFactor {
  value: number;
  /**
   * `tokenizer`: the tokenizer's own counts (1); `fixed_margin`: the model family's safety
   * margin (Claude o200k_base × 1.35, Gemini × 1.25, …); `caller`: `token_factor`;
   * `observed`: set by the provider's counts given to `Session#observeUsage`.
   */
  source: "tokenizer" | "fixed_margin" | "caller" | "observed";
  /** How many provider counts were observed. */
  observations: number;
  /**
   * In a report: the trim's count of the request before the factor (history, tools, memory), to
   * pair with the provider's input tokens of that request in the next call's `observed_usage`.
   */
  counted?: number;
}

/** What `trim` removed or changed; every `index` is an index in the input `messages`. */
export interface TrimReport {
  /** The format the messages were read in. */
  format: MessageFormat;
  /** What costs are counted in: the model's tokens (`model` or `tokenizer`) or bytes. */
  unit: "tokens" | "bytes";
  /** The tokenizer that counted (`bytes` for the byte rule). */
  tokenizer: Tokenizer;
  /** True when the counts are the model's own tokens; false for bytes and for estimates
   * (Claude and Gemini models, counted with `o200k_base` times a safety factor). */
  exact: boolean;
  /** In tokens only: what token counts were multiplied by, and why. */
  token_factor?: TokenFactor;
  /** The history budget in bytes; null when only `max_messages` applies or in tokens. */
  budget_bytes: number | null;
  /** The history budget in tokens (in bytes mode, `budget_bytes` in tokens, rounded up). */
  budget_tokens: number | null;
  /** Cost of the returned messages in bytes; null in tokens. */
  cost_bytes: number | null;
  cost_tokens: number;
  input_messages: number;
  output_messages: number;
  /** Input indices of messages removed whole by trimming (repairs are in `repaired`). */
  dropped_messages: number[];
  truncated: Truncation[];
  dropped_images: DroppedImage[];
  dropped_files: DroppedFile[];
  dropped_attachments: DroppedAttachment[];
  /** Which limit bound the answer: `max_messages`, the budget, or null when all fit both. */
  limited_by: "max_messages" | "budget" | "cut" | null;
  /** Input indices of messages brought back after shedding freed budget (refill) or shrunk into the room left (fill). */
  refilled: number[];
  /**
   * Tool results replaced by the `clear_tool_results` placeholder, with what they cost; with
   * `clear_tool_inputs`, the messages whose calls' arguments were cleared too, with what that
   * freed.
   */
  cleared_tool_results: { index: number; bytes?: number; tokens?: number }[];
  warnings: TrimWarning[];
  repaired: Repair[];
  /** Anthropic and Gemini formats only: turns merged so that roles alternate. */
  merged?: Merge[];
  /** Anthropic and Gemini formats only: blocks (parts) removed from messages that stay. */
  dropped_blocks?: DroppedBlock[];
  /**
   * Anthropic and Gemini formats (and any format counted with a tokenizer file whose chat
   * template refuses a chat that opens on the assistant's turn, as Gemma's does): the user
   * message brought back to start the answer.
   */
  turn_start?: TurnStart | null;
  /**
   * Cache-stable trimming (`trim_to` or `cut` given): the input index where the kept run
   * starts, to pass as the next call's `cut`; `null` when nothing was removed.
   */
  cut?: number | null;
  /** `cache_breakpoint` given: where the breakpoint stands (`null`: none was placed). */
  cache_breakpoint?: CacheBreakpoint | null;
  /** The request's summary was placed: its index among the returned messages. */
  summary?: { output_index: number };
  /**
   * Cache-stable trimming whose cut moved: what to summarise next (the input messages
   * `from`..`through`, each index of the range, and what a summary may cost and still fit, in
   * the report's unit; `null` without a budget).
   */
  compaction?: {
    from: number;
    through: number;
    messages: number[];
    budget_tokens?: number | null;
    budget_bytes?: number | null;
  };
  [key: string]: unknown;
}

export interface SanitizeReport {
  repaired: Repair[];
  /** The format the messages were read in (given for the Anthropic format). */
  format?: MessageFormat;
  /** Anthropic and Gemini formats only: turns merged so that roles alternate. */
  merged?: Merge[];
  [key: string]: unknown;
}
