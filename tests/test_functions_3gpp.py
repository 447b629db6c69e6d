"""The telecom function library recomputed from the 3GPP specifications.

TR 38.901's breakpoint distance (c = 3.0e8 m/s), refusals that must be ValueErrors (huge
integers, whole-float bandwidths, sub-λ/4π free-space distances, RSRP above RSSI), the
5G-only algorithm names and one meaning of "FR2" in the two NR functions. The expected
values are worked out here from the specifications' formulas, not by calling the library.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS_DIR = ROOT / "functions"
PACKAGE = "_tfce_functions_3gpp_under_test"


@pytest.fixture(scope="module")
def fn() -> Iterator[ModuleType]:
    """The library loaded as the harness loads it: from its directory, under a private name."""
    spec = importlib.util.spec_from_file_location(
        PACKAGE, FUNCTIONS_DIR / "__init__.py", submodule_search_locations=[str(FUNCTIONS_DIR)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    spec.loader.exec_module(module)
    yield module
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
        del sys.modules[name]


def resolve(fn: ModuleType, name: str) -> Callable[..., Any]:
    """A function by its dataset name: undotted on the package, dotted by module path."""
    if "." in name:
        module_name, attribute = name.rsplit(".", 1)
        module = importlib.import_module(f"{fn.__name__}.{module_name}")
        return getattr(module, attribute)  # type: ignore[no-any-return]
    return getattr(fn, name)  # type: ignore[no-any-return]


# ---- 21: TR 38.901 Table 7.4.1-1, breakpoint distance with c = 3.0e8 m/s

C_BREAKPOINT = 3.0e8  # Table 7.4.1-1 note 1: the value of c in d'_BP
C_EXACT = 299_792_458.0  # SI; what free-space loss and Fresnel radii use
H_E = 1.0  # effective environment height


def table_7_4_1_1(
    scenario: str, fc: float, d_2d: float, h_bs: float, h_ut: float, los: bool
) -> float:
    """TR 38.901 Table 7.4.1-1 written out: UMa and UMi-Street Canyon, fc in GHz, metres."""
    d_3d = math.sqrt(d_2d**2 + (h_bs - h_ut) ** 2)
    d_bp = 4 * (h_bs - H_E) * (h_ut - H_E) * (fc * 1e9) / C_BREAKPOINT
    if scenario == "UMa":
        if d_2d <= d_bp:
            pl_los = 28.0 + 22 * math.log10(d_3d) + 20 * math.log10(fc)
        else:
            pl_los = (
                28.0
                + 40 * math.log10(d_3d)
                + 20 * math.log10(fc)
                - 9 * math.log10(d_bp**2 + (h_bs - h_ut) ** 2)
            )
        pl_nlos = 13.54 + 39.08 * math.log10(d_3d) + 20 * math.log10(fc) - 0.6 * (h_ut - 1.5)
    else:
        if d_2d <= d_bp:
            pl_los = 32.4 + 21 * math.log10(d_3d) + 20 * math.log10(fc)
        else:
            pl_los = (
                32.4
                + 40 * math.log10(d_3d)
                + 20 * math.log10(fc)
                - 9.5 * math.log10(d_bp**2 + (h_bs - h_ut) ** 2)
            )
        pl_nlos = 35.3 * math.log10(d_3d) + 22.4 + 21.3 * math.log10(fc) - 0.3 * (h_ut - 1.5)
    return pl_los if los else max(pl_los, pl_nlos)


def path_loss(fn: ModuleType, args: tuple[str, float, float, float, float, bool]) -> float:
    names = ("scenario", "frequency_ghz", "distance_2d_m", "h_bs_m", "h_ut_m", "los")
    return fn.path_loss_38901(**dict(zip(names, args, strict=True)))  # type: ignore[no-any-return]


def test_uma_los_beyond_the_breakpoint_is_the_tables_value(fn: ModuleType) -> None:
    # d'_BP = 4 x 24 x 0.5 x 3.5e9 / 3e8 = 560 m exactly, so 1000 m is on PL2.
    args = ("UMa", 3.5, 1000.0, 25.0, 1.5, True)
    assert path_loss(fn, args) == pytest.approx(109.41189, abs=1e-4)
    assert path_loss(fn, args) == pytest.approx(table_7_4_1_1(*args), rel=1e-12)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("UMa", 0.5, 5000.0, 25.0, 22.5, True), id="UMa-LOS-0.5GHz-dBP-3440m"),
        pytest.param(("UMa", 28.0, 5000.0, 25.0, 1.5, True), id="UMa-LOS-28GHz-dBP-4480m"),
        # Between 560 m (c = 3e8) and 560.39 m (exact c): PL2 by the table, not PL1.
        pytest.param(("UMa", 3.5, 560.2, 25.0, 1.5, True), id="UMa-LOS-just-past-dBP"),
        pytest.param(("UMa", 3.5, 1000.0, 25.0, 1.5, False), id="UMa-NLOS"),
        pytest.param(("UMi", 3.5, 500.0, 10.0, 1.5, True), id="UMi-LOS-dBP-210m"),
        pytest.param(("UMi", 28.0, 2000.0, 10.0, 1.5, True), id="UMi-LOS-28GHz-dBP-1680m"),
        pytest.param(("UMi", 3.5, 500.0, 10.0, 1.5, False), id="UMi-NLOS"),
        pytest.param(("UMi", 3.5, 100.0, 10.0, 1.5, True), id="UMi-LOS-before-dBP"),
    ],
)
def test_path_loss_38901_follows_the_table(
    fn: ModuleType, args: tuple[str, float, float, float, float, bool]
) -> None:
    assert path_loss(fn, args) == pytest.approx(table_7_4_1_1(*args), rel=1e-12)


def test_path_loss_38901_is_continuous_at_the_560_m_breakpoint(fn: ModuleType) -> None:
    at = path_loss(fn, ("UMa", 3.5, 560.0, 25.0, 1.5, True))
    past = path_loss(fn, ("UMa", 3.5, 560.0 * (1 + 1e-12), 25.0, 1.5, True))
    assert at == pytest.approx(past, abs=1e-9)


def test_path_loss_38901_has_no_rma_and_says_so(fn: ModuleType) -> None:
    with pytest.raises(ValueError, match="scenario must be one of 'UMa', 'UMi'"):
        path_loss(fn, ("RMa", 3.5, 1000.0, 35.0, 1.5, True))


def test_free_space_and_fresnel_keep_the_exact_speed_of_light(fn: ModuleType) -> None:
    friis = 20 * math.log10(4 * math.pi * 1000.0 * 3.5e9 / C_EXACT)
    assert fn.free_space_path_loss(frequency_ghz=3.5, distance_m=1000.0) == pytest.approx(
        friis, rel=1e-12
    )
    radius = math.sqrt(C_EXACT / 10e9 * 5000.0 * 5000.0 / 10000.0)
    assert fn.fresnel_zone_radius(frequency_ghz=10.0, d1_m=5000.0, d2_m=5000.0) == pytest.approx(
        radius, rel=1e-12
    )


# ---- 22: huge integers, messages, whole floats, impossible inputs

# One valid keyword call per function: the sweeps below change one argument at a time.
VALID: dict[str, dict[str, Any]] = {
    "nr_arfcn_to_frequency": {"nr_arfcn": 632628},
    "frequency_to_nr_arfcn": {"frequency_mhz": 3489.42},
    "lte_earfcn_to_frequency": {"earfcn": 1300},
    "max_resource_blocks": {"bandwidth_mhz": 100, "scs_khz": 30, "frequency_range": "FR1"},
    "free_space_path_loss": {"frequency_ghz": 3.5, "distance_m": 500.0},
    "path_loss_38901": {
        "scenario": "UMa",
        "frequency_ghz": 3.5,
        "distance_2d_m": 1000.0,
        "h_bs_m": 25.0,
        "h_ut_m": 1.5,
        "los": True,
    },
    "shannon_capacity": {"bandwidth_hz": 20e6, "snr_db": 15.0},
    "nr_peak_data_rate": {
        "layers": 4,
        "modulation_order": 8,
        "scaling_factor": 1.0,
        "max_rbs": 273,
        "scs_khz": 30,
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
    },
    "sinr_db": {"signal_dbm": -85.0, "interference_dbm": -95.0, "noise_dbm": -100.0},
    "fresnel_zone_radius": {"frequency_ghz": 18.0, "d1_m": 3000.0, "d2_m": 1000.0},
    "okumura_hata_path_loss": {
        "frequency_mhz": 800.0,
        "distance_km": 3.0,
        "h_bs_m": 40.0,
        "h_ms_m": 1.5,
    },
    "nb_iot_max_coupling_loss": {
        "tx_power_dbm": 23.0,
        "noise_figure_db": 3.0,
        "bandwidth_hz": 15000.0,
        "required_sinr_db": -8.0,
    },
    "lora_time_on_air_ms": {"payload_bytes": 20, "spreading_factor": 9},
    "t3412_extended_seconds": {"unit": 2, "value": 3},
    "t3324_seconds": {"unit": 1, "value": 2},
    "qos_5qi_characteristics": {"five_qi": 83},
    "parse_imsi": {"imsi": "460011234567890"},
    "kdf_hmac_sha256": {"key_hex": "11" * 32, "fc": 0x6C, "parameters": ["00"]},
    "security_algorithm_name": {"algorithm_type": "integrity", "identifier": 2},
    "eirp_dbm": {"tx_power_dbm": 40.0, "antenna_gain_dbi": 15.0},
    "units.dbm_to_watts": {"power_dbm": 33.0},
    "units.watts_to_dbm": {"power_w": 2.0},
}


def _numeric(function: Callable[..., Any]) -> list[str]:
    signature = inspect.signature(function, eval_str=True)
    return [p.name for p in signature.parameters.values() if p.annotation in (int, float)]


def test_the_valid_calls_are_valid(fn: ModuleType) -> None:
    assert len(VALID) == 28
    for name, kwargs in VALID.items():
        result = resolve(fn, name)(**kwargs)
        assert json.loads(json.dumps(result, allow_nan=False)) == result, name


@pytest.mark.parametrize(
    "huge",
    [
        pytest.param(10**400, id="1e400"),
        pytest.param(-(10**400), id="-1e400"),
        # Beyond Python's int-to-str limit too: the message must not try to print it.
        pytest.param(10**5000, id="1e5000"),
    ],
)
def test_an_integer_beyond_the_float_range_is_a_value_error(fn: ModuleType, huge: int) -> None:
    checked = 0
    for name, kwargs in VALID.items():
        function = resolve(fn, name)
        for parameter in _numeric(function):
            # A ValueError, and the usual one: it names the parameter and what is valid.
            with pytest.raises(ValueError, match=rf"^{parameter} must be ") as caught:
                function(**{**kwargs, parameter: huge})
            assert str(caught.value).endswith(", too large for a float")
            checked += 1
    assert checked > 60


def test_a_huge_integer_is_described_not_printed(fn: ModuleType) -> None:
    with pytest.raises(ValueError) as caught:
        fn.free_space_path_loss(frequency_ghz=10**400, distance_m=1.0)
    assert str(caught.value) == (
        "frequency_ghz must be a finite number > 0 GHz; got an integer of about 10^400, too "
        "large for a float"
    )
    with pytest.raises(ValueError, match=r"^power_dbm must be a finite number; got an integer"):
        resolve(fn, "units.dbm_to_watts")(power_dbm=-(10**400))
    with pytest.raises(
        ValueError, match=r"^power_w must be a finite number; got an integer of about -10\^400,"
    ):
        resolve(fn, "units.watts_to_dbm")(power_w=-(10**400))
    with pytest.raises(ValueError, match=r"^nr_arfcn must be an integer >= 0 and <= 3279165; "):
        fn.nr_arfcn_to_frequency(nr_arfcn=10**5000)


def test_no_message_says_finite_number_finite(fn: ModuleType) -> None:
    for name, kwargs in VALID.items():
        function = resolve(fn, name)
        for parameter in _numeric(function):
            with pytest.raises(ValueError) as caught:
                function(**{**kwargs, parameter: "x"})
            message = str(caught.value)
            assert message.startswith(f"{parameter} must be "), message
            assert "finite number finite" not in message, message
            assert "integer finite" not in message, message


def test_a_parameter_without_a_range_names_its_unit_or_nothing(fn: ModuleType) -> None:
    with pytest.raises(ValueError) as caught:
        fn.shannon_capacity(bandwidth_hz=1e6, snr_db="x")
    assert str(caught.value) == "snr_db must be a finite number (dB); got str 'x'"
    with pytest.raises(ValueError) as caught:
        fn.nr_peak_data_rate(**{**VALID["nr_peak_data_rate"], "scaling_factor": "1"})
    assert str(caught.value) == "scaling_factor must be a finite number; got str '1'"


@pytest.mark.parametrize(
    ("bandwidth", "scs", "fr", "n_rb"),
    [(100.0, 30, "FR1", 273), (20.0, 15, "FR1", 106), (400.0, 120, "FR2", 264)],
)
def test_max_resource_blocks_takes_a_whole_float_bandwidth(
    fn: ModuleType, bandwidth: float, scs: int, fr: str, n_rb: int
) -> None:
    result = fn.max_resource_blocks(bandwidth_mhz=bandwidth, scs_khz=scs, frequency_range=fr)
    assert result == n_rb
    assert type(result) is int


@pytest.mark.parametrize("bad", [20.5, math.nan, math.inf, 1e300, -100.0, 12.0])
def test_max_resource_blocks_still_refuses_other_floats(fn: ModuleType, bad: float) -> None:
    with pytest.raises(ValueError, match=r"^bandwidth_mhz must be one of 5, 10, "):
        fn.max_resource_blocks(bandwidth_mhz=bad, scs_khz=30)


def test_free_space_path_loss_refuses_distances_below_lambda_over_4_pi(fn: ModuleType) -> None:
    for f_ghz in (0.1, 1.0, 3.5, 28.0, 100.0):
        nearest = C_EXACT / (f_ghz * 1e9) / (4 * math.pi)  # where (4 pi d / lambda)^2 = 1
        for d in (nearest * 0.999, nearest / 10, 1e-9):
            with pytest.raises(ValueError, match=r"^distance_m must be at least λ/4π = "):
                fn.free_space_path_loss(frequency_ghz=f_ghz, distance_m=d)
        assert fn.free_space_path_loss(frequency_ghz=f_ghz, distance_m=nearest) == pytest.approx(
            0.0, abs=1e-9
        )
        assert fn.free_space_path_loss(frequency_ghz=f_ghz, distance_m=nearest) >= 0.0
        assert fn.free_space_path_loss(frequency_ghz=f_ghz, distance_m=nearest * 10) == (
            pytest.approx(20.0, rel=1e-12)
        )
    doc = inspect.getdoc(fn.free_space_path_loss) or ""
    assert "λ / 4π" in doc


def test_free_space_path_loss_message_gives_the_limit(fn: ModuleType) -> None:
    with pytest.raises(ValueError) as caught:
        fn.free_space_path_loss(frequency_ghz=1.0, distance_m=0.01)
    assert str(caught.value) == (
        "distance_m must be at least λ/4π = 0.0238567 m at 1 GHz, where the free-space loss "
        "is 0 dB (closer in, Friis gives a negative loss); got 0.01"
    )


def test_rsrq_refuses_an_rsrp_above_the_rssi(fn: ModuleType) -> None:
    # N x RSRP / RSSI: RSSI includes the reference elements themselves, so RSRP <= RSSI.
    with pytest.raises(ValueError, match=r"^rsrp_dbm must not exceed rssi_dbm"):
        fn.rsrq_db(rsrp_dbm=-70.0, rssi_dbm=-100.0, n_rb=50)
    with pytest.raises(ValueError, match="swapped"):
        fn.rsrq_db(rsrp_dbm=-99.999, rssi_dbm=-100.0, n_rb=1)
    # Equal powers are the bound: RSRQ = 10 log10(N).
    assert fn.rsrq_db(rsrp_dbm=-80.0, rssi_dbm=-80.0, n_rb=100) == pytest.approx(20.0)
    assert fn.rsrq_db(rsrp_dbm=-100, rssi_dbm=-70, n_rb=50) == pytest.approx(
        10 * math.log10(50) - 30.0, rel=1e-12
    )
    assert "10 log10(N) dB" in (inspect.getdoc(fn.rsrq_db) or "")


# TS 33.501 5.11.1.1 (NEA) and 5.11.1.2 (NIA).
NAMES_5G = {
    "ciphering": ["NEA0", "128-NEA1", "128-NEA2", "128-NEA3"],
    "integrity": ["NIA0", "128-NIA1", "128-NIA2", "128-NIA3"],
}


def test_security_algorithm_names_are_the_5g_ones(fn: ModuleType) -> None:
    for kind, names in NAMES_5G.items():
        got = [fn.security_algorithm_name(algorithm_type=kind, identifier=i) for i in range(4)]
        assert got == names


def test_security_algorithm_name_says_it_is_5g_only(fn: ModuleType) -> None:
    doc = inspect.getdoc(fn.security_algorithm_name) or ""
    assert doc.startswith("Name of a 5G (NR) security algorithm")
    # The LTE names of TS 33.401 are explained, not returned.
    assert "TS 33.401" in doc and "128-EEA2" in doc and "EIA0" in doc


def test_the_dataset_asks_security_algorithm_name_only_about_5g() -> None:
    truth: dict[str, list[str]] = {}
    for path in sorted((ROOT / "answers").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                parts = record["ground_truth"]
                parts = [parts] if isinstance(parts, dict) else parts
                truth[record["id"]] = [name for part in parts for name in part]
    asked = 0
    for path in sorted((ROOT / "questions").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            question = json.loads(line)
            if "security_algorithm_name" in truth.get(question["id"], []):
                text = question["question"]
                assert any(mark in text for mark in ("5G", "33.501", "AMF")), question["id"]
                assert "LTE" not in text and "33.401" not in text, question["id"]
                asked += 1
    assert asked >= 3


ALL_SCS = (15, 30, 60, 120, 240, 480, 960)
ALL_BANDWIDTHS = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100, 200, 400, 800)


def _accepts(function: Callable[..., object], **kwargs: object) -> bool:
    try:
        function(**kwargs)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize(("fr", "expected"), [("FR1", {15, 30, 60}), ("FR2", {60, 120})])
def test_nr_functions_agree_on_what_fr2_is(fn: ModuleType, fr: str, expected: set[int]) -> None:
    by_table = {
        scs
        for scs in ALL_SCS
        for bw in ALL_BANDWIDTHS
        if _accepts(fn.max_resource_blocks, bandwidth_mhz=bw, scs_khz=scs, frequency_range=fr)
    }
    peak = {**VALID["nr_peak_data_rate"], "max_rbs": 66, "frequency_range": fr}
    by_rate = {scs for scs in ALL_SCS if _accepts(fn.nr_peak_data_rate, **{**peak, "scs_khz": scs})}
    assert by_table == by_rate == expected


@pytest.mark.parametrize("scs", [480, 960])
def test_fr2_2_numerologies_are_refused_with_a_reason(fn: ModuleType, scs: int) -> None:
    reason = r"scs_khz must be one of 60, 120 kHz for FR2 \(FR2-1; FR2-2 is not covered\)"
    with pytest.raises(ValueError, match=reason):
        fn.max_resource_blocks(bandwidth_mhz=400, scs_khz=scs, frequency_range="FR2")
    with pytest.raises(ValueError, match=reason):
        fn.nr_peak_data_rate(
            **{**VALID["nr_peak_data_rate"], "scs_khz": scs, "frequency_range": "FR2"}
        )


def test_fr2_rbs_feed_the_fr2_peak_rate(fn: ModuleType) -> None:
    n_rb = fn.max_resource_blocks(bandwidth_mhz=400, scs_khz=120, frequency_range="FR2")
    rate = fn.nr_peak_data_rate(
        layers=2,
        modulation_order=6,
        scaling_factor=1.0,
        max_rbs=n_rb,
        scs_khz=120,
        frequency_range="FR2",
    )
    # TS 38.306 4.1.2: 1e-6 v Qm f (948/1024) (N 12 / (1e-3 / (14 x 8))) (1 - 0.18).
    expected = 1e-6 * 2 * 6 * 1.0 * (948 / 1024) * (264 * 12 / (1e-3 / 112)) * (1 - 0.18)
    assert rate == pytest.approx(expected, rel=1e-12)
