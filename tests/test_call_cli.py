"""`tfce-eval call`: run one function from the shell, result as JSON on stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.messages import unfold
from tfce_eval.cli import main
from tfce_eval.exec.records import default_functions_dir

HOSTILE = Path(__file__).parent / "fixtures" / "hostile_functions"


def invoke(*args: str) -> tuple[int, str, str]:
    """`tfce-eval call ARGS` on the hostile functions; stderr read back unfolded (and so
    checked to fit 80 columns)."""
    result = CliRunner().invoke(main, ["call", *args, "--functions", str(HOSTILE)])
    err = unfold(result.stderr)
    return result.exit_code, result.stdout, err + "\n" if err else ""


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("add(a=1, b=2)", 3),
        ("add(a=1.5)", 1.5),
        ("units.double(x=-2)", -4),
        ("greet(name='北京')", "北京!"),
        ("pair(x=7)", [7, [7, [7]]]),
        ("[hidden.secret()]", "secret"),
    ],
)
def test_prints_the_result_as_json(text: str, printed: object) -> None:
    code, out, err = invoke(text)
    assert (code, err) == (0, "")
    assert json.loads(out) == printed
    assert "\\u" not in out  # Chinese stays readable


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("boom(message='bad')", 'error: boom(message="bad") raised ValueError: bad\n'),
        ("secret()", "error: secret() is not implemented: secret is not defined"),
        ("_private()", "error: _private() is not implemented: '_private' is private"),
        ("add(1, 2)", "error: cannot read the call: "),
        ("add(a=__import__('os'))", "error: cannot read the call: "),
        ("add(a=1); add(a=2)", "error: expected exactly one call, got 2\n"),
        ("chatty(text='x')", None),
    ],
)
def test_errors_go_to_stderr_with_exit_1(text: str, message: str | None) -> None:
    code, out, err = invoke(text)
    if message is None:  # chatty succeeds, and its printing reaches neither stream
        assert (code, out, err) == (0, '"X"\n', "")
        return
    assert (code, out) == (1, "")
    assert err.startswith(message)


def test_the_time_limit_is_an_option() -> None:
    code, out, err = invoke("forever()", "--exec-timeout", "0.5")
    assert (code, out) == (1, "")
    assert err == "error: forever() timed out after 0.5 s\n"


def test_a_broken_functions_dir_is_reported(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("import nowhere_to_be_found\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["call", "f(a=1)", "--functions", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stdout == ""
    err = unfold(result.stderr)
    assert "ModuleNotFoundError" in err and "__init__.py" in err


def test_the_builtin_functions_are_the_default() -> None:
    functions = default_functions_dir(None)
    assert functions is not None and (functions / "units.py").is_file()
    result = CliRunner().invoke(main, ["call", "units.dbm_to_watts(power_dbm=30)"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert json.loads(result.stdout) == pytest.approx(1.0)


def test_a_nan_result_is_printed_as_strict_json(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text(
        "def odd(x):\n    return [float('nan'), float('inf'), x]\n", encoding="utf-8"
    )
    result = CliRunner().invoke(main, ["call", "odd(x=1)", "--functions", str(tmp_path)])
    assert result.exit_code == 0, result.output
    # Python would read a bare NaN back as a float; strict JSON readers refuse it.
    assert json.loads(result.stdout) == ["NaN", "Infinity", 1]
