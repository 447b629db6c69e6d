"""Link-level functions: Shannon, kTB noise, RSRQ, SINR, link budget, EIRP."""

from __future__ import annotations

import math
from types import ModuleType

import pytest


# Shannon-Hartley C = B log2(1 + 10^(SNR/10)).
@pytest.mark.parametrize(
    ("b", "snr", "bps"),
    [
        pytest.param(1e6, 0, 1e6, id="0dB-1bit-per-Hz"),
        pytest.param(20e6, 20, 133164229.6550359, id="20MHz-20dB-log2(101)"),
        pytest.param(1e6, 30, 9967226.258835994, id="1MHz-30dB-log2(1001)"),
        pytest.param(5e6, -5, 1982045.8058155694, id="negative-snr"),
        pytest.param(1, 3000, 3000 / 10 * math.log2(10), id="huge-snr-no-overflow"),
    ],
)
def test_shannon_capacity(fn: ModuleType, b: float, snr: float, bps: float) -> None:
    assert fn.shannon_capacity(bandwidth_hz=b, snr_db=snr) == pytest.approx(bps, rel=1e-12)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"bandwidth_hz": 0, "snr_db": 10},
        {"bandwidth_hz": -1e6, "snr_db": 10},
        {"bandwidth_hz": 1e6, "snr_db": float("nan")},
        {"bandwidth_hz": 1e6, "snr_db": None},
        {"bandwidth_hz": False, "snr_db": 10},
    ],
)
def test_shannon_capacity_rejects(fn: ModuleType, kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must be a finite number"):
        fn.shannon_capacity(**kwargs)


# kTB: 10 log10(1.380649e-23 * 290 * B / 1e-3) + NF.
@pytest.mark.parametrize(
    ("kwargs", "dbm"),
    [
        pytest.param({"bandwidth_hz": 1}, -173.97518719422808, id="1Hz-minus-174"),
        pytest.param({"bandwidth_hz": 180e3, "noise_figure_db": 5}, -116.42246214319505),
        pytest.param({"bandwidth_hz": 20e6, "noise_figure_db": 7}, -93.9648872375883),
        pytest.param({"bandwidth_hz": 1_000_000}, -113.97518719422808, id="1MHz"),
    ],
)
def test_thermal_noise_dbm(fn: ModuleType, kwargs: dict[str, object], dbm: float) -> None:
    assert fn.thermal_noise_dbm(**kwargs) == pytest.approx(dbm, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bandwidth_hz": 0}, "bandwidth_hz must be a finite number > 0"),
        (
            {"bandwidth_hz": 1e6, "noise_figure_db": -1},
            "noise_figure_db must be a finite number >= 0",
        ),
        ({"bandwidth_hz": "1e6"}, "bandwidth_hz"),
    ],
)
def test_thermal_noise_rejects(fn: ModuleType, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.thermal_noise_dbm(**kwargs)


# TS 36.214 / TS 38.215 5.1.3: RSRQ = 10 log10(N) + RSRP - RSSI.
@pytest.mark.parametrize(
    ("rsrp", "rssi", "n", "db"),
    [
        pytest.param(-100, -70, 50, -13.010299956639813, id="10MHz-LTE"),
        pytest.param(-95, -65, 100, -10.0, id="20MHz-LTE"),
        pytest.param(-110.0, -80.0, 273, -5.638373529592442, id="NR-273RB"),
        pytest.param(-80, -80, 1, 0.0, id="N=1"),
    ],
)
def test_rsrq_db(fn: ModuleType, rsrp: float, rssi: float, n: int, db: float) -> None:
    assert fn.rsrq_db(rsrp_dbm=rsrp, rssi_dbm=rssi, n_rb=n) == pytest.approx(db, abs=1e-12)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n_rb": 0}, "n_rb must be an integer >= 1 and <= 275"),
        ({"n_rb": 276}, "n_rb"),
        ({"n_rb": 50.0}, "n_rb must be an integer"),
        ({"rsrp_dbm": "x"}, "rsrp_dbm"),
        ({"rssi_dbm": float("-inf")}, "rssi_dbm"),
    ],
)
def test_rsrq_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.rsrq_db(**{"rsrp_dbm": -100, "rssi_dbm": -70, "n_rb": 50, **change})


# MAPL = Ptx + Gtx + Grx - Lcable - margin - sensitivity.
@pytest.mark.parametrize(
    ("kwargs", "db"),
    [
        pytest.param(
            {
                "tx_power_dbm": 43,
                "tx_antenna_gain_dbi": 15,
                "rx_antenna_gain_dbi": 0,
                "rx_sensitivity_dbm": -120,
                "cable_loss_db": 2,
                "fade_margin_db": 5,
            },
            171.0,
            id="43+15+0-2-5+120",
        ),
        pytest.param(
            {
                "tx_power_dbm": 23,
                "tx_antenna_gain_dbi": 0,
                "rx_antenna_gain_dbi": 18,
                "rx_sensitivity_dbm": -101.5,
            },
            142.5,
            id="defaults-no-losses",
        ),
        pytest.param(
            {
                "tx_power_dbm": 14,
                "tx_antenna_gain_dbi": 2.15,
                "rx_antenna_gain_dbi": 6,
                "rx_sensitivity_dbm": -137,
                "fade_margin_db": 10,
            },
            149.15,
            id="LoRa-like",
        ),
    ],
)
def test_link_budget(fn: ModuleType, kwargs: dict[str, object], db: float) -> None:
    assert fn.link_budget_max_path_loss(**kwargs) == pytest.approx(db, abs=1e-12)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cable_loss_db": -1}, "cable_loss_db must be a finite number >= 0"),
        ({"fade_margin_db": -3}, "fade_margin_db must be a finite number >= 0"),
        ({"tx_power_dbm": True}, "tx_power_dbm"),
        ({"rx_sensitivity_dbm": "-120"}, "rx_sensitivity_dbm"),
    ],
)
def test_link_budget_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    base = {
        "tx_power_dbm": 43,
        "tx_antenna_gain_dbi": 15,
        "rx_antenna_gain_dbi": 0,
        "rx_sensitivity_dbm": -120,
    }
    with pytest.raises(ValueError, match=message):
        fn.link_budget_max_path_loss(**{**base, **change})


# SINR = S / (I + N) summed in mW.
@pytest.mark.parametrize(
    ("s", "i", "n", "db"),
    [
        pytest.param(-80, -90, -90, 6.9897000433601875, id="I=N-3dB-sum"),
        pytest.param(-70, -105, -110, 33.80668951933905, id="mixed"),
        pytest.param(-100, -95, -120, -5.013711928326842, id="negative"),
        pytest.param(-50, -300, -100, 50.0, id="negligible-interference"),
    ],
)
def test_sinr_db(fn: ModuleType, s: float, i: float, n: float, db: float) -> None:
    result = fn.sinr_db(signal_dbm=s, interference_dbm=i, noise_dbm=n)
    assert result == pytest.approx(db, abs=1e-9)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"signal_dbm": "x", "interference_dbm": -90, "noise_dbm": -90},
        {"signal_dbm": -80, "interference_dbm": float("-inf"), "noise_dbm": -90},
        {"signal_dbm": -80, "interference_dbm": -90, "noise_dbm": None},
    ],
)
def test_sinr_rejects(fn: ModuleType, kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must be a finite number"):
        fn.sinr_db(**kwargs)


# EIRP = P + G - L.
@pytest.mark.parametrize(
    ("kwargs", "dbm"),
    [
        ({"tx_power_dbm": 43, "antenna_gain_dbi": 18, "cable_loss_db": 3}, 58.0),
        ({"tx_power_dbm": 23, "antenna_gain_dbi": 0}, 23.0),
        ({"tx_power_dbm": 20.5, "antenna_gain_dbi": -2.5, "cable_loss_db": 0.5}, 17.5),
    ],
)
def test_eirp_dbm(fn: ModuleType, kwargs: dict[str, object], dbm: float) -> None:
    assert fn.eirp_dbm(**kwargs) == pytest.approx(dbm, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tx_power_dbm": 43, "antenna_gain_dbi": 18, "cable_loss_db": -1}, "cable_loss_db"),
        ({"tx_power_dbm": None, "antenna_gain_dbi": 18}, "tx_power_dbm"),
        ({"tx_power_dbm": 43, "antenna_gain_dbi": False}, "antenna_gain_dbi"),
    ],
)
def test_eirp_rejects(fn: ModuleType, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.eirp_dbm(**kwargs)
