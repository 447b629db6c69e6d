"""Model providers: one small interface (`base.Provider`), one module per SDK.

`registry.make_provider("openai/gpt-4o-mini")` picks the SDK and base URL from the provider
name; no SDK is imported until the first request. This package's namespace holds only the
interface (`base`), so that the options of `run` can name its enums without importing the
registry and, through it, every provider module. `Provider.build_chat` builds any chat request
(functions offered or not, one of them forced or not); `build_request` builds a
function-calling item's.
"""

from tfce_eval.providers.base import (
    DROPPABLE_PARAMS,
    ErrorKind,
    MalformedResponse,
    Mode,
    Provider,
    ProviderError,
    RequestOptions,
    Response,
    ToolChoice,
    Usage,
    message_text,
)

__all__ = [
    "DROPPABLE_PARAMS",
    "ErrorKind",
    "MalformedResponse",
    "Mode",
    "Provider",
    "ProviderError",
    "RequestOptions",
    "Response",
    "ToolChoice",
    "Usage",
    "message_text",
]
