"""Fit multimodal chat histories into a model's context budget.

Images are priced by pixels read from their header (a pasted 1.6 MB screenshot costs its
~765 vision tokens, not 1.6 MB of text), tool calls stay with their replies, the current request
and the user's goal are kept, and the report says what was removed. See ``trim``.
"""

from ._ankita import (
    AnkitaError,
    ContextBudgetExceeded,
    HistoryBudgetTooSmall,
    ImageInfo,
    ImageOverflow,
    InvalidRequest,
    Session,
    TrimResult,
    __version__,
    estimate_image_tokens,
    probe_image,
    sanitize_json,
    trim_json,
)
from ._messages import count_tokens, sanitize, sanitize_with_report, trim
from ._types import (
    ClearedToolResult,
    ClearToolResults,
    DroppedAttachment,
    DroppedBlock,
    DroppedImage,
    ImageFormat,
    Merge,
    MessageFormat,
    OnImageOverflow,
    Repair,
    SanitizeReport,
    TokenCount,
    Tokenizer,
    TrimReport,
    TrimWarning,
    Truncation,
    TurnStart,
)

__all__ = [
    "AnkitaError",
    "ClearToolResults",
    "ClearedToolResult",
    "ContextBudgetExceeded",
    "DroppedAttachment",
    "DroppedBlock",
    "DroppedImage",
    "HistoryBudgetTooSmall",
    "ImageFormat",
    "ImageInfo",
    "ImageOverflow",
    "InvalidRequest",
    "Merge",
    "MessageFormat",
    "OnImageOverflow",
    "Repair",
    "SanitizeReport",
    "Session",
    "TokenCount",
    "Tokenizer",
    "TrimReport",
    "TrimResult",
    "TrimWarning",
    "Truncation",
    "TurnStart",
    "__version__",
    "count_tokens",
    "estimate_image_tokens",
    "probe_image",
    "sanitize",
    "sanitize_json",
    "sanitize_with_report",
    "trim",
    "trim_json",
]
