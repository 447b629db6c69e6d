"""`--model provider/name`: which SDK speaks to which server, at which base URL, with which key.

OpenAI and Anthropic are reached at their SDK's default URL (or `OPENAI_BASE_URL` /
`ANTHROPIC_BASE_URL`); the OpenAI-compatible local servers at their usual local address.
`--base-url` overrides any of them. A base URL that cannot work (not http(s) with a host, a
query string or fragment, white space) is refused here, before anything is sent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from tfce_eval.errors import UsageError
from tfce_eval.providers.anthropic_messages import AnthropicMessagesProvider
from tfce_eval.providers.base import Mode, Provider
from tfce_eval.providers.openai_chat import OpenAIChatProvider
from tfce_eval.providers.secrets import shown_url, url_problem
from tfce_eval.providers.spec import Api, ProviderSpec

PROVIDERS: Mapping[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(
            "openai",
            Api.OPENAI_CHAT,
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
        ),
        ProviderSpec(
            "anthropic",
            Api.ANTHROPIC_MESSAGES,
            "https://api.anthropic.com",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
        ),
        ProviderSpec(
            "vllm", Api.OPENAI_CHAT, "http://localhost:8000/v1", "OPENAI_API_KEY", local=True
        ),
        ProviderSpec(
            "sglang", Api.OPENAI_CHAT, "http://localhost:30000/v1", "OPENAI_API_KEY", local=True
        ),
        ProviderSpec(
            "ollama", Api.OPENAI_CHAT, "http://localhost:11434/v1", "OPENAI_API_KEY", local=True
        ),
        ProviderSpec(
            "llamacpp", Api.OPENAI_CHAT, "http://localhost:8080/v1", "OPENAI_API_KEY", local=True
        ),
        ProviderSpec(
            "lmstudio", Api.OPENAI_CHAT, "http://localhost:1234/v1", "OPENAI_API_KEY", local=True
        ),
    )
}


def parse_model(model: str, option: str = "--model") -> tuple[ProviderSpec, str]:
    """`provider/name` -> (spec, name). The name may itself hold slashes (`vllm/Qwen/Qwen3-8B`).
    `option` names where it was given in a refusal (`--judge`)."""
    provider, sep, name = model.partition("/")
    if not sep or not provider or not name.strip():
        raise UsageError(
            f"{option} {model!r}: write it as provider/name, e.g. openai/gpt-4o-mini, "
            f"vllm/Qwen/Qwen2.5-7B-Instruct; providers: {', '.join(PROVIDERS)}"
        )
    spec = PROVIDERS.get(provider.lower())
    if spec is None:
        raise UsageError(
            f"{option} {model!r}: unknown provider {provider!r}; choose one of "
            f"{', '.join(PROVIDERS)} (any other OpenAI-compatible server: openai/<name> "
            "with --base-url)"
        )
    return spec, name


def resolve_base_url(
    spec: ProviderSpec,
    base_url: str | None,
    env: Mapping[str, str],
    *,
    url_option: str = "--base-url",
) -> str:
    """The base URL to use: `base_url`, else the SDK's variable, else the usual one.

    UsageError, naming where it came from (`url_option` or the variable) and showing it
    without its credentials, when it cannot be a base URL.
    """
    if base_url:
        url, source = base_url, url_option
    elif spec.base_url_env and env.get(spec.base_url_env):
        url, source = env[spec.base_url_env], spec.base_url_env
    else:
        return spec.default_base_url
    problem = url_problem(url)
    if problem is not None:
        raise UsageError(f"{source} {shown_url(url)!r}: {problem}")
    return url.rstrip("/")


def make_provider(
    model: str,
    *,
    base_url: str | None = None,
    timeout_s: float = 60.0,
    env: Mapping[str, str] | None = None,
    url_option: str = "--base-url",
    model_option: str = "--model",
) -> Provider:
    """The provider for `--model provider/name`. No SDK is imported until a request is sent.

    `url_option` and `model_option` name the options `base_url` and `model` came from in a
    refusal (`--judge-base-url`, `--judge`).
    """
    spec, name = parse_model(model, model_option)
    environ = os.environ if env is None else env
    url = resolve_base_url(spec, base_url, environ, url_option=url_option)
    key_env = spec.key_env
    key = environ.get(key_env) or None
    if spec.api is Api.ANTHROPIC_MESSAGES:
        if key is None and environ.get("ANTHROPIC_AUTH_TOKEN"):
            key_env = "ANTHROPIC_AUTH_TOKEN"
            key = environ[key_env]
        return AnthropicMessagesProvider(
            spec, name, url, key, key_env=key_env, explicit_url=bool(base_url), timeout_s=timeout_s
        )
    return OpenAIChatProvider(
        spec, name, url, key, key_env=key_env, explicit_url=bool(base_url), timeout_s=timeout_s
    )


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_run_name(provider: str, model: str, mode: Mode) -> str:
    """results/<provider>-<model>-<mode>, the model's slashes and odd characters made safe."""
    safe = _UNSAFE.sub("_", model).strip("._") or "model"
    return f"{provider}-{safe}-{mode}"
