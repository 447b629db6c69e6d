"""Providers: model parsing, request building, response reading, error classification.

The classification tests go through the real SDKs against the loopback server, so that what
the SDKs raise for a 429, a dropped connection or a malformed body is what is classified.
"""

from __future__ import annotations

import ast
import asyncio
import io
import json
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeConfig, FakeServer

from tfce_eval.dataset.load import load_dataset
from tfce_eval.decode.answer import decode_output
from tfce_eval.errors import UsageError
from tfce_eval.model import FunctionDoc
from tfce_eval.providers import (
    ErrorKind,
    MalformedResponse,
    Mode,
    ProviderError,
    RequestOptions,
    ToolChoice,
    message_text,
)
from tfce_eval.providers.prompting import question_messages, system_prompt
from tfce_eval.providers.registry import default_run_name, make_provider, parse_model
from tfce_eval.providers.status import (
    ServerContext,
    classify_status,
    parse_retry_after,
    refused_param,
)
from tfce_eval.run.progress import PlainProgress, RichProgress, make_progress
from tfce_eval.run.retry import GaveUp, RetryPolicy, retry_delay, with_retries

DATA = Path(__file__).parent / "fixtures" / "run_small"


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(DATA)


# --- --model and base URLs ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "provider", "name", "url"),
    [
        ("openai/gpt-4o-mini", "openai", "gpt-4o-mini", "https://api.openai.com/v1"),
        (
            "anthropic/claude-sonnet-4-5",
            "anthropic",
            "claude-sonnet-4-5",
            "https://api.anthropic.com",
        ),
        (
            "vllm/Qwen/Qwen2.5-7B-Instruct",
            "vllm",
            "Qwen/Qwen2.5-7B-Instruct",
            "http://localhost:8000/v1",
        ),
        ("sglang/qwen", "sglang", "qwen", "http://localhost:30000/v1"),
        ("ollama/qwen2.5:7b", "ollama", "qwen2.5:7b", "http://localhost:11434/v1"),
        ("llamacpp/any", "llamacpp", "any", "http://localhost:8080/v1"),
        ("lmstudio/m", "lmstudio", "m", "http://localhost:1234/v1"),
    ],
)
def test_model_names_pick_the_provider_and_its_usual_base_url(model, provider, name, url):
    p = make_provider(model, env={})
    assert (p.name, p.model, p.base_url) == (provider, name, url)
    assert make_provider(model, base_url="http://h:1/v1/", env={}).base_url == "http://h:1/v1"


@pytest.mark.parametrize("model", ["gpt-4o", "openai/", "/gpt", "acme/model", ""])
def test_bad_model_names_are_usage_errors(model):
    with pytest.raises(UsageError):
        parse_model(model)


def test_the_sdks_base_url_variable_is_honoured_for_the_vendors():
    env = {"OPENAI_BASE_URL": "http://proxy:9/v1"}
    assert make_provider("openai/x", env=env).base_url == "http://proxy:9/v1"
    assert make_provider("vllm/x", env=env).base_url == "http://localhost:8000/v1"


def test_run_names_are_safe_directory_names():
    assert default_run_name("vllm", "Qwen/Qwen2.5-7B-Instruct", Mode.FC) == (
        "vllm-Qwen_Qwen2.5-7B-Instruct-fc"
    )
    assert default_run_name("ollama", "qwen2.5:7b", Mode.PROMPT) == "ollama-qwen2.5_7b-prompt"


@pytest.mark.parametrize(
    ("model", "env", "base_url", "problem"),
    [
        ("openai/x", {}, None, "OPENAI_API_KEY"),
        ("anthropic/x", {}, None, "ANTHROPIC_API_KEY"),
        ("openai/x", {"OPENAI_API_KEY": "k"}, None, None),
        ("openai/x", {}, "http://127.0.0.1:1/v1", None),  # any compatible server
        ("vllm/x", {}, None, None),  # local servers need no key
    ],
)
def test_a_missing_key_is_reported_only_where_one_is_needed(model, env, base_url, problem):
    found = make_provider(model, base_url=base_url, env=env).credentials_problem()
    assert (found is None) if problem is None else (problem in found)


def test_a_base_urls_credentials_are_hidden_wherever_the_provider_shows_them():
    provider = make_provider("vllm/m", base_url="http://alice:pw-9x8y7z@h:1/v1/", env={})
    assert provider.base_url == "http://alice:***@h:1/v1"
    assert provider.request_url() == "http://alice:***@h:1/v1/chat/completions"
    # The HTTP client sends them as Basic authentication, in place of any key.
    assert provider.redacted_headers()["Authorization"] == (
        "Basic <base64 of the user:password in the base URL>"
    )
    assert make_provider("vllm/m", base_url="http://tok-123456@h:1", env={}).base_url == (
        "http://***@h:1"
    )
    # A redirect names hosts, never the credentials or query of the address it gives.
    ctx = ServerContext("vllm", "m", provider.base_url, "OPENAI_API_KEY", True, True)
    moved = {"Location": "http://bob:pw2-55577@other:2/v1?key=k-7778889"}
    error = classify_status(307, "", moved, "moved", ctx)
    assert "to another host, other:2;" in error.message
    assert "pw2-55577" not in error.render() and "k-7778889" not in error.render()
    assert error.message.startswith("HTTP 307: h:1 redirects")


# --- requests ---------------------------------------------------------------------------------


def test_openai_fc_request_carries_wire_tools_and_the_options(dataset):
    p = make_provider("openai/gpt-x", env={"OPENAI_API_KEY": "k"})
    item = dataset.get("run_parallel_1")  # units.dbm_to_watts: a dotted name
    body = p.build_request(item, RequestOptions(max_tokens=300, seed=7), Mode.FC)
    assert body["model"] == "gpt-x"
    assert body["messages"] == [{"role": "user", "content": item.question}]
    (tool,) = body["tools"]
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "units_dbm_to_watts"
    assert tool["function"]["parameters"]["type"] == "object"
    assert tool["function"]["parameters"]["properties"]["power_dbm"]["type"] == "number"
    assert body["tool_choice"] == "auto"
    assert body["parallel_tool_calls"] is True
    assert body["temperature"] == 0.0
    assert body["seed"] == 7
    assert body["max_completion_tokens"] == 300 and "max_tokens" not in body
    json.dumps(body)  # exactly JSON


def test_parallel_tool_calls_only_for_parallel_categories_and_only_when_wanted(dataset):
    p = make_provider("vllm/m", env={})
    simple = p.build_request(dataset.get("run_simple_0"), RequestOptions(), Mode.FC)
    assert "parallel_tool_calls" not in simple
    off = RequestOptions(
        parallel_tool_calls=False, temperature=None, tool_choice=ToolChoice.REQUIRED, max_tokens=50
    )
    par = p.build_request(dataset.get("run_parallel_0"), off, Mode.FC)
    assert "parallel_tool_calls" not in par and "temperature" not in par
    assert par["tool_choice"] == "required"
    assert par["max_tokens"] == 50  # local servers take the older field


def test_prompt_mode_puts_the_docs_in_a_system_prompt_and_sends_no_tools(dataset):
    item = dataset.get("run_multiple_2")
    for model in ("openai/m", "anthropic/m"):
        body = make_provider(model, env={}).build_request(item, RequestOptions(), Mode.PROMPT)
        system = body["system"] if model.startswith("anthropic") else body["messages"][0]["content"]
        assert "tools" not in body
        assert "func_name1(" in system
        docs = json.loads(system[system.index("Functions:\n") + len("Functions:\n") :])
        assert [d["name"] for d in docs] == ["set_cell_name", "parse_imsi"]


@pytest.mark.parametrize(
    ("model", "body", "reason"),
    [
        ("vllm/m", {"choices": [{"message": {}, "finish_reason": "length"}]}, "length"),
        ("vllm/m", {"choices": [{"message": {}}]}, None),
        ("vllm/m", {"choices": []}, None),
        ("vllm/m", {"choices": [{"finish_reason": 7}]}, None),
        ("vllm/m", {"choices": [{"finish_reason": "x" * 500}]}, "x" * 64),
        ("anthropic/c", {"content": [], "stop_reason": "max_tokens"}, "max_tokens"),
        ("anthropic/c", {"content": [], "stop_reason": None}, None),
    ],
)
def test_why_the_model_stopped_is_read_from_either_api(model, body, reason):
    provider = make_provider(model, env={"ANTHROPIC_API_KEY": "k"})
    assert provider.finish_reason(body) == reason


def test_anthropic_request_shape(dataset):
    p = make_provider("anthropic/claude", env={"ANTHROPIC_API_KEY": "k"})
    item = dataset.get("run_simple_4")  # BFCL turns with a system message
    body = p.build_request(item, RequestOptions(seed=3), Mode.FC)
    assert body["system"] == "你是无线网络规划助手。"
    assert body["messages"] == [{"role": "user", "content": "求5 MHz带宽的热噪声功率。"}]
    (tool,) = body["tools"]
    assert set(tool) == {"name", "description", "input_schema"}
    assert body["tool_choice"] == {"type": "auto"}
    assert body["max_tokens"] == 4096
    assert "temperature" not in body and "seed" not in body
    notes = p.fixed_notes(RequestOptions(seed=3))
    assert {"temperature", "seed", "max_tokens"} <= set(notes)


ANSWER_DOC = FunctionDoc(
    "qa.answer",  # a name that needs a wire name, to show the forced name is the wire one
    "Give your final answer to the question.",
    {
        "name": "qa.answer",
        "description": "Give your final answer to the question.",
        "parameters": {
            "type": "dict",
            "properties": {"answer": {"type": "string", "enum": ["A", "B", "C", "D"]}},
            "required": ["answer"],
        },
    },
)
CHAT = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": "Q?"}]


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_chat_request_can_force_one_function_or_offer_none(sdk):
    p = make_provider(f"{sdk}/m", env={})
    options = RequestOptions(max_tokens=64)
    forced = p.build_chat(CHAT, options, functions=[ANSWER_DOC], force="qa.answer")
    plain = p.build_chat(CHAT, options)
    (tool,) = forced["tools"]
    if sdk == "openai":
        assert forced["tool_choice"] == {"type": "function", "function": {"name": "qa_answer"}}
        assert tool["function"]["name"] == "qa_answer"
        schema = tool["function"]["parameters"]
        assert forced["messages"] == plain["messages"] == CHAT
    else:
        assert forced["tool_choice"] == {"type": "tool", "name": "qa_answer"}
        assert tool["name"] == "qa_answer"
        schema = tool["input_schema"]
        assert forced["system"] == plain["system"] == "Answer briefly."
        assert forced["messages"] == plain["messages"] == CHAT[1:]
    assert schema == {
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["A", "B", "C", "D"]}},
        "required": ["answer"],
    }
    assert "parallel_tool_calls" not in forced
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(plain)
    assert {k: v for k, v in forced.items() if k not in ("tools", "tool_choice")} == plain
    with pytest.raises(ValueError, match="cannot force 'nope'"):
        p.build_chat(CHAT, options, functions=[ANSWER_DOC], force="nope")
    with pytest.raises(ValueError, match="offered are none"):
        p.build_chat(CHAT, options, force="qa.answer")


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
@pytest.mark.parametrize("mode", [Mode.FC, Mode.PROMPT])
def test_an_items_request_is_its_chat_request(dataset, sdk, mode):
    p = make_provider(f"{sdk}/m", env={})
    options = RequestOptions(seed=1, max_tokens=9)
    for item in dataset.iter_items():
        messages = question_messages(item.question)
        if mode is Mode.PROMPT:
            chat = p.build_chat(
                [{"role": "system", "content": system_prompt(item)}, *messages], options
            )
        else:
            chat = p.build_chat(
                messages, options, functions=item.functions, parallel=item.category.is_parallel
            )
        assert p.build_request(item, options, mode) == chat


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_forced_function_is_answered_with_one_call_of_it_through_the_real_sdk(
    server, dataset, sdk
):
    item = dataset.get("run_parallel_1")  # two calls of units.dbm_to_watts expected
    url = server.base_url if sdk == "openai" else server.root_url
    provider = make_provider(f"{sdk}/m", base_url=url, env={})
    request = provider.build_chat(
        question_messages(item.question),
        RequestOptions(),
        functions=item.functions,
        force="units.dbm_to_watts",
    )

    async def ask() -> dict[str, Any]:
        async with provider:
            return provider.to_decoder_input((await provider.send(request)).body)

    raw = asyncio.run(ask())
    decoded = decode_output(raw, name_map={"units_dbm_to_watts": "units.dbm_to_watts"})
    assert [(c.name, dict(c.arguments)) for c in decoded.calls] == [
        ("units.dbm_to_watts", {"power_dbm": 10.0})
    ]
    assert message_text(raw) == ""


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_a_tool_choice_the_api_refuses_is_refused_by_the_fake_server(server, dataset, sdk):
    item = dataset.get("run_simple_1")
    url = server.base_url if sdk == "openai" else server.root_url
    provider = make_provider(f"{sdk}/m", base_url=url, env={})
    request = provider.build_request(item, RequestOptions(), Mode.FC)
    request["tool_choice"] = {"type": "tool", "function": {"name": "x"}}
    error = asyncio.run(_send_once(provider, request))
    assert error is not None and (error.kind, error.status) == (ErrorKind.ITEM, 400)


def test_the_text_of_a_message_whichever_api_gave_it():
    assert message_text({"role": "assistant", "content": "ANSWER: B"}) == "ANSWER: B"
    blocks = [
        {"type": "text", "text": "Thinking. "},
        {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        {"type": "text", "text": "ANSWER: B"},
    ]
    assert message_text({"content": blocks, "stop_reason": "end_turn"}) == "Thinking. ANSWER: B"
    assert message_text({"content": None, "tool_calls": []}) == ""


@pytest.mark.parametrize(
    ("question", "messages"),
    [
        ("q", [{"role": "user", "content": "q"}]),
        (
            [
                [{"role": "user", "content": "a"}],
                [{"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}],
            ],
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": "b"},
                {"role": "user", "content": "c"},
            ],
        ),
        ([{"role": "user", "content": "flat"}], [{"role": "user", "content": "flat"}]),
    ],
)
def test_questions_become_chat_messages(question, messages):
    assert question_messages(question) == messages


def test_decoder_input_is_the_response_message():
    p = make_provider("vllm/m", env={})
    message = {"role": "assistant", "content": None, "tool_calls": []}
    assert p.to_decoder_input({"choices": [{"message": message}]}) == message
    with pytest.raises(MalformedResponse):
        p.to_decoder_input({"choices": []})
    a = make_provider("anthropic/m", env={})
    body = {"content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "id": "x"}
    assert a.to_decoder_input(body) == {"content": body["content"], "stop_reason": "end_turn"}
    with pytest.raises(MalformedResponse):
        a.to_decoder_input({"error": {}})


# --- classification -----------------------------------------------------------------------

CTX = ServerContext("openai", "gpt-x", "https://api.openai.com/v1", "OPENAI_API_KEY", False)


def _err(message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"message": message, **extra}}


@pytest.mark.parametrize(
    ("status", "body", "kind", "hint_has"),
    [
        (401, _err("bad key"), ErrorKind.FATAL, "OPENAI_API_KEY"),
        (403, _err("no access"), ErrorKind.FATAL, "permissions"),
        (404, _err("model not found"), ErrorKind.FATAL, "/models"),
        (400, _err("bad request"), ErrorKind.ITEM, None),
        (422, _err("unprocessable"), ErrorKind.ITEM, None),
        (408, _err("timeout"), ErrorKind.RETRYABLE, None),
        (409, _err("conflict"), ErrorKind.RETRYABLE, None),
        (429, _err("slow down"), ErrorKind.RETRYABLE, None),
        (500, "<html>oops</html>", ErrorKind.RETRYABLE, None),
        (503, _err("overloaded"), ErrorKind.RETRYABLE, None),
        (529, _err("overloaded"), ErrorKind.RETRYABLE, None),
        (
            429,
            _err("You exceeded your current quota", code="insufficient_quota"),
            ErrorKind.FATAL,
            "quota",
        ),
        (400, _err("Your credit balance is too low"), ErrorKind.FATAL, "credit"),
        (
            400,
            {
                "message": '"auto" tool choice requires --enable-auto-tool-choice and '
                "--tool-call-parser to be set"
            },
            ErrorKind.FATAL,
            "--tool-call-parser",
        ),
        (500, _err("tools param requires --jinja flag"), ErrorKind.FATAL, "--jinja"),
        (400, _err('"qwen" does not support tools'), ErrorKind.FATAL, "--mode prompt"),
    ],
)
def test_statuses_are_retried_recorded_or_fatal(status, body, kind, hint_has):
    error = classify_status(status, body, {"retry-after": "2"}, "fallback", CTX)
    assert error.kind is kind
    assert error.status == status
    if hint_has:
        assert hint_has in error.hint
    if kind is ErrorKind.RETRYABLE:
        assert error.retry_after == 2.0


def test_a_refused_field_is_named_but_not_a_function_that_mentions_it():
    temp = classify_status(
        400,
        _err("Unsupported value: 'temperature' does not support 0", param="temperature"),
        None,
        "",
        CTX,
    )
    assert temp.param == "temperature" and temp.kind is ErrorKind.ITEM
    assert refused_param("parallel_tool_calls: Extra inputs are not permitted", None) == (
        "parallel_tool_calls"
    )
    assert refused_param("Invalid schema for function 'set_temperature'", None) is None
    assert refused_param("temperature is fine", None) is None


def test_retry_after_in_seconds_milliseconds_and_http_dates():
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    when = datetime.now(UTC) + timedelta(seconds=30)
    got = parse_retry_after({"retry-after": format_datetime(when, usegmt=True)})
    assert 25 <= got <= 31
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


@pytest.fixture(scope="module")
def server(dataset):
    with FakeServer(FakeConfig(dataset, slow_s=1.0)) as srv:
        yield srv


async def _send_once(provider, request):
    async with provider:
        try:
            response = await provider.send(request)
            provider.to_decoder_input(response.body)
        except Exception as exc:
            return provider.classify(exc)
    return None


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("fault", "kind", "status"),
    [
        ("429", ErrorKind.RETRYABLE, 429),
        ("500", ErrorKind.RETRYABLE, 500),
        ("503", ErrorKind.RETRYABLE, 503),
        ("drop", ErrorKind.RETRYABLE, None),
        ("malformed", ErrorKind.RETRYABLE, None),
        ("slow", ErrorKind.RETRYABLE, None),
        ("400", ErrorKind.ITEM, 400),
        ("422", ErrorKind.ITEM, 422),
        ("401", ErrorKind.FATAL, 401),
        ("404", ErrorKind.FATAL, 404),
        ("429_quota", ErrorKind.FATAL, 429),
    ],
)
def test_what_the_real_sdks_raise_is_classified(server, dataset, sdk, fault, kind, status):
    item = dataset.get("run_simple_1")
    server.config.faults[item.id] = [fault]
    url = server.base_url if sdk == "openai" else server.root_url
    provider = make_provider(f"{sdk}/m", base_url=url, timeout_s=0.3, env={})
    error = asyncio.run(
        _send_once(provider, provider.build_request(item, RequestOptions(), Mode.FC))
    )
    assert isinstance(error, ProviderError)
    assert (error.kind, error.status) == (kind, status)
    if fault == "429":
        assert error.retry_after == pytest.approx(0.05)
    if fault == "slow":
        assert "0.3 s" in error.message


def test_a_key_echoed_by_the_server_is_scrubbed(server, dataset):
    secret = "sk-echo-1234567890"
    item = dataset.get("run_simple_0")
    server.config.faults[item.id] = ["401_echo"]
    provider = make_provider("openai/m", base_url=server.base_url, env={"OPENAI_API_KEY": secret})
    error = asyncio.run(
        _send_once(provider, provider.build_request(item, RequestOptions(), Mode.FC))
    )
    assert error is not None and error.kind is ErrorKind.FATAL
    assert secret not in error.message and "***" in error.message
    assert secret not in json.dumps(provider.redacted_headers())


# --- retry layer --------------------------------------------------------------------------


def test_backoff_has_full_jitter_under_a_doubling_ceiling_and_honours_retry_after():
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0, max_retry_after_s=10.0)
    rng = random.Random(1)
    for retry, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        delays = [retry_delay(policy, retry, None, rng) for _ in range(200)]
        assert min(delays) >= 0 and max(delays) <= ceiling
        assert max(delays) > ceiling / 2  # spread, not a constant
    assert 3.0 <= retry_delay(policy, 1, 3.0, rng) <= 4.0
    assert 10.0 <= retry_delay(policy, 1, 999.0, rng) <= 11.0  # capped


@pytest.mark.parametrize(
    ("kinds", "attempts", "ok"),
    [
        ([ErrorKind.RETRYABLE, ErrorKind.RETRYABLE], 3, True),
        ([ErrorKind.RETRYABLE] * 3, 3, False),  # max_retries=2: three attempts, then give up
        ([ErrorKind.ITEM], 1, False),  # never retried
        ([ErrorKind.FATAL], 1, False),
    ],
)
def test_retries_stop_where_they_should(kinds, attempts, ok):
    calls: list[int] = []
    slept: list[float] = []

    async def attempt() -> str:
        calls.append(1)
        if len(calls) <= len(kinds):
            raise RuntimeError(str(len(calls)))
        return "answer"

    def classify(exc: BaseException) -> ProviderError:
        return ProviderError(kinds[int(str(exc)) - 1], str(exc))

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    policy = RetryPolicy(max_retries=2, base_delay_s=0.5)

    async def go() -> str:
        return await with_retries(attempt, classify, policy, random.Random(0), sleep=sleep)

    if ok:
        assert asyncio.run(go()) == "answer"
    else:
        with pytest.raises(GaveUp) as info:
            asyncio.run(go())
        assert info.value.attempts == attempts
    assert len(calls) == attempts
    assert len(slept) == min(attempts - 1, 2) if kinds[0] is ErrorKind.RETRYABLE else not slept


# --- progress -----------------------------------------------------------------------------


class _Stream:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.append(text)

    def flush(self) -> None:
        pass


def test_plain_progress_prints_every_ten_percent_or_ten_seconds():
    now = [0.0]
    stream = _Stream()
    progress = PlainProgress(stream, interval_s=10.0, clock=lambda: now[0])  # type: ignore[arg-type]
    progress.start(total=100, done=20)
    assert stream.lines == ["resuming: 20/100 items already done\n"]
    for i in range(9):
        now[0] += 0.1
        progress.advance(failed=(i == 0))
    assert len(stream.lines) == 1  # 29 %: no step crossed, no 10 s passed
    progress.advance(failed=False)  # 30 %
    assert stream.lines[-1].startswith("progress: 30/100 items (30%), 1 failed")
    assert "items/s" in stream.lines[-1] and "left" in stream.lines[-1]
    now[0] += 11
    progress.advance(failed=False)  # 31 %, but 11 s later
    assert stream.lines[-1].startswith("progress: 31/100")
    progress.advance(failed=False)  # 32 %: no line yet
    lines = len(stream.lines)
    progress.stop()
    assert stream.lines[-1].startswith("sent: 32/100") and len(stream.lines) == lines + 1
    progress.stop()  # nothing new to say: no second line with the same counts
    assert len(stream.lines) == lines + 1


def test_the_terminal_progress_bar_shows_done_failed_and_rate():
    stream = io.StringIO()
    progress = RichProgress(stream)
    progress.start(total=4, done=1)
    progress.advance(failed=True)
    progress.message("temperature dropped")
    progress.stop()
    text = stream.getvalue()
    assert "resuming: 1/4" in text and "temperature dropped" in text
    assert "2/4" in text and "1 failed" in text and "items/s" in text
    assert isinstance(make_progress(io.StringIO()), PlainProgress)


# --- the package's shape ------------------------------------------------------------------

PACKAGE = Path(__file__).resolve().parents[1] / "tfce_eval"


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(imported tfce_eval module, made inside a function) for each import in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return  # imports for the type checker only
        if isinstance(node, ast.Import):
            found.extend((a.name, in_function) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, in_function))
            found.extend((f"{node.module}.{a.name}", in_function) for a in node.names)
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    return [(name, fn) for name, fn in found if name.startswith("tfce_eval.")]


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("package", ["providers", "run"])
def test_providers_and_run_import_without_cycles_or_function_level_imports(package):
    modules = {_module_name(p): p for p in sorted((PACKAGE / package).glob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imports = _imports(path)
        inside = [m for m, fn in imports if fn]
        assert not inside, f"{name} imports {inside} inside a function"
        graph[name] = {m for m, _ in imports if m in modules and m != name}

    def cycle_from(start: str, node: str, seen: tuple[str, ...]) -> tuple[str, ...] | None:
        for nxt in sorted(graph[node]):
            if nxt == start:
                return (*seen, nxt)
            if nxt not in seen:
                found = cycle_from(start, nxt, (*seen, nxt))
                if found:
                    return found
        return None

    for name in graph:
        assert cycle_from(name, name, (name,)) is None, " -> ".join(cycle_from(name, name, (name,)))


# --- the fake server is an independent oracle ----------------------------------------------

FAKESERVER = Path(__file__).parent / "fakeserver.py"


def test_the_fake_server_shares_no_code_with_what_it_tests():
    used = {name for name, _ in _imports(FAKESERVER)}
    # Only what it reads the ground truth with: the loader and the records it returns.
    allowed = {"tfce_eval.dataset.load", "tfce_eval.model"}
    assert {n for n in used if not n.startswith(tuple(f"{a}." for a in allowed))} <= allowed


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_the_fake_server_refuses_tool_names_the_apis_refuse(server, dataset, sdk):
    item = dataset.get("run_parallel_1")  # offered as units_dbm_to_watts
    url = server.base_url if sdk == "openai" else server.root_url
    provider = make_provider(f"{sdk}/m", base_url=url, env={})
    request = provider.build_request(item, RequestOptions(), Mode.FC)
    tool = request["tools"][0]
    (tool["function"] if sdk == "openai" else tool)["name"] = "units.dbm_to_watts"
    error = asyncio.run(_send_once(provider, request))
    assert error is not None and (error.kind, error.status) == (ErrorKind.ITEM, 400)
    assert "does not match pattern" in error.message


@pytest.mark.parametrize(
    ("location", "says"),
    [
        ("https://evil.example/v1/chat/completions", "to another host, evil.example;"),
        ("/v2/chat/completions", "redirects to https://api.openai.com/v2/chat/completions;"),
        (None, "a redirect that names no address"),
    ],
)
def test_a_redirect_is_a_request_error_that_says_where_it_pointed(location, says):
    headers = {"Location": location} if location else {}
    error = classify_status(301, "", headers, "moved", CTX)
    assert error.kind is ErrorKind.ITEM
    assert error.message.startswith("HTTP 301: api.openai.com ") and says in error.message


def test_a_servers_words_fit_a_message_however_long_or_whatever_the_form():
    from tfce_eval.providers.status import server_message

    page = (
        "<!DOCTYPE html><html><head><title>401 Authorization\n Required</title></head>"
        "<body>" + "y" * 2000 + "</body></html>"
    )
    assert server_message(page, "HTTP 401") == "an HTML page (401 Authorization Required)"
    assert server_message("<html><body>x</body></html>", "") == "an HTML page"
    shown = server_message("E" * 500 + " is not  a\nvalid key.", "")
    # 70 columns: a word fits under doctor's 9-column indent (README "doctor").
    assert shown == "E" * 69 + "… is not a valid key."
    long = server_message({"error": {"message": "word " * 200}}, "")
    assert len(long) == 300 and long.endswith("…")
    url = "https://platform.openai.com/docs/guides/error-codes/api-errors"
    assert server_message({"error": {"message": f"see {url}"}}, "") == f"see {url}"
