"""The library's contract with the harness: names, signatures, imports, types, JSON results."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

PackageLoader = tuple[Callable[[Path, str], ModuleType], Callable[[str], None]]

# The 28 functions of notes/functions_sigs.md, exactly as listed there.
SIGNATURES = {
    "nr_arfcn_to_frequency": "(nr_arfcn: int) -> float",
    "frequency_to_nr_arfcn": "(frequency_mhz: float) -> int",
    "lte_earfcn_to_frequency": "(earfcn: int) -> float",
    "max_resource_blocks": (
        "(bandwidth_mhz: int, scs_khz: int, frequency_range: str = 'FR1') -> int"
    ),
    "free_space_path_loss": "(frequency_ghz: float, distance_m: float) -> float",
    "path_loss_38901": (
        "(scenario: str, frequency_ghz: float, distance_2d_m: float, h_bs_m: float, "
        "h_ut_m: float, los: bool) -> float"
    ),
    "shannon_capacity": "(bandwidth_hz: float, snr_db: float) -> float",
    "nr_peak_data_rate": (
        "(layers: int, modulation_order: int, scaling_factor: float, max_rbs: int, "
        "scs_khz: int, direction: str = 'downlink', frequency_range: str = 'FR1') -> float"
    ),
    "rsrq_db": "(rsrp_dbm: float, rssi_dbm: float, n_rb: int) -> float",
    "thermal_noise_dbm": "(bandwidth_hz: float, noise_figure_db: float = 0.0) -> float",
    "lte_transmission_bandwidth_rbs": "(channel_bandwidth_mhz: float) -> int",
    "nr_slot_duration_ms": "(scs_khz: int) -> float",
    "gscn_to_frequency": "(gscn: int) -> float",
    "link_budget_max_path_loss": (
        "(tx_power_dbm: float, tx_antenna_gain_dbi: float, rx_antenna_gain_dbi: float, "
        "rx_sensitivity_dbm: float, cable_loss_db: float = 0.0, fade_margin_db: float = 0.0)"
        " -> float"
    ),
    "sinr_db": "(signal_dbm: float, interference_dbm: float, noise_dbm: float) -> float",
    "fresnel_zone_radius": (
        "(frequency_ghz: float, d1_m: float, d2_m: float, zone: int = 1) -> float"
    ),
    "okumura_hata_path_loss": (
        "(frequency_mhz: float, distance_km: float, h_bs_m: float, h_ms_m: float, "
        "area: str = 'urban') -> float"
    ),
    "nb_iot_max_coupling_loss": (
        "(tx_power_dbm: float, noise_figure_db: float, bandwidth_hz: float, "
        "required_sinr_db: float, rx_antenna_gain_dbi: float = 0.0) -> float"
    ),
    "lora_time_on_air_ms": (
        "(payload_bytes: int, spreading_factor: int, bandwidth_khz: float = 125.0, "
        "coding_rate: int = 1, preamble_symbols: int = 8, explicit_header: bool = True, "
        "crc: bool = True) -> float"
    ),
    "t3412_extended_seconds": "(unit: int, value: int) -> int",
    "t3324_seconds": "(unit: int, value: int) -> int",
    "qos_5qi_characteristics": "(five_qi: int) -> dict[str, str | int | float]",
    "parse_imsi": "(imsi: str, mnc_length: int = 2) -> dict[str, str]",
    "kdf_hmac_sha256": "(key_hex: str, fc: int, parameters: list[str]) -> str",
    "security_algorithm_name": "(algorithm_type: str, identifier: int) -> str",
    "eirp_dbm": "(tx_power_dbm: float, antenna_gain_dbi: float, cable_loss_db: float = 0.0)"
    " -> float",
    "units.dbm_to_watts": "(power_dbm: float) -> float",
    "units.watts_to_dbm": "(power_w: float) -> float",
}

# One valid keyword call per function, used for the generic checks below.
VALID_CALLS: dict[str, dict[str, Any]] = {
    "nr_arfcn_to_frequency": {"nr_arfcn": 632628},
    "frequency_to_nr_arfcn": {"frequency_mhz": 3489.42},
    "lte_earfcn_to_frequency": {"earfcn": 1300},
    "max_resource_blocks": {"bandwidth_mhz": 100, "scs_khz": 30, "frequency_range": "FR1"},
    "free_space_path_loss": {"frequency_ghz": 3.5, "distance_m": 500.0},
    "path_loss_38901": {
        "scenario": "UMi",
        "frequency_ghz": 3.5,
        "distance_2d_m": 150.0,
        "h_bs_m": 10.0,
        "h_ut_m": 1.5,
        "los": False,
    },
    "shannon_capacity": {"bandwidth_hz": 20e6, "snr_db": 15.0},
    "nr_peak_data_rate": {
        "layers": 4,
        "modulation_order": 8,
        "scaling_factor": 1.0,
        "max_rbs": 273,
        "scs_khz": 30,
        "direction": "downlink",
        "frequency_range": "FR1",
    },
    "rsrq_db": {"rsrp_dbm": -95.0, "rssi_dbm": -65.0, "n_rb": 100},
    "thermal_noise_dbm": {"bandwidth_hz": 180e3, "noise_figure_db": 5.0},
    "lte_transmission_bandwidth_rbs": {"channel_bandwidth_mhz": 1.4},
    "nr_slot_duration_ms": {"scs_khz": 120},
    "gscn_to_frequency": {"gscn": 7711},
    "link_budget_max_path_loss": {
        "tx_power_dbm": 46.0,
        "tx_antenna_gain_dbi": 17.0,
        "rx_antenna_gain_dbi": 0.0,
        "rx_sensitivity_dbm": -110.0,
        "cable_loss_db": 2.0,
        "fade_margin_db": 8.0,
    },
    "sinr_db": {"signal_dbm": -85.0, "interference_dbm": -95.0, "noise_dbm": -100.0},
    "fresnel_zone_radius": {"frequency_ghz": 18.0, "d1_m": 3000.0, "d2_m": 1000.0, "zone": 1},
    "okumura_hata_path_loss": {
        "frequency_mhz": 800.0,
        "distance_km": 3.0,
        "h_bs_m": 40.0,
        "h_ms_m": 1.5,
        "area": "suburban",
    },
    "nb_iot_max_coupling_loss": {
        "tx_power_dbm": 23.0,
        "noise_figure_db": 3.0,
        "bandwidth_hz": 15000.0,
        "required_sinr_db": -8.0,
        "rx_antenna_gain_dbi": 0.0,
    },
    "lora_time_on_air_ms": {
        "payload_bytes": 20,
        "spreading_factor": 9,
        "bandwidth_khz": 125.0,
        "coding_rate": 2,
        "preamble_symbols": 8,
        "explicit_header": True,
        "crc": True,
    },
    "t3412_extended_seconds": {"unit": 2, "value": 3},
    "t3324_seconds": {"unit": 1, "value": 2},
    "qos_5qi_characteristics": {"five_qi": 83},
    "parse_imsi": {"imsi": "460011234567890", "mnc_length": 2},
    "kdf_hmac_sha256": {"key_hex": "11" * 32, "fc": 0x6C, "parameters": ["00", "0001"]},
    "security_algorithm_name": {"algorithm_type": "integrity", "identifier": 2},
    "eirp_dbm": {"tx_power_dbm": 40.0, "antenna_gain_dbi": 15.0, "cable_loss_db": 1.0},
    "units.dbm_to_watts": {"power_dbm": 33.0},
    "units.watts_to_dbm": {"power_w": 2.0},
}


def resolve(fn: ModuleType, name: str) -> Callable[..., Any]:
    """Look a name up as the harness does: undotted on the package, dotted as a module path."""
    if "." in name:
        module_path, attribute = name.rsplit(".", 1)
        module = importlib.import_module(f"{fn.__name__}.{module_path}")
        return getattr(module, attribute)  # type: ignore[no-any-return]
    return getattr(fn, name)  # type: ignore[no-any-return]


def test_the_28_functions_are_listed_once() -> None:
    assert len(SIGNATURES) == 28
    assert SIGNATURES.keys() == VALID_CALLS.keys()


def test_package_exports_exactly_the_undotted_functions(fn: ModuleType) -> None:
    undotted = sorted(name for name in SIGNATURES if "." not in name)
    assert len(undotted) == 26
    assert sorted(fn.__all__) == undotted


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signature_is_exactly_as_listed(fn: ModuleType, name: str) -> None:
    function = resolve(fn, name)
    assert str(inspect.signature(function, eval_str=True)) == SIGNATURES[name]
    for parameter in inspect.signature(function).parameters.values():
        assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_docstring_cites_source_and_units(fn: ModuleType, name: str) -> None:
    doc = inspect.getdoc(resolve(fn, name)) or ""
    assert "Source:" in doc
    assert "Returns:" in doc
    for parameter in inspect.signature(resolve(fn, name)).parameters:
        assert f"{parameter}:" in doc, f"{name} does not document {parameter}"


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_valid_call_is_deterministic_and_json_like(fn: ModuleType, name: str) -> None:
    function = resolve(fn, name)
    first = function(**VALID_CALLS[name])
    second = function(**VALID_CALLS[name])
    assert first == second
    assert type(first) in (int, float, str, dict)
    assert json.loads(json.dumps(first, allow_nan=False)) == first


def _numeric_parameters(function: Callable[..., Any]) -> list[str]:
    signature = inspect.signature(function, eval_str=True)
    return [p.name for p in signature.parameters.values() if p.annotation in (int, float)]


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_every_numeric_parameter_rejects_bool_and_str(fn: ModuleType, name: str) -> None:
    function = resolve(fn, name)
    numeric = _numeric_parameters(function)
    for parameter in numeric:
        for bad in (True, "1", None):
            with pytest.raises(ValueError, match=parameter):
                function(**{**VALID_CALLS[name], parameter: bad})


@pytest.mark.parametrize("name", sorted(VALID_CALLS))
def test_float_parameters_accept_int(fn: ModuleType, name: str) -> None:
    function = resolve(fn, name)
    signature = inspect.signature(function, eval_str=True)
    for parameter in signature.parameters.values():
        value = VALID_CALLS[name].get(parameter.name)
        if parameter.annotation is float and isinstance(value, float) and value.is_integer():
            as_int = {**VALID_CALLS[name], parameter.name: int(value)}
            assert function(**as_int) == function(**VALID_CALLS[name])


def test_unknown_keyword_is_a_type_error(fn: ModuleType) -> None:
    with pytest.raises(TypeError):
        fn.nr_arfcn_to_frequency(arfcn=600000)


def test_loads_under_another_private_name(
    fn: ModuleType, functions_dir: Path, package_loader: PackageLoader
) -> None:
    load, unload = package_loader
    other = load(functions_dir, "_tfce_functions_second_copy")
    try:
        assert other is not fn
        assert other.gscn_to_frequency(gscn=7499) == fn.gscn_to_frequency(gscn=7499)
        assert "functions" not in sys.modules or sys.modules["functions"] is not other
    finally:
        unload("_tfce_functions_second_copy")


def _module_files(functions_dir: Path) -> list[Path]:
    return sorted(functions_dir.glob("*.py"))


def test_modules_use_only_stdlib_and_relative_imports(functions_dir: Path) -> None:
    for path in _module_files(functions_dir):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    assert top in sys.stdlib_module_names, f"{path.name}: import {alias.name}"
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                top = (node.module or "").split(".")[0]
                assert top == "__future__" or top in sys.stdlib_module_names, (
                    f"{path.name}: from {node.module} import ..."
                )


def test_units_module_imports_nothing_from_the_package(functions_dir: Path) -> None:
    tree = ast.parse((functions_dir / "units.py").read_text(encoding="utf-8"))
    relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0]
    assert relative == []


def test_modules_are_small_and_documented(functions_dir: Path) -> None:
    for path in _module_files(functions_dir):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) < 400, path.name
        assert ast.get_docstring(ast.parse(text)), f"{path.name} has no module docstring"


def test_readme_lists_every_function(functions_dir: Path) -> None:
    readme = (functions_dir / "README.md").read_text(encoding="utf-8")
    for name in SIGNATURES:
        assert f"`{name}`" in readme, name
