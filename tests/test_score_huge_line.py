"""An outputs line longer than any answer can take: a parse_error of its item, found
without building the answer; every other line is read and scored as ever."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tests.gt_outputs import write_perfect_outputs
from tfce_eval.cli import main
from tfce_eval.dataset.load import load_dataset

#: 16 bytes per character of the decoder's 2,000,000 (docs/decoding.md 4.5).
LONGEST = 32_000_000


def _score(outputs: Path, out: Path) -> tuple[Any, dict[str, dict[str, Any]]]:
    result = CliRunner().invoke(
        main, ["score", str(outputs), "--out", str(out), "--check", "ast"], catch_exceptions=False
    )
    rows = {}
    if (out / "scores.jsonl").exists():
        for line in (out / "scores.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[row["id"]] = row
    return result, rows


def _outputs(tmp_path: Path, huge: bytes) -> tuple[Path, str, str]:
    """Perfect answers, the first item's line replaced by `huge` (its id first)."""
    outputs = write_perfect_outputs(load_dataset(), tmp_path / "gt.jsonl")
    lines = outputs.read_bytes().splitlines(keepends=True)
    first, second = (json.loads(line)["id"] for line in lines[:2])
    lines[0] = b'{"id": "%s", ' % first.encode() + huge
    outputs.write_bytes(b"".join(lines))
    return outputs, first, second


def test_a_line_too_long_for_any_answer_is_its_items_parse_error(tmp_path: Path) -> None:
    call = b'{"name": "f", "arguments": {}}, '
    calls = b'"calls": [' + call * (LONGEST // len(call)) + b'{"name": "f"}]}\n'
    outputs, first, second = _outputs(tmp_path, calls)
    size = len(outputs.read_bytes().splitlines(keepends=True)[0])
    assert size > LONGEST
    result, rows = _score(outputs, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert rows[first]["error_type"] == "parse_error"
    assert rows[first]["error"] == (
        f"answer too large: its line is {size} bytes, more than the {LONGEST} an answer "
        "of 2000000 characters can take"
    )
    assert rows[second]["valid"] is True
    assert sum(not row["valid"] for row in rows.values()) == 1


def test_a_line_within_the_bound_is_read_whole(tmp_path: Path) -> None:
    """Just under the bound, a long text answer is decoded as ever (and refused by its
    own size, which names the characters)."""
    text = b'"text": "' + b"x" * (LONGEST - 200) + b'"}\n'
    outputs, first, second = _outputs(tmp_path, text)
    assert len(outputs.read_bytes().splitlines()[0]) <= LONGEST
    result, rows = _score(outputs, tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert rows[first]["error"] == "answer too large: 31999800 characters, limit 2000000"
    assert rows[second]["valid"] is True


def test_a_huge_line_that_is_not_json_stops_the_score_as_any_line(tmp_path: Path) -> None:
    text = b'"text": "' + b"x" * LONGEST + b'", }\n'
    outputs, _, _ = _outputs(tmp_path, text)
    result, rows = _score(outputs, tmp_path / "out")
    assert result.exit_code == 1
    assert "line 1" in result.output and "malformed JSON" in result.output, result.output
    assert rows == {}
