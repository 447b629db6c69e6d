"""The runner end to end: the real SDKs against the loopback server, real files in tmp_path."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from fakeserver import FakeConfig, FakeServer
from smallrun import DATA, config, outputs

from tfce_eval.dataset.load import load_dataset
from tfce_eval.errors import RunError, UsageError
from tfce_eval.model import Category
from tfce_eval.providers import Mode, RequestOptions
from tfce_eval.run.retry import RetryPolicy
from tfce_eval.run.runner import RunConfig, dump_request, run_eval, select_ids

RECORD_KEYS = {"id", "category", "raw", "calls", "error", "usage", "latency_s", "finish_reason"}


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(DATA)


@pytest.fixture
def server(dataset):
    with FakeServer(FakeConfig(dataset, slow_s=1.0)) as srv:
        yield srv


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-anthropic")


def asked(server: FakeServer) -> list[str]:
    return [r.item_id for r in server.log]


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
@pytest.mark.parametrize("mode", [Mode.FC, Mode.PROMPT])
def test_a_perfect_server_scores_every_category_full_marks(server, dataset, tmp_path, sdk, mode):
    result = run_eval(config(server, tmp_path, sdk, mode=mode))
    summary = result.score.summary
    assert summary["categories"] == [str(c) for c in Category]
    for cat in Category:
        assert summary[str(cat)]["accuracy"] == 1.0, summary[str(cat)]
    assert (result.selected, result.asked, result.request_errors) == (len(dataset), 16, 0)
    records = outputs(result.run_dir)
    assert sorted(r["id"] for r in records) == sorted(dataset.ids())
    for record in records:
        assert set(record) == RECORD_KEYS
        assert record["error"] is None and record["calls"] is not None
        assert record["usage"]["input_tokens"] > 0 and record["latency_s"] >= 0
        stops = {"openai": ("tool_calls", "stop"), "anthropic": ("tool_use", "end_turn")}
        assert record["finish_reason"] in stops[sdk]
    assert all(("tools" in r.body) is (mode is Mode.FC) for r in server.log)
    meta = json.loads((result.run_dir / "run.json").read_text())
    assert meta["status"] == "finished"
    assert (meta["provider"], meta["model"], meta["mode"]) == (sdk, "fake-model", str(mode))
    assert meta["dataset"]["sha256"] == dataset.sha256
    assert meta["sdk"][sdk]
    assert meta["counts"] == {"items": 16, "answered": 16, "request_errors": 0}
    assert result.run_dir.name == f"{sdk}-fake-model-{mode}"
    for name in ("scores.jsonl", "summary.json"):
        assert (result.run_dir / name).is_file()


def test_the_builtin_dataset_scores_full_marks_through_a_perfect_server(tmp_path):
    builtin = load_dataset()
    with FakeServer(FakeConfig(builtin)) as srv:
        result = run_eval(replace(config(srv, tmp_path), data=None, concurrency=16))
    bad = [(r.id, r.error_type, r.error) for r in result.score.records if not r.valid]
    assert not bad
    assert result.selected == len(builtin)


def test_under_faults_every_item_ends_once_and_a_resumed_run_completes_it(server, tmp_path):
    server.config.faults.update(
        {
            "run_simple_0": ["429", "429"],
            "run_simple_1": ["500"],
            "run_simple_2": ["503"],
            "run_simple_3": ["drop"],
            "run_multiple_0": ["malformed"],
            "run_multiple_1": ["slow"],  # past the 0.5 s timeout
            "run_parallel_0": ["truncated"],  # answered, but the answer is cut: parse_error
            "run_parallel_1": ["503", "503", "503"],  # more than max_retries=2: request_error
            "run_parallel_2": ["400"],  # never retried: request_error
        }
    )
    first = run_eval(config(server, tmp_path))
    records = outputs(first.run_dir)
    ids = [r["id"] for r in records]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 16  # each item exactly once
    failed = {r["id"] for r in records if r["error"]}
    assert failed == {"run_parallel_1", "run_parallel_2"}
    # Why the model stopped is kept: a cut answer says "length", not just parse_error.
    reasons = {r["id"]: r["finish_reason"] for r in records}
    assert reasons["run_parallel_0"] == "length" and reasons["run_simple_1"] == "tool_calls"
    assert reasons["run_parallel_2"] is None
    assert first.request_errors == 2
    assert asked(server).count("run_parallel_2") == 1
    assert asked(server).count("run_parallel_1") == 3
    assert asked(server).count("run_simple_0") == 3
    by_id = {r.id: r for r in first.score.records}
    assert by_id["run_parallel_0"].error_type == "parse_error"
    assert by_id["run_parallel_1"].error_type == "request_error"
    assert all(
        r.valid
        for r in first.score.records
        if r.id not in {"run_parallel_0", "run_parallel_1", "run_parallel_2"}
    )

    server.log.clear()
    second = run_eval(config(server, tmp_path))
    assert sorted(asked(server)) == ["run_parallel_1", "run_parallel_2"]
    assert (second.resumed, second.asked, second.request_errors) == (14, 2, 0)
    assert [r.id for r in second.score.records if not r.valid] == ["run_parallel_0"]
    # Re-asked request errors are appended: their ids are on two lines, first the request
    # error, then the answer. That is a resume, not a duplicate: nothing to warn about.
    ids = [r["id"] for r in outputs(second.run_dir)]
    assert (
        sorted(i for i in ids if ids.count(i) > 1)
        == ["run_parallel_1"] * 2 + ["run_parallel_2"] * 2
    )
    assert second.score.warnings == ()
    meta = json.loads((second.run_dir / "run.json").read_text())
    assert [s["status"] for s in meta["sessions"]] == ["sent", "sent"]


def test_retry_after_is_honoured(dataset, tmp_path):
    with FakeServer(
        FakeConfig(dataset, retry_after_s=0.4, faults={"run_simple_0": ["429"]})
    ) as srv:
        run_eval(
            config(
                srv,
                tmp_path,
                ids=("run_simple_0",),
                retry=RetryPolicy(max_retries=2, base_delay_s=0.0),
            )
        )
        first, second = srv.requests_for("run_simple_0")
    assert second.at - first.at >= 0.4


@pytest.mark.parametrize(
    ("fault", "param"),
    [("400_temperature", "temperature"), ("400_parallel", "parallel_tool_calls")],
)
def test_a_refused_request_field_is_dropped_for_the_run_and_recorded(
    dataset, tmp_path, fault, param
):
    failing = {"run_parallel_2": ["503"] * 3}  # a request_error, asked again on resume
    with FakeServer(FakeConfig(dataset, always=(fault,), faults=failing)) as srv:
        first = run_eval(config(srv, tmp_path))
        log = list(srv.log)
        srv.log.clear()
        result = run_eval(config(srv, tmp_path))
        (again,) = srv.log
    assert first.request_errors == 1
    assert again.item_id == "run_parallel_2" and param not in again.body  # still dropped
    assert result.score.summary["overall"]["micro"]["accuracy"] == 1.0
    refused = [r for r in log if r.fault == fault]
    assert 1 <= len(refused) <= 4  # at most the requests in flight when it was refused
    # Once dropped, new requests go without it (a retry resends the request it retries).
    assert all(param not in r.body for r in log[-5:] if r.item_id != "run_parallel_2")
    meta = json.loads((result.run_dir / "run.json").read_text())
    assert meta["request_notes"][param].startswith("dropped: HTTP 400")
    assert param in meta["dropped_params"]
    assert meta["request_options"]["temperature"] == 0.0  # what was asked stays recorded
    assert any(note.startswith(f"{param} dropped") for note in result.notes)


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ("401", "OPENAI_API_KEY"),
        ("404", "/models"),
        ("429_quota", "quota"),
        ("vllm_no_tool_parser", "--enable-auto-tool-choice --tool-call-parser"),
        ("llamacpp_no_jinja", "--jinja"),
    ],
)
def test_errors_that_concern_every_item_stop_the_run_at_once(dataset, tmp_path, fault, says):
    with FakeServer(FakeConfig(dataset, always=(fault,))) as srv:
        with pytest.raises(RunError) as info:
            run_eval(config(srv, tmp_path))
        assert len(srv.log) <= 4  # the first requests only, none retried
    assert says in str(info.value)
    assert "run the same command again" in str(info.value)
    run_dir = tmp_path / "openai-fake-model-fc"
    assert (run_dir / "outputs.jsonl").read_text() == ""
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["status"] == "stopped" and meta["sessions"][0]["error"]


def test_a_start_where_every_item_fails_stops_early_and_resumes(dataset, tmp_path):
    with FakeServer(FakeConfig(dataset, always=("503",))) as srv:
        cfg = config(srv, tmp_path, retry=RetryPolicy(max_retries=0), concurrency=2)
        with pytest.raises(RunError, match="the first 5 items all failed"):
            run_eval(cfg)
        written = outputs(tmp_path / "openai-fake-model-fc")
        assert 5 <= len(written) < 16 and all(r["error"] for r in written)
        srv.config.always = ()
        result = run_eval(cfg)
    assert result.score.summary["overall"]["micro"]["accuracy"] == 1.0
    assert result.asked == 16  # the failed items were asked again


def test_resume_refuses_a_different_run_and_force_starts_over(server, tmp_path):
    run_eval(config(server, tmp_path))
    changed = config(
        server,
        tmp_path,
        request=RequestOptions(temperature=0.5),
        categories=frozenset({Category.SIMPLE}),
    )
    with pytest.raises(RunError) as info:
        run_eval(changed)
    message = str(info.value)
    assert "request option temperature: 0.0 (saved) vs 0.5 (now)" in message
    assert (
        "categories (--category): simple, multiple, parallel, parallel_multiple, irrelevance "
        "(saved) vs simple (now)"
    ) in message
    assert "selected items differ" not in message  # the option that chose them is named
    assert "--force" in message
    server.log.clear()
    result = run_eval(replace(changed, force=True))
    assert len(server.log) == 5 and result.selected == 5
    assert len(outputs(result.run_dir)) == 5


@pytest.mark.parametrize(
    ("first", "then", "says"),
    [
        ({"limit": 2}, {"limit": 3}, "--limit: 2 (saved) vs 3 (now)"),
        ({"limit": 2}, {}, "--limit: 2 (saved) vs none (all items) (now)"),
        (
            {"ids": ("run_simple_0", "run_simple_1")},
            {"ids": ("run_simple_0",)},
            "--ids: run_simple_0, run_simple_1 (saved) vs run_simple_0 (now)",
        ),
    ],
)
def test_resume_names_the_selection_option_that_changed(server, tmp_path, first, then, says):
    run_eval(config(server, tmp_path, **first))
    with pytest.raises(RunError) as info:
        run_eval(config(server, tmp_path, **then))
    lines = str(info.value).splitlines()
    assert f"  {says}" in lines
    assert not [line for line in lines if "selected items differ" in line]


def _resumed_after(server, tmp_path, kept: int, tail: Callable[[str], str], asks: int) -> Any:
    """A run, its outputs.jsonl cut to `kept` lines and then `tail` of the next one, and
    the resumed run, which must ask exactly the items of the lines from line `asks` on
    (counted from 0)."""
    first = run_eval(config(server, tmp_path))
    path = first.run_dir / "outputs.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:kept]) + tail(lines[kept]))
    server.log.clear()
    second = run_eval(config(server, tmp_path))
    assert sorted(asked(server)) == sorted(json.loads(line)["id"] for line in lines[asks:])
    ids = [r["id"] for r in outputs(second.run_dir)]
    assert len(ids) == len(set(ids)) == 16
    assert second.score.summary["overall"]["micro"]["accuracy"] == 1.0
    return second


def test_resume_cuts_a_torn_line_and_asks_only_what_is_missing(server, tmp_path):
    # Killed while writing line 11.
    second = _resumed_after(server, tmp_path, 10, lambda line: line[:25], asks=10)
    assert not second.score.warnings or "incomplete" not in " ".join(second.score.warnings)


def test_a_whole_last_line_without_its_newline_is_kept_not_cut(server, tmp_path):
    # `truncate -s -1`, an editor: the line is whole, so a resume counts its item answered;
    # it was then cut before appending, and its item scored missing without being asked.
    _resumed_after(server, tmp_path, 12, lambda line: line.rstrip("\n"), asks=13)


def test_items_are_selected_by_category_ids_and_a_limit_per_category(dataset, tmp_path):
    base = RunConfig(model="openai/m", data=DATA)
    assert len(select_ids(dataset, base)) == 16
    limited = select_ids(dataset, replace(base, limit=2))
    assert len(limited) == 10  # two of each of the five categories
    cats = replace(base, categories=frozenset({Category.PARALLEL, Category.SIMPLE}), limit=1)
    assert select_ids(dataset, cats) == ["run_parallel_0", "run_simple_0"]
    ids = replace(base, ids=("run_multiple_2", "run_simple_1"))
    assert select_ids(dataset, ids) == ["run_multiple_2", "run_simple_1"]
    with pytest.raises(UsageError, match="nope"):
        select_ids(dataset, replace(base, ids=("nope",)))
    elsewhere = frozenset({Category.PARALLEL, Category.MULTIPLE})
    with pytest.raises(UsageError) as info:
        select_ids(
            dataset, replace(base, ids=("run_simple_1", "run_simple_2"), categories=elsewhere)
        )
    assert str(info.value) == (
        "no items selected: --ids run_simple_1, run_simple_2 are in simple, not in "
        "--category multiple, parallel"
    )
    # No category given is every category, as `--category ""` is.
    assert select_ids(dataset, replace(base, categories=frozenset(), limit=1)) == (
        select_ids(dataset, replace(base, limit=1))
    )


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_the_dumped_request_is_exactly_what_is_sent(server, tmp_path, sdk):
    cfg = config(server, tmp_path, sdk, ids=("run_parallel_multiple_2",))
    dumped = dump_request(cfg, "run_parallel_multiple_2")
    assert not server.log  # nothing sent
    assert dumped["headers"]["Authorization"].startswith("Bearer <$")
    run_eval(cfg)
    (sent,) = server.log
    assert sent.body == dumped["body"]
    assert sent.path.endswith(dumped["url"].split("127.0.0.1")[1].split("/", 1)[1])
