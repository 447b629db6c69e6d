"""Anthropic Messages, through the Anthropic SDK (2.x: API version 2026-10-21).

fc mode sends the functions as `tools` with `input_schema` and `tool_choice {"type": "auto"}`
(a forced function: `{"type": "tool", "name": ...}`); parallel calls are allowed by default.
System messages go in `system`. The API of this SDK refuses sampling parameters and has no
seed, so temperature and seed are never sent (run.json says so). The kept message is
`{"content": [...blocks], "stop_reason"}`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfce_eval.model import FunctionDoc
from tfce_eval.providers.base import MalformedResponse, RequestOptions, ToolChoice
from tfce_eval.providers.prompting import split_system
from tfce_eval.providers.sdk import SdkProvider
from tfce_eval.schema.wire import wire_tools

#: The Messages API requires max_tokens; this is sent when --max-tokens is not given.
DEFAULT_MAX_TOKENS = 4096

_TOOL_CHOICE = {ToolChoice.AUTO: "auto", ToolChoice.REQUIRED: "any", ToolChoice.NONE: "none"}


class AnthropicMessagesProvider(SdkProvider):
    sdk_name = "anthropic"
    endpoint = "/v1/messages"
    usage_keys = ("input_tokens", "output_tokens")

    def fixed_notes(self, options: RequestOptions) -> dict[str, str]:
        notes: dict[str, str] = {}
        if options.temperature is not None:
            notes["temperature"] = (
                "not sent: the Anthropic Messages API (version 2026-10-21, "
                "SDK 2.x) refuses sampling parameters"
            )
        if options.seed is not None:
            notes["seed"] = "not sent: the Anthropic Messages API has no seed"
        if options.max_tokens is None:
            notes["max_tokens"] = f"{DEFAULT_MAX_TOKENS} sent: the Messages API requires a value"
        return notes

    def build_chat(
        self,
        messages: Sequence[Mapping[str, str]],
        options: RequestOptions,
        *,
        functions: Sequence[FunctionDoc] = (),
        force: str | None = None,
        parallel: bool = False,  # the Messages API allows parallel calls by default
    ) -> dict[str, Any]:
        system, rest = split_system([dict(m) for m in messages])
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": options.max_tokens or DEFAULT_MAX_TOKENS,
        }
        if system:
            body["system"] = system
        body["messages"] = rest
        tools = wire_tools(functions)
        forced = self.forced_wire_name(tools, force)
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
            body["tool_choice"] = (
                {"type": _TOOL_CHOICE[options.tool_choice]}
                if forced is None
                else {"type": "tool", "name": forced}
            )
        return body

    def to_decoder_input(self, body: Mapping[str, Any]) -> dict[str, Any]:
        content = body.get("content")
        if not isinstance(content, list):
            raise MalformedResponse("the response has no content list" + self.server_says(body))
        return {"content": content, "stop_reason": body.get("stop_reason")}

    def finish_reason(self, body: Mapping[str, Any]) -> str | None:
        reason = body.get("stop_reason")
        return reason[:64] if isinstance(reason, str) else None

    def _sdk_client(self) -> Any:
        if self._client is None:
            # The SDK is imported on the first request only: it is slow to import, and a
            # provider is also made for --dump-request and for commands that send nothing.
            import anthropic

            self._client = anthropic.AsyncAnthropic(
                api_key=self.api_key,
                base_url=self._url,
                max_retries=0,
                timeout=self.timeout_s,
                http_client=self._http_client(),
            )
        return self._client
