"""Tests for decode_output: every answer shape, text rules, refusals and limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from tfce_eval.decode.answer import decode_output
from tfce_eval.decode.limits import DecodeLimits
from tfce_eval.errors import HarnessError
from tfce_eval.model import Call, DecodeResult

PATH_LOSS = {"frequency": 28, "distance": 200, "environment": "Urban"}
PATH_LOSS_JSON = json.dumps(PATH_LOSS)
F1 = [("f", {"a": 1})]
FG = [("f", {"a": 1}), ("g", {"b": "x"})]


def _pairs(result: DecodeResult) -> list[tuple[str, dict[str, Any]]]:
    assert result.calls is not None, result.error
    return [(c.name, dict(c.arguments)) for c in result.calls]


def _error(result: DecodeResult) -> str:
    assert result.calls is None, f"expected a parse error, got {result.calls}"
    assert result.error
    return result.error


# --- SDK shapes, as the SDKs build them ---------------------------------------------------

_COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "qwen",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "calculate_path_loss", "arguments": PATH_LOSS_JSON},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "g", "arguments": '{"b": "x"}'},
                    },
                ],
            },
        }
    ],
}
_ANTHROPIC = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude",
    "content": [
        {"type": "thinking", "thinking": "[nope(a=1)]", "signature": "sig"},
        {"type": "text", "text": "我来计算。[nope(a=1)]"},
        {"type": "tool_use", "id": "toolu_1", "name": "calculate_path_loss", "input": PATH_LOSS},
        {"type": "tool_use", "id": "toolu_2", "name": "g", "input": {"b": "x"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
_RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt",
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "calculate_path_loss",
            "arguments": PATH_LOSS_JSON,
            "status": "completed",
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_2",
            "name": "g",
            "arguments": '{"b": "x"}',
            "status": "completed",
        },
    ],
}
EXPECTED_SDK = [("calculate_path_loss", PATH_LOSS), ("g", {"b": "x"})]


@pytest.mark.parametrize(
    "value",
    [
        ChatCompletion.model_validate(_COMPLETION),
        ChatCompletion.model_validate(_COMPLETION).model_dump(mode="json"),
        ChatCompletion.model_validate(_COMPLETION).choices[0].message,
        ChatCompletion.model_validate(_COMPLETION).choices[0].message.model_dump(),
        Message.model_validate(_ANTHROPIC),
        Message.model_validate(_ANTHROPIC).model_dump(mode="json"),
        Message.model_validate(_ANTHROPIC).content,
        Response.model_validate(_RESPONSE),
        Response.model_validate(_RESPONSE).model_dump(mode="json"),
        Response.model_validate(_RESPONSE).model_dump(mode="json")["output"],
    ],
    ids=[
        "openai-object",
        "openai-dump",
        "openai-message",
        "openai-message-dump",
        "anthropic-object",
        "anthropic-dump",
        "anthropic-blocks",
        "responses-object",
        "responses-dump",
        "responses-output",
    ],
)
def test_sdk_shapes(value: object) -> None:
    assert _pairs(decode_output(value)) == EXPECTED_SDK


def test_openai_text_answer_when_no_tool_calls() -> None:
    completion = json.loads(json.dumps(_COMPLETION))
    message = completion["choices"][0]["message"]
    message["tool_calls"] = None
    message["content"] = "[f(a=1)]"
    assert _pairs(decode_output(ChatCompletion.model_validate(completion))) == F1
    message["content"] = "抱歉，我无法计算路径损耗。"
    assert decode_output(completion).calls == ()


def test_anthropic_text_only_is_decoded_as_text() -> None:
    blocks = [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "[f(a=1)]"}]
    assert _pairs(decode_output({"content": blocks})) == F1
    assert decode_output({"content": [{"type": "text", "text": "好的。"}]}).calls == ()


def test_responses_message_text() -> None:
    output = [
        {"type": "reasoning", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "[f(a=1)]", "annotations": []}],
        },
    ]
    assert _pairs(decode_output({"output": output})) == F1


# --- native and record shapes -------------------------------------------------------------

SHAPES: list[tuple[str, object, list[tuple[str, dict[str, Any]]]]] = [
    (
        "record-tool_calls",
        {
            "id": "simple_0",
            "tool_calls": [
                {"type": "function", "id": "c", "function": {"name": "f", "arguments": '{"a": 1}'}}
            ],
        },
        F1,
    ),
    ("record-calls", {"id": "x", "calls": [{"name": "f", "arguments": {"a": 1}}]}, F1),
    (
        "record-metadata-kept",
        {
            "id": "x",
            "category": "simple",
            "usage": {"input_tokens": 3},
            "latency_s": 1.5,
            "error": None,
            "calls": [{"name": "f", "arguments": {"a": 1}}],
        },
        F1,
    ),
    ("record-text", {"id": "x", "text": "[f(a=1)]"}, F1),
    ("record-content-str", {"id": "x", "content": "[f(a=1)]"}, F1),
    (
        "record-raw-first",
        {"raw": {"calls": [{"name": "f", "arguments": {"a": 1}}]}, "text": "x"},
        F1,
    ),
    ("record-null-skipped", {"raw": None, "calls": None, "text": "[f(a=1)]"}, F1),
    ("record-empty-tool-calls", {"tool_calls": [], "content": "[f(a=1)]"}, F1),
    ("record-response-text", {"response": "[f(a=1)]"}, F1),
    ("record-message-str", {"message": "f(a=1)"}, F1),
    ("record-output-str", {"output": "f(a=1)"}, F1),
    ("calls-parameters", [{"name": "f", "parameters": {"a": 1}}], F1),
    ("calls-input", [{"name": "f", "input": {"a": 1}}], F1),
    ("calls-args-string", [{"name": "f", "arguments": '{"a": 1}'}], F1),
    ("calls-records", [Call("f", {"a": 1})], F1),
    ("call-record", Call("f", {"a": 1}), F1),
    ("single-call-dict", {"name": "f", "arguments": {"a": 1}}, F1),
    (
        "double-encoded",
        [{"function": {"name": "f", "arguments": json.dumps(json.dumps({"a": 1}))}}],
        F1,
    ),
    ("empty-string-args", [{"function": {"name": "f", "arguments": ""}}], [("f", {})]),
    ("null-args", [{"function": {"name": "f", "arguments": None}}], [("f", {})]),
    ("no-args-key", [{"name": "f"}], [("f", {})]),
    (
        "ollama",
        {
            "model": "qwen2.5",
            "created_at": "2025-01-01T00:00:00Z",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}],
            },
            "done": True,
        },
        F1,
    ),
    (
        "legacy-function-call",
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "f", "arguments": '{"a":1}'},
        },
        F1,
    ),
    (
        "message-with-name-field",
        {"role": "assistant", "name": "bot", "content": "[f(a=1)]"},
        F1,
    ),
    ("bfcl-result-dicts", {"id": "x", "result": [{"f": {"a": 1}}, {"g": {"b": "x"}}]}, FG),
    ("bfcl-result-json-args", {"id": "x", "result": [{"f": '{"a": 1}'}]}, F1),
    ("bfcl-result-text", {"id": "x", "result": "[f(a=1), g(b='x')]"}, FG),
    ("bfcl-result-strings", {"id": "x", "result": ["f(a=1)", "g(b='x')"]}, FG),
    ("bfcl-list", [{"f": {"a": 1}}, {"g": {"b": "x"}}], FG),
    ("bfcl-single", {"f": {"a": 1}}, F1),
    (
        "openai-content-parts",
        {"role": "assistant", "content": [{"type": "text", "text": "f(a=1)"}]},
        F1,
    ),
    (
        "choices-text-completion",
        {"object": "text_completion", "choices": [{"index": 0, "text": "f(a=1)"}]},
        F1,
    ),
    ("tuple", ({"name": "f", "arguments": {"a": 1}},), F1),
    (
        "responses-with-text-config",
        {
            "object": "response",
            "text": {"format": {"type": "text"}},
            "output": [{"type": "function_call", "name": "f", "arguments": '{"a": 1}'}],
        },
        F1,
    ),
    (
        "nested-values",
        [{"name": "f", "arguments": {"a": {"b": [1, 2.5, None, True]}}}],
        [("f", {"a": {"b": [1, 2.5, None, True]}})],
    ),
    (
        "dotted-name",
        [{"name": "math.factorial", "arguments": {"n": 5}}],
        [("math.factorial", {"n": 5})],
    ),
]


@pytest.mark.parametrize(("value", "expected"), [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_shapes(value: object, expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert _pairs(decode_output(value)) == expected


NO_CALL: list[tuple[str, object]] = [
    ("none", None),
    ("empty-list", []),
    ("empty-text", ""),
    ("blank-text", "  \n "),
    ("openai-message-no-call", {"role": "assistant", "content": None, "tool_calls": None}),
    ("record-all-empty", {"id": "x", "tool_calls": [], "content": ""}),
    ("record-null-text", {"id": "x", "text": None}),
    ("empty-choices", {"choices": []}),
    ("thinking-only", [{"type": "thinking", "thinking": "[f(a=1)]"}]),
    ("ignored-block", {"type": "redacted_thinking", "data": "x"}),
    ("json-empty-list", "[]"),
    ("json-empty-tool-calls", '{"tool_calls": []}'),
]


@pytest.mark.parametrize("value", [n[1] for n in NO_CALL], ids=[n[0] for n in NO_CALL])
def test_no_call(value: object) -> None:
    assert decode_output(value) == DecodeResult(calls=())


# --- text ----------------------------------------------------------------------------------

TEXTS: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = [
    ("python-list", "[f(a=1), g(b='x')]", FG),
    ("python-single", "f(a=1)", F1),
    ("python-tuple", "f(a=1), g(b='x')", FG),
    ("python-lines", "f(a=1)\ng(b='x')", FG),
    ("python-dotted", "[math.factorial(n=5)]", [("math.factorial", {"n": 5})]),
    ("fence-python", "```python\n[f(a=1), g(b='x')]\n```", FG),
    ("fence-plain", "```\nf(a=1)\n```", F1),
    ("fence-tool-code", "```tool_code\nf(a=1)\n```", F1),
    ("fence-unclosed", "```python\nf(a=1)\n", F1),
    ("fence-inline", "```f(a=1)```", F1),
    ("fence-several", "first:\n```\nf(a=1)\n```\nthen:\n```\ng(b='x')\n```", FG),
    ("fence-json", '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```', F1),
    (
        "fence-json-after-chinese",
        '好的，调用如下：\n```json\n[{"name": "calculate_path_loss", "arguments": '
        + PATH_LOSS_JSON
        + "}]\n```",
        [("calculate_path_loss", PATH_LOSS)],
    ),
    ("fence-without-call-then-line", "```\n结果见下\n```\nf(a=1)", F1),
    (
        "fence-formula-then-call",
        "公式：\n```\nPL = 20*log10(d) + 20*log10(f)\n```\n调用：\n```python\nf(a=1)\n```",
        F1,
    ),
    ("json-trailing-comma", '[{"name": "f", "arguments": {"a": 1,},},]', F1),
    ("json-list", '[{"name": "f", "arguments": {"a": 1}}]', F1),
    ("json-parameters", '[{"name": "f", "parameters": {"a": 1}}]', F1),
    ("json-single", '{"name": "f", "arguments": {"a": 1}}', F1),
    ("json-args-string", '{"name": "f", "arguments": "{\\"a\\": 1}"}', F1),
    ("json-tool-calls", '{"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}', F1),
    (
        "json-openai-tool-calls",
        '{"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]}',
        F1,
    ),
    ("json-bfcl", '[{"f": {"a": 1}}, {"g": {"b": "x"}}]', FG),
    ("json-bfcl-single", '{"f": {"a": 1}}', F1),
    ("python-literal-dicts", "[{'name': 'f', 'arguments': {'a': 1}}]", F1),
    ("tags", '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>', F1),
    (
        "tags-several-with-prose",
        '好的。\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>\n'
        '<tool_call>\n{"name": "g", "arguments": {"b": "x"}}\n</tool_call>',
        FG,
    ),
    ("tags-unclosed", '<tool_call>{"name": "f", "arguments": {"a": 1}}', F1),
    ("tags-python", "<tool_call>f(a=1)</tool_call>", F1),
    (
        "tags-fenced",
        '<tool_call>\n```json\n{"name": "f", "arguments": {"a": 1}}\n```\n</tool_call>',
        F1,
    ),
    ("think-dropped", "<think>也许 [nope(a=1)]</think>\n[f(a=1)]", F1),
    ("think-close-only", "reasoning [nope(a=1)]\n</think>\n\nf(a=1)", F1),
    ("seed-think-dropped", "<seed:think>也许 [nope(a=1)]</seed:think>\n[f(a=1)]", F1),
    ("mistral-marker", '[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}]', F1),
    ("llama-marker", '<|python_tag|>{"name": "f", "parameters": {"a": 1}}', F1),
    ("prose-then-list", "好的：[f(a=1), g(b='x')]。", FG),
    ("prose-then-line", "调用如下：\nf(a=1)\n完成。", F1),
    ("line-then-prose", "f(a=1)\n这是调用。", F1),
    ("list-markers", "1. f(a=1)\n2. g(b='x')", FG),
    ("bullets", "- f(a=1)\n- g(b='x')", FG),
    ("inline-code", "请调用 `f(a=1)` 即可。", F1),
    ("whole-inline-code", "`f(a=1)`", F1),
    ("prose-json-line", 'Here it is:\n{"name": "f", "arguments": {"a": 1}}\nDone.', F1),
    ("prose-json-inline", 'Here it is: {"name": "f", "arguments": {"a": 1}} done.', F1),
    ("prose-json-list", '调用：[{"name": "f", "arguments": {"a": 1}}]', F1),
    ("unicode-name-whole", "计算(频率=28)", [("计算", {"频率": 28})]),
    ("unicode-name-fenced", "```\n计算(频率=28)\n```", [("计算", {"频率": 28})]),
    ("string-with-brackets", "f(a='[(x')", [("f", {"a": "[(x"})]),
    ("apostrophe-in-prose", "It's this one: [f(a=1)] and that's it.", F1),
]


@pytest.mark.parametrize(("text", "expected"), [t[1:] for t in TEXTS], ids=[t[0] for t in TEXTS])
def test_text(text: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    assert _pairs(decode_output(text)) == expected
    assert _pairs(decode_output({"id": "x", "text": text})) == expected


PROSE: list[tuple[str, str]] = [
    ("chinese-refusal", "抱歉，我无法计算路径损耗。"),
    ("ascii-parens-whole", "我无法计算(需要更多信息)"),
    ("fullwidth-parens-whole", "我无法计算（需要更多信息）"),
    ("ascii-parens-in-prose", "抱歉，我无法计算(需要更多信息)，请提供频率。"),
    ("ascii-parens-line", "说明如下：\n我无法计算(需要更多信息)\n谢谢。"),
    ("english", "I cannot compute this (more information is needed)."),
    ("word-space-paren", "Note (see above) that I cannot help."),
    ("call-mid-sentence", "You could call f(a=1) once you know the distance."),
    ("brackets-in-prose", "[注意] 需要 {频率} 和 [距离]。"),
    ("markdown-link", "See [the docs](https://example.com) for details."),
    ("json-data-in-prose", 'The result would be:\n{"loss": 120.5}\nas computed.'),
    ("fence-prose", "```\n抱歉，无法计算。\n```"),
    ("inline-code-mention", "The function `f(` is not available."),
    ("unclosed-think", "<think>我想调用 f(a=1) 但是"),
]


@pytest.mark.parametrize("text", [p[1] for p in PROSE], ids=[p[0] for p in PROSE])
def test_prose_is_no_call(text: str) -> None:
    assert decode_output(text) == DecodeResult(calls=())


BROKEN: list[tuple[str, str, str]] = [
    (
        "positional",
        "[calculate_path_loss(28, 200, 'Urban')]",
        "positional arguments are not accepted",
    ),
    ("positional-single", "calculate_path_loss(28, 200, 'Urban')", "calculate_path_loss"),
    ("positional-fenced-chinese", "```python\n我无法计算(需要更多信息)\n```", "positional"),
    ("positional-in-prose-list", "好的：[f(1)]", "positional"),
    ("unbalanced-list", "[f(a=1)", "never closed"),
    ("unbalanced-in-prose", "好的 [f(a=1), g(b=2)", "never closed"),
    ("mismatched", "[f(a=1)}", "does not close"),
    ("bad-python", "f(a=1 b=2)", "not valid Python"),
    ("call-then-prose", "f(a=1) 是调用", "not valid Python"),
    ("bad-json", '[{"name": "f", "arguments": {"a": 1}]', "does not close"),
    ("bad-json-syntax", '{"name": "f", "arguments": {"a": }}', "not valid JSON"),
    ("json-not-a-call", '{"result": 5}', "not a call"),
    ("json-list-not-calls", '[{"a": 1}, 2]', "not a call"),
    ("bad-fenced-json", '```json\n{"name": "f", "arguments": }\n```', "not valid JSON"),
    ("fenced-not-call", "```python\nx = f(a=1)\n```", "expected function calls"),
    ("fenced-formula-only", "```\nPL = 20*log10(d)\n```", "code block at line 2"),
    ("empty-tag", "<tool_call></tool_call>", "empty"),
    ("tag-garbage", "<tool_call>hello</tool_call>", "neither"),
    ("tag-bad-json", '<tool_call>{"name": "f", "arguments": {</tool_call>', "tool_call"),
    ("nested-call", "f(x=__import__('os').system('id'))", "calls inside arguments"),
    ("name-value", "f(a=x)", "name 'x'"),
    ("lambda", "f(a=lambda: 1)", "lambdas"),
    ("comprehension", "f(a=[i for i in x])", "comprehensions"),
    ("pow-bomb", "f(a=9**9**9**9)", "too large"),
    ("nan-json", '{"name": "f", "arguments": {"a": NaN}}', "NaN"),
    ("json-args-list", '{"name": "f", "arguments": [1, 2]}', "must be an object"),
    ("duplicate-keyword", "f(a=1, a=2)", "given twice"),
]


@pytest.mark.parametrize(("text", "fragment"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_broken_text_is_parse_error(text: str, fragment: str) -> None:
    assert fragment in _error(decode_output(text))


def test_error_says_where() -> None:
    text = "先说明。\n\n```python\nf(a=1,\n  b=x)\n```"
    error = _error(decode_output(text))
    assert "code block at line 4" in error
    assert "argument 'b'" in error
    assert "line 2" in error


# --- refusals in native shapes -------------------------------------------------------------

NATIVE_BROKEN: list[tuple[str, object, str]] = [
    ("args-bad-json", [{"function": {"name": "f", "arguments": "{a: 1}"}}], "not valid JSON"),
    ("args-json-list", [{"function": {"name": "f", "arguments": "[1, 2]"}}], "must be an object"),
    ("args-number", [{"name": "f", "arguments": 3}], "must be an object"),
    (
        "args-triple-encoded",
        [{"name": "f", "arguments": json.dumps(json.dumps(json.dumps({})))}],
        "must be an object",
    ),
    ("args-nan", [{"name": "f", "arguments": {"a": float("nan")}}], "finite"),
    ("args-inf-json", [{"name": "f", "arguments": '{"a": 1e400}'}], "finite"),
    ("args-non-json-value", [{"name": "f", "arguments": {"a": {1, 2}}}], "not a JSON value"),
    ("args-int-key", [{"name": "f", "arguments": {1: "x"}}], "not a string"),
    ("args-huge-int", [{"name": "f", "arguments": {"a": 10**1200}}], "digits"),
    ("args-huge-int-json", [{"name": "f", "arguments": '{"a": ' + "7" * 5000 + "}"}], "digits"),
    ("no-name", [{"function": {"arguments": "{}"}}], "no function name"),
    ("empty-name", [{"name": "", "arguments": {}}], "no function name"),
    ("list-item-not-call", [{"name": "f", "arguments": {}}, {"foo": 1, "bar": 2}], "item 2"),
    ("list-item-number", [1], "item 1"),
    ("record-without-answer", {"id": "x", "latency_s": 1.0}, "no answer found"),
    ("record-with-error", {"id": "x", "error": "timeout"}, "timeout"),
    ("bytes", b"f(a=1)", "bytes"),
    ("number", 42, "int"),
    ("object", object(), "object"),
    ("call-record-bad-args", Call("f", {"a": object()}), "not a JSON value"),
]


@pytest.mark.parametrize(
    ("value", "fragment"), [n[1:] for n in NATIVE_BROKEN], ids=[n[0] for n in NATIVE_BROKEN]
)
def test_native_refusals(value: object, fragment: str) -> None:
    assert fragment in _error(decode_output(value))


def test_a_broken_sdk_object_is_a_harness_failure_not_a_parse_error() -> None:
    class Broken:
        def model_dump(self, **_: Any) -> Any:
            raise RuntimeError("boom")

    with pytest.raises(HarnessError) as caught:
        decode_output(Broken(), item_id="simple_3")
    assert "simple_3" in str(caught.value) and "boom" in str(caught.value)


def test_a_decoder_bug_is_a_harness_failure_naming_the_item(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bug in the decoder must stop the item as tfce-eval's failure: counted as the
    model's parse_error it would silently lower a score."""
    from tfce_eval.decode import textparts

    def broken(text: str) -> tuple[str, str]:
        raise KeyError("oops")

    monkeypatch.setattr(textparts, "split_reasoning", broken)
    with pytest.raises(HarnessError) as caught:
        decode_output({"id": "parallel_7", "text": "f(a=1)"})
    message = str(caught.value)
    assert message.startswith("item parallel_7: ") and "KeyError" in message
    assert "bug in tfce-eval" in message and "not an error of the model" in message
    assert isinstance(caught.value.__cause__, KeyError)
    # Refusals of the answer itself stay the model's parse_error.
    monkeypatch.undo()
    assert not decode_output({"id": "parallel_7", "text": "f(a=os.system(1))"}).ok


# --- nothing is ever run -------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "f(x=__import__('pathlib').Path({path!r}).touch())",
        "[f(x=__import__('pathlib').Path({path!r}).touch())]",
        "```python\nf(x=open({path!r}, 'w').close())\n```",
        "<tool_call>f(x=__import__('pathlib').Path({path!r}).touch())</tool_call>",
        "好的：[f(x=__import__('pathlib').Path({path!r}).touch())]",
        "__import__('pathlib').Path({path!r}).touch()",
    ],
)
def test_payloads_never_run(tmp_path: Path, template: str) -> None:
    marker = tmp_path / "marker"
    result = decode_output({"id": "x", "text": template.format(path=str(marker))})
    assert result.calls is None
    assert not marker.exists()


# --- name_map --------------------------------------------------------------------------------

NAME_MAP = {"math_db_to_linear": "math.db_to_linear"}


@pytest.mark.parametrize(
    "value",
    [
        {
            "tool_calls": [
                {
                    "type": "function",
                    "id": "call_1",
                    "function": {"name": "math_db_to_linear", "arguments": '{"value_db": 0.3}'},
                }
            ]
        },
        [{"type": "tool_use", "id": "t", "name": "math_db_to_linear", "input": {"value_db": 0.3}}],
        [{"type": "function_call", "name": "math_db_to_linear", "arguments": '{"value_db": 0.3}'}],
        "[math_db_to_linear(value_db=0.3)]",
        '<tool_call>{"name": "math_db_to_linear", "arguments": {"value_db": 0.3}}</tool_call>',
        [{"math_db_to_linear": {"value_db": 0.3}}],
        Call("math_db_to_linear", {"value_db": 0.3}),
    ],
)
def test_name_map_applies_to_every_shape(value: object) -> None:
    result = decode_output(value, name_map=NAME_MAP)
    assert _pairs(result) == [("math.db_to_linear", {"value_db": 0.3})]


def test_name_map_leaves_other_names() -> None:
    result = decode_output("[f(a=1), math_db_to_linear(value_db=1)]", name_map=NAME_MAP)
    assert [c.name for c in result.calls or ()] == ["f", "math.db_to_linear"]


# --- limits ----------------------------------------------------------------------------------


def test_ten_megabyte_answer_is_refused_at_once() -> None:
    text = "[" + "f(a=1)," * 1_500_000 + "]"
    assert len(text) > 10_000_000
    error = _error(decode_output({"id": "x", "text": text}))
    assert error == f"answer too large: {len(text)} characters, limit 2000000"


def test_large_arguments_string_is_refused() -> None:
    value = [{"name": "f", "arguments": '{"a": "' + "x" * 3_000_000 + '"}'}]
    assert "too large" in _error(decode_output(value))


def test_ten_megabyte_prose_with_a_raised_limit() -> None:
    text = "我无法计算(需要更多信息)。" * 700_000
    assert len(text) > 9_000_000
    result = decode_output(text, limits=DecodeLimits(max_chars=20_000_000))
    assert result.calls == ()


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000 + "]" * 10_000,
        '{"a":' * 10_000 + "1" + "}" * 10_000,
        '[{"name": "f", "arguments": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + "}]",
        "f(a=" + "[" * 10_000 + "]" * 10_000 + ")",
        "```python\nf(a=" + "{'a':" * 10_000 + "1" + "}" * 10_000 + ")\n```",
        "好的：[f(a=" + "[" * 10_000 + "]" * 10_000 + ")]",
    ],
    ids=["brackets", "json-object", "json-call", "python", "python-fenced", "prose-list"],
)
def test_deep_text_is_refused(text: str) -> None:
    assert "deeper than 64" in _error(decode_output(text))


def test_deep_native_values_are_refused() -> None:
    deep: Any = 1
    for _ in range(10_000):
        deep = {"a": deep}
    assert "deeper than 64" in _error(decode_output([{"name": "f", "arguments": deep}]))
    nested: Any = {"calls": [{"name": "f", "arguments": {}}]}
    for _ in range(10_000):
        nested = {"raw": nested}
    assert "deeper than 64" in _error(decode_output(nested))


def test_deep_arguments_string_is_refused() -> None:
    args = '{"a":' * 10_000 + "1" + "}" * 10_000
    assert "deeper than 64" in _error(decode_output([{"name": "f", "arguments": args}]))


def test_depth_limit_is_configurable() -> None:
    value = [{"name": "f", "arguments": {"a": [[1]]}}]
    assert decode_output(value, limits=DecodeLimits(max_depth=3)).ok
    assert not decode_output(value, limits=DecodeLimits(max_depth=2)).ok


@pytest.mark.parametrize(
    "make",
    [
        lambda n: [{"name": "f", "arguments": {}}] * n,
        lambda n: "[" + "f(a=1)," * n + "]",
        lambda n: "\n".join(["f(a=1)"] * n),
        lambda n: json.dumps([{"name": "f", "arguments": {}}] * n),
        lambda n: "<tool_call>" + "</tool_call><tool_call>".join(['{"name": "f"}'] * n),
        lambda n: [
            {
                "name": "multi_tool_use.parallel",
                "arguments": {"tool_uses": [{"recipient_name": "functions.f"}] * n},
            }
        ],
    ],
    ids=["native", "python-list", "python-lines", "json", "tags", "parallel-wrapper"],
)
def test_max_calls(make: Any) -> None:
    limits = DecodeLimits(max_calls=10)
    assert len(decode_output(make(10), limits=limits).calls or ()) == 10
    assert "more than 10 calls" in _error(decode_output(make(11), limits=limits))


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_of_json_at_the_digit_bound(sign: str) -> None:
    ok = sign + "9" * 1000
    text = '[{"name": "f", "arguments": {"a": %s}}]'
    assert decode_output(text % ok).ok
    assert "digits" in _error(decode_output(text % (sign + "1" + "0" * 1000)))
    # A native answer (the library's callers) holds Python integers, read by value.
    edge = int(sign + "1" + "0" * 1000)
    assert decode_output([{"name": "f", "arguments": {"a": edge - int(sign + "1")}}]).ok
    assert "digits" in _error(decode_output([{"name": "f", "arguments": {"a": edge}}]))


def test_a_message_with_a_name_is_not_a_call() -> None:
    # {"role", "name", "content"}: a chat message (its author's name), not a call of it.
    message = {"role": "assistant", "name": "bot", "content": "f(a=1)"}
    assert _error(decode_output([message])) == (
        "item 1 of the list is not a call (keys: content, name, role)"
    )


def test_a_parallel_wrapper_with_no_tool_uses_is_not_read_as_no_call() -> None:
    # Unwrapped to nothing, an irrelevance item would credit the model with declining.
    value = [{"name": "multi_tool_use.parallel", "arguments": {"tool_uses": []}}]
    calls = decode_output(value).calls
    assert calls is not None and [c.name for c in calls] == ["multi_tool_use.parallel"]


def test_too_many_calls_default() -> None:
    assert "more than 256 calls" in _error(decode_output("f(a=1)\n" * 285_000))


def test_huge_python_int() -> None:
    assert "too long" in _error(decode_output("f(a=" + "9" * 5000 + ")"))
    assert "digits" in _error(
        decode_output('[{"name": "f", "arguments": {"a": 1' + "0" * 1000 + "}}]")
    )


def test_decode_modules_import_each_other_without_a_cycle() -> None:
    """No cycle among decode's modules, type-only imports included."""
    import ast

    import tfce_eval.decode

    package = Path(tfce_eval.decode.__file__).parent
    graph: dict[str, set[str]] = {}
    for source in package.glob("*.py"):
        targets: set[str] = set()
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module == "tfce_eval.decode":
                    targets.update(alias.name for alias in node.names)
                elif node.module.startswith("tfce_eval.decode."):
                    targets.add(node.module.rsplit(".", 1)[1])
        graph[source.stem] = targets - {source.stem}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    assert {"answer", "text", "limits"} <= set(graph)
    cycles = [m for m in graph if reaches(m, m, set())]
    assert cycles == [], f"import cycles through {cycles}"


# --- the public conformance outputs ----------------------------------------------------------

CONFORMANCE: list[tuple[str, dict[str, Any], str]] = [
    (
        "exact_fc",
        {
            "tool_calls": [
                {
                    "type": "function",
                    "id": "call_1",
                    "function": {"name": "calculate_path_loss", "arguments": PATH_LOSS_JSON},
                }
            ]
        },
        "calls",
    ),
    (
        "int_for_float",
        {"calls": [{"name": "calculate_path_loss", "arguments": PATH_LOSS}]},
        "calls",
    ),
    (
        "python_text",
        {"text": "[calculate_path_loss(frequency=28, distance=200, environment='Urban')]"},
        "calls",
    ),
    ("python_positional", {"text": "[calculate_path_loss(28, 200, 'Urban')]"}, "parse_error"),
    (
        "json_text_fenced",
        {
            "text": "好的，调用如下：\n```json\n"
            '[{"name": "calculate_path_loss", "arguments": {"frequency": 28, "distance": 200, '
            '"environment": "Urban"}}]\n```'
        },
        "calls",
    ),
    ("text_no_call", {"text": "抱歉，我无法计算路径损耗。"}, "no_call"),
    (
        "anthropic_blocks",
        {
            "content": [
                {"type": "text", "text": "我来计算。"},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "calculate_path_loss",
                    "input": PATH_LOSS,
                },
            ]
        },
        "calls",
    ),
]


@pytest.mark.parametrize(
    ("output", "outcome"), [c[1:] for c in CONFORMANCE], ids=[c[0] for c in CONFORMANCE]
)
def test_conformance_outputs(output: dict[str, Any], outcome: str) -> None:
    result = decode_output({"id": "simple_0", **output})
    if outcome == "parse_error":
        assert "positional arguments are not accepted" in _error(result)
    elif outcome == "no_call":
        assert result.calls == ()
    else:
        assert _pairs(result) == [("calculate_path_loss", PATH_LOSS)]


# --- the lean pass over plain arguments -----------------------------------------------------


def _random_value(rng: Any, depth: int) -> Any:
    """A random argument value, mostly plain JSON, sometimes what the full walk must judge."""
    pick = rng.random()
    if depth < 4 and pick < 0.25:
        return {
            rng.choice(["a", "bb", "ccc", "", "键"]) + str(i): _random_value(rng, depth + 1)
            for i in range(rng.randrange(4))
        }
    if depth < 4 and pick < 0.4:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return rng.choice(
        [
            "x" * rng.randrange(12),
            rng.randrange(-(10**6), 10**6),
            2**63,
            -(2**64) - 1,
            10**999,
            10**1000,
            0.5,
            float("nan"),
            float("inf"),
            True,
            None,
            (1, "t"),
            {1: "non-string key"},
            {1, 2},
        ]
    )


@pytest.mark.parametrize("seed", range(6))
def test_the_lean_pass_decides_as_the_full_walk(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Arguments decoded with the lean pass over plain values and without it give the same
    calls, or the same error, whatever the values and however tight the budgets."""
    import random

    import tfce_eval.decode.answer as answer

    rng = random.Random(seed)
    answers = []
    for _ in range(300):
        calls = [
            {"name": f"f{i}", "arguments": {f"p{j}": _random_value(rng, 1) for j in range(3)}}
            for i in range(rng.randrange(1, 3))
        ]
        answers.append({"id": "x", "calls": calls})
    limits = [
        DecodeLimits(),
        DecodeLimits(max_values=rng.randrange(2, 30), max_chars=rng.randrange(5, 60)),
        DecodeLimits(max_depth=2),
    ]

    def decode_all() -> list[Any]:
        out = []
        for value in answers:
            for limit in limits:
                result = decode_output(value, limits=limit)
                calls = None if result.calls is None else [c.to_json() for c in result.calls]
                out.append((repr(calls), result.error))
        return out

    lean = decode_all()
    monkeypatch.setattr(answer, "plain_copy", lambda *args: None)
    assert decode_all() == lean
    assert len({e for _, e in lean if e}) > 5  # the budgets and refusals were reached


def test_decoded_arguments_are_copies() -> None:
    arguments = {"a": [1, {"b": "c"}], "d": {"e": None}}
    (call,) = decode_output({"calls": [{"name": "f", "arguments": arguments}]}).calls or ()
    assert call.arguments == arguments
    assert call.arguments is not arguments
    assert call.arguments["a"] is not arguments["a"]
    assert call.arguments["a"][1] is not arguments["a"][1]


def test_an_unterminated_string_is_worded_once() -> None:
    from tfce_eval.decode.answer import decode_output

    result = decode_output({"text": '<tool_call>{"name": "f", "arguments": {"a": "x</tool_call>'})
    assert result.error is not None
    assert "at at" not in result.error and "Unterminated string" in result.error
