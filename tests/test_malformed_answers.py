"""Malformed model output is the model's parse_error, never zero calls and never a request
error; a server's error sent as a 200 is a request error that says what the server said;
and every message a record keeps is bounded, however long the names and values of the
answer (`score` through the command line, `run` against a loopback server in the test, the
library's `decode_output`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from smallrun import DATA, FAST_RETRY

from tfce_eval.cli import main
from tfce_eval.decode.answer import decode_output
from tfce_eval.run.runner import RunConfig, run_eval
from tfce_eval.scoring.options import CheckMode

#: A right call of base_simple_0 (builtin:tfce).
RIGHT = {
    "id": "c1",
    "type": "function",
    "function": {"name": "nr_arfcn_to_frequency", "arguments": '{"nr_arfcn": 630000}'},
}


def _score(tmp_path: Path, *records: dict[str, Any], data: Path | None = None) -> dict[str, Any]:
    """`tfce-eval score` of these records; its scores by id."""
    tmp_path.mkdir(exist_ok=True)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "scored"
    extra = [] if data is None else ["--data", str(data)]
    args = ["score", str(outputs), "--out", str(out), "--missing", "skip", *extra]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return _scores(out)


def _scores(directory: Path) -> dict[str, Any]:
    lines = (directory / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


# -- a tool call of type "function" that holds no usable call ------------------------------


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (
            {"tool_calls": [{"id": "c1", "type": "function", "function": None}]},
            "a tool call's function is null, not an object with its name and arguments",
        ),
        (
            {"tool_calls": [{"id": "c1", "type": "function", "function": "f"}]},
            "a tool call's function is a string, not an object",
        ),
        (
            {"tool_calls": [{"id": "c1", "type": "function"}]},
            'a tool call of type "function" has no "function" object',
        ),
        ({"tool_calls": "garbage"}, "tool_calls is a string, not a list of calls"),
        ({"tool_calls": {"id": "c1"}}, "tool_calls is an object, not a list of calls"),
        ({"function_call": "f"}, "function_call is a string, not an object"),
        # A type that is not a string types nothing: an object that is no call.
        ({"content": [{"type": ["text"], "text": "hi"}]}, "item 1 of the list is not a call"),
    ],
)
def test_a_broken_tool_call_is_a_parse_error_not_no_call(
    tmp_path: Path, answer: dict[str, Any], says: str
) -> None:
    """On an irrelevance item, where zero calls would be right."""
    record = _score(tmp_path, {"id": "base_irrelevance_0", **answer})["base_irrelevance_0"]
    assert (record["valid"], record["error_type"]) == (False, "parse_error")
    assert says in record["error"]


def test_broken_calls_beside_a_right_one_are_not_dropped(tmp_path: Path) -> None:
    """Dropping them would turn three calls (a wrong count) into the one expected."""
    calls = [RIGHT, {"id": "c2", "type": "function", "function": None}, {"type": "function"}]
    record = _score(tmp_path, {"id": "base_simple_0", "tool_calls": calls})["base_simple_0"]
    assert (record["valid"], record["error_type"]) == (False, "parse_error")
    assert _score(tmp_path, {"id": "base_simple_0", "tool_calls": [RIGHT]})["base_simple_0"][
        "valid"
    ]


@pytest.mark.parametrize(
    "answer",
    [
        {"tool_calls": [], "content": "None of the functions applies."},
        {"tool_calls": None, "content": "None of the functions applies."},
        {"content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "No."}]},
        {"content": [{"type": "image", "source": {}}]},
        {"output": [{"type": "reasoning", "summary": []}]},
    ],
)
def test_blocks_that_hold_no_call_are_still_no_call(answer: dict[str, Any]) -> None:
    assert decode_output(answer).calls == ()


@pytest.mark.parametrize(
    "answer", [{"result": [{"type": {"a": 1}}]}, {"calls": [{"type": {"a": 1}}]}]
)
def test_bfcls_call_of_a_function_named_type_is_a_call(answer: dict[str, Any]) -> None:
    """`type` names the function here, not the kind of a block."""
    (call,) = decode_output({"id": "x", **answer}).calls
    assert (call.name, call.arguments) == ("type", {"a": 1})


# -- a gpt-oss Harmony header with no message -----------------------------------------------

HEADER = (
    "<|start|>assistant<|channel|>commentary to=functions.free_space_path_loss <|constrain|>json"
)
ANALYSIS = "<|channel|>analysis<|message|>The user asks for a path loss.<|end|>"
CALL = '<|message|>{"d_km": 1}<|call|>'


@pytest.mark.parametrize("text", [HEADER, "Sure." + HEADER, ANALYSIS + HEADER, HEADER + "\n"])
def test_a_harmony_header_with_no_message_is_a_parse_error(tmp_path: Path, text: str) -> None:
    record = _score(tmp_path, {"id": "base_irrelevance_1", "text": text})["base_irrelevance_1"]
    assert (record["valid"], record["error_type"]) == (False, "parse_error")
    assert "to=functions.free_space_path_loss" in record["error"]
    assert f"has no {CALL[:11]} after it" in record["error"]


def test_a_harmony_call_cut_after_a_whole_one_is_a_parse_error() -> None:
    whole = "<|channel|>commentary to=functions.f <|constrain|>json" + CALL
    assert decode_output(whole).calls is not None
    result = decode_output(whole + HEADER)
    assert result.calls is None and "call 2" in str(result.error)


@pytest.mark.parametrize(
    "text",
    [
        "<|start|>assistant<|channel|>final<|message|>No function applies.<|end|>",
        "<|channel|>final<|message|>No function applies.<|end|><|start|>assistant",
        "<|start|>assistant<|channel|>final",
    ],
)
def test_a_harmony_answer_without_a_call_is_still_no_call(text: str) -> None:
    assert decode_output(text).calls == ()


def test_a_harmony_header_with_its_message_is_still_the_call() -> None:
    calls = decode_output(HEADER + CALL).calls
    assert calls is not None
    assert [(c.name, dict(c.arguments)) for c in calls] == [("free_space_path_loss", {"d_km": 1})]


# -- messages are bounded, whatever the answer's names and values ---------------------------

LONG = "a" * 1_000_000


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


@pytest.mark.parametrize(
    ("item", "calls", "code"),
    [
        ("base_simple_0", [_call(LONG, {"nr_arfcn": 630000})], "wrong_function"),
        ("base_simple_0", [_call("nr_arfcn_to_frequency", {LONG: 1})], "unexpected_param"),
        (
            "base_irrelevance_0",
            [_call(LONG[:500_000] + str(i), {}) for i in range(3)],
            "unexpected_call",
        ),
        ("base_simple_0", [_call(LONG[:500_000] + str(i), {}) for i in range(3)], "wrong_count"),
    ],
)
def test_a_huge_name_makes_a_bounded_message(
    tmp_path: Path, item: str, calls: list[dict[str, Any]], code: str
) -> None:
    """At most as long as a parse_error's (500 characters), the names cut with `…`."""
    record = _score(tmp_path, {"id": item, "tool_calls": calls})[item]
    assert record["error_type"] == code
    assert len(record["error"]) <= 500 and "a…" in record["error"]
    if code == "wrong_function":
        assert record["error"].endswith(", expected nr_arfcn_to_frequency")
    for problem in record["details"].get("problems", []):
        assert len(problem["message"]) <= 500 and len(problem["path"]) <= 500


def test_a_huge_value_set_where_nobody_asked_is_shown_bounded(tmp_path: Path) -> None:
    """run_simple_4's noise_figure_db is optional, and its ground truth does not mention it:
    a 1,000-digit value (the longest an answer may hold) is shown cut."""
    arguments = {"bandwidth_hz": 5e6, "noise_figure_db": int("7" * 1000)}
    call = _call("thermal_noise_dbm", arguments)
    record = _score(tmp_path, {"id": "run_simple_4", "tool_calls": [call]}, data=DATA)
    error = record["run_simple_4"]["error"]
    assert error.startswith("noise_figure_db: set to 7777") and len(error) <= 200
    assert error.endswith("…, which nobody asked for (its default is 0.0)")


# -- run: the body of a 200 answer, against a loopback server -------------------------------


class _Served:
    """What a loopback server was asked: the paths posted to, in order."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.asked: list[str] = []


@contextmanager
def _serving(body: bytes) -> Iterator[_Served]:
    """A server that answers every POST with 200 and `body`."""
    served: list[_Served] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            served[0].asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.append(_Served(int(server.server_address[1])))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield served[0]
    finally:
        server.shutdown()
        server.server_close()


def _run(tmp_path: Path, served: _Served, api: str, ids: tuple[str, ...]) -> Any:
    base_url = served.url + ("/v1" if api == "openai" else "")
    config = RunConfig(
        model=f"{api}/fake-model",
        data=DATA,
        out=tmp_path / "runs",
        base_url=base_url,
        ids=ids,
        check=CheckMode.AST,
        concurrency=2,
        timeout_s=10,
        retry=FAST_RETRY,
    )
    return run_eval(config)


KEY = "sk-test-0123456789abcdefSECRET"


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


def _tool_use(digits: int) -> bytes:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "fake-model",
        "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    return json.dumps(message).replace('"a": 1', '"a": ' + "9" * digits).encode()


@pytest.mark.parametrize("digits", [2000, 5000, 100_000])
def test_an_integer_too_long_for_python_is_the_models_parse_error(
    tmp_path: Path, digits: int
) -> None:
    """Past Python's own limit (4,300 digits) as within it: asked once, never a request
    error, and the outputs file scores again to the same verdict."""
    ids = ("run_simple_0", "run_irrelevance_0")
    with _serving(_tool_use(digits)) as served:
        result = _run(tmp_path, served, "anthropic", ids)
        assert len(served.asked) == 2
    assert result.request_errors == 0
    scored = _scores(result.run_dir)
    for item in ids:
        assert scored[item]["error_type"] == "parse_error"
        assert scored[item]["error"] == "f.a: integer with more than 1000 digits"
    again = _score(tmp_path / "again", *_outputs(result.run_dir), data=DATA)
    assert {i: again[i]["error"] for i in ids} == {i: scored[i]["error"] for i in ids}


def _outputs(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / "outputs.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize(
    ("api", "body"),
    [
        ("openai", {"error": {"message": "CUDA out of memory", "type": "server_error"}}),
        ("openai", {"object": "error", "message": "CUDA out of memory", "code": 500}),
        ("anthropic", {"type": "error", "error": {"type": "x", "message": "CUDA out of memory"}}),
    ],
)
def test_an_error_sent_as_a_200_answer_says_what_the_server_said(
    tmp_path: Path, api: str, body: dict[str, Any]
) -> None:
    """Retried, as any answer without choices; the server's words shown on one line,
    bounded, control characters escaped, the key never."""
    words = f"CUDA out of memory\x1b[2J\n(key {KEY}) " + "more " * 500
    text = json.dumps(body).replace("CUDA out of memory", json.dumps(words)[1:-1])
    with _serving(text.encode()) as served:
        result = _run(tmp_path, served, api, ("run_simple_0",))
        assert len(served.asked) == 1 + FAST_RETRY.max_retries
    (record,) = _outputs(result.run_dir)
    error = record["error"]
    assert error.startswith("malformed response: the response has no ")
    assert "; the server says: CUDA out of memory\\x1b[2J (key ***) more more" in error
    assert KEY not in error and "\x1b" not in error and len(error) < 500
    assert error.endswith(f"… (after {1 + FAST_RETRY.max_retries} attempts)")


def test_a_200_answer_without_choices_or_error_says_only_that(tmp_path: Path) -> None:
    with _serving(b'{"id": "x", "object": "chat.completion"}') as served:
        result = _run(tmp_path, served, "openai", ("run_simple_0",))
    (record,) = _outputs(result.run_dir)
    assert record["error"].startswith("malformed response: the response has no choices (")
