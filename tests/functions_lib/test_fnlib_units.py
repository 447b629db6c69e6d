"""units.dbm_to_watts / units.watts_to_dbm, loaded as the package's submodule and alone."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def units_alone(functions_dir: Path) -> ModuleType:
    """units.py loaded from its file as a top-level module, outside any package."""
    spec = importlib.util.spec_from_file_location("_tfce_units_alone", functions_dir / "units.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# P_W = 10^((dBm - 30) / 10).
DBM_TO_W = [
    pytest.param(30, 1.0, id="30dBm-1W"),
    pytest.param(0, 1e-3, id="0dBm-1mW"),
    pytest.param(43, 19.952623149688797, id="43dBm-macro"),
    pytest.param(-30, 1e-6, id="-30dBm-1uW"),
    pytest.param(46.0, 39.810717055349734, id="46dBm"),
]


@pytest.mark.parametrize(("dbm", "watts"), DBM_TO_W)
def test_dbm_to_watts(units: ModuleType, dbm: float, watts: float) -> None:
    assert units.dbm_to_watts(power_dbm=dbm) == pytest.approx(watts, rel=1e-12)


@pytest.mark.parametrize(("dbm", "watts"), DBM_TO_W)
def test_dbm_to_watts_standalone(units_alone: ModuleType, dbm: float, watts: float) -> None:
    assert units_alone.dbm_to_watts(power_dbm=dbm) == pytest.approx(watts, rel=1e-12)


# P_dBm = 10 log10(P_W) + 30.
@pytest.mark.parametrize(
    ("watts", "dbm"),
    [
        pytest.param(1, 30.0, id="1W"),
        pytest.param(0.001, 0.0, id="1mW"),
        pytest.param(20, 43.01029995663981, id="20W"),
        pytest.param(0.2, 23.010299956639813, id="200mW-UE"),
        pytest.param(1e-15, -120.0, id="1fW"),
    ],
)
def test_watts_to_dbm(units: ModuleType, watts: float, dbm: float) -> None:
    assert units.watts_to_dbm(power_w=watts) == pytest.approx(dbm, abs=1e-12)


def test_round_trip(units: ModuleType) -> None:
    for dbm in (-150.0, -10.5, 0.0, 23.0, 60.0):
        assert units.watts_to_dbm(power_w=units.dbm_to_watts(power_dbm=dbm)) == pytest.approx(dbm)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (0, "power_w must be a number > 0"),
        (-1.0, "power_w must be a number > 0"),
        (math.inf, "finite"),
        (True, "power_w must be a finite number"),
        ("1", "power_w must be a finite number"),
    ],
)
def test_watts_to_dbm_rejects(units: ModuleType, bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        units.watts_to_dbm(power_w=bad)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (math.nan, "power_dbm must be a finite number"),
        (False, "power_dbm must be a finite number"),
        (None, "power_dbm"),
        (1e6, "too large"),
    ],
)
def test_dbm_to_watts_rejects(units: ModuleType, bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        units.dbm_to_watts(power_dbm=bad)
