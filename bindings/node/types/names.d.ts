// The names of formats, tokenizers and image formats the core answers with (index.d.ts
// re-exports them; tests/option_table.rs and tests/binding_facts.rs read them here).

/** What text is counted in: bytes, or a public tokenizer's tokens. */
export type Tokenizer = "bytes" | "o200k_base" | "cl100k_base";

/** The message formats the core reads. */
// <options message-format> generated from src/format/mod.rs (FORMATS) by tests/option_table.rs
export type MessageFormat = "openai" | "anthropic" | "responses" | "gemini" | "ai-sdk";
// </options>

/** The image formats whose header the core reads. */
export type ImageFormat = "png" | "jpeg" | "gif" | "webp";
