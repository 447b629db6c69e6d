"""True or false in a model's words: which verdict words count, and when a leading one
decides (docs/qa.md, true/false). What `qa.extract` reads a tf answer with."""

from __future__ import annotations

import re

_POLARITY = {
    "true": "true",
    "yes": "true",
    "correct": "true",
    "false": "false",
    "no": "false",
    "incorrect": "false",
}
_VERDICTS = r"(true|false|correct|incorrect|yes|no)\b"
_POLARITY_WORD = re.compile(r"\b" + _VERDICTS, re.IGNORECASE)
_LEADING_VERDICT = re.compile(_VERDICTS, re.IGNORECASE)
# A second verdict right after the first: "True or False", "True/False", "True (or False)".
_SECOND_VERDICT = re.compile(
    r"\s*\(?\s*(?:,?\s*(?:\bor\b|\band/or\b|\band\b|\bnor\b|\bvs\b\.?|\bversus\b)|,|/|\||&)\s*"
    r"(?:(?:maybe|perhaps|possibly|probably|else|alternatively)\b[,\s]*)?" + _VERDICTS,
    re.IGNORECASE,
)
# What may follow a leading yes or no: "No." "No, ..." "No - ..."; not "No exception ...".
_AFTER_YES_NO = re.compile(r"\s*(?:[.,;:!?(\u2013\u2014-]|$)")
# A verdict hedged by the word before it: "partly true", "mostly false", "half-true".
_HEDGE = re.compile(
    r"\b(partially|partly|mostly|half|largely|somewhat|mainly|nearly|almost)[\s-]+$",
    re.IGNORECASE,
)
# "correct" naming the answer, not judging the statement: "the correct answer is False".
_NOT_A_VERDICT = re.compile(r"\s+(?:answer|option|choice|response|one)\b", re.IGNORECASE)
# What ties a leading verdict to a case: "True for FR1 ...", "False only in Rel-15 ...".
_QUALIFIER = re.compile(
    r"(?i)\s+((?:only\s+)?(?:for|in|when|if|under|with|on|from|before|after|until))\b"
)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
# Where a negation stops reaching: a clause's end, or a blank line (a single line break
# may wrap a sentence: "The claim is not\ntrue.").
_CLAUSE_END = re.compile(r"[.;:!?]|\n\s*\n")
_NEGATIONS = frozenset({"not", "no", "never", "neither", "nor", "cannot", "hardly"})
_WORD = re.compile(r"[\w']+")


def _negated(text: str, start: int) -> bool:
    window = text[max(0, start - 40) : start].lower().replace("\u2019", "'")
    window = _CLAUSE_END.split(window)[-1]  # "10 ms, not 20 ms. False."
    before = _WORD.findall(window)[-3:]
    return any(w in _NEGATIONS or w.endswith("n't") for w in before)


def polarities(text: str, *, yes_no_first_only: bool) -> tuple[set[str], str | None]:
    """The polarities of the verdict words in `text` that no negation precedes, and the
    first verdict a hedge precedes ("partly true"), if any."""
    found: set[str] = set()
    hedged = None
    for match in _POLARITY_WORD.finditer(text):
        word = match.group(1).lower()
        if word in ("yes", "no"):
            if yes_no_first_only:
                # Only leading the answer, and as a sentence of its own: "No exception
                # applies" and "yes and no" hold no verdict.
                if match.start() != 0 or not _AFTER_YES_NO.match(text, match.end()):
                    continue
            else:  # a sentence of its own: "No." / "Yes, ..."; not "no requirement"
                before = text[: match.start()].rstrip()
                after = text[match.end() : match.end() + 1]
                if (before and before[-1] not in ".!?:\n") or (after and after not in ".,;!:\n"):
                    continue
        elif word == "correct" and _NOT_A_VERDICT.match(text, match.end()):
            continue
        if _negated(text, match.start()):
            continue
        found.add(_POLARITY[word])
        hedge = _HEDGE.search(text, max(0, match.start() - 20), match.start())
        if hedge is not None and hedged is None:
            hedged = f"{hedge.group(1)} {word}".lower()
    return found, hedged


def _qualified_opposite(sentence: str, polarity: str) -> bool:
    """Whether the sentence holds a verdict of the other polarity tied to a case of its
    own ("... but false for FR2"); not a verdict word used of a thing ("a false value",
    "(incorrect here)") nor a negated one."""
    for match in _POLARITY_WORD.finditer(sentence):
        word = match.group(1).lower()
        if word in ("yes", "no") or _POLARITY[word] == polarity:
            continue
        if _QUALIFIER.match(sentence, match.end()) and not _negated(sentence, match.start()):
            return True
    return False


def leading_verdict(body: str) -> tuple[str | None, str | None] | None:
    """The verdict a text starts with ("False. The correct value is 30 kHz."), the rest
    being its explanation; a parse error when another verdict follows it at once ("True
    or False") or when it holds only in a case its sentence contradicts ("True for FR1
    but false for FR2"); None when the text does not start with a verdict. As
    (answer, error): one of the two is None."""
    match = _LEADING_VERDICT.match(body)
    if match is None:
        return None
    word = match.group(1).lower()
    if word in ("yes", "no") and not _AFTER_YES_NO.match(body, match.end()):
        return None  # "No exception applies": not a verdict of its own
    if word == "correct" and _NOT_A_VERDICT.match(body, match.end()):
        return None  # "Correct response: ..."
    second = _SECOND_VERDICT.match(body, match.end())
    weak = second is not None and second.group(1).lower() not in ("true", "false")
    if weak and second is not None and not _AFTER_YES_NO.match(body, second.end()):
        second = None  # "True, no exceptions", "False, correct value is 10 ms": no verdicts
    if second is not None and _POLARITY[second.group(1).lower()] != _POLARITY[word]:
        return None, "both true and false after ANSWER:"
    qualifier = _QUALIFIER.match(body, match.end())  # "True for FR1 but false for FR2"
    sentence = _SENTENCE_END.split(body[qualifier.end() :], maxsplit=1)[0] if qualifier else ""
    if qualifier and _qualified_opposite(sentence, _POLARITY[word]):
        case = " ".join(qualifier.group(1).lower().split())
        return None, f"a conditional verdict ({word} {case} ...) after ANSWER:"
    return _POLARITY[word], None
