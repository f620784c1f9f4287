//! Each format's runs of whole turns ([`Turns`]): the messages a tail request may leave out
//! besides plain ones (see [`crate::tail`]), side by side so that the formats compare at a
//! glance.

use super::facts::{field, optional, Part, PartKind, Turns, Val, TEXT_PART};

/// Whole turns in the OpenAI chat format.
pub(super) const OPENAI: Turns = Turns {
    user_parts: Some(&[
        field("role", Val::Is("user")),
        field("content", Val::Parts(&[TEXT_PART])),
    ]),
    call: &[
        field("role", Val::Is("assistant")),
        optional("content", Val::StrOrNull),
        field(
            "tool_calls",
            Val::Parts(&[Part {
                kind: PartKind::Call,
                fields: &[
                    field("id", Val::Id),
                    field("type", Val::Is("function")),
                    field(
                        "function",
                        Val::Fields(&[field("name", Val::Name), field("arguments", Val::Str)]),
                    ),
                ],
            }]),
        ),
    ],
    reply: &[
        field("role", Val::Is("tool")),
        field("tool_call_id", Val::Id),
        field("content", Val::Text),
    ],
};

/// Whole turns in the Anthropic Messages format.
pub(super) const ANTHROPIC: Turns = Turns {
    user_parts: Some(&[
        field("role", Val::Is("user")),
        field("content", Val::Parts(&[TEXT_PART])),
    ]),
    call: &[
        field("role", Val::Is("assistant")),
        field(
            "content",
            Val::Parts(&[
                TEXT_PART,
                Part {
                    kind: PartKind::Call,
                    fields: &[
                        field("type", Val::Is("tool_use")),
                        field("id", Val::Id),
                        field("name", Val::Name),
                        field("input", Val::Object),
                    ],
                },
            ]),
        ),
    ],
    reply: &[
        field("role", Val::Is("user")),
        field(
            "content",
            Val::Parts(&[Part {
                kind: PartKind::Reply,
                fields: &[
                    field("type", Val::Is("tool_result")),
                    field("tool_use_id", Val::Id),
                    field("content", Val::Text),
                ],
            }]),
        ),
    ],
};

/// Whole turns in the OpenAI Responses format.
pub(super) const RESPONSES: Turns = Turns {
    user_parts: Some(&[
        optional("type", Val::Is("message")),
        field("role", Val::Is("user")),
        field(
            "content",
            Val::Parts(&[Part {
                kind: PartKind::Text,
                fields: &[
                    field("type", Val::Is("input_text")),
                    field("text", Val::Text),
                ],
            }]),
        ),
    ]),
    call: &[
        field("type", Val::Is("function_call")),
        field("call_id", Val::Id),
        field("name", Val::Name),
        field("arguments", Val::Str),
    ],
    reply: &[
        field("type", Val::Is("function_call_output")),
        field("call_id", Val::Id),
        field("output", Val::Text),
    ],
};

/// Whole turns in the Gemini contents format.
pub(super) const GEMINI: Turns = Turns {
    user_parts: None,
    call: &[
        field("role", Val::Is("model")),
        field(
            "parts",
            Val::Parts(&[
                Part {
                    kind: PartKind::Text,
                    fields: &[field("text", Val::Text)],
                },
                Part {
                    kind: PartKind::Call,
                    fields: &[field(
                        "functionCall",
                        Val::Fields(&[
                            field("id", Val::Id),
                            field("name", Val::Name),
                            field("args", Val::Object),
                        ]),
                    )],
                },
            ]),
        ),
    ],
    reply: &[
        field("role", Val::Is("user")),
        field(
            "parts",
            Val::Parts(&[Part {
                kind: PartKind::Reply,
                fields: &[field(
                    "functionResponse",
                    Val::Fields(&[
                        field("id", Val::Id),
                        field("name", Val::Name),
                        field("response", Val::Object),
                    ]),
                )],
            }]),
        ),
    ],
};

/// Whole turns in the AI SDK format.
pub(super) const AI_SDK: Turns = Turns {
    user_parts: Some(&[
        field("role", Val::Is("user")),
        field("content", Val::Parts(&[TEXT_PART])),
    ]),
    call: &[
        field("role", Val::Is("assistant")),
        field(
            "content",
            Val::Parts(&[
                TEXT_PART,
                Part {
                    kind: PartKind::Call,
                    fields: &[
                        field("type", Val::Is("tool-call")),
                        field("toolCallId", Val::Id),
                        field("toolName", Val::Name),
                        field("input", Val::Object),
                    ],
                },
            ]),
        ),
    ],
    reply: &[
        field("role", Val::Is("tool")),
        field(
            "content",
            Val::Parts(&[Part {
                kind: PartKind::Reply,
                fields: &[
                    field("type", Val::Is("tool-result")),
                    field("toolCallId", Val::Id),
                    field("toolName", Val::Name),
                    field(
                        "output",
                        Val::Fields(&[field("type", Val::Is("text")), field("value", Val::Text)]),
                    ),
                ],
            }]),
        ),
    ],
};
