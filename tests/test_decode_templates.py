"""Calls left in the text in a chat template's syntax (docs/decoding.md 4.3): each syntax read
from a real-looking message through `tfce-eval score` and at unit level, and a marker from
which no call can be read is a parse_error, never zero calls. The plain steps come first,
and prose that only mentions a marker is read as prose."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval.cli import main
from tfce_eval.decode.answer import decode_output
from tfce_eval.model import DecodeResult

Calls = list[tuple[str, dict[str, Any]]]

# The builtin:tfce items the score tests answer, with calls that are right for them.
SIMPLE_3: Calls = [
    ("max_resource_blocks", {"bandwidth_mhz": 100, "scs_khz": 30, "frequency_range": "FR1"})
]
PARALLEL_MULTI_0: Calls = [
    ("eirp_dbm", {"tx_power_dbm": 43.0, "antenna_gain_dbi": 18.0, "cable_loss_db": 2.0}),
    ("units.dbm_to_watts", {"power_dbm": 43.0}),
]
# A call on an item where none is expected: the model did call.
IRRELEVANT: Calls = [("nr_arfcn_to_frequency", {"nr_arfcn": 630000})]


def _value(value: Any) -> str:
    """A parameter value as the XML templates write it: strings bare, the rest as JSON."""
    return value if isinstance(value, str) else json.dumps(value)


def mistral(calls: Calls) -> str:
    return "".join(f"[TOOL_CALLS]{n}[ARGS]{json.dumps(a)}" for n, a in calls)


def mistral_call_id(calls: Calls) -> str:
    return "".join(
        f"[TOOL_CALLS]{n}[CALL_ID]a{i}b2c3d4e[ARGS]{json.dumps(a)}"
        for i, (n, a) in enumerate(calls)
    )


def mistral_old(calls: Calls) -> str:
    return "[TOOL_CALLS] " + json.dumps([{"name": n, "arguments": a} for n, a in calls])


def llama(calls: Calls) -> str:
    return "".join(f"<function={n}>{json.dumps(a)}</function>" for n, a in calls)


def _qwen_function(name: str, arguments: dict[str, Any]) -> str:
    body = "".join(f"<parameter={k}>\n{_value(v)}\n</parameter>\n" for k, v in arguments.items())
    return f"<function={name}>\n{body}</function>"


def qwen3_coder(calls: Calls) -> str:
    return "\n".join(f"<tool_call>\n{_qwen_function(n, a)}\n</tool_call>" for n, a in calls)


def seed_oss(calls: Calls) -> str:
    return "\n".join(
        f"<seed:tool_call>\n{_qwen_function(n, a)}\n</seed:tool_call>" for n, a in calls
    )


def minimax(calls: Calls) -> str:
    invokes = "".join(
        f'<invoke name="{n}">\n'
        + "".join(f'<parameter name="{k}">{_value(v)}</parameter>\n' for k, v in a.items())
        + "</invoke>\n"
        for n, a in calls
    )
    return f"<minimax:tool_call>\n{invokes}</minimax:tool_call>"


def glm(calls: Calls) -> str:
    return "\n".join(
        f"<tool_call>{n}\n"
        + "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{_value(v)}</arg_value>\n" for k, v in a.items()
        )
        + "</tool_call>"
        for n, a in calls
    )


def kimi(calls: Calls) -> str:
    body = "".join(
        f"<|tool_call_begin|>functions.{n}:{i}<|tool_call_argument_begin|>{json.dumps(a)}"
        "<|tool_call_end|>"
        for i, (n, a) in enumerate(calls)
    )
    return f"<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"


def deepseek_v31(calls: Calls) -> str:
    body = "".join(
        f"<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{json.dumps(a)}<｜tool▁call▁end｜>"
        for n, a in calls
    )
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>"


def deepseek_v3(calls: Calls) -> str:
    body = "\n".join(
        f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{json.dumps(a)}\n```"
        "<｜tool▁call▁end｜>"
        for n, a in calls
    )
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def harmony(calls: Calls) -> str:
    # The analysis channel is reasoning: the call written in it must never be taken.
    reasoning = "<|channel|>analysis<|message|>Maybe [nr_slot_duration_ms(scs_khz=30)].<|end|>"
    return reasoning + "".join(
        f"<|start|>assistant<|channel|>commentary to=functions.{n} <|constrain|>json"
        f"<|message|>{json.dumps(a)}<|call|>"
        for n, a in calls
    )


def llama_cpp_generic(calls: Calls) -> str:
    if len(calls) == 1:
        ((name, arguments),) = calls
        return json.dumps({"tool_call": {"name": name, "arguments": arguments}})
    return json.dumps({"tool_calls": [{"name": n, "arguments": a} for n, a in calls]})


SYNTAXES: dict[str, Callable[[Calls], str]] = {
    "mistral-v11": mistral,
    "mistral-v11-call-id": mistral_call_id,
    "mistral-old": mistral_old,
    "llama-function": llama,
    "qwen3-coder": qwen3_coder,
    "seed-oss": seed_oss,
    "minimax": minimax,
    "glm-4.5": glm,
    "kimi-k2": kimi,
    "deepseek-v3.1": deepseek_v31,
    "deepseek-v3": deepseek_v3,
    "gpt-oss-harmony": harmony,
    "llama-cpp-generic": llama_cpp_generic,
}


def _pairs(result: DecodeResult) -> Calls:
    assert result.calls is not None, result.error
    return [(c.name, dict(c.arguments)) for c in result.calls]


def _error(result: DecodeResult) -> str:
    assert result.calls is None, f"expected a parse error, got {result.calls}"
    assert result.error
    return result.error


def _message(content: str) -> dict[str, Any]:
    """An OpenAI message as a server sends it when its tool-call parser did not run."""
    return {"role": "assistant", "content": content, "tool_calls": []}


# --- through `tfce-eval score` ---------------------------------------------------------------


def _score(tmp_path: Path, lines: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    outputs = tmp_path / "outputs.jsonl"
    with outputs.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps({**line, "finish_reason": "stop"}, ensure_ascii=False) + "\n")
    out = tmp_path / "scored"
    argv = ["score", str(outputs), "--data", "builtin:tfce", "--missing", "skip"]
    result = CliRunner().invoke(main, [*argv, "--check", "ast", "--out", str(out)])
    assert result.exit_code == 0, result.output
    scores = (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    return {s["id"]: s for s in map(json.loads, scores)}


@pytest.mark.parametrize("syntax", list(SYNTAXES))
def test_each_syntax_is_scored_from_the_message_text(tmp_path: Path, syntax: str) -> None:
    render = SYNTAXES[syntax]
    scores = _score(
        tmp_path,
        [
            {"id": "base_simple_3", "raw": _message(render(SIMPLE_3))},
            {"id": "base_parallel_multi_0", "raw": _message(render(PARALLEL_MULTI_0))},
            {"id": "base_irrelevance_0", "raw": _message(render(IRRELEVANT))},
        ],
    )
    assert scores["base_simple_3"]["valid"], scores["base_simple_3"]
    assert scores["base_parallel_multi_0"]["valid"], scores["base_parallel_multi_0"]
    # The model called a function where none is right: never credited as an abstention.
    irrelevance = scores["base_irrelevance_0"]
    assert not irrelevance["valid"]
    assert irrelevance["error_type"] == "unexpected_call", irrelevance


def test_a_marker_with_no_call_is_scored_parse_error_not_credited(tmp_path: Path) -> None:
    scores = _score(
        tmp_path,
        [
            {"id": "base_irrelevance_0", "raw": _message("[TOOL_CALLS]max_resource_blocks[ARGS]")},
            {"id": "base_irrelevance_1", "raw": _message("<|python_tag|>")},
            {
                "id": "base_irrelevance_2",
                "raw": {
                    "role": "assistant",
                    "content": None,
                    "reasoning_content": "<tool_call>\n"
                    + json.dumps({"name": "nr_arfcn_to_frequency", "arguments": {"nr_arfcn": 1}})
                    + "\n</tool_call>",
                    "tool_calls": [],
                },
            },
            {"id": "base_simple_3", "raw": _message("<think>I will call it.\n" + glm(SIMPLE_3))},
            {"id": "base_irrelevance_3", "raw": _message("抱歉，这些函数都不适用。")},
        ],
    )
    for item in ("base_irrelevance_0", "base_irrelevance_1", "base_irrelevance_2"):
        assert scores[item]["error_type"] == "parse_error", scores[item]
    assert "[TOOL_CALLS]" in scores["base_irrelevance_0"]["error"]
    assert "<|python_tag|>" in scores["base_irrelevance_1"]["error"]
    assert "reasoning_content" in scores["base_irrelevance_2"]["error"]
    assert "in the reasoning" in scores["base_irrelevance_2"]["error"]
    # Calls after an unclosed <think> are reasoning: a parse_error, not no_call.
    assert scores["base_simple_3"]["error_type"] == "parse_error"
    assert "in the reasoning" in scores["base_simple_3"]["error"]
    assert scores["base_irrelevance_3"]["valid"]  # prose is still a right abstention


# --- unit level -----------------------------------------------------------------------------


@pytest.mark.parametrize("syntax", list(SYNTAXES))
def test_each_syntax_decodes(syntax: str) -> None:
    render = SYNTAXES[syntax]
    for calls in (SIMPLE_3, PARALLEL_MULTI_0):
        assert _pairs(decode_output(render(calls))) == calls
        assert _pairs(decode_output({"id": "x", "raw": _message(render(calls))})) == calls


F1: Calls = [("f", {"a": 1})]
FG: Calls = [("f", {"a": 1}), ("g", {"b": "x"})]

TEXTS: list[tuple[str, str, Calls]] = [
    ("mistral-no-args-token", '[TOOL_CALLS]f{"a": 1}', F1),
    ("mistral-prose-before", 'Sure.[TOOL_CALLS]f[ARGS]{"a": 1}', F1),
    ("mistral-eos-after", '[TOOL_CALLS]f[ARGS]{"a": 1}</s>', F1),
    ("mistral-old-no-space", '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}]', F1),
    ("mistral-empty-args", "[TOOL_CALLS]f[ARGS]{}", [("f", {})]),
    ("llama-unclosed", '<function=f>{"a": 1}', F1),
    ("llama-eom", '<function=f>{"a": 1}<|eom_id|>', F1),
    (
        "llama-two-with-prose",
        'Calling.\n<function=f>{"a": 1}</function>\n<function=g>{"b": "x"}</function>',
        FG,
    ),
    ("qwen3-coder-bare", "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>", F1),
    (
        "qwen3-coder-no-parameters",
        "<tool_call>\n<function=f>\n</function>\n</tool_call>",
        [("f", {})],
    ),
    (
        "qwen3-coder-unclosed-parameter",
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\nx\n</function>",
        [("f", {"a": 1, "b": "x"})],
    ),
    (
        "glm-4.7-one-line",
        "<tool_call>f<arg_key>a</arg_key><arg_value>1</arg_value></tool_call>",
        F1,
    ),
    (
        "kimi-spaces",
        "<|tool_calls_section_begin|> <|tool_call_begin|> functions.f:0 "
        '<|tool_call_argument_begin|> {"a": 1} <|tool_call_end|> <|tool_calls_section_end|>',
        F1,
    ),
    (
        "kimi-singular-section",
        "<|tool_call_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_call_section_end|>',
        F1,
    ),
    (
        "harmony-recipient-in-role",
        '<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>',
        F1,
    ),
    (
        "harmony-no-start",
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>',
        F1,
    ),
    (
        "harmony-final-text-holds-the-call",
        "<|channel|>analysis<|message|>[g(b='x')]<|end|><|start|>assistant<|channel|>final"
        "<|message|>[f(a=1)]<|return|>",
        F1,
    ),
    ("mistral-after-a-sentence", 'I will check.[TOOL_CALLS]f[ARGS]{"a": 1}', F1),
    ("mistral-indented", '\t[TOOL_CALLS]f[ARGS]{"a": 1}', F1),
    ("mistral-after-a-mention", 'The `[TOOL_CALLS]` token.\n[TOOL_CALLS]f[ARGS]{"a": 1}', F1),
    (
        "llama-second-after-a-space",
        '<function=f>{"a": 1}</function> <function=g>{"b": "x"}</function>',
        FG,
    ),
    (
        "harmony-recipient-before-channel",
        ' to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>',
        F1,
    ),
    (
        "seed-think-dropped",
        '<seed:think>Or <function=g>{"b": "x"}</function>?</seed:think><function=f>{"a": 1}',
        F1,
    ),
    # Template calls that end the text come first (the tail rule); otherwise the plain
    # steps do, and a call they find is the answer.
    ("template-tail-first", '[g(b=2)]\n<function=f>{"a": 1}</function>', F1),
    ("plain-call-first", '[f(a=1)]\n<function=g>{"b": "x"}</function> is Llama.', F1),
    ("template-call-after-failed-prose", '[g(b=\n<function=f>{"a": 1}</function>', F1),
    ("generic-tool-calls", '{"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}', F1),
    ("generic-response-holds-a-call", '{"response": "[f(a=1)]"}', F1),
    (
        "tool-call-json-with-arg-key-text",
        '<tool_call>{"name": "f", "arguments": {"a": "<arg_key>"}}</tool_call>',
        [("f", {"a": "<arg_key>"})],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [t[1:] for t in TEXTS], ids=[t[0] for t in TEXTS])
def test_template_texts(text: str, expected: Calls) -> None:
    assert _pairs(decode_output(text)) == expected


def test_parameter_values_are_json_when_they_parse_and_strings_otherwise() -> None:
    values = {
        "int": "\n630000\n",
        "float": "-2.5",
        "true": "true",
        "null": "\nnull\n",
        "list": "[1, 2]",
        "object": '{"k": "v"}',
        "quoted": '"UMa"',
        "word": "\nUMa\n",
        "spaced": "\n  two\nlines  \n",
        "nan": "NaN",
        "almost-json": "{not json}",
        "empty": "",
        # JSON refused for its numbers or depth is text too.
        "minus-infinity": "-Infinity",
        "overflow": "1e999",
        "long-float": "1" * 400 + ".5",
        "huge-int": "7" * 5000,
        "deep": "[" * 100 + "]" * 100,
    }
    expected = {
        "int": 630000,
        "float": -2.5,
        "true": True,
        "null": None,
        "list": [1, 2],
        "object": {"k": "v"},
        "quoted": "UMa",
        "word": "UMa",
        "spaced": "  two\nlines  ",
        "nan": "NaN",
        "almost-json": "{not json}",
        "empty": "",
        "minus-infinity": "-Infinity",
        "overflow": "1e999",
        "long-float": "1" * 400 + ".5",
        "huge-int": "7" * 5000,
        "deep": "[" * 100 + "]" * 100,
    }
    body = "".join(f"<parameter={k}>{v}</parameter>\n" for k, v in values.items())
    for text in (
        f"<tool_call>\n<function=f>\n{body}</function>\n</tool_call>",
        "<minimax:tool_call><invoke name='f'>"
        + body.replace("<parameter=", "<parameter name=")
        + "</invoke></minimax:tool_call>",
        "<tool_call>f\n"
        + "".join(f"<arg_key>{k}</arg_key><arg_value>{v}</arg_value>" for k, v in values.items())
        + "</tool_call>",
    ):
        assert _pairs(decode_output(text)) == [("f", expected)]


def test_the_generic_tool_call_is_not_a_function_named_tool_call() -> None:
    call = {"tool_call": {"name": "f", "arguments": {"a": 1}}}
    assert _pairs(decode_output({"calls": [call]})) == F1
    assert _pairs(decode_output(json.dumps(call))) == F1
    # BFCL's one-key form still works for a function really named so.
    assert _pairs(decode_output('{"tool_call": {"a": 1}}')) == [("tool_call", {"a": 1})]


def test_the_generic_response_is_text() -> None:
    assert decode_output('{"response": "I cannot help with that."}') == DecodeResult(calls=())


BROKEN: list[tuple[str, str, str]] = [
    ("mistral-truncated", '[TOOL_CALLS]f[ARGS]{"a": ', "[TOOL_CALLS] call 1: the arguments of f"),
    ("mistral-second-bad", '[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]???', "[TOOL_CALLS] call 2"),
    ("mistral-marker-only", "[TOOL_CALLS]", "marker [TOOL_CALLS]"),
    ("mistral-old-empty-list", "[TOOL_CALLS] []", "marker [TOOL_CALLS]"),
    ("python-tag-prose", "<|python_tag|>I would search the web.", "marker <|python_tag|>"),
    ("tool-call-empty-list", "<tool_call>[]</tool_call>", "marker <tool_call>"),
    ("function-garbage", "<function=f>hello</function>", "holds neither JSON"),
    ("function-name-unclosed", "<function=f", "not closed by '>'"),
    ("function-bad-json", '<function=f>{"a": }</function>', "<function= call 1"),
    (
        "qwen-parameter-twice",
        "<function=f><parameter=a>1</parameter><parameter=a>2</parameter></function>",
        "given twice",
    ),
    ("glm-value-missing", "<tool_call>f<arg_key>a</arg_key></tool_call>", "<arg_key> 1"),
    (
        "minimax-no-invoke",
        "<minimax:tool_call>\n</minimax:tool_call>",
        "marker <minimax:tool_call>",
    ),
    (
        "kimi-section-only",
        "<|tool_calls_section_begin|><|tool_calls_section_end|>",
        "marker <|tool_calls_section_begin|>",
    ),
    (
        "kimi-no-separator",
        '<|tool_call_begin|>functions.f:0{"a": 1}<|tool_call_end|>',
        "<|tool_call_argument_begin|>",
    ),
    (
        "deepseek-section-only",
        "<｜tool▁calls▁begin｜><｜tool▁calls▁end｜>",
        "marker <｜tool▁calls▁begin｜>",
    ),
    (
        "deepseek-args-list",
        "<｜tool▁call▁begin｜>f<｜tool▁sep｜>[1]<｜tool▁call▁end｜>",
        "must be an object",
    ),
    (
        "harmony-bad-json",
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": <|call|>',
        "to=functions.f call 1",
    ),
    (
        "harmony-call-without-recipient",
        "<|channel|>commentary<|message|>{}<|call|>",
        "marker <|call|>",
    ),
    ("unclosed-think", '<think>I will call it.\n<tool_call>{"name": "f"', "in the reasoning"),
    ("unclosed-seed-think", '<seed:think>\n<function=f>{"a": 1}', "in the reasoning"),
    (
        "python-tag-unclosed-json",
        '<|python_tag|>{"name": "f", "parameters": {',
        "marker <|python_tag|> but no call could be read from it: '{' opened",
    ),
    # A bare <|call|> is an end token, not a marker: the plain steps' error stands.
    ("harmony-call-token-glued", '{"a": 1}<|call|>', "answer is not valid JSON"),
]


@pytest.mark.parametrize(("text", "fragment"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_templates_are_parse_errors(text: str, fragment: str) -> None:
    assert fragment in _error(decode_output(text))


NO_CALL: list[tuple[str, str]] = [
    ("marker-in-ended-reasoning", "<think>Maybe <tool_call> later.</think>No function fits."),
    (
        "harmony-final-prose",
        "<|channel|>analysis<|message|>[f(a=1)]<|end|><|start|>assistant<|channel|>final<|message|>No.<|return|>",
    ),
    ("harmony-cut-in-analysis", "<|channel|>analysis<|message|>I could call f("),
    ("angle-brackets-in-prose", "Since a < b and b > c, no function applies."),
    ("marker-mentioned-in-unended-reasoning", "<think>should I use [TOOL_CALLS]?"),
    ("tag-mentioned-in-unended-reasoning", '<think>I will call <tool_call>{"name": "f"'),
    ("bare-harmony-message", "The operator <|> is nice. <|message|> hello"),
    ("quoted-marker", 'Mistral\'s marker is "[TOOL_CALLS]". No tool applies.'),
    ("marker-in-a-fence", '```\n[TOOL_CALLS]f[ARGS]{"a": 1}\n```\nThat is the syntax.'),
]


@pytest.mark.parametrize("text", [n[1] for n in NO_CALL], ids=[n[0] for n in NO_CALL])
def test_text_without_a_call_stays_zero_calls(text: str) -> None:
    assert decode_output(text) == DecodeResult(calls=())


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": None, "reasoning_content": "[TOOL_CALLS]f[ARGS]{}"},
        {"role": "assistant", "content": "", "reasoning": "<function=f>{}</function>"},
        {
            "role": "assistant",
            "content": "\n\n",
            "reasoning_content": "<|python_tag|>",
            "tool_calls": [],
        },
    ],
)
def test_a_marker_in_the_reasoning_of_an_empty_answer_is_a_parse_error(
    message: dict[str, Any],
) -> None:
    error = _error(decode_output({"id": "x", "raw": message}))
    assert "in the reasoning" in error and "marker" in error


def test_reasoning_is_never_read_for_calls() -> None:
    plain = {"role": "assistant", "content": None, "reasoning_content": "I'd call f(a=1)."}
    assert decode_output(plain) == DecodeResult(calls=())
    answered = {
        "role": "assistant",
        "content": "No function fits.",
        "reasoning_content": "<tool_call>{}</tool_call>",
    }
    assert decode_output(answered) == DecodeResult(calls=())


PARTIAL_MARKERS = [
    "[TOOL_CALLS]",
    "[TOOL_CALLS]f[ARGS]{",
    "[TOOL_CALLS]f[CALL_ID]",
    "<function=",
    "<function=f>",
    "<function=f>{",
    "<function=f><parameter=",
    "<function=f><parameter=a>",
    "<tool_call><function=f><parameter=a>",
    "<tool_call>f<arg_key>a</arg_key><arg_value>",
    "<seed:tool_call>",
    "<minimax:tool_call>",
    '<minimax:tool_call><invoke name="f"><parameter name="a">',
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "<|tool_call_begin|>f<|tool_call_argument_begin|>{",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```",
    "<|message|>",
    "<|channel|>commentary to=functions.f<|message|>",
    "<|start|>",
    "<|call|>",
    "<|python_tag|>",
    "<think><tool_call>",
    '{"response": ',
    "<|",
    "a <function=f>",
    "`<function=`",
    "``x`",
    "x<|channel|>",
    "<<|channel|>",
    " to=functions.f<|message|>",
    "<seed:think>",
]


@pytest.mark.parametrize("piece", PARTIAL_MARKERS)
def test_two_megabytes_of_partial_markers_end_in_calls_or_a_parse_error(piece: str) -> None:
    """Each syntax is scanned in linear time: a hang here would stop the suite. No repeat of
    a partial marker is a call: the answer is a parse error that says why, or no call."""
    text = (piece * (1_990_000 // len(piece)))[:1_990_000]
    result = decode_output(text)
    if result.calls is None:
        assert result.error and len(result.error) <= 500
    else:
        assert result.calls == ()


# --- prose that mentions a marker --------------------------------------------------------------

FENCED_SIMPLE_3 = (
    "```python\n[max_resource_blocks(bandwidth_mhz=100, scs_khz=30, frequency_range='FR1')]\n```"
)
JSON_PARALLEL_MULTI_0 = json.dumps([{"name": n, "arguments": a} for n, a in PARALLEL_MULTI_0])

MENTIONS: dict[str, str] = {
    "harmony-message": "In gpt-oss's Harmony format this call would follow a <|message|> token.",
    "harmony-message-and-call": "gpt-oss writes it between <|message|> and <|call|> tokens.",
    "harmony-header": "gpt-oss writes <|start|>assistant<|channel|>final<|message|> first.",
    "llama-function": "Llama 3.1 writes the same call as <function=NAME>{...}.",
    "llama-example": 'In Llama you would write <function=get_weather>{"city": "Paris"}</function>.',
    "kimi": "Kimi wraps this in <|tool_call_begin|> tokens.",
    "deepseek": "DeepSeek uses <｜tool▁call▁begin｜>.",
    "mistral-inline-code": "Mistral's template prefixes calls with the `[TOOL_CALLS]` token.",
    "mistral-example": 'In Mistral [TOOL_CALLS]get_weather{"city": "Paris"} would be a call.',
    "python-tag": "The <|python_tag|> token marks Llama built-in tool calls.",
    "harmony-call": "I can't do that. <|call|> is a Harmony token.",
    "minimax": "MiniMax wraps calls in <minimax:tool_call> tags.",
}


@pytest.mark.parametrize("mention", list(MENTIONS))
def test_a_marker_that_prose_mentions_changes_nothing(tmp_path: Path, mention: str) -> None:
    """A right call followed by prose about a template stays right, and prose that only
    mentions a marker (or describes a call in a template's syntax) is an abstention."""
    text = MENTIONS[mention]
    scores = _score(
        tmp_path,
        [
            {"id": "base_simple_3", "raw": _message(f"{FENCED_SIMPLE_3}\n{text}")},
            {"id": "base_parallel_multi_0", "raw": _message(f"{JSON_PARALLEL_MULTI_0}\n{text}")},
            {"id": "base_irrelevance_0", "raw": _message(f"No function fits. {text}")},
            {"id": "base_irrelevance_1", "raw": _message(f"{text} The answer is 42.")},
        ],
    )
    for item, score in scores.items():
        assert score["valid"], (item, score)


@pytest.mark.parametrize(
    "marker",
    [
        "<|message|>",
        "<function=x>",
        "[TOOL_CALLS]",
        "<|tool_call_begin|>",
        "<|python_tag|>",
        "<|start|>assistant<|channel|>final<|message|>",
        "<minimax:tool_call>",
    ],
)
def test_a_marker_in_a_string_argument_is_text(tmp_path: Path, marker: str) -> None:
    body = f"write {marker} here"
    call = json.dumps({"name": "send_sms", "arguments": {"body": body}})
    assert _pairs(decode_output(call)) == [("send_sms", {"body": body})]
    glued = json.dumps({"name": "send_sms", "arguments": {"body": marker}})
    assert _pairs(decode_output(glued)) == [("send_sms", {"body": marker})]
    # Through score: the call is read, and judged on its value.
    name, arguments = SIMPLE_3[0]
    wrong = {**arguments, "frequency_range": f"FR1 {marker}"}
    scores = _score(
        tmp_path,
        [{"id": "base_simple_3", "raw": _message(json.dumps({"name": name, "arguments": wrong}))}],
    )
    assert scores["base_simple_3"]["error_type"] == "value_error", scores["base_simple_3"]


# --- the tail rule -------------------------------------------------------------------------

# A template's calls after a space or a quote in mid-sentence, ending the text: real leaks.
TAIL_SYNTAXES = ("mistral-v11", "llama-function", "minimax", "kimi-k2", "deepseek-v3.1")


@pytest.mark.parametrize("syntax", TAIL_SYNTAXES)
@pytest.mark.parametrize("before", ["Let me check the weather. ", "Sure! ", '"'])
def test_template_calls_that_end_the_text_are_read_after_a_space(
    tmp_path: Path, syntax: str, before: str
) -> None:
    render = SYNTAXES[syntax]
    assert _pairs(decode_output(before + render(F1))) == F1
    # On an irrelevance item the model called: never credited as an abstention.
    scores = _score(
        tmp_path,
        [{"id": "base_irrelevance_0", "raw": _message(before + render(IRRELEVANT) + "\n")}],
    )
    assert scores["base_irrelevance_0"]["error_type"] == "unexpected_call", scores


ARGUMENTS_THAT_LOOK_LIKE_CALLS: list[tuple[str, str, Calls]] = [
    (
        "minimax-code",
        '<minimax:tool_call>\n<invoke name="run_python">\n<parameter name="code">\n'
        'plot(x=1, kind="bar")\n</parameter>\n</invoke>\n</minimax:tool_call>',
        [("run_python", {"code": 'plot(x=1, kind="bar")'})],
    ),
    (
        "mistral-name-and-parameters",
        '[TOOL_CALLS]schedule[ARGS]{"name":"standup","parameters":{"at":"9am"}}</s>',
        [("schedule", {"name": "standup", "parameters": {"at": "9am"}})],
    ),
    (
        "harmony-call-then-final-message",
        '<|channel|>commentary to=functions.f<|message|>{"a": 1}<|call|>'
        "<|start|>assistant<|channel|>final<|message|>Done.<|return|>",
        [("f", {"a": 1})],
    ),
    (
        "qwen3-coder-bare-code",
        "<function=run>\n<parameter=cmd>\nls(x=1)\n</parameter>\n</function><|im_end|>",
        [("run", {"cmd": "ls(x=1)"})],
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [a[1:] for a in ARGUMENTS_THAT_LOOK_LIKE_CALLS],
    ids=[a[0] for a in ARGUMENTS_THAT_LOOK_LIKE_CALLS],
)
def test_template_calls_come_before_calls_in_their_arguments(text: str, expected: Calls) -> None:
    assert _pairs(decode_output(text)) == expected


#: Calls in a template's place with more after them: a server that ran past its stop
#: token, or a quoted example; the harness cannot tell them apart, and zero calls would
#: credit a model that called on an irrelevance item.
FOLLOWED_BY_MORE: list[tuple[str, str]] = [
    ("mistral-past-stop", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}</s>[INST]'),
    ("llama-past-stop", '<function=get_weather>{"city": "Paris"}</function><|eot_id|>assistant'),
    (
        "deepseek-past-stop",
        "<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>"
        'get_weather<\uff5ctool\u2581sep\uff5c>{"city": "Paris"}'
        "<\uff5ctool\u2581call\u2581end\uff5c><\uff5ctool\u2581calls\u2581end\uff5c>"
        "<\uff5cend\u2581of\u2581sentence\uff5c><\uff5cUser\uff5c>",
    ),
    (
        "mistral-own-line",
        'Mistral writes calls like this:\n[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}\n'
        "but no call is needed here.",
    ),
    (
        "llama-own-line",
        'Llama 3.1 format:\n<function=get_weather>{"city": "Paris"}</function>\nNo call.',
    ),
    (
        "after-a-mention",
        "I'll call <function=get_weather> now.\n"
        '<function=get_weather>{"city": "Paris"}</function>',
    ),
]


@pytest.mark.parametrize(
    "text", [f[1] for f in FOLLOWED_BY_MORE], ids=[f[0] for f in FOLLOWED_BY_MORE]
)
def test_template_calls_in_place_are_read_whatever_follows(text: str) -> None:
    assert _pairs(decode_output(text)) == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize("text", ["None of the functions apply.<|call|>", "No call.\n<|call|>"])
def test_an_end_token_alone_is_zero_calls(text: str) -> None:
    assert decode_output(text) == DecodeResult(calls=())


def test_a_placed_template_call_that_does_not_parse_is_a_parse_error() -> None:
    text = 'Mistral writes:\n[TOOL_CALLS]get_weather[ARGS]{"city": \nbut no.'
    assert "[TOOL_CALLS] call 1" in _error(decode_output(text))


def test_many_inline_code_spans_on_one_line_after_a_call_token_return() -> None:
    """One line of 490,000 code spans: the line's end is looked up once, not per span."""
    text = "No tool applies.\n<|call|>\n" + "`a` " * 490_000
    assert decode_output(text) == DecodeResult(calls=())


def test_an_unclosed_empty_function_tag_ending_a_sentence_is_a_mention() -> None:
    assert decode_output("Llama uses <function=name>") == DecodeResult(calls=())
    # Closed, an empty body is a call without arguments.
    assert _pairs(decode_output("<function=f>\n</function>")) == [("f", {})]
