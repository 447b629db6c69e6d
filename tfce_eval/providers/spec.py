"""What a provider name stands for: its API, its usual base URL and where its key comes from.

A `ProviderSpec` is plain data. It lives apart from the registry (which builds the concrete
providers) so that the SDK layer can read a spec without importing the registry back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Api(StrEnum):
    OPENAI_CHAT = "openai-chat-completions"
    ANTHROPIC_MESSAGES = "anthropic-messages"


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    name: str
    api: Api
    default_base_url: str
    key_env: str
    base_url_env: str | None = None  # the SDK's own variable for the URL, honoured when set
    local: bool = False  # a server on the user's machine: no key needed


#: Sent to local servers when no key is set: the SDK insists on one, the server ignores it.
PLACEHOLDER_KEY = "not-needed"
