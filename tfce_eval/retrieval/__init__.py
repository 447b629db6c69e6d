"""Retrieval evaluation: load a dataset, read a run, score it as trec_eval does.

The public API the command line builds on; every name here is importable without
importing pyarrow, numpy or ir-measures (they load when first used). `validate_retrieval`
reports `tfce_eval.model.Finding`s, the records every task's `validate` speaks in.
"""

from __future__ import annotations

from tfce_eval.retrieval.bm25 import RetrieveResult, default_cache_dir, retrieve
from tfce_eval.retrieval.bm25_index import Progress
from tfce_eval.retrieval.compare import retrieval_document
from tfce_eval.retrieval.dataset import RetrievalDataset, load_retrieval
from tfce_eval.retrieval.layouts import detect_layout
from tfce_eval.retrieval.measures import DEFAULT_MEASURES, Measure, parse_measures
from tfce_eval.retrieval.ranking import Run, RunForm
from tfce_eval.retrieval.records import Doc, Fragment, Layout, Span
from tfce_eval.retrieval.runs import dataset_run, detect_run_form, read_run
from tfce_eval.retrieval.score import QueryScore, RetrievalResult, ScoredRun, score_run
from tfce_eval.retrieval.scored import is_scored_run, load_scored_run
from tfce_eval.retrieval.validate import validate_retrieval

__all__ = [
    "DEFAULT_MEASURES",
    "Doc",
    "Fragment",
    "Layout",
    "Measure",
    "Progress",
    "QueryScore",
    "RetrievalDataset",
    "RetrievalResult",
    "RetrieveResult",
    "Run",
    "RunForm",
    "ScoredRun",
    "Span",
    "dataset_run",
    "default_cache_dir",
    "detect_layout",
    "detect_run_form",
    "is_scored_run",
    "load_retrieval",
    "load_scored_run",
    "parse_measures",
    "read_run",
    "retrieval_document",
    "retrieve",
    "score_run",
    "validate_retrieval",
]
