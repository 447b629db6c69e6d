"""Question answering: Telco-Retrieve QnA and QASPER answers, closed-book or with context.

The public API the command line builds on: loading and validating datasets, the request a
model is sent (the `answer` tool or the `ANSWER:` template), extracting the answer from a
response, grading open answers (lexical scores, QASPER's F1s, an LLM judge with a verdict
cache), scoring a predictions file or a run's outputs, and the reports.
"""

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
from tfce_eval.qa.loader import choose_split, load_telco, split_files, validate_qa
from tfce_eval.qa.qasper import answer_f1, evidence_f1, qasper_dataset

__all__ = [
    "AnswerType",
    "Problem",
    "QaDataset",
    "QaItem",
    "Severity",
    "SourceRef",
    "answer_f1",
    "choose_split",
    "evidence_f1",
    "load_telco",
    "normalise_spec",
    "parse_canonical_source",
    "qasper_dataset",
    "same_spec",
    "split_files",
    "validate_qa",
]
