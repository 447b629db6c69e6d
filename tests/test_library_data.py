"""Datasets named from Python as on the command line: `builtin:NAME`, and a directory
whose task is read from its files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import DataError, UsageError
from tfce_eval.model import Level, TaskKind
from tfce_eval.qa import load_telco, validate_qa
from tfce_eval.retrieval import load_retrieval, validate_retrieval
from tfce_eval.run.config import RunConfig
from tfce_eval.tasks import builtin


def test_load_telco_takes_the_builtin_name_and_is_named_by_it() -> None:
    data = load_telco("builtin:telco-qna")
    assert data.path == "builtin:telco-qna/set_24.json"
    assert data.items and data.sha256 == load_telco(builtin("telco-qna").path).sha256
    assert not [f for f in validate_qa("builtin:telco-qna") if f.level is Level.ERROR]


def test_load_retrieval_takes_the_builtin_name_and_is_named_by_it() -> None:
    data = load_retrieval("builtin:qasper-rag")
    assert data.name == "builtin:qasper-rag"
    assert data.queries and data.root == builtin("qasper-rag").path
    assert load_retrieval("builtin:conditionalqa", corpus="documents_coref").queries
    assert not [f for f in validate_retrieval("builtin:qasper-rag") if f.level is Level.ERROR]


def test_a_builtin_retrieval_dataset_records_its_gold_by_builtin_name() -> None:
    """Summaries and run.json name a built-in dataset's gold as `builtin:NAME/FILE`, not
    where this install keeps it, as they name the dataset itself."""
    described = load_retrieval("builtin:qasper-rag").describe()
    assert described["path"] == "builtin:qasper-rag"
    assert described["qrels"] == "builtin:qasper-rag/qrels/test.jsonl"
    spans = load_retrieval("builtin:conditionalqa").describe()
    assert spans["qrels"] == "spans in builtin:conditionalqa/queries/test.jsonl"


def test_load_dataset_takes_the_builtin_name() -> None:
    assert load_dataset("builtin:tfce").sha256 == load_dataset().sha256


@pytest.mark.parametrize(
    ("load", "name", "said"),
    [
        (
            load_retrieval,
            "builtin:telco-qna",
            "not a retrieval dataset (it is for question answering)\n  fix: give a "
            "retrieval dataset: builtin:qasper-rag, builtin:conditionalqa or a directory",
        ),
        (
            load_telco,
            "builtin:tfce",
            "not a qa dataset (it is for function calling)\n  fix: give a qa dataset: "
            "builtin:telco-qna or a directory",
        ),
        (
            load_dataset,
            "builtin:qasper-rag",
            "not an fc dataset (it is for retrieval)\n  fix: give an fc dataset: "
            "builtin:tfce or a directory",
        ),
    ],
)
def test_a_builtin_of_another_task_names_those_of_the_task(load, name, said) -> None:  # type: ignore[no-untyped-def]
    # The same words for a library caller and for the command line, which shows them:
    # no library call is named.
    with pytest.raises(DataError) as info:
        load(name)
    assert str(info.value).startswith(f"{name}: {said}")
    assert "tfce_eval." not in str(info.value)


def test_an_unknown_builtin_lists_the_choices() -> None:
    with pytest.raises(UsageError, match="no built-in dataset 'telco'; choose from tfce, "):
        load_telco("builtin:telco")


def test_a_missing_retrieval_directory_is_said_so(tmp_path: Path) -> None:
    absent = tmp_path / "nonexistent"
    with pytest.raises(DataError, match="nonexistent: no such directory"):
        load_retrieval(absent)
    findings = validate_retrieval(absent)
    assert [f.message for f in findings] == ["no such directory"]
    with pytest.raises(DataError, match="not a retrieval dataset"):
        load_retrieval(tmp_path)  # exists, but holds no layout


def test_a_run_config_reads_the_task_from_the_data(tmp_path: Path) -> None:
    qna = RunConfig(model="openai/m", data="builtin:telco-qna")  # type: ignore[arg-type]
    assert qna.task is TaskKind.QA and qna.data == builtin("telco-qna").path
    copy = shutil.copytree(builtin("telco-qna").path, tmp_path / "telco")
    assert RunConfig(model="openai/m", data=copy).task is TaskKind.QA
    assert RunConfig(model="openai/m", data=str(copy)).task is TaskKind.QA  # type: ignore[arg-type]
    # QASPER-RAG is a retrieval dataset whose answers a model is asked, as on the command line.
    assert RunConfig(model="openai/m", data="builtin:qasper-rag").task is TaskKind.QA  # type: ignore[arg-type]
    fc = RunConfig(model="openai/m", data="builtin:tfce")  # type: ignore[arg-type]
    assert (fc.task, fc.data) == (TaskKind.FC, None)
    assert RunConfig(model="openai/m").task is TaskKind.FC
    fc_dir = builtin("tfce").path
    assert RunConfig(model="openai/m", data=fc_dir).task is TaskKind.FC
    # A task given is kept: the caller knows better than the files.
    assert RunConfig(model="openai/m", data=copy, task=TaskKind.FC).task is TaskKind.FC


def test_a_run_config_of_a_missing_directory_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such dataset directory"):
        RunConfig(model="openai/m", data=tmp_path / "absent")
