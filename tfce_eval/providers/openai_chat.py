"""OpenAI Chat Completions, for OpenAI itself and every OpenAI-compatible server.

fc mode sends the item's functions as `tools` (wire names and schemas from `schema`),
`tool_choice`, and `parallel_tool_calls: true` for the parallel categories. prompt mode sends
the docs in a system prompt and no tools. A forced function is sent as
`tool_choice: {"type": "function", "function": {"name": ...}}`. The response's
`choices[0].message` is what the decoder reads and what outputs.jsonl keeps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tfce_eval.model import FunctionDoc
from tfce_eval.providers.base import MalformedResponse, RequestOptions
from tfce_eval.providers.sdk import SdkProvider
from tfce_eval.schema.wire import wire_tools


class OpenAIChatProvider(SdkProvider):
    sdk_name = "openai"
    endpoint = "/chat/completions"
    usage_keys = ("prompt_tokens", "completion_tokens")

    @property
    def _max_tokens_field(self) -> str:
        # OpenAI's own models take only the newer name; local servers all know the older one.
        return (
            "max_completion_tokens"
            if self.name == "openai" and not self.spec.local
            else "max_tokens"
        )

    def build_chat(
        self,
        messages: Sequence[Mapping[str, str]],
        options: RequestOptions,
        *,
        functions: Sequence[FunctionDoc] = (),
        force: str | None = None,
        parallel: bool = False,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": [dict(m) for m in messages]}
        tools = wire_tools(functions)
        forced = self.forced_wire_name(tools, force)
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in tools
            ]
            body["tool_choice"] = (
                str(options.tool_choice)
                if forced is None
                else {"type": "function", "function": {"name": forced}}
            )
            if options.parallel_tool_calls and parallel:
                body["parallel_tool_calls"] = True
        if options.temperature is not None:
            body["temperature"] = options.temperature
        if options.max_tokens is not None:
            body[self._max_tokens_field] = options.max_tokens
        if options.seed is not None:
            body["seed"] = options.seed
        return body

    def to_decoder_input(self, body: Mapping[str, Any]) -> dict[str, Any]:
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
            raise MalformedResponse("the response has no choices" + self.server_says(body))
        message = choices[0].get("message")
        if not isinstance(message, Mapping):
            raise MalformedResponse("the response's first choice has no message")
        return dict(message)

    def finish_reason(self, body: Mapping[str, Any]) -> str | None:
        choices = body.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        reason = first.get("finish_reason") if isinstance(first, Mapping) else None
        return reason[:64] if isinstance(reason, str) else None

    def _sdk_client(self) -> Any:
        if self._client is None:
            # The SDK is imported on the first request only: it is slow to import, and a
            # provider is also made for --dump-request and for commands that send nothing.
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=self.api_key,
                base_url=self._url,
                max_retries=0,
                timeout=self.timeout_s,
                http_client=self._http_client(),
            )
        return self._client
