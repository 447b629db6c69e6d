"""The commands' core functions, called as a program would: each gives what its command
gives, for every task, and refuses what the command refuses."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tfce_eval.cli import main
from tfce_eval.errors import DataError, UsageError
from tfce_eval.model import TaskKind
from tfce_eval.scoring.options import CheckMode
from tfce_eval.verbs.score import DATASET_RUN, score_files, score_task
from tfce_eval.verbs.settings import ScoreSettings

REPO = Path(__file__).resolve().parent.parent
OUTPUTS = REPO / "examples" / "outputs.jsonl"


def cli_json(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_function_calling_outputs_score_as_the_command_scores(tmp_path: Path) -> None:
    ref = score_task([OUTPUTS], None)
    assert ref.task is TaskKind.FC and ref.builtin == "tfce"
    settings = ScoreSettings(check=CheckMode.AST)
    scored = score_files([OUTPUTS], ref, settings, tmp_path / "lib")
    assert scored.task is TaskKind.FC and scored.fc is not None and scored.document is None
    assert scored.out_dir == tmp_path / "lib"
    for name in ("scores.jsonl", "summary.json", "report.md", "report.html"):
        assert (tmp_path / "lib" / name).is_file(), name
    shown = cli_json("score", str(OUTPUTS), "--check", "ast", "--out", str(tmp_path / "cli"))
    assert scored.summary == shown
    assert scored.summary["overall"]["micro"]["total"] == len(scored.fc.records) > 0


def _qasper_predictions(path: Path) -> None:
    from tfce_eval.retrieval import load_retrieval

    data = load_retrieval(REPO / "tfce_eval" / "builtin" / "qasper-rag")
    with path.open("w", encoding="utf-8") as out:
        for qid, answer in sorted(data.answers.items()):
            out.write(json.dumps({"id": qid, "response": f"ANSWER: {answer}"}) + "\n")


def test_qa_predictions_with_a_retrieval_dataset_are_scored_as_qa(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    _qasper_predictions(preds)
    ref = score_task([preds], "builtin:qasper-rag")
    assert ref.task is TaskKind.QA and ref.builtin == "qasper-rag"
    scored = score_files([preds], ref, out_dir=tmp_path / "lib")
    assert scored.task is TaskKind.QA and scored.fc is None and scored.document is not None
    assert scored.summary["qasper"]["answer_f1"] == 1.0
    assert scored.summary["dataset"]["path"] == "builtin:qasper-rag"
    report = (tmp_path / "lib" / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# ") and "lib" in report
    data = ("--data", "builtin:qasper-rag")
    shown = cli_json("score", str(preds), *data, "--out", str(tmp_path / "c"))
    assert scored.summary == shown
    # Told the task, the same dataset reads as retrieval, and the predictions are refused.
    as_retrieval = score_task([preds], "builtin:qasper-rag", TaskKind.RETRIEVAL)
    with pytest.raises(DataError, match="not a retrieval run"):
        score_files([preds], as_retrieval, out_dir=tmp_path / "r")
    assert not (tmp_path / "r").exists()


def test_the_dataset_word_scores_retrieved_docs_with_the_measures_asked(tmp_path: Path) -> None:
    ref = score_task([DATASET_RUN], "builtin:qasper-rag")
    assert ref.task is TaskKind.RETRIEVAL
    settings = ScoreSettings(measures="nDCG@10 R@5")
    scored = score_files([DATASET_RUN], ref, settings, tmp_path / "lib")
    assert scored.task is TaskKind.RETRIEVAL and scored.document is not None
    assert list(scored.summary["measures"]) == ["nDCG@10", "R@5"]
    assert scored.warnings == tuple(scored.summary["warnings"])
    shown = cli_json(
        "score", "dataset", "--data", "builtin:qasper-rag", "--measures", "nDCG@10 R@5",
        "--out", str(tmp_path / "cli"),
    )  # fmt: skip
    assert scored.summary["measures"] == shown["measures"]
    assert (tmp_path / "lib" / "report.html").is_file()


def test_what_the_command_refuses_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    _qasper_predictions(preds)
    qa = score_task([preds], "builtin:qasper-rag")
    with pytest.raises(UsageError, match="QA predictions are one file"):
        score_files([preds, preds], qa, out_dir=tmp_path / "two")
    with pytest.raises(UsageError, match="at least one FILE"):
        score_files([], qa, out_dir=tmp_path / "none")
    fc = score_task([OUTPUTS], None)
    with pytest.raises(DataError, match="QA predictions"):
        score_files([preds], fc, out_dir=tmp_path / "other")
    with pytest.raises(UsageError, match="given twice"):
        score_files([OUTPUTS, str(OUTPUTS)], fc, out_dir=tmp_path / "twice")
    assert not any(tmp_path.glob("*/summary.json"))


def test_validate_gives_each_tasks_findings_and_size_as_the_command() -> None:
    from tfce_eval.tasks import resolve_data
    from tfce_eval.verbs.settings import ValidateSettings
    from tfce_eval.verbs.validate import validate_data

    fc = validate_data(resolve_data(None), ValidateSettings(exec_checks=False))
    assert fc.task is TaskKind.FC and fc.fc is not None and not fc.errors
    assert fc.size is not None and fc.size.noun == "item" and fc.size.total == fc.fc.items
    assert fc.to_json() == cli_json("validate", "--no-exec")
    telco = validate_data(resolve_data("builtin:telco-qna"))
    assert telco.task is TaskKind.QA and telco.size is not None and not telco.findings
    assert telco.size.noun == "question" and set(telco.size.parts) == {"mc", "tf", "open"}
    assert sum(telco.size.parts.values()) == telco.size.total
    assert telco.to_json() == cli_json("validate", "--data", "builtin:telco-qna")
    retrieval = validate_data(resolve_data("builtin:conditionalqa"))
    assert retrieval.task is TaskKind.RETRIEVAL and retrieval.size is not None
    assert retrieval.size.noun == "query" and not retrieval.errors


def test_validate_a_retrieval_dataset_without_answers_as_qa_is_one_error() -> None:
    from tfce_eval.tasks import resolve_data
    from tfce_eval.verbs.validate import validate_data

    checked = validate_data(resolve_data("builtin:conditionalqa", TaskKind.QA))
    assert [f.level.value for f in checked.findings] == ["error"]
    assert "without answers" in checked.findings[0].message and checked.size is None
    as_json = cli_json("validate", "--data", "builtin:conditionalqa", "--task", "qa", code=1)
    assert as_json == checked.to_json()
    assert as_json == {
        "task": "qa",
        "items": None,  # nothing read whole: no count
        "counts": {},
        "errors": 1,
        "warnings": 0,
        "findings": as_json["findings"],
    }
    # One shape for every task.
    fc, telco = cli_json("validate"), cli_json("validate", "--data", "builtin:telco-qna")
    assert list(fc) == list(telco) == list(as_json)
    assert fc["task"] == "fc" and telco["items"] == sum(telco["counts"].values()) > 0


def cli_text(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_report_renders_each_tasks_runs_as_the_command(tmp_path: Path) -> None:
    from tfce_eval.report import Prices
    from tfce_eval.report.formats import ReportFormat
    from tfce_eval.verbs.report import report_runs

    fc = score_task([OUTPUTS], None)
    settings = ScoreSettings(check=CheckMode.AST)
    a = score_files([OUTPUTS], fc, settings, tmp_path / "a").out_dir
    b = score_files([OUTPUTS], fc, settings, tmp_path / "b").out_dir
    both = report_runs([a, b], failures=2, prices=Prices(1.0, 2.0))
    assert both.task is TaskKind.FC and both.fc is not None and not both.notes
    md = both.render(ReportFormat.MD)
    assert md == cli_text("report", str(a), str(b), "--format", "md", "--failures", "2",
                          "--price-in", "1", "--price-out", "2")  # fmt: skip
    assert both.render("csv") == cli_text("report", str(a), str(b), "--format", "csv",
                                          "--failures", "2", "--price-in", "1",
                                          "--price-out", "2")  # fmt: skip
    assert len(both.renderables()) == 1
    retrieval = score_task([DATASET_RUN], "builtin:qasper-rag")
    r = score_files([DATASET_RUN], retrieval, out_dir=tmp_path / "r").out_dir
    ranked = report_runs([r], failures=1, prices=Prices(1.0, 0.0))
    assert ranked.task is TaskKind.RETRIEVAL and ranked.document is not None
    assert ranked.notes == ("--price-in/--price-out: for function-calling runs only",)
    shown = cli_text("report", str(r), "--format", "json", "--failures", "1")
    assert json.loads(ranked.render("json")) == json.loads(shown)
    assert ranked.renderables()
    with pytest.raises(UsageError, match="runs of different tasks cannot share a report"):
        report_runs([a, r])
    with pytest.raises(UsageError, match="fmt: 'pdf' is not one of table, md, json, csv, html"):
        ranked.render("pdf")
    with pytest.raises(UsageError, match="fmt: 'pdf' is not one of table, md, json, csv, html"):
        both.render("pdf")


def test_settings_parse_what_a_program_gives_and_refuse_a_lone_path() -> None:
    from tfce_eval.model import AnswerStyle
    from tfce_eval.run.config import RunConfig
    from tfce_eval.verbs.settings import ValidateSettings

    given = ScoreSettings(
        questions=["q.json"],  # type: ignore[arg-type]
        answer_style="bfcl",  # type: ignore[arg-type]
        qrels="x.tsv",  # type: ignore[arg-type]
        run_file="r.trec",  # type: ignore[arg-type]
    )
    assert given.questions == (Path("q.json"),) and given.answer_style is AnswerStyle.BFCL
    assert given.qrels == Path("x.tsv") and given.run_file == Path("r.trec")
    checked = ValidateSettings(answers=("a",), functions_dir="f")  # type: ignore[arg-type]
    assert checked.answers == (Path("a"),) and checked.functions_dir == Path("f")
    with pytest.raises(UsageError, match=r"questions: give a sequence of paths, not one"):
        ScoreSettings(questions="q.json")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"answers: give a sequence of paths, not one"):
        ValidateSettings(answers=Path("a.json"))  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"answers: give a sequence of paths, not one"):
        RunConfig(model="openai/x", answers="a.json")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"answers: give a sequence of paths, not 3"):
        RunConfig(model="openai/x", answers=3)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"k: 0 is not a whole number of at least 1"):
        ScoreSettings(k=0)
    with pytest.raises(UsageError, match=r"answer_style: 'x' is not one of"):
        ValidateSettings(answer_style="x")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"check: 'fast' is not one of ast, exec, both"):
        ScoreSettings(check="fast")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"exec_timeout_s: 0 is not a finite number"):
        ScoreSettings(exec_timeout_s=0)
    with pytest.raises(UsageError, match=r"measures: give text or a sequence of names, not 5"):
        ScoreSettings(measures=5)  # type: ignore[arg-type]
    parsed = ScoreSettings(check="ast", categories={"simple"}, missing="skip")  # type: ignore[arg-type]
    assert parsed.fc_options().check is CheckMode.AST and parsed.missing.value == "skip"


def test_a_program_may_name_the_dataset_and_task_as_text_and_is_refused_a_lone_path(
    tmp_path: Path,
) -> None:
    from tfce_eval import verbs

    assert callable(verbs.score_files) and verbs.score_files is score_files
    ref = score_task([DATASET_RUN], "builtin:qasper-rag", "retrieval")
    assert ref.task is TaskKind.RETRIEVAL
    scored = score_files([DATASET_RUN], "builtin:qasper-rag", out_dir=tmp_path / "r")
    assert scored.task is TaskKind.RETRIEVAL
    fc = score_files([OUTPUTS], None, ScoreSettings(check=CheckMode.AST), tmp_path / "f")
    assert fc.task is TaskKind.FC
    with pytest.raises(UsageError, match=r"files: give a sequence of files, not one path"):
        score_files(str(OUTPUTS), None, out_dir=tmp_path / "one")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"settings: give a ScoreSettings"):
        score_files([OUTPUTS], None, {"check": "ast"}, tmp_path / "d")  # type: ignore[arg-type]
    from tfce_eval.verbs.validate import validate_data

    as_qa = validate_data("builtin:conditionalqa", None)
    assert as_qa.task is TaskKind.RETRIEVAL
    from tfce_eval.tasks import resolve_data

    assert validate_data(resolve_data("builtin:conditionalqa", "qa")).errors
    assert not any(tmp_path.glob("one")) and not any(tmp_path.glob("d"))


def test_a_setting_for_another_tasks_datasets_is_refused_not_ignored(tmp_path: Path) -> None:
    from tfce_eval.verbs.settings import ValidateSettings
    from tfce_eval.verbs.validate import validate_data

    split = "split is for retrieval and question-answering datasets"
    with pytest.raises(UsageError, match=f"^{split}; builtin:tfce is a function-calling"):
        score_files([OUTPUTS], None, ScoreSettings(split="test"), tmp_path / "a")
    both = (
        "^check is for function-calling datasets; judge is for question-answering "
        "datasets; builtin:qasper-rag is a retrieval dataset$"
    )
    with pytest.raises(UsageError, match=both):
        settings = ScoreSettings(check=CheckMode.AST, measures="nDCG@10", judge="openai/x")
        score_files([DATASET_RUN], "builtin:qasper-rag", settings, tmp_path / "b")
    with pytest.raises(UsageError, match=r"^k is for question-answering datasets; "):
        score_files([DATASET_RUN], "builtin:qasper-rag", ScoreSettings(k=3), tmp_path / "c")
    with pytest.raises(UsageError, match="corpus is for retrieval datasets; builtin:telco-qna"):
        validate_data("builtin:telco-qna", ValidateSettings(corpus="documents"))
    with pytest.raises(UsageError, match="exec_checks is for function-calling datasets"):
        validate_data("builtin:telco-qna", ValidateSettings(exec_checks=False))
    assert not any(tmp_path.iterdir())


def test_report_runs_refuses_what_the_command_refuses(tmp_path: Path) -> None:
    from tfce_eval.verbs.report import report_runs

    out = score_files([OUTPUTS], None, ScoreSettings(check=CheckMode.AST), tmp_path / "a")
    with pytest.raises(UsageError, match=r"run_dirs: give a sequence of directories, not one"):
        report_runs(str(out.out_dir))  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"run_dirs: give at least one run directory"):
        report_runs([])
    with pytest.raises(UsageError, match=r"failures: -1 is not a whole number of at least 0"):
        report_runs([out.out_dir], failures=-1)
    with pytest.raises(UsageError, match=r"prices: give a report.Prices, not \(1, 2\)"):
        report_runs([out.out_dir], prices=(1, 2))  # type: ignore[arg-type]
    assert report_runs([str(out.out_dir)], failures=1).render("md").startswith("# ")


def test_an_option_given_empty_is_not_given_and_the_task_is_refused_first(
    tmp_path: Path,
) -> None:
    run = CliRunner().invoke
    out = str(tmp_path / "a")
    ok = run(main, ["score", str(OUTPUTS), "--split", "", "--corpus", "", "--out", out])
    assert ok.exit_code == 0, ok.output
    checked = run(main, ["validate", "--split", "", "--corpus", "", "--no-exec"])
    assert checked.exit_code == 0, checked.output
    assert not score_files([OUTPUTS], None, ScoreSettings(split="", judge=""), out).warnings
    mixed = ["score", "dataset", "--data", "builtin:qasper-rag", "--category", "bogus"]
    refused = run(main, mixed)
    assert refused.exit_code == 2
    assert "--category is for function-calling datasets" in " ".join(refused.output.split())
    with pytest.raises(UsageError, match=r"split: give the name of a split, not 3"):
        score_task([OUTPUTS], None, None, 3)  # type: ignore[arg-type]
    huge = run(main, ["report", out, "--failures", "99999999999999999999"])
    assert huge.exit_code == 2 and "--failures" in huge.output


def test_report_says_its_note_on_prices_before_a_failure(tmp_path: Path) -> None:
    from tfce_eval.report import Prices
    from tfce_eval.verbs.report import report_runs

    r = score_files([DATASET_RUN], "builtin:qasper-rag", out_dir=tmp_path / "r").out_dir
    failed = CliRunner().invoke(main, ["report", str(r), str(tmp_path / "nope"), "--price-in", "1"])
    assert failed.exit_code == 1
    note = "note: --price-in/--price-out: for function-calling runs only"
    assert failed.output.startswith(note)
    assert "run directory not found" in " ".join(failed.output.split())
    heard: list[str] = []
    reported = report_runs([r], prices=Prices(1.0, 0.0), on_note=heard.append)
    assert heard == [note.removeprefix("note: ")] and reported.notes == ()


def test_a_run_replaced_while_it_is_read_is_read_again(tmp_path: Path) -> None:
    from tfce_eval.errors import DataError
    from tfce_eval.verbs.report import read_stable, report_runs

    run = score_files([OUTPUTS], None, ScoreSettings(check=CheckMode.AST), tmp_path / "a")
    summary = run.out_dir / "summary.json"
    calls: list[int] = []

    def replaced_during_the_first_read() -> str:
        calls.append(1)
        if len(calls) == 1:  # a score commits meanwhile: a new file renamed into place
            new = summary.with_name(".summary.json.new")
            new.write_bytes(summary.read_bytes())
            os.replace(new, summary)
            return "mixed"
        return "whole"

    assert read_stable(run.out_dir, replaced_during_the_first_read) == "whole"
    assert len(calls) == 2
    calls.clear()

    def fails_while_replaced() -> str:
        calls.append(1)
        if len(calls) == 1:
            summary.unlink()  # between a commit's unlink and its rename
            raise DataError("no summary.json", path=str(summary))
        return "whole"

    saved = summary.read_bytes()
    assert read_stable(run.out_dir, fails_while_replaced) == "whole"
    summary.write_bytes(saved)

    def always_fails() -> str:  # nothing changed: the error is the run's own
        calls.append(1)
        raise DataError("no summary.json", path=str(summary))

    calls.clear()
    with pytest.raises(DataError, match=r"no summary\.json"):
        read_stable(run.out_dir, always_fails)
    assert len(calls) == 1
    assert report_runs([run.out_dir]).task is TaskKind.FC
