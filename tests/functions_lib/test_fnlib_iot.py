"""NB-IoT MCL, LoRa time on air (SX1276 4.1.1.7) and the TS 24.008 PSM timers."""

from __future__ import annotations

from types import ModuleType

import pytest


# MCL = Ptx + Grx - (kTB + NF + SINR), kTB = 10 log10(1.380649e-23 * 290 * B / 1e-3).
@pytest.mark.parametrize(
    ("kwargs", "db"),
    [
        pytest.param(
            {
                "tx_power_dbm": 23,
                "noise_figure_db": 5,
                "bandwidth_hz": 15000,
                "required_sinr_db": -5,
            },
            155.2142746036713,
            id="UE-15kHz",
        ),
        pytest.param(
            {
                "tx_power_dbm": 23,
                "noise_figure_db": 5,
                "bandwidth_hz": 3750,
                "required_sinr_db": -11.8,
            },
            168.03487451695094,
            id="UE-3.75kHz",
        ),
        pytest.param(
            {
                "tx_power_dbm": 43,
                "noise_figure_db": 3,
                "bandwidth_hz": 180e3,
                "required_sinr_db": -4.3,
                "rx_antenna_gain_dbi": 0,
            },
            165.72246214319506,
            id="DL-180kHz",
        ),
    ],
)
def test_nb_iot_max_coupling_loss(fn: ModuleType, kwargs: dict[str, object], db: float) -> None:
    assert fn.nb_iot_max_coupling_loss(**kwargs) == pytest.approx(db, rel=1e-12)


def test_nb_iot_mcl_adds_rx_gain(fn: ModuleType) -> None:
    base = {"tx_power_dbm": 23, "noise_figure_db": 5, "bandwidth_hz": 15000, "required_sinr_db": 0}
    gain = fn.nb_iot_max_coupling_loss(rx_antenna_gain_dbi=3, **base)
    assert gain - fn.nb_iot_max_coupling_loss(**base) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"bandwidth_hz": 0}, "bandwidth_hz must be a finite number > 0"),
        ({"noise_figure_db": -1}, "noise_figure_db must be a finite number >= 0"),
        ({"required_sinr_db": "x"}, "required_sinr_db"),
        ({"rx_antenna_gain_dbi": True}, "rx_antenna_gain_dbi"),
    ],
)
def test_nb_iot_mcl_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    base = {"tx_power_dbm": 23, "noise_figure_db": 5, "bandwidth_hz": 15000, "required_sinr_db": 0}
    with pytest.raises(ValueError, match=message):
        fn.nb_iot_max_coupling_loss(**{**base, **change})


# SX1276 4.1.1.7: T = (n_pre + 4.25) Ts + (8 + max(ceil((8PL-4SF+28+16CRC-20IH)/(4(SF-2DE)))
# (CR+4), 0)) Ts, Ts = 2^SF / BW, DE = 1 when Ts > 16 ms.
@pytest.mark.parametrize(
    ("kwargs", "ms"),
    [
        # Ts 1.024 ms; ceil(96/28)=4 -> 8+20=28 symbols; 12.25*1.024 + 28*1.024.
        pytest.param({"payload_bytes": 10, "spreading_factor": 7}, 41.216, id="SF7-10B"),
        # ceil(528/28)=19 -> 103 symbols: 12.544 + 105.472.
        pytest.param({"payload_bytes": 64, "spreading_factor": 7}, 118.016, id="SF7-64B"),
        # SF12/125: Ts 32.768 ms > 16 -> LDRO; ceil(76/40)=2 -> 18 symbols.
        pytest.param({"payload_bytes": 10, "spreading_factor": 12}, 991.232, id="SF12-LDRO-10B"),
        # LoRaWAN 51-byte payload (64-byte PHY payload) at SF12: 2793.472 ms.
        pytest.param({"payload_bytes": 64, "spreading_factor": 12}, 2793.472, id="SF12-LDRO-64B"),
        # SF11/125: Ts 16.384 ms > 16 -> LDRO on.
        pytest.param({"payload_bytes": 10, "spreading_factor": 11}, 577.536, id="SF11-LDRO"),
        # SF10/125: Ts 8.192 ms -> LDRO off.
        pytest.param({"payload_bytes": 10, "spreading_factor": 10}, 288.768, id="SF10-no-LDRO"),
        # SF12/250: Ts 16.384 ms -> LDRO on; CR 4/8.
        pytest.param(
            {"payload_bytes": 20, "spreading_factor": 12, "bandwidth_khz": 250, "coding_rate": 4},
            856.064,
            id="SF12-250k-CR4/8",
        ),
        # SF11/250: Ts 8.192 ms -> LDRO off.
        pytest.param(
            {"payload_bytes": 20, "spreading_factor": 11, "bandwidth_khz": 250, "coding_rate": 4},
            428.032,
            id="SF11-250k-no-LDRO",
        ),
        # Implicit header, no CRC, empty payload: numerator 0 -> 8 symbols.
        pytest.param(
            {"payload_bytes": 0, "spreading_factor": 7, "explicit_header": False, "crc": False},
            20.736,
            id="SF7-empty-implicit-noCRC",
        ),
        # SF6 (implicit header only): Ts 0.512 ms.
        pytest.param(
            {"payload_bytes": 10, "spreading_factor": 6, "explicit_header": False},
            20.608,
            id="SF6-implicit",
        ),
        # 31.25 kHz: SF9 Ts = 16.384 ms -> LDRO on.
        pytest.param(
            {"payload_bytes": 10, "spreading_factor": 9, "bandwidth_khz": 31.25},
            659.456,
            id="SF9-31.25k-LDRO",
        ),
        pytest.param(
            {
                "payload_bytes": 255,
                "spreading_factor": 12,
                "bandwidth_khz": 500,
                "coding_rate": 4,
                "preamble_symbols": 65535,
            },
            539781.12,
            id="max-payload-max-preamble",
        ),
    ],
)
def test_lora_time_on_air(fn: ModuleType, kwargs: dict[str, object], ms: float) -> None:
    assert fn.lora_time_on_air_ms(**kwargs) == pytest.approx(ms, rel=1e-12)


def test_lora_nominal_bandwidth_is_exact_fraction(fn: ModuleType) -> None:
    # 7.8 kHz is 500/64 = 7.8125 kHz on the SX1276: Ts at SF7 = 128/7.8125 = 16.384 ms.
    nominal = fn.lora_time_on_air_ms(payload_bytes=10, spreading_factor=7, bandwidth_khz=7.8)
    exact = fn.lora_time_on_air_ms(payload_bytes=10, spreading_factor=7, bandwidth_khz=7.8125)
    assert nominal == exact
    # LDRO on (16.384 ms > 16): ceil(96/20)=5 -> 33 symbols + 12.25 preamble symbols.
    assert nominal == pytest.approx(45.25 * 16.384)


LORA_OK: dict[str, object] = {"payload_bytes": 10, "spreading_factor": 7}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"spreading_factor": 5}, "spreading_factor must be an integer >= 6 and <= 12"),
        pytest.param({"spreading_factor": 13}, "spreading_factor"),
        pytest.param({"spreading_factor": 6}, "implicit header", id="SF6-explicit"),
        pytest.param({"payload_bytes": 256}, "payload_bytes must be an integer >= 0 and <= 255"),
        pytest.param({"payload_bytes": -1}, "payload_bytes"),
        pytest.param({"coding_rate": 5}, "coding_rate must be an integer >= 1 and <= 4"),
        pytest.param({"coding_rate": 0}, "coding_rate"),
        pytest.param({"bandwidth_khz": 100}, "bandwidth_khz must be one of 7.8, 10.4"),
        pytest.param({"preamble_symbols": 5}, "preamble_symbols must be an integer >= 6"),
        pytest.param({"explicit_header": 1}, "explicit_header must be a boolean"),
        pytest.param({"crc": "yes"}, "crc must be a boolean"),
        pytest.param({"payload_bytes": 10.0}, "payload_bytes must be an integer"),
    ],
)
def test_lora_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.lora_time_on_air_ms(**{**LORA_OK, **change})


# TS 24.008 Table 10.5.163a.1 (GPRS Timer 3): unit 0=10 min, 1=1 h, 2=10 h, 3=2 s, 4=30 s,
# 5=1 min, 6=320 h.
@pytest.mark.parametrize(
    ("unit", "value", "seconds"),
    [
        (0, 1, 600),
        (0, 31, 18600),
        (1, 1, 3600),
        (1, 10, 36000),
        (2, 1, 36000),
        (3, 31, 62),
        (4, 4, 120),
        (5, 5, 300),
        (6, 1, 1_152_000),
        (6, 31, 35_712_000),
        (2, 0, 0),
    ],
)
def test_t3412_extended(fn: ModuleType, unit: int, value: int, seconds: int) -> None:
    result = fn.t3412_extended_seconds(unit=unit, value=value)
    assert result == seconds and isinstance(result, int)


# TS 24.008 Table 10.5.172 (GPRS Timer 2): 0=2 s, 1=1 min, 2=decihours, others 1 min.
@pytest.mark.parametrize(
    ("unit", "value", "seconds"),
    [
        (0, 0, 0),
        (0, 5, 10),
        (0, 31, 62),
        (1, 5, 300),
        (1, 31, 1860),
        (2, 1, 360),
        (2, 31, 11160),
        (3, 2, 120),
        (6, 2, 120),
    ],
)
def test_t3324(fn: ModuleType, unit: int, value: int, seconds: int) -> None:
    result = fn.t3324_seconds(unit=unit, value=value)
    assert result == seconds and isinstance(result, int)


@pytest.mark.parametrize("name", ["t3412_extended_seconds", "t3324_seconds"])
@pytest.mark.parametrize(
    ("unit", "value", "message"),
    [
        (7, 1, "deactivated"),
        (8, 1, "unit must be an integer >= 0 and <= 7"),
        (-1, 1, "unit"),
        (1, 32, "value must be an integer >= 0 and <= 31"),
        (1, -1, "value"),
        (1.0, 1, "unit must be an integer"),
        (True, 1, "unit must be an integer"),
    ],
)
def test_timers_reject(
    fn: ModuleType, name: str, unit: object, value: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        getattr(fn, name)(unit=unit, value=value)
