"""Model providers: one small interface (`base.Provider`), one module per SDK.

`make_provider("openai/gpt-4o-mini")` picks the SDK and base URL from the provider name;
no SDK is imported until the first request. `Provider.build_chat` builds any chat request
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
from tfce_eval.providers.registry import PROVIDERS, default_run_name, make_provider, parse_model

__all__ = [
    "DROPPABLE_PARAMS",
    "PROVIDERS",
    "ErrorKind",
    "MalformedResponse",
    "Mode",
    "Provider",
    "ProviderError",
    "RequestOptions",
    "Response",
    "ToolChoice",
    "Usage",
    "default_run_name",
    "make_provider",
    "message_text",
    "parse_model",
]
