"""Answer extraction (Q3) on responses written the way models write, and the requests."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from retrieval_fixtures import HF_CORPUS, HF_QRELS, HF_QUERIES, write_hf

from tfce_eval.cli import main
from tfce_eval.qa import (
    MAX_TEXT,
    AnswerType,
    Extraction,
    QaItem,
    answer_tool,
    clean_response,
    extract_answer,
    fc_message,
    prompt_text,
    read_answer,
)

MC = QaItem(
    id="m",
    question="Which network function handles registration management in the 5GC?",
    answer_type=AnswerType.MC,
    reference="B",
    options=(
        ("A", "Session Management Function (SMF)"),
        ("B", "Access and Mobility Management Function (AMF)"),
        ("C", "User Plane Function (UPF)"),
        ("D", "Policy Control Function (PCF)"),
        ("E", "Network Repository Function (NRF)"),
    ),
)
MC_NUM = QaItem(
    id="n",
    question="Which subcarrier spacing does numerology 1 use?",
    answer_type=AnswerType.MC,
    reference="2",
    options=(("1", "15 kHz"), ("2", "30 kHz"), ("3", "60 kHz"), ("4", "120 kHz")),
)
MC_LOWER = QaItem(
    id="l",
    question="Which RRC state keeps the UE context in the RAN?",
    answer_type=AnswerType.MC,
    reference="c",
    options=(
        ("a", "RRC_IDLE"),
        ("b", "RRC_CONNECTED only"),
        ("c", "RRC_INACTIVE"),
        ("d", "EMM-DEREGISTERED"),
        ("e", "None of them"),
    ),
)
TF = QaItem(id="t", question="The AMF terminates NAS.", answer_type=AnswerType.TF, reference="true")
OPEN = QaItem(
    id="o",
    question="What does PDCP stand for?",
    answer_type=AnswerType.OPEN,
    reference="Packet Data Convergence Protocol",
)

MC_CASES = [
    ("ANSWER: B", "B"),
    ("The AMF handles registration.\n\nANSWER: B", "B"),
    ("answer: b", "B"),
    ("Answer : (B)", "B"),
    ("ANSWER: B.", "B"),
    ("ANSWER: B)", "B"),
    ("ANSWER: [B]", "B"),
    ("**Answer:** B", "B"),
    ("**ANSWER: B**", "B"),
    ("ANSWER: **B**", "B"),
    ("Final Answer: $\\boxed{B}$", "B"),
    ("ANSWER: \\boxed{\\text{B}}", "B"),
    ("ANSWER: `B`", "B"),
    ("ANSWER: _B_", "B"),
    ("ANSWER: Option B", "B"),
    ("ANSWER: The correct answer is (B).", "B"),
    ("ANSWER: B) Access and Mobility Management Function (AMF)", "B"),
    ("ANSWER: B. Access and Mobility Management Function (AMF)", "B"),
    ("ANSWER: Access and Mobility Management Function (AMF)", "B"),
    ("ANSWER:\nB", "B"),
    ("ANSWER: A\nOn reflection that is wrong.\nANSWER: B", "B"),
    (
        "<think>The SMF manages sessions, so not A. Registration is the AMF. ANSWER: A?"
        "</think>\nThe AMF (option B).\nANSWER: B",
        "B",
    ),
    ("Let me reason.\nRegistration belongs to the AMF.\n</think>\n\nANSWER: B", "B"),
    (
        "Step 1: registration management is an AMF function (TS 23.501 6.2.1).\n"
        "Step 2: the SMF, UPF, PCF and NRF do not do it.\n\n**Final answer: B**",
        "B",
    ),
    ("B", "B"),
    ("(B)", "B"),
    ("The function that handles it:\n\nB.\n", "B"),
    ("Access and Mobility Management Function (AMF)", "B"),
    ("I am confident.\nAccess and Mobility Management Function (AMF).", "B"),
    ("ANSWER: B (AMF), because registration is an AMF task, not C", "B"),
    ("**Answer: (B) Access and Mobility Management Function (AMF)**", "B"),
    ("The correct option is **B**.\n\nANSWER: B", "B"),
    ("Answer:\n\n**B**", "B"),
    ("### Final Answer\nANSWER: B", "B"),
    ("ANSWER: Option (B)", "B"),
    ("ANSWER: B \u2014 the AMF", "B"),
    ('ANSWER: "B"', "B"),
    ("ANSWER: \u201cB\u201d", "B"),
    ("ANSWER\uff1aB", "B"),
    ("Answer: **(B)** AMF", "B"),
    ("ANSWER: Thus the answer is B", "B"),
    ("Answer - B\nANSWER: b)", "B"),
    # Prose after the label is an explanation, even when it names another option.
    ("ANSWER: B, since A is for session management", "B"),
    ("ANSWER: B. Because C and D act on the user plane and policy, not registration.", "B"),
    ("ANSWER: B and a UE registers through it", "B"),
    ("ANSWER: B (not the Session Management Function (SMF))", "B"),
    ("ANSWER: B) Access and Mobility Management Function (AMF), as TS 23.501 says", "B"),
    ("ANSWER: B - Access and Mobility Management Function (AMF)", "B"),
    # Markers left unpaired (not emphasis by CommonMark's rules) around the label.
    ("**Answer:**B", "B"),
    ("ANSWER: `B", "B"),
]

MC_ERRORS = [
    ("ANSWER: not B", "no option label"),
    ("ANSWER: B or C", "two answers: B and C"),
    ("ANSWER: B, D", "two answers: B and D"),
    ("ANSWER: (B) and (E)", "two answers: B and E"),
    ("ANSWER: A or maybe B", "two answers: A and B"),
    ("ANSWER: B (or perhaps C)", "two answers: B and C"),
    ("ANSWER: B, or possibly D", "two answers: B and D"),
    ("ANSWER: b and/or d", "two answers: B and D"),
    ("ANSWER: Option B or Option C", "two answers: B and C"),
    # A label with another option's text names two options.
    ("ANSWER: B) Session Management Function (SMF)", "two answers: B and the text of A"),
    ("ANSWER: B - User Plane Function (UPF)", "two answers: B and the text of C"),
    ("ANSWER: (B) (Policy Control Function (PCF))", "two answers: B and the text of D"),
    ("**ANSWER: E. Access and Mobility Management Function (AMF)**", "E and the text of B"),
    ("ANSWER: F", "no option label"),
    ("ANSWER: <label>", "no option label"),
    ("ANSWER:", "no option label"),
    ("B\n\nor maybe\n\nC", "lines name different labels: B, C"),
    ("A registration is handled by the AMF, B is right.", "no ANSWER: line"),
    ("The AMF does it.", "no ANSWER: line"),
    ("Both AMF and SMF are involved. Before answering: Bear in mind...", "no ANSWER: line"),
    ("<think>It is B. ANSWER: B", "no ANSWER: line"),
    ("", "no ANSWER: line"),
    ("Session Management Function (SMF)\nUser Plane Function (UPF)", "different options"),
]


@pytest.mark.parametrize(("response", "label"), MC_CASES)
def test_mc_extraction(response: str, label: str) -> None:
    assert extract_answer(MC, response).answer == label


@pytest.mark.parametrize(("response", "why"), MC_ERRORS)
def test_mc_parse_errors(response: str, why: str) -> None:
    got = extract_answer(MC, response)
    assert got.answer is None
    assert got.error is not None and why in got.error


@pytest.mark.parametrize(
    ("response", "label"),
    [
        ("Numerology 1 means 2^1 x 15 kHz = 30 kHz.\nANSWER: 2", "2"),
        ("ANSWER: (2)", "2"),
        ("ANSWER: 2) 30 kHz", "2"),
        ("ANSWER: 30 kHz", "2"),
        ("30 kHz", "2"),
        ("2", "2"),
        ("ANSWER: 2.", "2"),
    ],
)
def test_numeric_labels(response: str, label: str) -> None:
    assert extract_answer(MC_NUM, response).answer == label


def test_numeric_labels_errors() -> None:
    assert extract_answer(MC_NUM, "ANSWER: 5").answer is None
    assert extract_answer(MC_NUM, "ANSWER: 2 or 3").error == "two answers: 2 and 3"
    # A bare number inside reasoning is never read as a label.
    assert extract_answer(MC_NUM, "Numerology 1 doubles 15 kHz to 30.").answer is None


@pytest.mark.parametrize(
    ("response", "label"),
    [("ANSWER: c", "c"), ("ANSWER: C", "c"), ("ANSWER: (c) RRC_INACTIVE", "c"), ("c)", "c")],
)
def test_lower_case_labels(response: str, label: str) -> None:
    assert extract_answer(MC_LOWER, response).answer == label


@pytest.mark.parametrize(
    ("response", "why"),
    [
        ("ANSWER: c or a", "two answers: c and a"),
        ("ANSWER: C or A", "two answers: c and a"),
        ("ANSWER: b) RRC_IDLE", "two answers: b and the text of a"),
        ("ANSWER: c) `RRC_IDLE`", "two answers: c and the text of a"),
    ],
)
def test_lower_case_labels_two_answers(response: str, why: str) -> None:
    assert extract_answer(MC_LOWER, response) == Extraction(None, why)


def test_markers_that_are_not_emphasis_stay() -> None:
    """A `*` or `_` between letters or digits is text (a product, a name), not emphasis;
    only markers around a span, and the backticks of a code span, go."""
    product = QaItem(
        id="p",
        question="Which size has the grid?",
        answer_type=AnswerType.MC,
        reference="B",
        options=(("A", "N+M"), ("B", "N*M"), ("C", "N*M*K"), ("D", "2^N")),
    )
    assert extract_answer(product, "ANSWER: N*M").answer == "B"
    assert extract_answer(product, "ANSWER: **N*M*K**").answer == "C"
    assert extract_answer(product, "ANSWER: `N*M`").answer == "B"
    assert extract_answer(product, "The grid is\n\nN*M*K\n").answer == "C"
    assert extract_answer(OPEN, "ANSWER: 2*3 = 6").answer == "2*3 = 6"
    assert extract_answer(OPEN, "ANSWER: *2*3 = 6*").answer == "2*3 = 6"
    assert extract_answer(OPEN, "ANSWER: x * y and a*b*c").answer == "x * y and a*b*c"
    assert extract_answer(OPEN, "`__init__` and __bold__ and snake_case").answer == (
        "__init__ and bold and snake_case"
    )
    assert clean_response("a `lone backtick and **B**.") == "a `lone backtick and B."
    assert clean_response("``a ` b`` and `*c*`") == "a ` b and *c*"
    assert clean_response("**bold _it_ more** _x") == "bold it more _x"
    assert clean_response("\\*not emphasis\\* but *this*") == "\\*not emphasis\\* but this"
    assert clean_response("*line\nbreak*") == "*line\nbreak*"  # a span stays on its line


TF_CASES = [
    ("ANSWER: True", "true"),
    ("ANSWER: true", "true"),
    ("ANSWER: FALSE", "false"),
    ("Answer: Yes", "true"),
    ("ANSWER: No.", "false"),
    ("ANSWER: Correct", "true"),
    ("ANSWER: Incorrect", "false"),
    ("**ANSWER: False**", "false"),
    ("ANSWER: $\\boxed{\\text{True}}$", "true"),
    ("ANSWER: The statement is false.", "false"),
    ("ANSWER: It is true", "true"),
    ("ANSWER: False, the AMF is not the SMF", "false"),
    ("ANSWER: True (no exception applies)", "true"),
    ("ANSWER: True\n\nExplanation: a false belief is common.", "true"),
    ("<think>Maybe false? No, NAS ends in the AMF.</think>\nANSWER: True", "true"),
    ("ANSWER: False\nWait.\nANSWER: True", "true"),
    ("The statement is true.", "true"),
    ("True. TS 23.501 lists NAS termination among the AMF's functions.", "true"),
    ("**False** - the SMF does not terminate NAS.", "false"),
    ("This is not correct; the statement is false.", "false"),
    ("No. The SMF terminates session management only.", "false"),
    ("Yes, it is.", "true"),
    ("The correct answer is False.", "false"),
    ("There is no exception in Rel-17, so the statement is true.", "true"),
    ("The statement isn't false: it is true.", "true"),
    ("The statement isn’t false; it is true.", "true"),
    ('ANSWER: "False"', "false"),
    ("Final answer: **TRUE**.", "true"),
    ("Reasoning: the AMF, not the SMF, ends NAS.\n\nANSWER: True", "true"),
]

TF_ERRORS = [
    ("ANSWER: True|False", "both true and false after ANSWER:"),
    ("ANSWER: not true", "no true/false after ANSWER:"),
    ("ANSWER: maybe", "no true/false after ANSWER:"),
    ("ANSWER: I cannot tell", "no true/false after ANSWER:"),
    ("It depends; partly true and partly false.", "both true and false in the response"),
    ("The AMF terminates NAS signalling from the UE.", "no true/false in the response"),
    ("It is not true.", "no true/false in the response"),
    ("The node is known.", "no true/false in the response"),
    ("", "no true/false in the response"),
]


@pytest.mark.parametrize(("response", "verdict"), TF_CASES)
def test_tf_extraction(response: str, verdict: str) -> None:
    assert extract_answer(TF, response).answer == verdict


@pytest.mark.parametrize(("response", "why"), TF_ERRORS)
def test_tf_parse_errors(response: str, why: str) -> None:
    got = extract_answer(TF, response)
    assert (got.answer, got.error) == (None, why)


@pytest.mark.parametrize(
    ("response", "answer"),
    [
        ("ANSWER: Packet Data Convergence Protocol", "Packet Data Convergence Protocol"),
        (
            "PDCP is a layer 2 protocol.\nANSWER: **Packet Data Convergence Protocol**",
            "Packet Data Convergence Protocol",
        ),
        ("Packet Data Convergence Protocol.", "Packet Data Convergence Protocol."),
        (
            "<think>hmm</think>\n  Packet Data Convergence Protocol  ",
            "Packet Data Convergence Protocol",
        ),
        ("ANSWER: first\nANSWER: second\nline two", "second\nline two"),
        ("snake_case_name stays", "snake_case_name stays"),
    ],
)
def test_open_extraction(response: str, answer: str) -> None:
    assert extract_answer(OPEN, response).answer == answer


def test_open_parse_errors() -> None:
    assert extract_answer(OPEN, "ANSWER:   ").error == "nothing after ANSWER:"
    assert extract_answer(OPEN, "<think>long reasoning</think>").error == "empty response"
    assert extract_answer(OPEN, "<think>cut off before the answer").error == "empty response"


def test_clean_response() -> None:
    assert clean_response("<THINK>x</THINK>y") == "\ny"
    assert clean_response("a<thinking>x</thinking>b") == "a\nb"
    assert clean_response("$\\boxed{D}$") == "D"
    assert clean_response("__bold__ and *it* and ***both***") == "bold and it and both"
    assert clean_response("x" * (MAX_TEXT + 10) + "END").endswith("END")
    assert len(clean_response("x" * (MAX_TEXT + 10))) == MAX_TEXT


def test_huge_response_reads_its_end_quickly() -> None:
    text = "reasoning " * 2_000_000 + "\nANSWER: B"
    assert extract_answer(MC, text).answer == "B"
    assert extract_answer(MC, "(" * 500_000).answer is None


def test_think_blocks_are_removed_as_a_lazy_pattern_would() -> None:
    """The one-pass remover against the regular expression it replaces (which rescans the
    rest of the text at every unclosed tag), on random mixes of tags."""
    lazy = re.compile(r"<(think|thinking)>.*?</\1>", re.IGNORECASE | re.DOTALL)
    tags = ["<think>", "</think>", "<THINKING>", "</thinking>", "<Think>", "</THINK>", "x"]
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(tags) for _ in range(rng.randint(0, 10))) + "end"
        expected = lazy.sub("\n", text)
        cleaned = clean_response(text)
        # The rest of clean_response (a tag left open or closed) acts on the same text.
        assert cleaned == clean_response(expected), text


def test_many_unclosed_tags_and_underscores_still_read_the_answer() -> None:
    """A model repeating itself: every `_` and `<think>` unclosed, on one line."""
    assert extract_answer(MC, "_x " * 30_000 + "\nANSWER: __B__").answer == "B"
    assert extract_answer(MC, "</think>" + "<think>" * 10_000).error is not None
    assert clean_response("_" + "y" * 500 + "_") == "y" * 500  # a long span is emphasis too


@pytest.mark.parametrize("unit", ["__x ", "_x ", "*x ", "**x ", "x* ", "`x `` ", "_ ", "x_"])
def test_a_line_of_unclosed_markers_is_read_in_one_pass(unit: str) -> None:
    """100,000 characters of markers that never close, on one line (each marker run is
    looked at once: about 0.05 s, where a pattern rescanning the line takes minutes)."""
    line = unit * (100_000 // len(unit))
    assert clean_response(line).count("x") == line.count("x")
    assert extract_answer(MC, line + "\nANSWER: **B**").answer == "B"


@pytest.mark.parametrize(
    ("item", "value", "answer"),
    [
        (MC, "B", "B"),
        (MC, "b", "B"),
        (MC, "(B)", "B"),
        (MC, "Access and Mobility Management Function (AMF)", "B"),
        (MC_NUM, 2, "2"),
        (TF, True, "true"),
        (TF, False, "false"),
        (TF, "FALSE", "false"),
        (TF, "yes", "true"),
        (OPEN, "  PDCP  ", "PDCP"),
    ],
)
def test_read_answer(item: QaItem, value: object, answer: str) -> None:
    assert read_answer(item, value).answer == answer


def test_read_answer_errors() -> None:
    assert read_answer(MC, "Z").answer is None
    assert read_answer(MC, "B or C").error == "two answers: B and C"
    assert read_answer(MC, None).error == "answer is NoneType, not text"
    assert read_answer(TF, "perhaps").answer is None
    assert read_answer(OPEN, "").error == "empty answer"
    assert read_answer(OPEN, ["x"]).error == "answer is list, not text"


def test_answer_tool_shapes() -> None:
    tool = answer_tool(MC)
    assert tool["name"] == "answer"
    assert tool["parameters"]["type"] == "dict"
    assert tool["parameters"]["required"] == ["answer"]
    assert tool["parameters"]["properties"]["answer"]["enum"] == ["A", "B", "C", "D", "E"]
    assert answer_tool(MC_NUM)["parameters"]["properties"]["answer"]["enum"] == ["1", "2", "3", "4"]
    assert answer_tool(TF)["parameters"]["properties"]["answer"]["enum"] == ["true", "false"]
    free = answer_tool(OPEN)["parameters"]["properties"]["answer"]
    assert free["type"] == "string" and "enum" not in free
    # The parameters are a JSON Schema once "dict" reads "object" (as the providers send it).
    schema = json.loads(json.dumps(tool["parameters"]).replace('"dict"', '"object"'))
    jsonschema.validate({"answer": "C"}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"answer": "F"}, schema)


def test_prompt_text_mc_with_context() -> None:
    text = prompt_text(MC, ["The AMF includes registration management.", "Other passage."])
    assert text.index("Context:") < text.index("Question:") < text.index("Options:")
    assert "[1] The AMF includes registration management.\n[2] Other passage." in text
    assert "B. Access and Mobility Management Function (AMF)" in text
    assert text.endswith("ANSWER: <label>\nwhere <label> is one of A, B, C, D, E.")


def test_prompt_text_closed_book_tf_and_open() -> None:
    tf_text = prompt_text(TF)
    assert "Context" not in tf_text
    assert tf_text.startswith("Is the following statement true or false?")
    assert "Statement: The AMF terminates NAS." in tf_text
    assert tf_text.endswith("ANSWER: True\nor the line\nANSWER: False")
    assert prompt_text(OPEN).endswith("ANSWER: <answer>\nwhere <answer> is your short answer.")


def test_templates_round_trip_through_extraction() -> None:
    # A model that follows the template exactly is read correctly.
    assert extract_answer(MC, prompt_text(MC) + "\n\nANSWER: D").answer == "D"
    assert extract_answer(TF, prompt_text(TF) + "\nANSWER: False").answer == "false"


def test_fc_message() -> None:
    text = fc_message(MC_NUM, ["ctx"])
    assert "[1] ctx" in text and "2. 30 kHz" in text
    assert text.endswith("Give your answer by calling the answer tool.")
    assert "ANSWER:" not in text


# -- Verdicts, template tokens, full-width forms, restated options, dollars ---------------

MC_RRC = QaItem(
    id="r",
    question="Which RRC state has no UE context in the RAN?",
    answer_type=AnswerType.MC,
    reference="C",
    options=(("A", "RRC_CONNECTED"), ("B", "RRC_INACTIVE"), ("C", "RRC_IDLE")),
)
#: Options written in full-width forms: their text is compared as written.
MC_WIDE = QaItem(
    id="w",
    question="哪个RRC状态保留UE上下文？",
    answer_type=AnswerType.MC,
    reference="B",
    options=(
        ("A", "空闲态（RRC_IDLE）"),
        ("B", "非激活态（RRC_INACTIVE）"),
        ("C", "ＲＲＣ＿ＣＯＮＮＥＣＴＥＤ"),
    ),
)
MC_PRICE = QaItem(
    id="p",
    question="Which fee applies?",
    answer_type=AnswerType.MC,
    reference="B",
    options=(("A", "$5"), ("B", "$10"), ("C", "$20")),
)


@pytest.mark.parametrize(
    "response",
    [
        "ANSWER: False. The correct value is 30 kHz.",
        "ANSWER: False (the correct spec is TS 23.502)",
        "ANSWER: False - the correct function is the SMF",
        "ANSWER: False. The statement would be true for LTE.",
        "ANSWER: Incorrect; it is correct only for LTE.",
        "ANSWER: No. The correct node is the SMF.",
        "ANSWER: The statement is false: true only before Rel-15.",
        "ANSWER: False; the correct answer would be SMF",
        "ANSWER: False<|eot_id|>",
        "ANSWER: Ｆａｌｓｅ。",
    ],
)
def test_a_leading_verdict_decides_and_the_rest_is_explanation(response: str) -> None:
    assert extract_answer(TF, response) == Extraction("false")


@pytest.mark.parametrize(
    ("response", "why"),
    [
        ("ANSWER: True or False", "both true and false after ANSWER:"),
        ("ANSWER: True/False", "both true and false after ANSWER:"),
        ("ANSWER: True (or maybe False)", "both true and false after ANSWER:"),
        ("ANSWER: Not true", "no true/false after ANSWER:"),
        ("ANSWER: The statement is not false", "no true/false after ANSWER:"),
        ("ANSWER: Partially true", "a hedged verdict (partially true) after ANSWER:"),
        ("ANSWER: partly false", "a hedged verdict (partly false) after ANSWER:"),
        ("ANSWER: mostly true", "a hedged verdict (mostly true) after ANSWER:"),
        ("ANSWER: The statement is half true.", "a hedged verdict (half true) after ANSWER:"),
        ("ANSWER: half-true", "a hedged verdict (half true) after ANSWER:"),
        ("The statement is partially true.", "a hedged verdict (partially true) in the response"),
        ("It is mostly correct for NR.", "a hedged verdict (mostly correct) in the response"),
    ],
)
def test_verdicts_of_both_kinds_negated_or_hedged_are_parse_errors(response: str, why: str) -> None:
    assert extract_answer(TF, response) == Extraction(None, why)


@pytest.mark.parametrize(
    "token",
    [
        "<|im_end|>",
        "<|eot_id|>",
        "<|endoftext|>",
        "</s>",
        "<end_of_turn>",
        "<eos>",
        "<\uff5cend\u2581of\u2581sentence\uff5c>",
    ],
)
def test_leaked_template_tokens_are_removed(token: str) -> None:
    assert extract_answer(MC, f"The AMF.\nANSWER: B{token}") == Extraction("B")
    assert extract_answer(MC_RRC, f"C{token}\n") == Extraction("C")
    assert extract_answer(TF, f"ANSWER: True{token}") == Extraction("true")
    assert extract_answer(OPEN, f"ANSWER: PDCP{token}") == Extraction("PDCP")


def test_template_tokens_are_read_in_linear_time() -> None:
    assert clean_response("a<|im_start|>b") == "a b"
    assert clean_response("<|" + "x" * 41 + "|>") == "<|" + "x" * 41 + "|>"  # too long
    text = "<|" + "x" * 39 + " " * 8
    assert extract_answer(MC, text * (MAX_TEXT // len(text)) + "\nANSWER: B").answer == "B"


@pytest.mark.parametrize(
    ("response", "label"),
    [
        ("ANSWER: <C>", "C"),
        ("ANSWER: <c>.", "C"),
        ("ANSWER: C。", "C"),
        ("ANSWER: Ｃ", "C"),
        ("ANSWER: （C）", "C"),
        ("ANSWER: 【Ｃ】", "C"),
        ("ANSWER: C（RRC_IDLE）", "C"),
        ("ANSWER: Ｃ）RRC_IDLE。", "C"),
        ("ANSWER\uff1a\u3000C", "C"),
    ],
)
def test_angle_brackets_and_full_width_labels(response: str, label: str) -> None:
    assert extract_answer(MC_RRC, response) == Extraction(label)


def test_angle_brackets_and_full_width_labels_name_two_options_too() -> None:
    assert extract_answer(MC_RRC, "ANSWER: <C> or <A>").error == "two answers: C and A"
    assert extract_answer(MC_RRC, "ANSWER: Ｃ（RRC_CONNECTED）").error == (
        "two answers: C and the text of A"
    )
    assert extract_answer(MC, "ANSWER: <label>").error == "no option label in '<label>'"


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("ANSWER: 非激活态（RRC_INACTIVE）", Extraction("B")),
        ("ANSWER: Ｂ。", Extraction("B")),
        ("ANSWER: （Ｂ）非激活态（RRC_INACTIVE）", Extraction("B")),
        ("ANSWER: ＲＲＣ＿ＣＯＮＮＥＣＴＥＤ", Extraction("C")),
        ("B）非激活态（RRC_INACTIVE）", Extraction("B")),
        (
            "ANSWER: A（非激活态（RRC_INACTIVE））",
            Extraction(None, "two answers: A and the text of B"),
        ),
        # An option's text is compared as written: ASCII forms of it are not its text.
        (
            "ANSWER: 非激活态(RRC_INACTIVE)",
            Extraction(None, "no option label in '非激活态(RRC_INACTIVE)'"),
        ),
        ("ANSWER: RRC_CONNECTED", Extraction(None, "no option label in 'RRC_CONNECTED'")),
    ],
)
def test_options_in_full_width_forms_are_compared_as_written(
    response: str, expected: Extraction
) -> None:
    assert extract_answer(MC_WIDE, response) == expected


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("The UE keeps no context.\n\nC) RRC_IDLE", Extraction("C")),
        ("The UE keeps no context.\n\n**C) RRC_IDLE**", Extraction("C")),
        ("C. RRC_IDLE\n", Extraction("C")),
        ("C - RRC_IDLE", Extraction("C")),
        ("(C) RRC_IDLE\nC", Extraction("C")),
        (
            "A) RRC_CONNECTED\nB) RRC_INACTIVE\nC) RRC_IDLE",
            Extraction(None, "lines name different labels: A, B, C"),
        ),
        # A line of only a label decides whatever options were quoted before it.
        ("C) RRC_IDLE\n\nor maybe\n\nB", Extraction("B")),
        ("A) RRC_CONNECTED\nB) RRC_INACTIVE\nC) RRC_IDLE\n\nC", Extraction("C")),
        ("Let's check each:\nA) RRC_CONNECTED\nno.\nC) RRC_IDLE\nyes.\n\nC", Extraction("C")),
        ("Candidates:\nA) RRC_CONNECTED\nB) RRC_INACTIVE\nBoth are wrong.\n\nC", Extraction("C")),
        ("C) RRC_IDLE\nB) RRC_INACTIVE", Extraction(None, "lines name different labels: B, C")),
        ("C) RRC_INACTIVE", Extraction(None, "no ANSWER: line and no line naming an option")),
    ],
)
def test_a_line_of_a_label_and_its_own_text_counts_without_answer_line(
    response: str, expected: Extraction
) -> None:
    assert extract_answer(MC_RRC, response) == expected


def test_single_dollars_do_not_pair_across_lines() -> None:
    assert extract_answer(MC_PRICE, "ANSWER: $10") == Extraction("B")
    assert extract_answer(MC_PRICE, "Option A is $5.\nANSWER: $10") == Extraction("B")
    assert extract_answer(MC_PRICE, "ANSWER: $5 or $10").answer is None
    assert clean_response("costs $5\nor $10") == "costs $5\nor $10"
    assert clean_response("$x$ and $$a\n= b$$") == "x and a\n= b"
    assert extract_answer(MC, "$$\n\\boxed{B}\n$$\nANSWER: $\\boxed{B}$").answer == "B"


@pytest.mark.parametrize(
    "value",
    ["\\boxed{BLEU}", "<think>which?</think> BLEU", "5 \\mathrm{dB}", "**BLEU**", "$x$"],
)
def test_a_direct_open_answer_is_taken_as_given(value: str) -> None:
    assert read_answer(OPEN, f"  {value}\n") == Extraction(value)


def test_direct_mc_and_tf_answers_are_still_cleaned() -> None:
    assert read_answer(MC, "\\boxed{B}") == Extraction("B")
    assert read_answer(MC, "<think>A?</think> B<|im_end|>") == Extraction("B")
    assert read_answer(TF, "**False**") == Extraction("false")
    # A response is cleaned whatever its answer type.
    assert extract_answer(OPEN, "ANSWER: \\boxed{BLEU}") == Extraction("BLEU")


# -- The same rules through `tfce-eval score` ---------------------------------------------


def _score(predictions: list[dict[str, Any]], data: Path, out: Path, *args: str) -> Any:
    path = out.with_suffix(".jsonl")
    path.write_text("".join(json.dumps(p) + "\n" for p in predictions), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["score", str(path), "--data", str(data), *args, "--out", str(out)]
    )
    assert result.exit_code == 0, (result.output, result.exception)
    lines = (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def test_score_reads_telco_answers_by_these_rules(tmp_path: Path) -> None:
    def mc(n: int, options: dict[str, str], reference: str) -> dict[str, Any]:
        return {
            "question_id": f"m{n}",
            "question": "Which?",
            "answer_type": "mc",
            "options": options,
            "reference_answer": reference,
        }

    rrc = {"A": "RRC_CONNECTED", "B": "RRC_INACTIVE", "C": "RRC_IDLE"}
    wide = {"A": "空闲态（RRC_IDLE）", "B": "非激活态（RRC_INACTIVE）"}
    questions = [
        *(mc(n, rrc, "C") for n in range(1, 7)),
        mc(7, {"A": "$5", "B": "$10"}, "B"),
        mc(8, wide, "B"),
        *(
            {
                "question_id": f"t{n}",
                "question": "NAS ends in the SMF.",
                "answer_type": "tf",
                "reference_answer": "false",
            }
            for n in range(1, 4)
        ),
    ]
    doc = {"_corpus": "3gpp", "_description": "d", "_generated": "g", "questions": questions}
    folder = tmp_path / "telco"
    folder.mkdir()
    (folder / "set_9.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    responses = {
        "m1": "Idle mode keeps no context.\nANSWER: C<|im_end|>",
        "m2": "ANSWER: <C>",
        "m3": "ANSWER: C（RRC_IDLE）",
        "m4": "The UE keeps no context.\n\n**C) RRC_IDLE**",
        "m5": "A) RRC_CONNECTED\nB) RRC_INACTIVE\nC) RRC_IDLE",
        "m6": "ANSWER: （C）",
        "m7": "Option A is $5.\nANSWER: $10",
        "m8": "ANSWER: 非激活态（RRC_INACTIVE）",
        "t1": "ANSWER: False. The correct value is 30 kHz.",
        "t2": "ANSWER: Partially true",
        "t3": "ANSWER: False - the correct function is the AMF<|eot_id|>",
    }
    preds = [{"id": key, "response": text} for key, text in responses.items()]
    got = _score(preds, folder, tmp_path / "scored")
    extracted = {key: (r["extracted"], r["error_type"]) for key, r in got.items()}
    assert extracted == {
        **{f"m{n}": ("C", None) for n in (1, 2, 3, 4, 6)},
        "m5": (None, "parse_error"),
        "m7": ("B", None),
        "m8": ("B", None),
        "t1": ("false", None),
        "t2": (None, "parse_error"),
        "t3": ("false", None),
    }
    assert got["t2"]["error"] == "a hedged verdict (partially true) after ANSWER:"


def test_score_takes_a_direct_qasper_answer_as_given(tmp_path: Path) -> None:
    data = write_hf(
        tmp_path / "qasper",
        corpus=HF_CORPUS,
        queries={"test": HF_QUERIES["test"][:2]},
        qrels={"test": HF_QRELS["test"][:3]},
        answers={
            "test": [
                {"query_id": "q1", "answer": "A3 events"},
                {"query_id": "q2", "answer": "A3 events"},
            ]
        },
    )
    preds = [
        {"id": "q1", "answer": "  \\boxed{A3 events}\n"},  # scored as the evaluator would
        {"id": "q2", "response": "ANSWER: \\boxed{A3 events}"},  # a response is cleaned
    ]
    got = _score(preds, data, tmp_path / "scored", "--split", "test")
    assert got["q1"]["extracted"] == "\\boxed{A3 events}"
    assert got["q1"]["token_f1"] == pytest.approx(0.5)  # "boxeda3 events" vs "a3 events"
    assert got["q2"]["extracted"] == "A3 events" and got["q2"]["token_f1"] == 1.0


@pytest.mark.parametrize(
    ("response", "verdict"),
    [
        ("ANSWER: True, no exceptions.", "true"),
        ("ANSWER: True, no doubt.", "true"),
        ("ANSWER: Correct, no further action.", "true"),
        ("ANSWER: False, yes really.", "false"),
        ("ANSWER: True, and no exceptions apply.", "true"),
    ],
)
def test_a_yes_or_no_that_is_no_verdict_does_not_contradict_the_leading_one(
    response: str, verdict: str
) -> None:
    assert extract_answer(TF, response) == Extraction(verdict)
    assert read_answer(TF, response.removeprefix("ANSWER: ")) == Extraction(verdict)


def test_a_second_yes_or_no_of_its_own_still_contradicts() -> None:
    assert extract_answer(TF, "ANSWER: True, no.").error == "both true and false after ANSWER:"
    assert extract_answer(TF, "ANSWER: True or no?").error == "both true and false after ANSWER:"
    assert extract_answer(TF, "ANSWER: False or yes").error == ("both true and false after ANSWER:")


@pytest.mark.parametrize(
    "hedge",
    ["partially", "partly", "mostly", "half", "largely", "somewhat", "mainly", "nearly", "almost"],
)
def test_every_hedge_word_makes_a_verdict_a_parse_error(hedge: str) -> None:
    got = extract_answer(TF, f"ANSWER: The statement is {hedge} true.")
    assert got == Extraction(None, f"a hedged verdict ({hedge} true) after ANSWER:")


@pytest.mark.parametrize(
    "response",
    [
        "It is not true for NR.",
        "It is never true for NR.",
        "It is neither true nor false.",
        "It is not false; nor is it true.",
        "It cannot be true for NR.",
        "That is hardly true for NR.",
        "It isn't true for NR.",
    ],
)
def test_every_negation_word_takes_a_verdict_back(response: str) -> None:
    assert extract_answer(TF, response) == Extraction(None, "no true/false in the response")


@pytest.mark.parametrize(
    ("response", "verdict"),
    [
        ("ANSWER: Correct - the UPF performs packet routing and forwarding.", "true"),
        ("ANSWER: Correct \u2014 the UPF performs routing.", "true"),
        ("ANSWER: Incorrect - NAS terminates in the AMF.", "false"),
        ("ANSWER: The correct answer is False", "false"),
        ("ANSWER: Correct statement: False", "false"),
    ],
)
def test_correct_leading_the_answer_is_a_verdict_not_a_lead_in(response: str, verdict: str) -> None:
    assert extract_answer(TF, response) == Extraction(verdict)


@pytest.mark.parametrize(
    "response",
    [
        "ANSWER: 10 ms, not 20 ms. False.",
        "ANSWER: The frame is 10 ms, not 20 ms; false",
        "It is the AMF, not the SMF.\n\n**False**",
        "NAS terminates in the AMF and not in the SMF: false.",
    ],
)
def test_a_negation_reaches_back_only_to_the_start_of_its_clause(response: str) -> None:
    assert extract_answer(TF, response) == Extraction("false")
    # Within its clause a negation still takes the verdict back.
    assert extract_answer(TF, response.replace("alse", "alse, not true")).answer == "false"


@pytest.mark.parametrize(
    ("item", "response", "answer"),
    [
        (MC, "ANSWER: a network function in the core, namely the AMF", None),
        (MC, "ANSWER: a UE in RRC_IDLE (B)", None),
        (MC, "ANSWER: b", "B"),
        (MC, "ANSWER: b, the AMF", "B"),
        (MC, "ANSWER: (b) the AMF", "B"),
        (MC, "ANSWER: B because the AMF does it", "B"),
        (MC_LOWER, "ANSWER: c because it keeps the context", "c"),
    ],
)
def test_a_word_in_another_case_than_the_labels_is_not_a_label(
    item: QaItem, response: str, answer: str | None
) -> None:
    got = extract_answer(item, response)
    assert got.answer == answer
    assert answer is not None or (got.error or "").startswith("no option label in")


@pytest.mark.parametrize(
    ("response", "verdict"),
    [
        ("ANSWER: False, correct value is 10 ms", "false"),
        ("ANSWER: False, correct answer is the AMF", "false"),
        ("ANSWER: True, incorrect only in name", "true"),
        ("ANSWER: True, correct.", "true"),
    ],
)
def test_correct_after_a_comma_is_no_second_verdict_unless_on_its_own(
    response: str, verdict: str
) -> None:
    assert extract_answer(TF, response) == Extraction(verdict)
    both = Extraction(None, "both true and false after ANSWER:")
    assert extract_answer(TF, "ANSWER: True, incorrect.") == both
    assert extract_answer(TF, "ANSWER: False, correct!") == both


@pytest.mark.parametrize(
    ("response", "why"),
    [
        ("ANSWER: True for FR1 but false for FR2.", "true for"),
        ("ANSWER: Correct for the UPF, but incorrect if applied to the SMF", "correct for"),
        ("ANSWER: True only for RRC_IDLE; false for RRC_INACTIVE.", "true only for"),
        ("ANSWER: False for RRC_INACTIVE (true for RRC_IDLE).", "false for"),
        ("ANSWER: True in Rel-15, false from Rel-16 onward", "true in"),
    ],
)
def test_a_verdict_tied_to_a_case_its_sentence_contradicts_is_a_parse_error(
    response: str, why: str
) -> None:
    error = f"a conditional verdict ({why} ...) after ANSWER:"
    assert extract_answer(TF, response) == Extraction(None, error)
    assert read_answer(TF, response.removeprefix("ANSWER: ")) == Extraction(None, error)


@pytest.mark.parametrize(
    ("response", "verdict"),
    [
        ("ANSWER: False - the statement would be true for LTE", "false"),
        ("ANSWER: False. The correct value is 30 kHz.", "false"),
        ("ANSWER: True, no exceptions apply", "true"),
        ("ANSWER: True for every UE in RRC_CONNECTED", "true"),
        ("ANSWER: False for NR. It would be true for LTE.", "false"),
        ("ANSWER: True for NR, not false", "true"),
    ],
)
def test_a_verdict_tied_to_a_case_and_nothing_against_it_still_decides(
    response: str, verdict: str
) -> None:
    assert extract_answer(TF, response) == Extraction(verdict)


@pytest.mark.parametrize(
    ("item", "response", "answer"),
    [
        (MC, "ANSWER: Option b is correct", "B"),
        (MC, "ANSWER: choice d is right", "D"),
        (MC, "ANSWER: The answer is option c as explained", "C"),
        (MC, "ANSWER: Correct is B", "B"),
        (MC, "ANSWER: correct = B", "B"),
        (MC, "ANSWER: Final: E", "E"),
        (TF, "ANSWER: Correct is False", "false"),
        (TF, "ANSWER: Correct is true", "true"),
    ],
)
def test_a_label_or_verdict_the_lead_in_names_is_read(
    item: QaItem, response: str, answer: str
) -> None:
    assert extract_answer(item, response) == Extraction(answer)


@pytest.mark.parametrize(
    "response", ["The claim is **not**\ntrue.", "This is not\ncorrect.", "ANSWER: Not\ntrue"]
)
def test_a_negation_reaches_over_a_line_break_inside_its_sentence(response: str) -> None:
    assert extract_answer(TF, response).answer is None


@pytest.mark.parametrize(
    "response",
    [
        "ANSWER: True for all UEs, since a false value would break paging",
        "ANSWER: True in 5G NR, where the LTE restriction (incorrect here) is lifted",
        "ANSWER: False for every cell, though a true handover may still occur",
    ],
)
def test_a_verdict_word_used_of_a_thing_makes_no_conditional_verdict(response: str) -> None:
    verdict = "false" if response.startswith("ANSWER: False") else "true"
    assert extract_answer(TF, response) == Extraction(verdict)


@pytest.mark.parametrize("response", ["ANSWER: No exception applies", "ANSWER: yes and no"])
def test_a_yes_or_no_leading_the_answer_counts_only_as_a_sentence_of_its_own(
    response: str,
) -> None:
    assert extract_answer(TF, response).answer is None
    assert extract_answer(TF, "ANSWER: No - the SMF does it").answer == "false"
