"""Propagation and link functions against their formulas, with the arithmetic in comments."""

from __future__ import annotations

import math
from types import ModuleType

import pytest

C = 299_792_458.0


# Friis: 20 log10(d) + 20 log10(f_Hz) + 20 log10(4 pi / c), 20 log10(4 pi / c) = -147.5522.
@pytest.mark.parametrize(
    ("f_ghz", "d_m", "db"),
    [
        pytest.param(1.0, 1000.0, 92.44778322188336, id="1GHz-1km-textbook-92.45"),
        pytest.param(2.4, 100, 80.05200805611548, id="2.4GHz-100m"),
        pytest.param(28, 200, 107.41154376200737, id="28GHz-200m"),
    ],
)
def test_free_space_path_loss(fn: ModuleType, f_ghz: float, d_m: float, db: float) -> None:
    assert fn.free_space_path_loss(frequency_ghz=f_ghz, distance_m=d_m) == pytest.approx(db)


def test_free_space_path_loss_slope(fn: ModuleType) -> None:
    # Doubling distance adds 20 log10(2) = 6.0206 dB.
    near = fn.free_space_path_loss(frequency_ghz=3.5, distance_m=500)
    far = fn.free_space_path_loss(frequency_ghz=3.5, distance_m=1000)
    assert far - near == pytest.approx(20 * math.log10(2))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"frequency_ghz": 0, "distance_m": 100},
        {"frequency_ghz": -1, "distance_m": 100},
        {"frequency_ghz": 1, "distance_m": 0},
        {"frequency_ghz": 1, "distance_m": float("inf")},
        {"frequency_ghz": True, "distance_m": 100},
        {"frequency_ghz": "1", "distance_m": 100},
    ],
)
def test_free_space_path_loss_rejects(fn: ModuleType, kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"must be a finite number"):
        fn.free_space_path_loss(**kwargs)


# TR 38.901 Table 7.4.1-1; d'_BP = 4 (h_BS - 1)(h_UT - 1) f_c / c, c = 3.0e8 m/s (note 1).
C_BP = 3.0e8


@pytest.mark.parametrize(
    ("args", "db"),
    [
        # UMa LOS PL1: 28 + 22 log10(102.724) + 20 log10(3.5); d'_BP = 560 m.
        pytest.param(("UMa", 3.5, 100, 25, 1.5, True), 83.13815667685238, id="UMa-LOS-PL1"),
        # UMa LOS PL2 beyond d'_BP: 28 + 40 log10(d3D) + 20 log10 fc - 9 log10(dBP^2 + 23.5^2).
        pytest.param(("UMa", 3.5, 1000, 25, 1.5, True), 109.41189477469499, id="UMa-LOS-PL2"),
        # UMa NLOS: PL' = 13.54 + 39.08 log10(1000.276) + 20 log10(3.5) exceeds LOS.
        pytest.param(("UMa", 3.5, 1000, 25, 1.5, False), 141.66604604998784, id="UMa-NLOS"),
        # UMa NLOS at 10 m: PL' = 79.415 > PL_LOS.
        pytest.param(("UMa", 3.5, 10, 25, 1.5, False), 79.41501216207544, id="UMa-NLOS-10m"),
        # UMa LOS at 5 km, 0.5 GHz, h_UT 22.5 m: d'_BP = 3440 m, PL2.
        pytest.param(("UMa", 0.5, 5000, 25, 22.5, True), 106.2801484009648, id="UMa-edges"),
        # UMa LOS 28 GHz: d'_BP = 4480 m < 5000 m, PL2.
        pytest.param(("UMa", 28, 5000, 25, 1.5, True), 139.17904086994622, id="UMa-28GHz-5km"),
        # UMi LOS PL1: 32.4 + 21 log10(200.18) + 20 log10(28); d'_BP = 1680 m.
        pytest.param(("UMi", 28, 200, 10, 1.5, True), 109.67301977227746, id="UMi-LOS-PL1"),
        # UMi NLOS: 35.3 log10(200.18) + 22.4 + 21.3 log10(28).
        pytest.param(("UMi", 28, 200, 10, 1.5, False), 134.4646578691982, id="UMi-NLOS"),
        # UMi LOS PL2: d'_BP = 210 m at 3.5 GHz.
        pytest.param(("UMi", 3.5, 500, 10, 1.5, True), 107.11375046601326, id="UMi-LOS-PL2"),
        pytest.param(("UMi", 2, 15, 10, 1.5, False), 72.46253979472418, id="UMi-NLOS-15m"),
    ],
)
def test_path_loss_38901(fn: ModuleType, args: tuple[object, ...], db: float) -> None:
    names = ("scenario", "frequency_ghz", "distance_2d_m", "h_bs_m", "h_ut_m", "los")
    assert fn.path_loss_38901(**dict(zip(names, args, strict=True))) == pytest.approx(db)


@pytest.mark.parametrize(("scenario", "h_bs"), [("UMa", 25.0), ("UMi", 10.0)])
def test_path_loss_38901_continuous_at_breakpoint(
    fn: ModuleType, scenario: str, h_bs: float
) -> None:
    f_ghz, h_ut = 3.5, 1.5
    d_bp = 4 * (h_bs - 1) * (h_ut - 1) * f_ghz * 1e9 / C_BP  # UMa 560 m, UMi 210 m
    kwargs = {"scenario": scenario, "frequency_ghz": f_ghz, "h_bs_m": h_bs, "h_ut_m": h_ut}
    at_bp = fn.path_loss_38901(distance_2d_m=d_bp, los=True, **kwargs)
    just_after = fn.path_loss_38901(distance_2d_m=d_bp * (1 + 1e-9), los=True, **kwargs)
    assert at_bp == pytest.approx(just_after, abs=1e-6)
    # Past the breakpoint the slope is 40 dB/decade, so the loss grows faster than PL1 would.
    beyond = fn.path_loss_38901(distance_2d_m=2 * d_bp, los=True, **kwargs)
    assert beyond - at_bp == pytest.approx(40 * math.log10(2), abs=0.05)


def test_path_loss_38901_nlos_never_below_los(fn: ModuleType) -> None:
    for scenario, h_bs in (("UMa", 25.0), ("UMi", 10.0)):
        for d in (10.0, 35.0, 100.0, 400.0, 2000.0, 5000.0):
            common = {"scenario": scenario, "frequency_ghz": 3.5, "distance_2d_m": d}
            los = fn.path_loss_38901(h_bs_m=h_bs, h_ut_m=1.5, los=True, **common)
            nlos = fn.path_loss_38901(h_bs_m=h_bs, h_ut_m=1.5, los=False, **common)
            assert nlos >= los


PL_OK: dict[str, object] = {
    "scenario": "UMa",
    "frequency_ghz": 3.5,
    "distance_2d_m": 100.0,
    "h_bs_m": 25.0,
    "h_ut_m": 1.5,
    "los": True,
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"scenario": "uma"}, "'UMa', 'UMi' \\(case-sensitive\\)", id="case"),
        pytest.param({"scenario": "RMa"}, "'UMa', 'UMi'", id="unsupported"),
        pytest.param({"distance_2d_m": 9.99}, "distance_2d_m .*>= 10 and <= 5000", id="d<10"),
        pytest.param({"distance_2d_m": 5000.1}, "distance_2d_m", id="d>5km"),
        pytest.param({"h_ut_m": 1.4}, "h_ut_m .*>= 1.5 and <= 22.5", id="hut-low"),
        pytest.param({"h_ut_m": 23}, "h_ut_m", id="hut-high"),
        pytest.param({"h_bs_m": 1.0}, "h_bs_m .*> 1", id="hbs-at-hE"),
        pytest.param({"frequency_ghz": 0.4}, "frequency_ghz .*>= 0.5 and <= 100", id="f-low"),
        pytest.param({"frequency_ghz": 101}, "frequency_ghz", id="f-high"),
        pytest.param({"los": 1}, "los must be a boolean", id="los-int"),
        pytest.param({"los": "true"}, "los must be a boolean", id="los-str"),
    ],
)
def test_path_loss_38901_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.path_loss_38901(**{**PL_OK, **change})


# Hata (1980) / ITU-R P.529-3, f MHz, d km, heights m.
@pytest.mark.parametrize(
    ("args", "db"),
    [
        # a(hm) = (1.1 log 900 - 0.7) 1.5 - (1.56 log 900 - 0.8) = 0.0159; textbook 126.4 dB.
        pytest.param((900, 1, 30, 1.5, "urban"), 126.40328648085746, id="urban-900MHz-1km"),
        pytest.param((1500, 20, 200, 10, "urban"), 135.86146387005437, id="urban-upper-edges"),
        pytest.param((900, 5, 50, 1.5, "suburban"), 137.00016729060548, id="suburban"),
        pytest.param((900, 10, 50, 1.5, "rural"), 128.60266514489675, id="rural-open"),
        # Large city, f <= 200 MHz: a(hm) = 8.29 (log 1.54 hm)^2 - 1.1.
        pytest.param((150, 20, 200, 10, "urban_large"), 122.89316207211175, id="large-150MHz"),
        pytest.param((200, 2, 40, 2, "urban_large"), 117.08319413304233, id="large-200MHz"),
        # Large city, f >= 400 MHz: a(hm) = 3.2 (log 11.75 hm)^2 - 4.97.
        pytest.param((400, 2, 40, 2, "urban_large"), 124.79136429765481, id="large-400MHz"),
        # Between 200 and 400 MHz Hata gives no a(hm); the >= 400 MHz form is used above 200.
        pytest.param((300, 2, 40, 2, "urban_large"), 121.5229669479817, id="large-300MHz"),
        pytest.param((1500, 1, 30, 1, "urban_large"), 133.52879228155257, id="large-lower-edges"),
    ],
)
def test_okumura_hata(fn: ModuleType, args: tuple[object, ...], db: float) -> None:
    names = ("frequency_mhz", "distance_km", "h_bs_m", "h_ms_m", "area")
    assert fn.okumura_hata_path_loss(**dict(zip(names, args, strict=True))) == pytest.approx(db)


def test_okumura_hata_default_area_is_urban(fn: ModuleType) -> None:
    kwargs = {"frequency_mhz": 900, "distance_km": 1, "h_bs_m": 30, "h_ms_m": 1.5}
    assert fn.okumura_hata_path_loss(**kwargs) == fn.okumura_hata_path_loss(area="urban", **kwargs)


HATA_OK: dict[str, object] = {"frequency_mhz": 900, "distance_km": 5, "h_bs_m": 50, "h_ms_m": 1.5}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"frequency_mhz": 149.9}, "frequency_mhz .*>= 150 and <= 1500"),
        pytest.param({"frequency_mhz": 1800}, "frequency_mhz"),
        pytest.param({"distance_km": 0.5}, "distance_km .*>= 1 and <= 20"),
        pytest.param({"distance_km": 21}, "distance_km"),
        pytest.param({"h_bs_m": 29}, "h_bs_m .*>= 30 and <= 200"),
        pytest.param({"h_ms_m": 11}, "h_ms_m .*>= 1 and <= 10"),
        pytest.param({"area": "Urban"}, "'urban', 'urban_large', 'suburban', 'rural'"),
        pytest.param({"area": "open"}, "'rural'"),
    ],
)
def test_okumura_hata_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.okumura_hata_path_loss(**{**HATA_OK, **change})


# r_n = sqrt(n lambda d1 d2 / (d1 + d2)); the P.530 shorthand is 17.3 sqrt(d1 d2 / (f d)).
@pytest.mark.parametrize(
    ("kwargs", "metres"),
    [
        pytest.param({"frequency_ghz": 10, "d1_m": 5000, "d2_m": 5000}, 8.657257908830024),
        pytest.param({"frequency_ghz": 2.4, "d1_m": 1000, "d2_m": 3000}, 9.679108591445805),
        pytest.param(
            {"frequency_ghz": 5.8, "d1_m": 2000, "d2_m": 2000, "zone": 2}, 10.16743377923714
        ),
        pytest.param(
            {"frequency_ghz": 0.9, "d1_m": 100, "d2_m": 900, "zone": 3}, 9.483550885612415
        ),
    ],
)
def test_fresnel_zone_radius(fn: ModuleType, kwargs: dict[str, object], metres: float) -> None:
    assert fn.fresnel_zone_radius(**kwargs) == pytest.approx(metres)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"zone": 0}, "zone must be an integer >= 1"),
        ({"zone": 1.0}, "zone must be an integer"),
        ({"d1_m": 0}, "d1_m must be a finite number > 0"),
        ({"d2_m": -10}, "d2_m"),
        ({"frequency_ghz": 0}, "frequency_ghz"),
    ],
)
def test_fresnel_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    base = {"frequency_ghz": 10, "d1_m": 5000, "d2_m": 5000}
    with pytest.raises(ValueError, match=message):
        fn.fresnel_zone_radius(**{**base, **change})
