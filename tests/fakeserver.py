"""A loopback model server speaking OpenAI Chat Completions and Anthropic Messages.

It answers every item of a dataset from the ground truth: the item is found by its question
text (and, when questions repeat, by the functions offered). With tools in the request it
returns structured tool calls under the names offered, as a server would; without, Python call
text, as prompt mode asks.

It is an oracle, so it shares no code with what it tests: it reads the ground truth through
the dataset loader only, finds each expected function among the offered tools by position
and description (never by re-deriving a wire name), and refuses tool names the OpenAI API
refuses, as the real server would.

Faults are injected by item id (one per successive request of that item), by request number
(a schedule), or for every request, so that the runner's retry layer, its stop rules and the
doctor's diagnoses can be tested against the real SDKs.

Run it alone for the benchmark or to try `run` by hand:
    python tests/fakeserver.py --port 0 --latency 0.1 [--data DIR] [--qa SPLIT]
                               [--api-key KEY]
prints `listening on http://127.0.0.1:PORT` and serves until killed. `--qa SPLIT` answers
the questions of a Telco-Retrieve split file (a QA run) instead of function-calling items;
`--api-key` makes it refuse any other key with 401.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tfce_eval.dataset.load import Dataset, load_dataset
from tfce_eval.model import Item

#: The tool names the OpenAI and Anthropic APIs accept.
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_INTEGER_TYPES = {"integer", "int", "long", "short", "byte"}
_BOOLEAN_TYPES = {"boolean", "bool"}

#: The faults the server knows. Conditional ones apply only when the request has the field.
FAULTS = (
    "429",  # rate limited, with Retry-After
    "429_quota",  # quota exhausted (never retried)
    "500",
    "503",
    "slow",  # answers after `slow_s`, past the client's timeout
    "drop",  # closes the connection without an answer
    "malformed",  # 200 with a body that is not JSON
    "truncated",  # tool-call arguments (or call text) cut in half
    "400",  # a request error of this item alone (never retried)
    "422",
    "401",
    "401_echo",  # 401 whose message repeats the key it was given, as some servers do
    "404",  # model not found
    "400_temperature",  # refuses `temperature` (when sent)
    "400_parallel",  # refuses `parallel_tool_calls` (when sent)
    "vllm_no_tool_parser",  # vLLM started without --enable-auto-tool-choice (when tools sent)
    "llamacpp_no_jinja",  # llama-server without --jinja (when tools sent)
    "text_calls",  # tool calls returned as <tool_call> text (no tool parser)
    "single_call",  # only the first of several calls (parallel calls off)
    # Hostile servers and models:
    "surrogate",  # a lone surrogate (U+D83D, JSON-escaped) in the content and the arguments
    "echo_key",  # a 200 whose content repeats the key it was given
    "text_error_key",  # a text/plain 400 whose body holds the key across its 500th character
    "deep",  # a 200 whose body is nested 100,000 deep
    "trickle",  # headers at once, then the body one byte every `trickle_s`
    "redirect",  # 307 to the same path on another host (`redirect_to`, else 127.0.0.2)
    "qa_text",  # (always) QA answers as text even when a tool is forced
    "huge",  # a valid 200 whose text is `huge_text` repeated to `huge_bytes` (see _huge)
    "huge_error",  # `huge_status` with an error body `huge_bytes` long (see _huge_error)
)


@dataclass
class FakeConfig:
    dataset: Dataset
    latency_s: float = 0.0
    api_key: str | None = None  # required when set (Bearer or x-api-key)
    models: tuple[str, ...] | None = None  # served model names; None serves any
    faults: dict[str, list[str]] = field(default_factory=dict)  # id -> faults, in request order
    schedule: Callable[[int], str | None] | None = None  # request number (1-based) -> fault
    always: tuple[str, ...] = ()  # applied to every request where they apply
    retry_after_s: float = 0.05
    slow_s: float = 3.0
    trickle_s: float = 0.2
    redirect_to: str | None = None  # root URL the "redirect" fault points at
    huge_bytes: int = 50 * 1024 * 1024  # the length of the "huge" fault's padding
    huge_text: str = "x"  # what it is made of (a lone surrogate is sent JSON-escaped)
    huge_sized: bool = True  # whether it declares its length (else: ends at the close)
    huge_status: int = 500  # the "huge_error" fault's status
    huge_gzip: bool = False  # whether its body is gzip-compressed (it is sent compressed)
    #: Question answering: (question, answer type, reference label/true/false/text) read
    #: from a split file by `qa_items`; ids in `qa_wrong` are answered wrongly on purpose.
    qa: tuple[QaTruth, ...] = ()
    qa_wrong: frozenset[str] = frozenset()
    judge_grade: str = "C"  # what the server answers a judge prompt


@dataclass(frozen=True)
class QaTruth:
    id: str
    question: str
    answer_type: str
    reference: str  # mc: the label; tf: "true"/"false"; open: the text
    labels: tuple[str, ...] = ()


def qa_items(split_file: Path) -> tuple[QaTruth, ...]:
    """A Telco-Retrieve split's questions and references, read here without the package's
    loader (the oracle shares no code with what it tests)."""
    data = json.loads(split_file.read_text(encoding="utf-8"))
    out = []
    for q in data["questions"]:
        ref = q["reference_answer"]
        options = q.get("options") or {}
        if q["answer_type"] == "mc":
            ref = _mc_label(options, str(ref))
            if ref is None:
                raise ValueError(f"{q['question_id']}: no option is {q['reference_answer']!r}")
        if q["answer_type"] == "tf":
            ref = str(ref).lower()
        out.append(QaTruth(q["question_id"], q["question"], q["answer_type"], ref, tuple(options)))
    return tuple(out)


def _mc_label(options: dict[str, str], ref: str) -> str | None:
    """The label an mc reference names, as the dataset card allows it to be written: the
    label (any case, also `(b)`, `b.`, `Option B`), the option's text (any case, spacing and
    end punctuation), or the label followed by its text (`B) AMF`)."""

    def loose(text: str) -> str:
        return " ".join(text.split()).rstrip(".;,!").strip().lower()

    labels = {label.lower(): label for label in options}
    ref = ref.strip()
    if ref in options:
        return ref
    dressed = re.fullmatch(
        r"(?:(?:option|choice)\s*)?[(\[]?\s*(\S+?)\s*[)\]]?\s*[.):,;]?", ref, re.I
    )
    if dressed and dressed.group(1).lower() in labels:
        return labels[dressed.group(1).lower()]
    by_text = [label for label, text in options.items() if loose(text) == loose(ref)]
    if len(by_text) == 1:
        return by_text[0]
    head, _, tail = ref.partition(" ")
    label = labels.get(head.strip("()[].:").lower())
    if label is not None and loose(tail) == loose(options[label]):
        return label
    return None


@dataclass(frozen=True)
class Logged:
    n: int
    path: str
    item_id: str | None
    fault: str | None
    body: dict[str, Any]
    headers: dict[str, str]
    at: float  # time.monotonic() when the request arrived


def _coerce(value: Any, schema: object) -> Any:
    """The ground-truth value in the declared type, as a well-behaved model would send it."""
    declared = schema.get("type") if isinstance(schema, Mapping) else None
    kind = declared.strip().lower() if isinstance(declared, str) else None
    if kind in _BOOLEAN_TYPES and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if kind in _INTEGER_TYPES and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def expected_calls(item: Item) -> list[tuple[str, dict[str, Any]]]:
    """(original name, arguments) of each expected call, first acceptable value of each param."""
    calls = []
    for expected in item.expected:
        doc = item.function(expected.name)
        props = doc.properties if doc is not None else {}
        args = {
            name: _coerce(param.values[0], props.get(name))
            for name, param in expected.params.items()
            if param.values
        }
        calls.append((expected.name, args))
    return calls


def python_text(calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Calls in Python syntax; repr of JSON values is a valid Python literal."""
    parts = [f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for name, args in calls]
    return "[" + ", ".join(parts) + "]"


class _Server(ThreadingHTTPServer):
    # The default backlog (5) refuses connections when many clients open them at once.
    request_queue_size = 256
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that stops mid-request (a run stopped by a 401, Ctrl-C) resets the
        # connection: no fault of the server's, and socketserver would print a traceback
        # into the output of a command run in the same process.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class FakeServer:
    """`with FakeServer(config) as server:` serves on 127.0.0.1 in a thread."""

    def __init__(self, config: FakeConfig, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.config = config
        self.host = host
        self.log: list[Logged] = []
        self._lock = threading.Lock()
        self._count = 0
        self._by_question: dict[str, list[Item]] = {}
        for item in config.dataset.iter_items():
            self._by_question.setdefault(_question_key(item.question), []).append(item)
        self._httpd = _Server((host, port), _handler(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """For OpenAI-style clients (`.../v1`)."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        """For the Anthropic SDK, which adds `/v1/messages` itself."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def requests_for(self, item_id: str) -> list[Logged]:
        with self._lock:
            return [r for r in self.log if r.item_id == item_id]

    # --- request handling (called from the server's threads) --------------------------------

    def _next(self, item_id: str | None) -> tuple[int, str | None]:
        with self._lock:
            self._count += 1
            n = self._count
            queue = self.config.faults.get(item_id or "")
            fault = queue.pop(0) if queue else None
        if fault is None and self.config.schedule is not None:
            fault = self.config.schedule(n)
        return n, fault

    def find_item(self, body: Mapping[str, Any], api: str) -> Item | None:
        messages = body.get("messages") or []
        users = [m for m in messages if isinstance(m, Mapping) and m.get("role") == "user"]
        if not users:
            return None
        candidates = self._by_question.get(_text(users[-1].get("content")), [])
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        offered = _offered_tools(body, api)
        for item in candidates:
            if offered and _tools_match(offered, item):
                return item
            if not offered and all(
                f.name in _text(body.get("system", "")) + json.dumps(messages, ensure_ascii=False)
                for f in item.functions
            ):
                return item
        return candidates[0]

    def record(self, entry: Logged) -> None:
        with self._lock:
            self.log.append(entry)


def _question_key(question: Any) -> str:
    if isinstance(question, str):
        return question
    flat: list[Any] = []

    def walk(x: Any) -> None:
        if isinstance(x, list | tuple):
            for y in x:
                walk(y)
        else:
            flat.append(x)

    walk(question)
    users = [m for m in flat if isinstance(m, Mapping) and m.get("role") == "user"]
    return _text(users[-1].get("content")) if users else ""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") for b in content if isinstance(b, Mapping))
    return json.dumps(content, ensure_ascii=False)


def _offered_tools(body: Mapping[str, Any], api: str) -> list[dict[str, Any]]:
    """The tools of a request as `{"name", "description", "parameters"}`, in order."""
    tools = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, Mapping):
            continue
        inner = tool.get("function", {}) if api == "openai" else tool
        if not isinstance(inner, Mapping):
            continue
        schema = inner.get("parameters" if api == "openai" else "input_schema")
        tools.append(
            {
                "name": inner.get("name"),
                "description": inner.get("description"),
                "parameters": schema if isinstance(schema, Mapping) else {},
            }
        )
    return tools


def _distinct_docs(item: Item) -> list[Any]:
    """The item's docs in order, a repeated name once (a function is offered once)."""
    seen: dict[str, Any] = {}
    for doc in item.functions:
        seen.setdefault(doc.name, doc)
    return list(seen.values())


def _tools_match(offered: list[dict[str, Any]], item: Item) -> bool:
    """The offered tools are the item's functions: same count, descriptions and parameters."""
    docs = _distinct_docs(item)
    return len(docs) == len(offered) and all(
        tool["description"] == doc.description
        and set(tool["parameters"].get("properties") or {}) == set(doc.properties)
        for tool, doc in zip(offered, docs, strict=True)
    )


def offered_names(body: Mapping[str, Any], api: str, item: Item) -> dict[str, str]:
    """The name each of the item's functions was offered under (the n-th doc, the n-th tool)."""
    offered = _offered_tools(body, api)
    return {
        doc.name: tool["name"]
        for doc, tool in zip(_distinct_docs(item), offered, strict=False)
        if isinstance(tool["name"], str)
    }


def forced_name(body: Mapping[str, Any], api: str) -> str | None:
    """The tool the request forces, if any."""
    choice = body.get("tool_choice")
    if not isinstance(choice, Mapping):
        return None
    if api == "openai" and choice.get("type") == "function":
        inner = choice.get("function")
        return inner.get("name") if isinstance(inner, Mapping) else None
    if api == "anthropic" and choice.get("type") == "tool":
        name = choice.get("name")
        return name if isinstance(name, str) else None
    return None


def tool_choice_problem(body: Mapping[str, Any], api: str) -> str | None:
    """What the real API says about a `tool_choice` it refuses; None when it is fine."""
    if "tool_choice" not in body:
        return None
    choice = body["tool_choice"]
    names = [t["name"] for t in _offered_tools(body, api)]
    if not names:
        return "tool_choice is only allowed when tools are specified."
    if api == "openai":
        if choice in ("auto", "required", "none"):
            return None
        inner = choice.get("function") if isinstance(choice, Mapping) else None
        if not (
            isinstance(choice, Mapping)
            and set(choice) == {"type", "function"}
            and choice["type"] == "function"
            and isinstance(inner, Mapping)
            and set(inner) == {"name"}
        ):
            return "Invalid value for 'tool_choice': expected a string or a function choice."
    else:
        kinds = {"auto", "any", "none", "tool"}
        if not isinstance(choice, Mapping) or choice.get("type") not in kinds:
            return "tool_choice: Input tag does not match any of the expected tags."
        allowed = {"type", "name", "disable_parallel_tool_use"}
        if not set(choice) <= allowed or (choice["type"] == "tool") != ("name" in choice):
            return "tool_choice: the fields do not fit the choice's type."
    name = forced_name(body, api)
    if name is not None and name not in names:
        return f"Invalid value for 'tool_choice': no tool named {name!r} was offered."
    return None


def tool_name_problem(body: Mapping[str, Any], api: str) -> str | None:
    """What the real API says about bad or repeated tool names; None when they are fine."""
    names = [t["name"] for t in _offered_tools(body, api)]
    for i, name in enumerate(names):
        where = f"tools[{i}].function.name" if api == "openai" else f"tools.{i}.name"
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            return (
                f"Invalid '{where}': string does not match pattern. Expected a string "
                "that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'."
            )
        if name in names[:i]:
            return f"Invalid '{where}': tool names must be unique ({name!r} repeats)."
    return None


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle on, the second waits for the
        # client's delayed ACK (~40 ms a request), which would swamp any latency measured.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(
            self,
            status: int,
            payload: Any,
            headers: Mapping[str, str] | None = None,
            raw: bytes | None = None,
        ) -> None:
            if raw is not None:
                data = raw
            else:
                try:
                    data = json.dumps(payload, ensure_ascii=False).encode()
                except UnicodeEncodeError:  # a lone surrogate: JSON escapes it
                    data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                names = server.config.models or ("fake-model",)
                self._send(
                    200, {"object": "list", "data": [{"id": m, "object": "model"} for m in names]}
                )
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "request body is not JSON"}})
                return
            if self.path.endswith("/chat/completions"):
                api = "openai"
            elif self.path.endswith("/messages"):
                api = "anthropic"
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            if server.config.qa:
                self._qa(api, body)
                return
            item = server.find_item(body, api)
            n, fault = server._next(item.id if item else None)
            fault = fault or _standing_fault(server.config.always, body)
            server.record(
                Logged(
                    n,
                    self.path,
                    item.id if item else None,
                    fault,
                    body,
                    {k.lower(): v for k, v in self.headers.items()},
                    time.monotonic(),
                )
            )
            if server.config.latency_s:
                time.sleep(server.config.latency_s)
            cfg = server.config
            if cfg.api_key is not None and not self._authorised(cfg.api_key):
                fault = "401"
            if fault is None and cfg.models is not None and body.get("model") not in cfg.models:
                fault = "404"
            if self._error(api, fault):
                return
            problem = tool_name_problem(body, api) or tool_choice_problem(body, api)
            if problem is not None:
                self._send(400, _error_body(api, "invalid_request_error", problem))
                return
            if item is None:
                self._send(
                    400,
                    _error_body(
                        api, "invalid_request_error", "unknown question (not in the dataset)"
                    ),
                )
                return
            answer = _answer(api, body, item, fault)
            if fault == "echo_key":
                answer = _with_text(api, answer, f"Your key is {self._key()}.")
            if fault == "surrogate":
                answer = _with_text(api, answer, "\ud83d ")
            if fault == "huge":
                self._huge(_with_text(api, answer, _padding(cfg) + "\n"))
                return
            if fault == "trickle":
                self._trickle(json.dumps(answer).encode())
                return
            self._send(200, answer)

        def _qa(self, api: str, body: dict[str, Any]) -> None:
            """A question-answering request: the forced `answer` tool, or ANSWER: text; a
            judge prompt is answered with the configured grade."""
            cfg = server.config
            users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
            text = _text(users[-1].get("content")) if users else ""
            judge = text.startswith("You are grading an answer")
            found = [t for t in cfg.qa if t.question.strip() in text] if not judge else []
            truth = max(found, key=lambda t: len(t.question)) if found else None
            n, fault = server._next(truth.id if truth else None)
            server.record(
                Logged(
                    n,
                    self.path,
                    truth.id if truth else None,
                    "judge" if judge else fault,
                    body,
                    {k.lower(): v for k, v in self.headers.items()},
                    time.monotonic(),
                )
            )
            if cfg.latency_s:
                time.sleep(cfg.latency_s)
            if self._error(api, fault):
                return
            if judge:
                self._send(200, _qa_message(api, body, f"GRADE: {cfg.judge_grade}", None))
                return
            if truth is None:
                self._send(400, _error_body(api, "invalid_request_error", "unknown question"))
                return
            if fault == "huge":
                padded = _padding(cfg) + f"\nANSWER: {truth.reference}"
                self._huge(_qa_message(api, body, padded, None))
                return
            answer = truth.reference
            if truth.id in cfg.qa_wrong:
                answer = next((x for x in (*truth.labels, "false", "true") if x != answer), "no")
            if body.get("tools") and "qa_text" not in cfg.always:
                self._send(200, _qa_message(api, body, None, answer))
            else:
                self._send(200, _qa_message(api, body, f"Reasoning first.\nANSWER: {answer}", None))

        def _huge(self, answer: dict[str, Any]) -> None:
            """A 200 in UTF-8, lone surrogates JSON-escaped, with or without its length."""
            text = json.dumps(answer, ensure_ascii=False)
            data = re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m[0]):04x}", text).encode()
            if server.config.huge_sized:
                self._send(200, None, raw=data)
                return
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

        def _huge_error(self, api: str) -> None:
            """An error body of `huge_bytes` (its message padding), written in pieces as
            made, never held: with its length, or else chunked (`huge_sized`); compressed
            when `huge_gzip` (then held: the gzip of "x" repeated is a thousandth as long).
            """
            cfg = server.config
            parts: Iterable[bytes] = _error_pieces(api, cfg.huge_bytes)
            if cfg.huge_gzip:
                packer = zlib.compressobj(9, zlib.DEFLATED, 31)
                parts = [b"".join(packer.compress(p) for p in parts) + packer.flush()]
            size = sum(len(p) for p in parts) if cfg.huge_gzip else cfg.huge_bytes
            try:
                self.send_response(cfg.huge_status)
                self.send_header("Content-Type", "application/json")
                if cfg.huge_gzip:
                    self.send_header("Content-Encoding", "gzip")
                if cfg.huge_sized:
                    self.send_header("Content-Length", str(size))
                else:
                    self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for part in parts:
                    self.wfile.write(
                        part if cfg.huge_sized else b"%x\r\n%s\r\n" % (len(part), part)
                    )
                if not cfg.huge_sized:
                    self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _key(self) -> str:
            bearer = self.headers.get("Authorization") or ""
            return bearer.removeprefix("Bearer ") or self.headers.get("x-api-key") or ""

        def _trickle(self, data: bytes) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.flush()
                for i in range(len(data)):
                    time.sleep(server.config.trickle_s)
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def _authorised(self, key: str) -> bool:
            return (
                self.headers.get("Authorization") == f"Bearer {key}"
                or self.headers.get("x-api-key") == key
            )

        def _error(self, api: str, fault: str | None) -> bool:
            """Send the fault's error response; False when the fault shapes a 200 instead."""
            cfg = server.config
            if fault == "drop":
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return True
            if fault == "slow":
                time.sleep(cfg.slow_s)
                return False
            if fault == "malformed":
                self._send(200, None, raw=b'{"id": "x", "choices": [{"mess')
                return True
            if fault == "deep":
                depth = 100_000
                deep = b'{"choices": [{"message": {"role": "assistant", "content": '
                deep += b"[" * depth + b"]" * depth + b"}}]}"
                self._send(200, None, raw=deep)
                return True
            if fault == "text_error_key":
                data = ("E" * 492 + self._key() + " is not a valid key.").encode()
                self._send(400, None, {"Content-Type": "text/plain"}, raw=data)
                return True
            if fault == "huge_error":
                self._huge_error(api)
                return True
            if fault == "redirect":
                root = server.config.redirect_to or f"http://127.0.0.2:{server.port}"
                where = root + self.path
                self._send(307, {"moved": where}, {"Location": where})
                return True
            errors = {
                "429": (429, "rate_limit_error", "Rate limit reached; try again shortly."),
                "429_quota": (
                    429,
                    "insufficient_quota",
                    "You exceeded your current quota, please check your plan and billing details.",
                ),
                "500": (500, "server_error", "The server had an error."),
                "503": (503, "overloaded_error", "The server is overloaded."),
                "400": (400, "invalid_request_error", "This request is not valid."),
                "422": (422, "invalid_request_error", "Unprocessable request."),
                "401": (401, "authentication_error", "Incorrect API key provided."),
                "401_echo": (
                    401,
                    "authentication_error",
                    "Incorrect API key provided: "
                    + (self.headers.get("Authorization") or "")[len("Bearer ") :],
                ),
                "404": (404, "not_found_error", "The model does not exist."),
                "400_temperature": (
                    400,
                    "invalid_request_error",
                    "Unsupported value: 'temperature' does not support 0 with this model.",
                ),
                "400_parallel": (
                    400,
                    "invalid_request_error",
                    "[{'type': 'extra_forbidden', "
                    "'loc': ('body', 'parallel_tool_calls'), "
                    "'msg': 'Extra inputs are not permitted'}]",
                ),
                "vllm_no_tool_parser": (
                    400,
                    "BadRequestError",
                    '"auto" tool choice requires '
                    "--enable-auto-tool-choice and --tool-call-parser "
                    "to be set",
                ),
                "llamacpp_no_jinja": (500, "server_error", "tools param requires --jinja flag"),
            }
            if fault not in errors:
                return False
            status, kind, message = errors[fault]
            headers = {}
            if fault == "429":
                headers = {
                    "retry-after-ms": str(int(cfg.retry_after_s * 1000)),
                    "retry-after": str(max(1, round(cfg.retry_after_s))),
                }
            payload = _error_body(api, kind, message)
            if fault == "400_temperature":
                payload["error"]["param"] = "temperature"
            self._send(status, payload, headers)
            return True

    return Handler


def _padding(config: FakeConfig) -> str:
    """The "huge" fault's text: `huge_text` repeated to about `huge_bytes` in UTF-8."""
    unit = len(config.huge_text.encode("utf-8", "surrogatepass"))
    return config.huge_text * (config.huge_bytes // unit)


def _error_pieces(api: str, size: int) -> Iterator[bytes]:
    """An error body of `size` bytes (at least its frame), its message "x" repeated, in
    pieces of 64 KiB."""
    head, tail = json.dumps(_error_body(api, "server_error", "@")).encode().split(b"@")
    yield head
    left = size - len(head) - len(tail)
    block = b"x" * 65536
    while left > 0:
        yield block[:left]
        left -= len(block)
    yield tail


def _standing_fault(always: tuple[str, ...], body: Mapping[str, Any]) -> str | None:
    for fault in always:
        if fault == "400_temperature" and "temperature" not in body:
            continue
        if fault == "400_parallel" and "parallel_tool_calls" not in body:
            continue
        if fault in ("vllm_no_tool_parser", "llamacpp_no_jinja") and not body.get("tools"):
            continue
        return fault
    return None


def _error_body(api: str, kind: str, message: str) -> dict[str, Any]:
    if api == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def _answer(api: str, body: Mapping[str, Any], item: Item, fault: str | None) -> dict[str, Any]:
    calls = expected_calls(item)
    if fault == "single_call":
        calls = calls[:1]
    fc = bool(body.get("tools"))
    if fc:
        offered = offered_names(body, api, item)
        calls = [(offered.get(name, name), args) for name, args in calls]
        forced = forced_name(body, api)
        if forced is not None:  # exactly one call, of that tool
            calls = [c for c in calls if c[0] == forced][:1] or [(forced, {})]
    if fault == "surrogate":
        calls = [
            (name, {k: v + "\ud83d" if isinstance(v, str) else v for k, v in args.items()})
            for name, args in calls
        ]
    text = python_text(calls) if calls else "[]"
    if fault == "truncated":
        text = text[: len(text) // 2]
    tokens_in = len(json.dumps(body)) // 4
    tokens_out = len(text) // 4 + 1
    if api == "anthropic":
        blocks: list[dict[str, Any]]
        if fc and calls and fault != "text_calls":
            blocks = [
                {
                    "type": "tool_use",
                    "id": f"toolu_{i}",
                    "name": name,
                    "input": {} if fault == "truncated" else args,
                }
                for i, (name, args) in enumerate(calls)
            ]
            stop = "max_tokens" if fault == "truncated" else "tool_use"
        else:
            blocks = [{"type": "text", "text": text if not fc else "No function applies."}]
            stop = "end_turn"
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    if fc and calls and fault == "text_calls":
        message["content"] = "\n".join(
            "<tool_call>\n"
            + json.dumps({"name": n, "arguments": a}, ensure_ascii=False)
            + "\n</tool_call>"
            for n, a in calls
        )
    elif fc and calls:
        tool_calls = []
        for i, (name, args) in enumerate(calls):
            arguments = json.dumps(args, ensure_ascii=False)
            if fault == "truncated":
                arguments = arguments[: len(arguments) // 2]
            tool_calls.append(
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            )
        message["tool_calls"] = tool_calls
        finish = "length" if fault == "truncated" else "tool_calls"
    else:
        message["content"] = text if not fc else "No function applies to this question."
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


def _qa_message(
    api: str, body: Mapping[str, Any], text: str | None, tool_answer: str | None
) -> dict[str, Any]:
    """A chat answer: plain text, or one call of the first offered tool with `answer`."""
    if api == "anthropic":
        block: dict[str, Any]
        if tool_answer is not None:
            name = body["tools"][0]["name"]
            block = {
                "type": "tool_use",
                "id": "toolu_0",
                "name": name,
                "input": {"answer": tool_answer},
            }
        else:
            block = {"type": "text", "text": text or ""}
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [block],
            "stop_reason": "tool_use" if tool_answer is not None else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_answer is not None:
        name = body["tools"][0]["function"]["name"]
        message["tool_calls"] = [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps({"answer": tool_answer})},
            }
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_answer is not None else "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _with_text(api: str, answer: dict[str, Any], text: str) -> dict[str, Any]:
    """The answer with `text` added to its content (a text block for the Anthropic API)."""
    if api == "anthropic":
        answer["content"] = [{"type": "text", "text": text}, *answer["content"]]
    else:
        message = answer["choices"][0]["message"]
        message["content"] = text + (message["content"] or "")
    return answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--data", type=Path, default=None, help="dataset (default: built-in)")
    parser.add_argument("--api-key", default=None, help="require this key")
    parser.add_argument("--qa", type=Path, default=None, help="answer a Telco-Retrieve split")
    args = parser.parse_args(argv)
    config = FakeConfig(
        load_dataset(None if args.qa else args.data),
        latency_s=args.latency,
        api_key=args.api_key,
        qa=qa_items(args.qa) if args.qa else (),
    )
    server = FakeServer(config, port=args.port)
    print(f"listening on {server.root_url}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server._httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
