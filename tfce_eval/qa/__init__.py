"""Question answering: Telco-Retrieve QnA and QASPER answers, closed-book or with context.

The public API the command line builds on: loading and validating datasets, the request a
model is sent (the `answer` tool or the `ANSWER:` template), extracting the answer from a
response, grading open answers (lexical scores, QASPER's F1s, an LLM judge with a verdict
cache), scoring a predictions file or a run's outputs, and the reports.
"""

from tfce_eval.qa.extract import MAX_TEXT, Extraction, clean_response, extract_answer, read_answer
from tfce_eval.qa.items import (
    AnswerType,
    Problem,
    QaDataset,
    QaItem,
    Severity,
    SourceRef,
    normalise_spec,
    parse_canonical_source,
    same_spec,
)
from tfce_eval.qa.lexical import exact_match, normalize_answer, token_f1
from tfce_eval.qa.loader import choose_split, load_telco, split_files, validate_qa
from tfce_eval.qa.prompts import TOOL_NAME, answer_tool, fc_message, prompt_text
from tfce_eval.qa.qasper import answer_f1, evidence_f1, paragraph_f1, qasper_dataset

__all__ = [
    "MAX_TEXT",
    "TOOL_NAME",
    "AnswerType",
    "Extraction",
    "Problem",
    "QaDataset",
    "QaItem",
    "Severity",
    "SourceRef",
    "answer_f1",
    "answer_tool",
    "choose_split",
    "clean_response",
    "evidence_f1",
    "exact_match",
    "extract_answer",
    "fc_message",
    "load_telco",
    "normalise_spec",
    "normalize_answer",
    "paragraph_f1",
    "parse_canonical_source",
    "prompt_text",
    "qasper_dataset",
    "read_answer",
    "same_spec",
    "split_files",
    "token_f1",
    "validate_qa",
]
