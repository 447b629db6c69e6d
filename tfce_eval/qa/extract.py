"""Reading the answer out of a model's text, as docs/qa.md lays down.

The text is cleaned first: the special tokens of chat templates (`<|im_end|>`, `</s>`) go,
`<think>...</think>` blocks go with their content (a closing tag without an opening one
drops everything before it, an unclosed block everything after), then the markers of
markdown emphasis, inline code, `$...$` (on one line; `$$...$$` may span lines) and
`\\boxed{...}` go and what they enclose stays (`$\\boxed{D}$` reads `D`).

- mc: the last `ANSWER:` decides, read against the item's own labels (`B`, `(B)`, `<B>`,
  `B.`, `B)`, `Option B`, in full-width forms too, or the exact text of one option; a
  bare label in another case with a word after it is a word, "a network function");
  without one, a line that is only a label or a label and its own option's text; else a
  line that is exactly one option's text.
- tf: after the last `ANSWER:`, a leading verdict word (true/false/yes/no/correct/
  incorrect) decides and what follows is explanation; else, and without `ANSWER:`, the
  verdict words outside a negation of their clause, all agreeing. A hedged verdict
  (`partly true`) or a conditional one (`True for FR1 but false for FR2`) is a parse
  error.
- open: the text after the last `ANSWER:`, else the whole text. An open answer given
  directly (`read_answer`) is taken as given.

Nothing found, or two different answers in the deciding place, is a parse error. Never the
first capital letter, never a word inside another ("no" is inside "not" and "node"). Model
output is data: only the last `MAX_TEXT` characters are examined.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from tfce_eval.qa.items import AnswerType, QaItem
from tfce_eval.qa.markup import plain_text
from tfce_eval.qa.options import (
    END_MARKS,
    QUOTES,
    find_label,
    fold_marks,
    label_form,
    label_with_text,
    leading_label,
    read_option,
    squash,
    texts_of_others,
)
from tfce_eval.qa.verdicts import leading_verdict, polarities

#: How much of a response is examined (its end, where the answer is).
MAX_TEXT = 100_000


@dataclass(frozen=True, slots=True)
class Extraction:
    """What was read: the answer (a label, "true"/"false", or text) or why nothing was."""

    answer: str | None
    error: str | None = None


_THINK_TAG = re.compile(r"<(/?)(think|thinking)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_LATEX_WRAP = re.compile(r"\\(?:boxed|fbox|text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
# `$$...$$` (display math, may span lines) or `$...$` on one line: a `$` of one line never
# pairs with one of another (`Option A is $5.` and `ANSWER: $10`).
_DOLLARS = re.compile(r"\$\$([^$]*?)\$\$|\$([^$\n]*?)\$")
# The special tokens of chat templates a server left in the text (`<|im_end|>`, `<|eot_id|>`,
# `<|endoftext|>`, DeepSeek's `<｜end▁of▁sentence｜>`, `</s>`, Gemma's `<end_of_turn>`).
_TEMPLATE_TOKEN = re.compile(
    r"<(?:\|[\w\u2581]{1,40}\||\uff5c[\w\u2581]{1,40}\uff5c"
    r"|/s|eos|bos|start_of_turn|end_of_turn)>"
)
_ANSWER = re.compile(r"ANSWER\s*[:\uff1a]", re.IGNORECASE)  # a full-width colon too
# Words that introduce the answer after `ANSWER:` ("The correct answer is (B)"); an adjective
# only before its noun or a copula ("Correct is B"): a bare "Correct - the UPF ..." is a
# verdict.
_LEAD_IN = re.compile(
    r"(?:(?:so|thus|therefore|hence)\b[,\s]*)?(?:the\s+)?"
    r"(?:(?:(?:correct|final|best|right)\s+)?(?:answer|option|choice|statement)"
    r"|(?:correct|final|best|right)(?=\s*(?:is\b|would\s+be\b|[:=\uff1a])))?"
    r"\s*(?:is|would\s+be|[:=\uff1a])?\s*(?:(?:option|choice)\s+)?",
    re.IGNORECASE,
)
_WORD_NEXT = re.compile(r"\s+[^\W\d_]")  # "a network function": an article, not option A
_NAMED = re.compile(r"(?:option|choice)\s*$", re.IGNORECASE)
# A second label right after the first: "A or B", "A/B", "A and B", "A, B", "A (or maybe B)".
# Prose further on ("B, since A is for idle mode") is an explanation, not a second answer.
_SECOND_LABEL = re.compile(
    r"\s*\(?\s*(?:,?\s*(?:\bor\b|\band/or\b|\band\b|\bvs\b\.?|\bversus\b)|,|/|&)\s*"
    r"(?:(?:maybe|perhaps|possibly|probably|else|alternatively)\b[,\s]*)?"
    r"(?:(?:option|choice)\s+)?[(\[<]?([^\s()\[\]<>.:,;!?]{1,8})[)\]>]?(?=[\s.:,;!?)>]|$)",
    re.IGNORECASE,
)
_WRAPS = QUOTES + "*`\uff02\u300c\u300d\u300e\u300f"


def clean_response(text: str) -> str:
    """The response with template tokens, reasoning blocks and emphasis removed, as Q3
    reads it."""
    if len(text) > MAX_TEXT:
        text = text[-MAX_TEXT:]
    if "<" in text:  # the tag searches only when a tag can be there
        text = _TEMPLATE_TOKEN.sub(" ", text)
        text = _without_think_blocks(text)
        closes = list(_THINK_CLOSE.finditer(text))
        if closes:  # the opening tag was in the prompt template, or cut off above
            text = text[closes[-1].end() :]
        opened = _THINK_OPEN.search(text)
        if opened:  # reasoning never closed: the answer was never given
            text = text[: opened.start()]
    if "\\" in text:
        for _ in range(4):  # nested wrappers: \boxed{\text{B}}
            unwrapped = _LATEX_WRAP.sub(r"\1", text)
            if unwrapped == text:
                break
            text = unwrapped
    if "$" in text:
        text = _DOLLARS.sub(r"\1\2", text)
    return plain_text(text)


def _without_think_blocks(text: str) -> str:
    """`text` with each `<think>...</think>` (or `<thinking>`) block replaced by a line end:
    from the first opening tag that has a closing one of its name after it to that closing
    tag, and on from there, as a lazy regular expression would match, in one pass (such a
    pattern rescans the rest of the text at every unclosed tag)."""
    opens: list[re.Match[str]] = []
    closes: dict[str, list[int]] = {"think": [], "thinking": []}
    close_ends: dict[str, list[int]] = {"think": [], "thinking": []}
    for tag in _THINK_TAG.finditer(text):
        name = tag.group(2).lower()
        if tag.group(1):
            closes[name].append(tag.start())
            close_ends[name].append(tag.end())
        else:
            opens.append(tag)
    pieces: list[str] = []
    done = 0
    for tag in opens:
        if tag.start() < done:
            continue  # inside a block already removed
        name = tag.group(2).lower()
        at = bisect_left(closes[name], tag.end())
        if at == len(closes[name]):
            continue  # never closed: left for the checks below
        pieces += (text[done : tag.start()], "\n")
        done = close_ends[name][at]
    return "".join(pieces) + text[done:] if pieces else text


def _last_marker(text: str) -> re.Match[str] | None:
    found = None
    for match in _ANSWER.finditer(text):
        found = match
    return found


def _answer_segment(text: str, last: re.Match[str]) -> str:
    """The text after the last `ANSWER:` on its line (or the next line if that is empty)."""
    rest = text[last.end() :]
    line, _, after = rest.partition("\n")
    if line.strip():
        return line.strip()
    for following in after.split("\n"):
        if following.strip():
            return following.strip()
    return ""


def _strip_lead_in(text: str) -> str:
    match = _LEAD_IN.match(text)
    return text[match.end() :] if match else text


def _mc_segment(item: QaItem, segment: str) -> Extraction:
    """The option a short text (the deciding place) names, or why it names none or two."""
    options = item.options
    stripped = _strip_lead_in(segment)
    for text in (segment, stripped):
        # A label the lead-in names an option ("Option b is correct") is never a word.
        named = text is stripped and _NAMED.search(segment[: len(segment) - len(stripped)])
        # Quotes, and markers markdown left unpaired: "**Answer:**B" is not emphasis.
        text = text.strip().rstrip(END_MARKS).strip(_WRAPS).strip()
        if not text:
            continue
        label = read_option(options, text)
        if label is not None:
            return Extraction(label)
        # The label and the marks after it read in ASCII ("C（RRC_IDLE）"), at the same
        # positions: the text after the label is compared as written.
        match, label = leading_label(options, text)
        if match is None or label is None:
            continue
        second = _SECOND_LABEL.match(match.string, match.end())
        if second is not None:
            # "A or B" in any case, but "B and a UE..." is not "B and A": a second label in
            # another case counts only when the first was not written as the label is.
            token, other = second.group(1), find_label(options, second.group(1))
            if other is not None and other != label and (token == other or match.group(1) != label):
                return Extraction(None, f"two answers: {label} and {other}")
        # A bare label in another case than the item's with a word straight after it is a word.
        bare = match.group(0) == match.group(1) != label and not named
        if bare and _WORD_NEXT.match(match.string, match.end()):
            continue
        others = texts_of_others(options, label, text[match.end() :])
        if others:
            return Extraction(None, f"two answers: {label} and the text of {others}")
        return Extraction(label)
    return Extraction(None, f"no option label in {segment[:40]!r}")


def _tf_from(text: str, *, in_answer: bool) -> Extraction:
    body = text
    if in_answer:
        # Full-width letters and marks read as ASCII ("ＴＲＵＥ", "True。").
        body = _strip_lead_in(fold_marks(text))
        body = re.sub(r"^(?:it|this|that)\s+(?:is|was)\s+", "", body, flags=re.IGNORECASE)
        leading = leading_verdict(body)
        if leading is not None:
            return Extraction(*leading)
    found, hedged = polarities(body, yes_no_first_only=in_answer)
    where = "after ANSWER:" if in_answer else "in the response"
    if len(found) > 1:
        return Extraction(None, f"both true and false {where}")
    if hedged is not None:
        return Extraction(None, f"a hedged verdict ({hedged}) {where}")
    if found:
        return Extraction(found.pop())
    return Extraction(None, f"no true/false {where}")


def _mc_without_answer_line(item: QaItem, text: str) -> Extraction:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # A line holding only a label decides, as ever: a response that quotes options while
    # weighing them ("A) RRC_IDLE ...") and then gives one label answers with it. Without
    # one, a label with its own option's text ("C) RRC_IDLE") does; several name no answer.
    named = {label for line in lines if (label := label_form(item.options, line))}
    if not named:
        named = {label for line in lines if (label := label_with_text(item.options, line))}
    if len(named) == 1:
        return Extraction(named.pop())
    if named:
        return Extraction(None, "lines name different labels: " + ", ".join(sorted(named)))
    # Each option's text squashed once, not once per line: a long answer has many lines.
    texts: dict[str, set[str]] = {}
    for label, option in item.options:
        texts.setdefault(squash(option), set()).add(label)
    by_text: set[str] = set()
    for line in lines:
        wanted = squash(line)
        hits = texts.get(wanted) if wanted else None
        if hits is not None and len(hits) == 1:
            by_text |= hits
    if len(by_text) == 1:
        return Extraction(by_text.pop())
    if by_text:
        return Extraction(None, "lines give the texts of different options")
    return Extraction(None, "no ANSWER: line and no line naming an option")


def extract_answer(item: QaItem, response: str) -> Extraction:
    """The answer a model's text gives to `item`, read as Q3 says, or a parse error."""
    text = clean_response(response)
    last = _last_marker(text)
    if item.answer_type is AnswerType.MC:
        if last is not None:
            return _mc_segment(item, _answer_segment(text, last))
        return _mc_without_answer_line(item, text)
    if item.answer_type is AnswerType.TF:
        if last is not None:
            return _tf_from(_answer_segment(text, last), in_answer=True)
        return _tf_from(text, in_answer=False)
    if last is not None:
        answer = text[last.end() :].strip()
        return Extraction(answer) if answer else Extraction(None, "nothing after ANSWER:")
    answer = text.strip()
    return Extraction(answer) if answer else Extraction(None, "empty response")


def read_answer(item: QaItem, value: object) -> Extraction:
    """An answer given directly (a tool argument, a predictions file's "answer" field).

    mc: a label in any of its forms or an option's text; tf: a boolean or a verdict word
    (both after the cleaning of `clean_response`); open: the text as given, only the white
    space around it stripped. Anything else is a parse error naming what was given.
    """
    if item.answer_type is AnswerType.TF and isinstance(value, bool):
        return Extraction("true" if value else "false")
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return Extraction(None, f"answer is {type(value).__name__}, not text")
    if item.answer_type is AnswerType.OPEN:
        # Taken as given, as the official QASPER evaluator scores it: no cleaning.
        text = value.strip()
        return Extraction(text) if text else Extraction(None, "empty answer")
    text = clean_response(value).strip()
    if not text:
        return Extraction(None, "empty answer")
    if item.answer_type is AnswerType.MC:
        return _mc_segment(item, text)
    return _tf_from(text, in_answer=True)
