"""`doctor` against the loopback server playing well-set-up and misconfigured servers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fakeserver import FakeConfig, FakeServer, qa_items
from messages import unfold

from tests.ports import dead_url
from tfce_eval.cli import main
from tfce_eval.cli.doctor import doctor_command
from tfce_eval.dataset.load import load_dataset
from tfce_eval.model import Finding, Level
from tfce_eval.providers.doctor import diagnose

DATA = Path(__file__).parent / "fixtures" / "run_small"


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(DATA)


def _texts(report, level: Level) -> str:
    assert all(type(f) is Finding for f in report.findings)  # the one shared record
    return "\n".join(f"{f.message}\n  fix: {f.hint}" for f in report.findings if f.level is level)


@pytest.mark.parametrize(("model", "url"), [("vllm/m", "base_url"), ("anthropic/m", "root_url")])
def test_a_well_set_up_server_passes(dataset, monkeypatch, model, url):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with FakeServer(FakeConfig(dataset)) as srv:
        report = diagnose(model, base_url=getattr(srv, url), data=DATA)
        (sent,) = srv.log
    assert report.ok and report.item_id == "run_parallel_0"  # the item with the most calls
    assert (report.expected_calls, report.structured_calls) == (3, 3)
    assert "3 structured tool calls came back" in _texts(report, Level.OK)
    assert "match the ground truth" in _texts(report, Level.OK)
    assert sent.body.get("tools")


@pytest.mark.parametrize(
    ("model", "fault", "says"),
    [
        ("vllm/m", "text_calls", "--enable-auto-tool-choice --tool-call-parser"),
        ("llamacpp/m", "text_calls", "--jinja"),
        ("vllm/m", "vllm_no_tool_parser", "--enable-auto-tool-choice --tool-call-parser"),
        ("llamacpp/m", "llamacpp_no_jinja", "--jinja"),
        ("vllm/m", "401", "OPENAI_API_KEY"),
        ("vllm/m", "404", "/models"),
        ("vllm/m", "malformed", "the server answered, but not in the API's shape"),
        ("vllm/m", "429", "the server is limiting requests: wait and try again"),
        ("vllm/m", "500", "the server failed this request: try again"),
    ],
)
def test_misconfigurations_are_named_with_their_fix(dataset, model, fault, says):
    with FakeServer(FakeConfig(dataset, always=(fault,))) as srv:
        report = diagnose(model, base_url=srv.base_url, data=DATA)
    assert not report.ok
    assert says in _texts(report, Level.ERROR)


@pytest.mark.parametrize("model", ["vllm/m", "ollama/m"])
def test_fewer_structured_calls_than_expected_is_a_warning_about_the_model(dataset, model):
    with FakeServer(FakeConfig(dataset, always=("single_call",))) as srv:
        report = diagnose(model, base_url=srv.base_url, data=DATA)
        result = CliRunner().invoke(
            doctor_command, ["--model", model, "--base-url", srv.base_url, "--data", str(DATA)]
        )
    assert report.ok and report.structured_calls == 1
    warning = _texts(report, Level.WARNING)
    assert "1 structured tool call came back, 3 expected" in warning
    assert "the model's choice" in warning and "parallel" in warning
    assert not _texts(report, Level.ERROR)
    assert result.exit_code == 0, result.output
    assert "ready for `tfce-eval run --mode fc`" in result.output


def test_a_refused_temperature_is_reported_and_the_check_goes_on(dataset):
    with FakeServer(FakeConfig(dataset, always=("400_temperature",))) as srv:
        report = diagnose("vllm/m", base_url=srv.base_url, data=DATA)
        assert len(srv.log) == 2
    assert report.ok and report.structured_calls == 3
    assert "refuses temperature" in _texts(report, Level.WARNING)


def test_no_server_at_the_url_is_a_problem_that_says_so(dataset):
    report = diagnose("vllm/m", base_url=dead_url(), data=DATA, timeout_s=2)
    assert not report.ok and report.structured_calls is None
    said = _texts(report, Level.ERROR)
    assert "nothing is listening there" in said and "fix: start the server" in said


def test_the_command_exits_0_when_ready_and_1_otherwise(dataset):
    runner = CliRunner()
    with FakeServer(FakeConfig(dataset)) as srv:
        good = runner.invoke(
            doctor_command, ["--model", "sglang/m", "--base-url", srv.base_url, "--data", str(DATA)]
        )
        srv.config.always = ("text_calls",)
        bad = runner.invoke(
            doctor_command, ["--model", "sglang/m", "--base-url", srv.base_url, "--data", str(DATA)]
        )
    assert good.exit_code == 0, good.output
    assert "ready for `tfce-eval run --mode fc`" in good.output
    assert bad.exit_code == 1
    assert "PROBLEM" in bad.output and "--tool-call-parser" in bad.output


# -- a question-answering download: several split files ------------------------------------

QNA_SPLIT = Path(__file__).parent.parent / "tfce_eval" / "builtin" / "telco-qna" / "set_24.json"


@pytest.fixture
def download(tmp_path: Path) -> Path:
    """A Telco-Retrieve directory as GSMA's download has it: several split files."""
    folder = tmp_path / "telco-qna"
    folder.mkdir()
    text = QNA_SPLIT.read_text(encoding="utf-8")
    (folder / "3gpp_question_set_24.json").write_text(text, encoding="utf-8")
    (folder / "question_pool_3gpp.json").write_text(text, encoding="utf-8")
    return folder


def _options(text: str) -> set[str]:
    return set(re.findall(r"(--[a-z][a-z-]*)", text))


def test_doctor_takes_the_split_its_hint_names(download: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer(FakeConfig(load_dataset(None), qa=qa_items(QNA_SPLIT))) as srv:
        args = ["doctor", "--model", "vllm/m", "--base-url", srv.base_url, "--data", str(download)]
        unsplit = CliRunner().invoke(main, args)
        assert not srv.log  # nothing is asked before the split is known
        split = CliRunner().invoke(main, [*args, "--split", "set_24"])
    assert unsplit.exit_code == 1, unsplit.output
    said = unfold(unsplit.output)
    assert "2 split files; choose one" in said
    assert "fix: give --split with one of: question_pool, set_24" in said
    # Every option the hint names is one doctor has.
    help_text = CliRunner().invoke(main, ["doctor", "--help"]).output
    fix = said.split("fix:", 1)[1]
    assert _options(fix) and _options(fix) <= _options(help_text)
    assert split.exit_code == 0, split.output
    assert "item: " in split.output and "forced `answer` tool was called" in split.output
    assert "fc mode: the answer is right" in split.output
    assert len(srv.log) == 2


def test_doctor_refuses_a_split_of_a_function_calling_dataset() -> None:
    result = CliRunner().invoke(main, ["doctor", "--model", "vllm/m", "--split", "test"])
    assert result.exit_code == 2, result.output
    assert unfold(result.output) == (
        "error: --split is for retrieval and question-answering datasets; builtin:tfce "
        "(the default --data) is a function-calling dataset"
    )


# -- what doctor prints fits 80 columns ----------------------------------------------------


def test_every_line_doctor_prints_fits_80_columns(dataset, monkeypatch) -> None:
    """A server's over-long word (an error body of one 500-character word) is cut to fit
    under the finding's 9-column indent, not only under a message's 4."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + "k" * 120)
    with FakeServer(FakeConfig(dataset, always=("text_error_key",))) as srv:
        result = CliRunner().invoke(
            main, ["doctor", "--model", "vllm/m", "--base-url", srv.base_url]
        )
    assert result.exit_code == 1, result.output
    assert "PROBLEM  the request failed: HTTP" in result.output
    assert [line for line in result.output.splitlines() if len(line) > 80] == []


@pytest.mark.parametrize(
    ("item", "said"), [("run_simple_0", "1 call"), ("run_parallel_0", "3 calls")]
)
def test_the_item_says_its_calls_in_words(dataset, item, said):
    with FakeServer(FakeConfig(dataset)) as srv:
        result = CliRunner().invoke(
            main,
            [
                *("doctor", "--model", "vllm/m", "--base-url", srv.base_url),
                *("--data", str(DATA), "--item", item),
            ],
        )
    assert f"item: {item} ({said} expected)" in result.output, result.output


def test_a_retrieval_dataset_without_answers_is_refused_as_run_refuses_it():
    result = CliRunner().invoke(
        main, ["doctor", "--model", "vllm/m", "--data", "builtin:conditionalqa"]
    )
    assert result.exit_code == 2
    assert "a retrieval dataset without answers" in " ".join(result.output.split())


def test_calls_written_as_text_are_counted_in_words(dataset):
    with FakeServer(FakeConfig(dataset, always=("text_calls",))) as srv:
        report = diagnose("vllm/m", base_url=srv.base_url, data=DATA)
    said = _texts(report, Level.ERROR)
    assert re.search(r"but (1 call was|[2-9]\d* calls were) written as text: the server", said)
    assert "call(s)" not in said


def test_control_characters_are_shown_as_escapes(dataset, monkeypatch) -> None:
    """What doctor prints (the model's name, what the server said) never passes a control
    character to the terminal: an OSC sequence could retitle it or worse."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = "vllm/m\x1b]0;PWNED\x07"
    with FakeServer(FakeConfig(dataset, always=("text_calls",))) as srv:
        args = ["doctor", "--model", model, "--base-url", srv.base_url, "--data", str(DATA)]
        result = CliRunner().invoke(main, args)
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "m\\x1b]0;PWNED\\x07" in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())


def test_one_call_is_said_in_the_singular(dataset):
    with FakeServer(FakeConfig(dataset)) as srv:
        report = diagnose("vllm/m", base_url=srv.base_url, data=DATA, item_id="run_simple_0")
    assert report.ok and (report.expected_calls, report.structured_calls) == (1, 1)
    assert "1 structured tool call came back (1 expected)" in _texts(report, Level.OK)
