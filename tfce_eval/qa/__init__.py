"""Question answering: Telco-Retrieve QnA and QASPER answers, closed-book or with context.

The public API the command line builds on: loading and validating datasets, the request a
model is sent (the `answer` tool or the `ANSWER:` template), extracting the answer from a
response, grading open answers (lexical scores, QASPER's F1s, an LLM judge with a verdict
cache), scoring a predictions file or a run's outputs, and reading scored runs back. The
reports (`tfce_eval.qa.report.qa_document`) are imported from their module, so that loading
this package does not load the report renderers.
"""

from tfce_eval.qa.detect import builtin_telco_dir, is_telco_dataset
from tfce_eval.qa.extract import MAX_TEXT, Extraction, clean_response, extract_answer, read_answer
from tfce_eval.qa.items import (
    AnswerType,
    QaDataset,
    QaItem,
    SourceRef,
    normalise_spec,
    parse_canonical_source,
    same_spec,
)
from tfce_eval.qa.judge import (
    CACHE_NAME,
    JUDGE_PROMPT_SHA256,
    JUDGE_TEMPLATE,
    Grade,
    Judge,
    Verdict,
    VerdictCache,
    VerdictKey,
    check_judge,
    judge_prompt,
    parse_verdict,
    response_sha256,
)
from tfce_eval.qa.lexical import exact_match, normalize_answer, token_f1
from tfce_eval.qa.loader import load_telco, validate_qa
from tfce_eval.qa.paired import paired_data
from tfce_eval.qa.predictions import (
    MAX_DEPTH,
    MAX_LINE,
    PredictionReader,
    Predictions,
    QaOutput,
    RetrievedChunk,
    read_predictions,
)
from tfce_eval.qa.prompts import TOOL_NAME, answer_tool, chat_parts, fc_message, prompt_text
from tfce_eval.qa.qasper import answer_f1, evidence_f1, paragraph_f1, qasper_dataset
from tfce_eval.qa.records import ErrorType, QaScore, score_item
from tfce_eval.qa.runs import QaRun, load_qa_run
from tfce_eval.qa.scoring import (
    QaResult,
    score_outputs,
    score_outputs_async,
    score_predictions,
    score_predictions_async,
)
from tfce_eval.qa.splits import choose_split, split_files
from tfce_eval.scoring.options import MissingMode

__all__ = [
    "CACHE_NAME",
    "JUDGE_PROMPT_SHA256",
    "JUDGE_TEMPLATE",
    "MAX_DEPTH",
    "MAX_LINE",
    "MAX_TEXT",
    "TOOL_NAME",
    "AnswerType",
    "ErrorType",
    "Extraction",
    "Grade",
    "Judge",
    "MissingMode",
    "PredictionReader",
    "Predictions",
    "QaDataset",
    "QaItem",
    "QaOutput",
    "QaResult",
    "QaRun",
    "QaScore",
    "RetrievedChunk",
    "SourceRef",
    "Verdict",
    "VerdictCache",
    "VerdictKey",
    "answer_f1",
    "answer_tool",
    "builtin_telco_dir",
    "chat_parts",
    "check_judge",
    "choose_split",
    "clean_response",
    "evidence_f1",
    "exact_match",
    "extract_answer",
    "fc_message",
    "is_telco_dataset",
    "judge_prompt",
    "load_qa_run",
    "load_telco",
    "normalise_spec",
    "normalize_answer",
    "paired_data",
    "paragraph_f1",
    "parse_canonical_source",
    "parse_verdict",
    "prompt_text",
    "qasper_dataset",
    "read_answer",
    "read_predictions",
    "response_sha256",
    "same_spec",
    "score_item",
    "score_outputs",
    "score_outputs_async",
    "score_predictions",
    "score_predictions_async",
    "split_files",
    "token_f1",
    "validate_qa",
]
