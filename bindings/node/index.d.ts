// Types of the ankita Node package: the JSON contract of DESIGN §8 in TypeScript.
// `Session[Symbol.dispose]` needs the disposable declarations, which TypeScript 6+ no longer
// brings in through @types/node by default (`types` is empty unless set): reference them here.
/// <reference lib="esnext.disposable" />

import type { ImageFormat, MessageFormat, Tokenizer } from "./types/names.js";
import type { SanitizeReport, TokenFactor, TrimReport, TrimWarning } from "./types/report.js";

export * from "./types/names.js";
export * from "./types/report.js";

/** A role of the OpenAI Chat Completions format; other roles are removed by repair. */
export type Role = "system" | "developer" | "user" | "assistant" | "tool";

/** A text part. A text starting with `Attached file:` is an attachment body. */
export interface TextPart {
  type: "text";
  text: string;
  [key: string]: unknown;
}

/** An image part; a `data:` URL is priced by its pixels, read from the header alone. */
export interface ImagePart {
  type: "image_url";
  image_url: {
    url: string;
    detail?: "low" | "high" | "auto";
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Any other part type: kept unchanged, costs its JSON bytes. */
export interface OtherPart {
  type: string;
  [key: string]: unknown;
}

export type ContentPart = TextPart | ImagePart | OtherPart;

/** A function call of an assistant message. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * A chat message. Fields the library does not know (`name`, `cache_control`, `refusal`, …)
 * pass through unchanged.
 */
export interface Message {
  role: Role | (string & {});
  content?: string | ContentPart[] | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

/**
 * Image pricing profile: `ankita` (default) is an upper bound across OpenAI-compatible APIs;
 * the others are provider rules with default parameters (a `model` gives exact ones).
 */
export type ImageProfile =
  | "ankita"
  | "openai"
  | "openai-patch"
  | "anthropic"
  | "anthropic-highres"
  | "anthropic-legacy"
  | "gemini"
  | "gemini-1.5"
  | "gemini-3"
  | "qwen2-vl"
  | "pixtral"
  | (string & {});

/** What to do with an image that does not fit: see DESIGN §6. */
export type OnImageOverflow = "placeholder" | "drop" | "error";

/**
 * The request keys of the JSON contract besides `messages`, passed through unchanged (an
 * unknown key is an `invalid_request` error). Without `max_bytes` nor `context_tokens` only
 * `max_messages` applies.
 */
export interface TrimOptions {
  // <options trim-options> generated from src/request/options.rs by tests/option_table.rs
  /** The history budget in bytes, given directly; with `context_tokens` too, the smaller wins. */
  max_bytes?: number;
  /**
   * The model's context window in tokens: the history budget is derived from it, less
   * `max_output_tokens`, `tools`, `memory` and the request's framing.
   */
  context_tokens?: number;
  /** Tokens kept for the model's answer. */
  max_output_tokens?: number;
  /** The tool schemas sent with the request: their cost comes off the budget. */
  tools?: unknown[];
  /** Text placed elsewhere in the prompt: its cost comes off the budget. */
  memory?: string | string[];
  /** Request framing the caller does not list, in bytes (default 1024). */
  overhead_bytes?: number;
  /** Budget bytes per token, when costs are bytes (default 4). */
  bytes_per_token?: number;
  /**
   * The most messages returned, tool exchanges kept whole; the pinned message and the anchors are
   * kept even beyond it (default: no limit with a budget or a model's window, 40 without one;
   * `null`: no limit).
   */
  max_messages?: number | null;
  /**
   * The image pricing rule: `ankita` (the default), `openai`, `openai-patch`, `anthropic`,
   * `anthropic-highres`, `anthropic-legacy`, `gemini`, `gemini-1.5`, `gemini-3`, `qwen2-vl` or
   * `pixtral`; give this or `model`, not both.
   */
  image_profile?: ImageProfile;
  /**
   * The target model (`gpt-4o`, `claude-sonnet-4`, `gemini-2.5-flash`, …): its images are priced as
   * its provider bills them, its text counted in its tokens when its tokenizer is known (exact for
   * Gemini 2.0, 2.5 and 3, counted with Gemma 3's tokenizer; an estimate for Claude and the other
   * Gemini models), and its context window is the budget when none is given. Any name answers
   * (provider prefixes and routes, Bedrock ids, dated suffixes): one no family claims is priced by
   * the default recipe, counted with `o200k_base` × 1.35, and the report warns `unknown_model`.
   */
  model?: string;
  /** Pixel sizes of remote (http/https) images by URL: `{url: [width, height]}`. */
  image_sizes?: Record<string, [number, number] | { width: number; height: number }>;
  /** Pages (documents) or seconds (audio) of remote files and file ids: `{url or id: n}`. */
  file_sizes?: Record<string, number>;
  /**
   * What becomes of an image that must go: `placeholder` (a short text in its stead, the default),
   * `drop` or `error` (the call fails).
   */
  on_image_overflow?: OnImageOverflow;
  /**
   * The messages' wire format: `openai` (Chat Completions, the default), `anthropic` (Messages
   * API), `responses` (Responses API input items), `gemini` (Gemini contents, in either spelling)
   * or `ai-sdk` (the Vercel AI SDK's model messages).
   */
  format?: MessageFormat;
  /**
   * The system prompt given outside the messages: the `anthropic` format's top-level system (a
   * string or text blocks), the `responses` format's instructions (a string) or the `gemini`
   * format's system instruction (a string, a content or parts); pinned, never trimmed, its cost
   * counted.
   */
  system?: SystemInput;
  /**
   * What text is counted in: `o200k_base` (GPT-4o, 4.1, 5.x, o-series), `cl100k_base` (GPT-4, 3.5)
   * or `bytes`; or `{"file": PATH}`, a Hugging Face tokenizer.json (or the folder holding it): its
   * exact text counts, framing estimated. Default: the tokenizer of `model` when known, else
   * `o200k_base` (an estimate) with `context_tokens`, bytes with `max_bytes`.
   */
  tokenizer?: Tokenizer | TokenizerFile;
  /**
   * Multiplies token counts (default 1; 1.35 for Claude and 1.25 for the Gemini models counted with
   * `o200k_base`: 1.5, 3.1 and later).
   */
  token_factor?: number;
  /**
   * The provider's counts of earlier requests, `[[counted, input_tokens], ...]`: each answer's
   * report.token_factor.counted and the input tokens the provider reported for it; the factor of a
   * model counted with a margin (Claude, Gemini) is then set from them (`token_factor` wins).
   */
  observed_usage?: [number, number][];
  /** Request framing the caller does not list, in tokens, when costs are tokens (default 256). */
  overhead_tokens?: number;
  /**
   * Before dropping whole tool exchanges, replace the results of those older than the newest `keep`
   * (default 3) with a placeholder, oldest first: `true`, or `{keep, exclude_tools, placeholder,
   * clear_at_least, clear_tool_inputs}` (exchanges calling a tool of exclude_tools keep theirs;
   * once clearing starts it clears at least clear_at_least; clear_tool_inputs: the cleared
   * exchanges' call arguments become `{}` too).
   */
  clear_tool_results?: boolean | ClearToolResults;
  /** A `model` no family claims is an error rather than a warning. */
  strict_model?: boolean;
  /**
   * The room left goes to the newest first: texts shedding cut get it back, then the group where
   * selection stopped comes back shrunk into it (default `true`; `false`: whole groups only).
   */
  fill?: boolean;
  /**
   * Cache-stable trimming: when something must go, remove down to this share (0 < share ≤ 1) of the
   * budget and of `max_messages`, so the calls after it only append; the report's cut says where
   * the kept run starts. A session trims with 0.75 by default and carries each answer's cut to the
   * next trim (`null` opts it out).
   */
  trim_to?: number | null;
  /**
   * The previous answer's report.cut: while the messages from that index on fit, keep exactly them
   * (the cut never moves back).
   */
  cut?: number | null;
  /**
   * The caller's summary of its messages up to an index, `{"text": ..., "through": n}`: placed
   * right after the pinned message in their stead; the report's compaction says what to summarise
   * next when the cut moves.
   */
  summary?: { text: string; through: number } | null;
  /**
   * Put the provider's prompt-cache breakpoint on the last block that can carry one before the
   * newest user message: Anthropic's cache_control, or OpenAI's prompt_cache_breakpoint in the
   * chat, Responses and AI SDK formats for GPT-5.6 and later (other models: a warning, none
   * placed); never a fifth breakpoint.
   */
  cache_breakpoint?: boolean;
  // </options>
}

/** The settings of `clear_tool_results` (`true` takes them all by default). */
export interface ClearToolResults {
  /** The newest tool exchanges whose results stay (default 3). */
  keep?: number;
  /** Exchanges calling one of these tools keep their results. */
  exclude_tools?: readonly string[];
  /** The text a cleared result becomes. */
  placeholder?: string;
  /** Once clearing starts, clear at least this much (in the call's unit). */
  clear_at_least?: number;
  /**
   * Clear the arguments of the cleared exchanges' calls too (`"{}"` or `{}`, as the format
   * writes them). Default false.
   */
  clear_tool_inputs?: boolean;
}

/** A Hugging Face `tokenizer.json` on disk, or the folder holding it. */
export interface TokenizerFile {
  file: string;
}

/** Options of `countTokens`. */
export interface CountOptions {
  /** The target model: selects the tokenizer (and, for images, the pricing). */
  model?: string;
  /** Make a model no family claims an `invalid_request` error (default false). */
  strict_model?: boolean;
  /** The tokenizer, when the model does not say it (or a `tokenizer.json`: `{ file }`). */
  tokenizer?: Tokenizer | TokenizerFile;
  /** Multiplies token counts (an estimate for a tokenizer that is not public). */
  token_factor?: number;
  image_profile?: ImageProfile;
  format?: MessageFormat;
  system?: SystemInput;
}

/** What `countTokens` answers. */
export interface TokenCount {
  unit: "tokens" | "bytes";
  tokenizer: Tokenizer;
  exact: boolean;
  /** The cost of every message (and of the top-level `system`). */
  total: number;
  /** Each message's cost, in the input's order. */
  messages: number[];
  /** The Anthropic format's top-level `system`. */
  system?: number;
  /** There when the model is one no family claims (`unknown_model`). */
  warnings?: TrimWarning[];
}

/**
 * A content part of a Responses message item or of an output's `output` (other keys and part
 * types pass through; an `input_file` with `file_data` is an attachment, shed last).
 */
export type ResponsePart =
  | { type: "input_text" | "output_text"; text: string; [key: string]: unknown }
  | { type: "refusal"; refusal: string; [key: string]: unknown }
  | {
      type: "input_image";
      image_url?: string | null;
      file_id?: string | null;
      detail?: "low" | "high" | "auto" | (string & {});
      [key: string]: unknown;
    }
  | {
      type: "input_file";
      file_data?: string;
      filename?: string;
      file_id?: string | null;
      [key: string]: unknown;
    };

/** A message item of the Responses format (`type` may be left out). */
export interface ResponseMessageItem {
  type?: "message";
  role: "user" | "assistant" | "system" | "developer";
  content: string | readonly ResponsePart[] | readonly { type: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

/** A call the Responses format pairs with its output by `call_id`. */
export interface ResponseCallItem {
  type:
    | "function_call"
    | "custom_tool_call"
    | "computer_call"
    | "local_shell_call"
    | "shell_call"
    | "apply_patch_call";
  call_id: string;
  [key: string]: unknown;
}

/** The output of a call (`output`: text, parts, or a computer screenshot). */
export interface ResponseOutputItem {
  type:
    | "function_call_output"
    | "custom_tool_call_output"
    | "computer_call_output"
    | "local_shell_call_output"
    | "shell_call_output"
    | "apply_patch_call_output";
  call_id?: string;
  output?: unknown;
  [key: string]: unknown;
}

/** A reasoning item: travels with the item after it, never edited. */
export interface ResponseReasoningItem {
  type: "reasoning";
  id?: string;
  summary?: readonly unknown[];
  encrypted_content?: string | null;
  [key: string]: unknown;
}

/**
 * An item of a Responses request's `input`, as the core reads it. Other item types
 * (`mcp_call`, `mcp_approval_request`/`mcp_approval_response`, `compaction`,
 * `item_reference`, hosted tool calls, …) pass through. openai-node's `ResponseInputItem` is
 * accepted as it is: `trim` is generic in the item type.
 */
export type ResponseItem =
  | ResponseMessageItem
  | ResponseCallItem
  | ResponseOutputItem
  | ResponseReasoningItem
  | { type: string; [key: string]: unknown };

/** A block of the Anthropic format's top-level `system` (other keys pass through). */
export interface SystemBlock {
  type: "text";
  text: string;
  cache_control?: unknown;
  citations?: unknown;
}

/** The system prompt given outside the messages: Anthropic's or Gemini's. */
export type System = string | readonly SystemBlock[] | GeminiSystemInstruction;

/**
 * What `system` takes: a {@link System}, or an SDK's own object of one (`@google/genai`'s
 * `Content`, the anthropic SDK's blocks). `trim` is generic in it: `result.system` is the
 * value given, typed as given, so it goes back to the SDK as it is.
 */
export type SystemInput = System | object;

/** A Gemini media blob (`inlineData`); an `image/*` one is priced by its pixels. */
export interface GeminiBlob {
  mimeType?: string;
  mime_type?: string;
  /** Base64. */
  data: string;
  [key: string]: unknown;
}

/** A Gemini file reference (`fileData`); an `image/*` one is priced like a remote image. */
export interface GeminiFileData {
  mimeType?: string;
  mime_type?: string;
  fileUri?: string;
  file_uri?: string;
  [key: string]: unknown;
}

/** A function call of a `model` content; without an `id` it is matched by order and name. */
export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A function response of a `user` content; its `parts` may hold images. */
export interface GeminiFunctionResponse {
  id?: string;
  name: string;
  response?: Record<string, unknown>;
  parts?: GeminiPart[];
  [key: string]: unknown;
}

/**
 * A part of a Gemini content, in either spelling (REST camelCase, as `@google/genai` writes
 * it, or the Python SDK's snake_case). Thought parts and parts with a thought signature are
 * kept byte for byte; other keys pass through.
 */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  thought_signature?: string;
  inlineData?: GeminiBlob;
  inline_data?: GeminiBlob;
  fileData?: GeminiFileData;
  file_data?: GeminiFileData;
  functionCall?: GeminiFunctionCall;
  function_call?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  function_response?: GeminiFunctionResponse;
  [key: string]: unknown;
}

/** One content of a Gemini history (`format: "gemini"`). */
export interface GeminiContent {
  role: "user" | "model";
  parts?: GeminiPart[];
  [key: string]: unknown;
}

/** Gemini's system instruction: a string, a `Content` or its parts. */
export type GeminiSystemInstruction =
  | string
  | { parts?: readonly GeminiPart[]; role?: string; [key: string]: unknown }
  | readonly GeminiPart[];

/** Options of `sanitize` and `sanitizeAsync`. */
export interface SanitizeOptions {
  /** The messages' format (default `openai`). */
  format?: MessageFormat;
}
/**
 * What `trim` returns. `M` is the caller's message type (`Message` by default; an SDK's type
 * such as openai's `ChatCompletionMessageParam` or Anthropic's `MessageParam` is kept), so the
 * messages go straight back to that SDK.
 */
export interface TrimResult<M extends object = Message, S extends SystemInput = System> {
  /** The messages to send, in order (new objects, parsed from the core's answer). */
  messages: M[];
  report: TrimReport;
  /**
   * The system prompt given outside the messages (Anthropic's top-level `system`, the
   * Responses format's instructions, Gemini's system instruction), as given; absent for the
   * OpenAI format.
   */
  system?: S;
}

export interface SanitizeResult<M extends object = Message> {
  messages: M[];
  report: SanitizeReport;
}

/** What the image header says, and the image's price (default profile `ankita`). */
export interface ImageInfo {
  format: ImageFormat;
  width: number;
  height: number;
  tokens: number;
  budget_bytes: number;
  /** There when the model is one no family claims (`unknown_model`). */
  warnings?: TrimWarning[];
}

/** How `probeImage` and `estimateImageTokens` price an image. */
export interface PricingOptions {
  /** Pricing profile, default `ankita`; give this or `model`, not both. */
  profile?: ImageProfile;
  /** The target model, e.g. `gpt-4o`: its provider's exact pricing. */
  model?: string;
  /** Make a model no family claims an `invalid_request` error (default false). */
  strict_model?: boolean;
  detail?: "low" | "high" | "auto";
  /** Bytes per token for `budget_bytes` (default 4). */
  bytes_per_token?: number;
}

/** @deprecated the same as {@link PricingOptions} */
export type EstimateOptions = PricingOptions;

export interface ImageEstimate {
  tokens: number;
  budget_bytes: number;
  /** There when the model is one no family claims (`unknown_model`). */
  warnings?: TrimWarning[];
}

/** The error codes of the core. */
export type AnkitaErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "context_budget_exceeded"
  | "history_budget_too_small"
  | "image_overflow"
  | "invalid_argument"
  | "internal";

/** The byte breakdown of `context_budget_exceeded` and `history_budget_too_small`. */
export type Breakdown = Record<string, number>;

/** Every field of the core's error object besides `code`, `message` and `path`. */
export interface AnkitaErrorDetails {
  breakdown?: Breakdown;
  [key: string]: unknown;
}

/** An error reported by ankita, with the core's stable `code`. */
export class AnkitaError extends Error {
  constructor(
    code: AnkitaErrorCode,
    message: string,
    extra?: { path?: string; details?: AnkitaErrorDetails; cause?: unknown },
  );
  readonly name: "AnkitaError";
  readonly code: AnkitaErrorCode;
  /** The part of the request at fault, e.g. `messages[3].content[1].type`. */
  readonly path: string | undefined;
  readonly details: AnkitaErrorDetails;
  /** Builds the error from the `error` object of a failed response. */
  static fromJSON(error: {
    code?: unknown;
    message?: unknown;
    path?: unknown;
    [key: string]: unknown;
  }): AnkitaError;
  /** The error object of the JSON contract: `{code, message, path?, ...details}`. */
  toJSON(): { code: AnkitaErrorCode; message: string; path?: string; [key: string]: unknown };
}

/**
 * Trims a chat history to its budget (DESIGN §6). Throws an {@link AnkitaError}.
 *
 * Generic in the message type: an array of the openai SDK's `ChatCompletionMessageParam` (or,
 * with `format: "anthropic"`, of `@anthropic-ai/sdk`'s `MessageParam`; with
 * `format: "responses"`, of the openai SDK's `ResponseInputItem`; with `format: "gemini"`, of
 * `@google/genai`'s `Content` or {@link GeminiContent}; with `format: "ai-sdk"`, of the `ai`
 * package's `ModelMessage`) passes without a cast, and the result's
 * messages have that type again.
 */
export function trim<M extends object = Message, S extends SystemInput = System>(
  messages: readonly M[],
  options?: TrimOptions & { system?: S },
): TrimResult<M, S>;

/** Like {@link trim}, with the native work on a worker thread. Rejects with an AnkitaError. */
export function trimAsync<M extends object = Message, S extends SystemInput = System>(
  messages: readonly M[],
  options?: TrimOptions & { system?: S },
): Promise<TrimResult<M, S>>;

/** Options of {@link trimMany}: request keys that fill in what a request lacks, and `threads`. */
export interface TrimManyOptions extends TrimOptions {
  /** The threads of the batch (a positive integer); every core when not given. */
  threads?: number;
}

/**
 * One request of {@link trimMany}: JSON text (a string, or UTF-8 bytes: an object, or a bare
 * messages array), a request object, or a messages array.
 */
export type BatchRequest =
  string | Uint8Array | ({ messages: readonly object[] } & TrimOptions) | readonly object[];

/**
 * Trims many requests at once, in order, off the event loop and on every core (or `threads`):
 * each answer is the JSON text of the contract for its request (`{"ok":true,...}` or the
 * request's own `{"ok":false,"error":{...}}`; a bad request never rejects the batch). Options
 * fill in the keys a request lacks. Rejects with an {@link AnkitaError} (`invalid_request`) for
 * an unknown option or a bad option value, and a TypeError for bad arguments.
 */
export function trimMany(
  requests: Iterable<BatchRequest>,
  options?: TrimManyOptions,
): Promise<string[]>;

/** Repairs a restored session (DESIGN §5). Throws an {@link AnkitaError}. */
export function sanitize<M extends object = Message>(
  messages: readonly M[],
  options?: SanitizeOptions,
): SanitizeResult<M>;

/** Like {@link sanitize}, with the native work on a worker thread. */
/**
 * Counts a history the way `trim` prices it: in the model's tokens when its tokenizer is known,
 * else in bytes.
 */
export function countTokens<M extends object = Message>(
  messages: readonly M[],
  options?: CountOptions,
): TokenCount;

export function sanitizeAsync<M extends object = Message>(
  messages: readonly M[],
  options?: SanitizeOptions,
): Promise<SanitizeResult<M>>;

/**
 * Format, pixel size and price of an image, read from its header alone: a data URL or bare
 * base64 text, or the image's bytes. Null when the image cannot be decoded.
 */
export function probeImage(
  image: string | Uint8Array | ArrayBuffer,
  options?: PricingOptions,
): ImageInfo | null;

/** What `probeFile` reads: a PDF's `pages` and first page's size in points, or audio's
 * duration (`seconds` rounded up, `millis`), and the price; `exact` is true for published
 * rules (Gemini), false for estimates. */
export interface FileInfo {
  kind: "document" | "audio";
  format: "pdf" | "wav" | "flac" | "mp3" | "vorbis" | "opus" | "mp4";
  pages: number | null;
  page_width: number | null;
  page_height: number | null;
  seconds: number | null;
  millis: number | null;
  tokens: number;
  budget_bytes: number;
  exact: boolean;
}

/**
 * A PDF's page count and page size, or an audio file's duration, read from its structure, and
 * its price: a data URL or bare base64 text, or the file's bytes. Null when unreadable.
 */
export function probeFile(
  file: string | Uint8Array | ArrayBuffer,
  options?: PricingOptions,
): FileInfo | null;

/** Vision tokens of an image of `width` × `height` pixels under a pricing profile. */
export function estimateImageTokens(
  width: number,
  height: number,
  options?: PricingOptions,
): ImageEstimate;

/** The native library's version, e.g. `"0.1.0"`. */
export function version(): string;

/**
 * The path of the native library in use; of the WebAssembly module (`…/wasm/ankita.wasm`, its URL
 * in a browser) when the package runs on it (docs/wasm.md).
 */
export function libraryPath(): string;

/**
 * A session's summariser: the messages to fold in (the caller's own objects) and the previous
 * summary's text (or `null`) → the new summary's text, or a Promise of it (awaited by
 * `Session#trimAsync`).
 */
export type Summarize<M extends object = any> = (
  messages: M[],
  previous: string | null,
) => string | PromiseLike<string>;

/**
 * An incremental session: a chat history fed to the library as it happens (each message
 * crosses the boundary once), trimmed at any time. `trim()` answers what {@link trim} answers
 * for the same messages and options; messages returned unchanged are the objects given to
 * `append`. Release the native handle with `close()` or a `using` declaration (a
 * FinalizationRegistry frees it if the session is garbage-collected first). Throws
 * {@link AnkitaError}s.
 *
 * A session is cache-stable by default: given neither `trim_to` nor `cut`, it trims with
 * `trim_to: 0.75` and carries each answer's `report.cut` to the next trim, so the history's
 * prefix (which a provider's prompt cache serves) holds from call to call: a trim that must
 * remove something removes down to that share of the budget, and does not fill. `trim_to: null`
 * opts out: `trim()` then answers what {@link trim} answers without `trim_to` and `cut`.
 */
/**
 * The message type follows the input: a session given `messages` takes theirs; one created
 * empty holds whatever messages are appended (the SDKs' own types included) and returns them
 * as given, so name it (`new Session<ChatCompletionMessageParam>(...)`) to have it checked.
 */
export class Session<M extends object = any, S extends SystemInput = System> {
  /**
   * `options`: the request keys of {@link trim}; `messages`, when given, are appended.
   * `summarize(messages, previous)`: when a trim's cut moves, the session calls it with the
   * messages to fold in (the objects given, as `report.compaction` names them) and the previous
   * summary's text (or `null`), and trims again with the string it returns placed right after
   * the pinned message; a throw (or a rejection), a result that is not a string, or a summary
   * that does not fit leaves the trim as it was, with a warning (`process.emitWarning`). One
   * returning a Promise (an `async` function) is awaited by `await session.trimAsync()`;
   * `trim()` throws an {@link AnkitaError} `invalid_argument` naming `trimAsync` for it.
   */
  constructor(
    options?: TrimOptions & {
      system?: S;
      messages?: readonly M[];
      summarize?: Summarize<M>;
    },
  );
  /** Appends messages; returns how many the session holds. */
  append(messages: readonly M[]): number;
  /** Keeps the first `length` messages (then append the edited or regenerated tail). */
  truncate(length: number): number;
  /** Trims the history held (a `summarize` returning a Promise: use `trimAsync`). */
  trim(): TrimResult<M, S>;
  /**
   * Trims the history held as `trim()` does, awaiting `summarize` when it returns a Promise
   * (outside the session, which may be used meanwhile); a sync one is called as `trim()` calls
   * it. The plans run on the calling thread (milliseconds).
   */
  trimAsync(): Promise<TrimResult<M, S>>;
  /** The messages held (a new array of the objects given), to save. */
  snapshot(): M[];
  /**
   * Gives the provider's count of the input tokens of the request that sent the last trim's
   * messages (the response's `usage.input_tokens`): for a model counted with a margin (Claude,
   * Gemini) the next trims count with a factor set from the evidence. Returns that factor, as
   * the next `report.token_factor` will say; throws `invalid_argument` for a session counting
   * bytes, before the first trim, for a count below 1, or one no factor from 0.1 to 10 explains.
   */
  observeUsage(inputTokens: number): TokenFactor;
  /** A session holding `messages` (a snapshot, or what an app saved). */
  static restore<M extends object = any, S extends SystemInput = System>(
    messages: readonly M[],
    options?: TrimOptions & { system?: S; summarize?: Summarize<M> },
  ): Session<M, S>;
  /** How many messages the session holds. */
  readonly length: number;
  /** Releases the native session; later calls throw. Calling it again does nothing. */
  close(): void;
  [Symbol.dispose](): void;
}
