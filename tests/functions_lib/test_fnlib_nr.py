"""NR raster, GSCN, N_RB table, slot duration and peak data rate against TS 38.xxx values."""

from __future__ import annotations

from types import ModuleType

import pytest

# TS 38.104 Table 5.4.2.1-1: F_REF = F_REF-Offs + ΔF_Global (N_REF - N_REF-Offs).
NR_ARFCN_CASES = [
    pytest.param(0, 0.0, id="range1-first-0MHz"),
    pytest.param(1, 0.005, id="range1-5kHz-step"),
    pytest.param(428000, 2140.0, id="range1-n1-DL-centre-ish"),
    pytest.param(599999, 2999.995, id="range1-last"),
    pytest.param(600000, 3000.0, id="range2-first-3000MHz"),
    pytest.param(620000, 3300.0, id="range2-n78-lower-edge"),
    pytest.param(633333, 3499.995, id="range2-15kHz-step"),
    pytest.param(2016666, 24249.99, id="range2-last"),
    pytest.param(2016667, 24250.08, id="range3-first"),
    pytest.param(2070833, 27500.04, id="range3-n257"),
    pytest.param(3279165, 99999.96, id="range3-last"),
]


@pytest.mark.parametrize(("arfcn", "mhz"), NR_ARFCN_CASES)
def test_nr_arfcn_to_frequency(fn: ModuleType, arfcn: int, mhz: float) -> None:
    assert fn.nr_arfcn_to_frequency(nr_arfcn=arfcn) == mhz


@pytest.mark.parametrize(("arfcn", "mhz"), NR_ARFCN_CASES)
def test_frequency_to_nr_arfcn_inverts(fn: ModuleType, arfcn: int, mhz: float) -> None:
    assert fn.frequency_to_nr_arfcn(frequency_mhz=mhz) == arfcn


def test_frequency_to_nr_arfcn_accepts_int_and_float_noise(fn: ModuleType) -> None:
    assert fn.frequency_to_nr_arfcn(frequency_mhz=3000) == 600000  # int where float declared
    assert fn.frequency_to_nr_arfcn(frequency_mhz=3500.01 + 1e-9) == 633334


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(-1, id="negative"),
        pytest.param(3279166, id="above-range3"),
        pytest.param(600000.0, id="float"),
        pytest.param(True, id="bool"),
        pytest.param("600000", id="string"),
    ],
)
def test_nr_arfcn_to_frequency_rejects(fn: ModuleType, bad: object) -> None:
    with pytest.raises(ValueError, match="nr_arfcn must be an integer >= 0 and <= 3279165"):
        fn.nr_arfcn_to_frequency(nr_arfcn=bad)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param(2999.997, "not on the NR global raster", id="off-5kHz-raster"),
        pytest.param(3500.005, r"3499\.995 MHz \(NR-ARFCN 633333\)", id="off-15kHz-raster"),
        pytest.param(24250.0, "not on the NR global raster", id="gap-before-24250.08"),
        pytest.param(24250.1, "not on the NR global raster", id="off-60kHz-raster"),
        pytest.param(100000.0, r"<= 99999\.96", id="above-top"),
        pytest.param(-0.005, ">= 0", id="negative"),
        pytest.param(float("nan"), "finite", id="nan"),
        pytest.param(False, "finite number", id="bool"),
    ],
)
def test_frequency_to_nr_arfcn_rejects(fn: ModuleType, bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.frequency_to_nr_arfcn(frequency_mhz=bad)


# TS 38.104 Table 5.4.3.1-1 (GSCN).
@pytest.mark.parametrize(
    ("gscn", "mhz"),
    [
        pytest.param(2, 1.25, id="range1-first-N1-M1"),
        pytest.param(3, 1.35, id="range1-N1-M3"),
        pytest.param(4, 1.45, id="range1-N1-M5"),
        pytest.param(5279, 2112.05, id="range1-N1760-M5"),
        pytest.param(7498, 2999.05, id="range1-last-N2499-M5"),
        pytest.param(7499, 3000.0, id="range2-first"),
        pytest.param(7500, 3001.44, id="range2-1.44MHz-step"),
        pytest.param(22255, 24248.64, id="range2-last-N14756"),
        pytest.param(22256, 24250.08, id="range3-first"),
        pytest.param(22257, 24267.36, id="range3-17.28MHz-step"),
        pytest.param(26639, 99988.32, id="range3-last-N4383"),
    ],
)
def test_gscn_to_frequency(fn: ModuleType, gscn: int, mhz: float) -> None:
    assert fn.gscn_to_frequency(gscn=gscn) == pytest.approx(mhz, rel=1e-12)


@pytest.mark.parametrize("bad", [0, 1, 26640, -5, 7499.0, True, None])
def test_gscn_rejects(fn: ModuleType, bad: object) -> None:
    with pytest.raises(ValueError, match="gscn must be an integer >= 2 and <= 26639"):
        fn.gscn_to_frequency(gscn=bad)


# TS 38.101-1 Table 5.3.2-1 (FR1, Rel-17) and TS 38.101-2 Table 5.3.2-1 (FR2-1).
@pytest.mark.parametrize(
    ("bw", "scs", "fr", "n_rb"),
    [
        pytest.param(5, 15, "FR1", 25, id="FR1-15k-5MHz-corner"),
        pytest.param(50, 15, "FR1", 270, id="FR1-15k-50MHz-last"),
        pytest.param(35, 15, "FR1", 188, id="FR1-15k-35MHz"),
        pytest.param(5, 30, "FR1", 11, id="FR1-30k-5MHz-corner"),
        pytest.param(20, 30, "FR1", 51, id="FR1-30k-20MHz"),
        pytest.param(45, 30, "FR1", 119, id="FR1-30k-45MHz"),
        pytest.param(100, 30, "FR1", 273, id="FR1-30k-100MHz-corner"),
        pytest.param(10, 60, "FR1", 11, id="FR1-60k-10MHz-first"),
        pytest.param(100, 60, "FR1", 135, id="FR1-60k-100MHz-corner"),
        pytest.param(50, 60, "FR2", 66, id="FR2-60k-50MHz-corner"),
        pytest.param(200, 60, "FR2", 264, id="FR2-60k-200MHz-last"),
        pytest.param(50, 120, "FR2", 32, id="FR2-120k-50MHz"),
        pytest.param(400, 120, "FR2", 264, id="FR2-120k-400MHz-corner"),
    ],
)
def test_max_resource_blocks(fn: ModuleType, bw: int, scs: int, fr: str, n_rb: int) -> None:
    assert fn.max_resource_blocks(bandwidth_mhz=bw, scs_khz=scs, frequency_range=fr) == n_rb


def test_max_resource_blocks_default_is_fr1(fn: ModuleType) -> None:
    assert fn.max_resource_blocks(bandwidth_mhz=20, scs_khz=15) == 106


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"bandwidth_mhz": 60, "scs_khz": 15}, "N/A cell", id="FR1-15k-60MHz-empty"),
        pytest.param({"bandwidth_mhz": 100, "scs_khz": 15}, "N/A", id="FR1-15k-100MHz-empty"),
        pytest.param({"bandwidth_mhz": 5, "scs_khz": 60}, "N/A", id="FR1-60k-5MHz-empty"),
        pytest.param(
            {"bandwidth_mhz": 400, "scs_khz": 60, "frequency_range": "FR2"},
            "N/A",
            id="FR2-60k-400MHz-empty",
        ),
        pytest.param({"bandwidth_mhz": 12, "scs_khz": 30}, "bandwidth_mhz must be one of 5, 10"),
        pytest.param({"bandwidth_mhz": 20, "scs_khz": 120}, "scs_khz must be one of 15, 30, 60"),
        pytest.param(
            {"bandwidth_mhz": 100, "scs_khz": 30, "frequency_range": "FR2"},
            "scs_khz must be one of 60, 120",
        ),
        pytest.param(
            {"bandwidth_mhz": 20, "scs_khz": 30, "frequency_range": "fr1"},
            "'FR1', 'FR2' \\(case-sensitive\\)",
            id="lowercase-fr",
        ),
        pytest.param({"bandwidth_mhz": 20.5, "scs_khz": 30}, "bandwidth_mhz", id="float-bw"),
    ],
)
def test_max_resource_blocks_rejects(
    fn: ModuleType, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        fn.max_resource_blocks(**kwargs)


# TS 38.211 4.2/4.3.2: slot = 1 ms / 2^mu.
@pytest.mark.parametrize(
    ("scs", "ms"),
    [
        (15, 1.0),
        (30, 0.5),
        (60, 0.25),
        (120, 0.125),
        (240, 0.0625),
        (480, 0.03125),
        (960, 0.015625),
    ],
)
def test_nr_slot_duration_ms(fn: ModuleType, scs: int, ms: float) -> None:
    assert fn.nr_slot_duration_ms(scs_khz=scs) == ms


@pytest.mark.parametrize("bad", [0, 7, 45, 1920, 15.0, True, "30"])
def test_nr_slot_duration_rejects(fn: ModuleType, bad: object) -> None:
    with pytest.raises(ValueError, match="scs_khz must be one of 15, 30, 60, 120, 240, 480, 960"):
        fn.nr_slot_duration_ms(scs_khz=bad)


# TS 38.306 4.1.2: 1e-6 v Qm f (948/1024) (N_PRB 12 / (1e-3 / (14 2^mu))) (1 - OH).
@pytest.mark.parametrize(
    ("kwargs", "mbps"),
    [
        pytest.param(
            {
                "layers": 4,
                "modulation_order": 8,
                "scaling_factor": 1,
                "max_rbs": 273,
                "scs_khz": 30,
            },
            2337.00012,  # 4*8*0.92578125*(3276*28000)*0.86 / 1e6
            id="DL-FR1-4L-256QAM-100MHz",
        ),
        pytest.param(
            {
                "layers": 1,
                "modulation_order": 6,
                "scaling_factor": 1.0,
                "max_rbs": 273,
                "scs_khz": 30,
                "direction": "uplink",
            },
            468.758745,  # OH 0.08 (UL FR1)
            id="UL-FR1-1L-64QAM",
        ),
        pytest.param(
            {
                "layers": 2,
                "modulation_order": 6,
                "scaling_factor": 1,
                "max_rbs": 264,
                "scs_khz": 120,
                "frequency_range": "FR2",
            },
            3232.26288,  # OH 0.18 (DL FR2), T_s = 1e-3/112
            id="DL-FR2-2L-64QAM-400MHz",
        ),
        pytest.param(
            {
                "layers": 2,
                "modulation_order": 6,
                "scaling_factor": 1,
                "max_rbs": 66,
                "scs_khz": 120,
                "direction": "uplink",
                "frequency_range": "FR2",
            },
            886.9014,  # OH 0.10 (UL FR2)
            id="UL-FR2-2L-64QAM-100MHz",
        ),
        pytest.param(
            {
                "layers": 2,
                "modulation_order": 8,
                "scaling_factor": 0.75,
                "max_rbs": 106,
                "scs_khz": 15,
            },
            170.138745,
            id="DL-FR1-f0.75-20MHz-15k",
        ),
    ],
)
def test_nr_peak_data_rate(fn: ModuleType, kwargs: dict[str, object], mbps: float) -> None:
    assert fn.nr_peak_data_rate(**kwargs) == pytest.approx(mbps, rel=1e-9)


PEAK_OK: dict[str, object] = {
    "layers": 2,
    "modulation_order": 8,
    "scaling_factor": 1.0,
    "max_rbs": 273,
    "scs_khz": 30,
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"layers": 9}, "layers must be an integer >= 1 and <= 8"),
        pytest.param({"layers": 5, "direction": "uplink"}, "<= 4 for uplink"),
        pytest.param({"layers": 0}, "layers"),
        pytest.param({"modulation_order": 3}, "modulation_order must be one of 1, 2, 4, 6, 8"),
        pytest.param({"scaling_factor": 0.5}, "1, 0.8, 0.75, 0.4"),
        pytest.param({"max_rbs": 276}, "max_rbs must be an integer >= 1 and <= 275"),
        pytest.param({"scs_khz": 120}, "scs_khz must be one of 15, 30, 60 kHz for FR1"),
        pytest.param({"direction": "DL"}, "'downlink', 'uplink'"),
        pytest.param({"frequency_range": "FR3"}, "'FR1', 'FR2'"),
        pytest.param({"layers": True}, "layers"),
        pytest.param({"scaling_factor": "1"}, "scaling_factor must be a finite number"),
    ],
)
def test_nr_peak_data_rate_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.nr_peak_data_rate(**{**PEAK_OK, **change})
