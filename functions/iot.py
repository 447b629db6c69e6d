"""IoT radio and power-saving functions: NB-IoT coupling loss, LoRa airtime, PSM timers.

Sources: 3GPP TR 45.820 / TR 36.888 (maximum coupling loss); Semtech SX1276/77/78/79
datasheet clause 4.1.1 (LoRa modem, time on air) and application note AN1200.13; 3GPP TS
24.008 clause 10.5.7.4a / Table 10.5.163a.1 (GPRS Timer 3) and clauses 10.5.7.3 and
10.5.7.4 / Table 10.5.172 (GPRS Timer and GPRS Timer 2).
"""

from __future__ import annotations

import math

from . import _validate as check
from .link import thermal_noise_dbm


def nb_iot_max_coupling_loss(
    tx_power_dbm: float,
    noise_figure_db: float,
    bandwidth_hz: float,
    required_sinr_db: float,
    rx_antenna_gain_dbi: float = 0.0,
) -> float:
    """Maximum coupling loss (MCL) of a link, as used for NB-IoT coverage, in dB.

    Source: 3GPP TR 45.820 and TR 36.888 coverage analysis:
    MCL = P_tx + G_rx − (N_thermal + NF + SINR_required), where N_thermal = kTB in dBm at
    T0 = 290 K (k = 1.380649e-23 J/K, about −173.98 dBm/Hz; the TRs round it to −174).

    Args:
        tx_power_dbm: transmit power P_tx in dBm.
        noise_figure_db: receiver noise figure NF in dB, >= 0.
        bandwidth_hz: occupied bandwidth B in Hz, > 0 (for example 15000 for one NB-IoT
            uplink subcarrier, 180000 for the downlink).
        required_sinr_db: SINR the receiver needs, in dB.
        rx_antenna_gain_dbi: receive antenna gain G_rx in dBi.

    Returns:
        MCL in dB (for example 23 dBm, NF 5 dB, 15 kHz, SINR −5 dB -> about 155.21 dB).
    """
    p_tx = check.real("tx_power_dbm", tx_power_dbm, unit="dBm")
    nf = check.real("noise_figure_db", noise_figure_db, low=0.0, unit="dB")
    b = check.real("bandwidth_hz", bandwidth_hz, low=0.0, low_open=True, unit="Hz")
    sinr = check.real("required_sinr_db", required_sinr_db, unit="dB")
    g_rx = check.real("rx_antenna_gain_dbi", rx_antenna_gain_dbi, unit="dBi")
    return p_tx + g_rx - (thermal_noise_dbm(b) + nf + sinr)


# SX1276 RegModemConfig1 signal bandwidths: nominal label (kHz) -> exact value, 500 kHz / k.
_LORA_BANDWIDTHS_KHZ = (
    (7.8, 500 / 64),
    (10.4, 500 / 48),
    (15.6, 500 / 32),
    (20.8, 500 / 24),
    (31.25, 500 / 16),
    (41.7, 500 / 12),
    (62.5, 500 / 8),
    (125.0, 125.0),
    (250.0, 250.0),
    (500.0, 500.0),
)
# Low data rate optimisation is mandated above this symbol duration (SX1276 4.1.1.6).
_LDRO_SYMBOL_MS = 16.0


def _lora_bandwidth_khz(value: object) -> float:
    bw = check.real("bandwidth_khz", value, low=0.0, low_open=True, unit="kHz")
    for nominal, exact in _LORA_BANDWIDTHS_KHZ:
        if abs(bw - nominal) < 1e-9 or abs(bw - exact) < 1e-6:
            return exact
    listed = ", ".join(f"{nominal:g}" for nominal, _ in _LORA_BANDWIDTHS_KHZ)
    raise ValueError(f"bandwidth_khz must be one of {listed} kHz (SX1276); got {value!r}")


def lora_time_on_air_ms(
    payload_bytes: int,
    spreading_factor: int,
    bandwidth_khz: float = 125.0,
    coding_rate: int = 1,
    preamble_symbols: int = 8,
    explicit_header: bool = True,
    crc: bool = True,
) -> float:
    """Time on air of one LoRa packet, in milliseconds.

    Source: Semtech SX1276/77/78/79 datasheet clause 4.1.1.7 (time on air) and AN1200.13:
    T_sym = 2^SF / BW; T_preamble = (n_preamble + 4.25) T_sym;
    n_payload = 8 + max(ceil((8 PL − 4 SF + 28 + 16 CRC − 20 IH) / (4 (SF − 2 DE))) (CR + 4), 0);
    T_packet = T_preamble + n_payload T_sym, with IH = 1 for implicit header, CRC = 1 when the
    payload CRC is on, and DE = 1 (low data rate optimisation) when T_sym exceeds 16 ms.
    Bandwidths listed by their datasheet labels (7.8 ... 41.7 kHz) are used at their exact
    values, 500 kHz / 64 ... 500 kHz / 12.

    Args:
        payload_bytes: payload length PL in bytes, 0..255.
        spreading_factor: SF, 6..12 (SF 6 requires implicit header mode).
        bandwidth_khz: signal bandwidth in kHz: 7.8, 10.4, 15.6, 20.8, 31.25, 41.7, 62.5, 125,
            250 or 500.
        coding_rate: CR, 1..4 meaning 4/5, 4/6, 4/7, 4/8.
        preamble_symbols: programmed preamble length n_preamble, 6..65535 symbols.
        explicit_header: True for explicit header mode, False for implicit.
        crc: True when the payload CRC is enabled.

    Returns:
        Time on air in ms (for example 10 bytes, SF7, 125 kHz, CR 4/5 -> 41.216 ms; SF12 ->
        991.232 ms with low data rate optimisation).
    """
    pl = check.integer("payload_bytes", payload_bytes, low=0, high=255, unit="bytes")
    sf = check.integer("spreading_factor", spreading_factor, low=6, high=12)
    bw = _lora_bandwidth_khz(bandwidth_khz)
    cr = check.integer("coding_rate", coding_rate, low=1, high=4, unit="(1 = 4/5 ... 4 = 4/8)")
    n_preamble = check.integer("preamble_symbols", preamble_symbols, low=6, high=65535)
    explicit = check.boolean("explicit_header", explicit_header)
    has_crc = check.boolean("crc", crc)
    if sf == 6 and explicit:
        raise ValueError(
            "spreading_factor 6 works only in implicit header mode (SX1276 4.1.1.2); "
            "set explicit_header to false or use a spreading factor of 7..12"
        )

    t_sym_ms = (1 << sf) / bw
    de = 1 if t_sym_ms > _LDRO_SYMBOL_MS else 0
    ih = 0 if explicit else 1
    numerator = 8 * pl - 4 * sf + 28 + 16 * int(has_crc) - 20 * ih
    blocks = math.ceil(numerator / (4 * (sf - 2 * de)))
    n_payload = 8 + max(blocks * (cr + 4), 0)
    return (n_preamble + 4.25) * t_sym_ms + n_payload * t_sym_ms


# TS 24.008 Table 10.5.163a.1 (GPRS Timer 3): timer unit (bits 8-6) -> seconds per step.
_GPRS_TIMER3_UNIT_S = {0: 600, 1: 3600, 2: 36000, 3: 2, 4: 30, 5: 60, 6: 1_152_000}
# TS 24.008 Table 10.5.172 (GPRS Timer / GPRS Timer 2): 0 = 2 s, 1 = 1 min, 2 = decihours;
# units 3..6 are "interpreted as multiples of 1 minute in this version of the protocol".
_GPRS_TIMER2_UNIT_S = {0: 2, 1: 60, 2: 360, 3: 60, 4: 60, 5: 60, 6: 60}
_DEACTIVATED_UNIT = 7


def _timer_seconds(unit: object, value: object, table: dict[int, int], source: str) -> int:
    u = check.integer("unit", unit, low=0, high=7, unit="(3-bit timer unit)")
    v = check.integer("value", value, low=0, high=31, unit="(5-bit timer value)")
    if u == _DEACTIVATED_UNIT:
        raise ValueError(
            f"unit 7 means the timer is deactivated ({source}), so it has no duration; "
            "valid units are 0..6"
        )
    return table[u] * v


def t3412_extended_seconds(unit: int, value: int) -> int:
    """Duration of the extended periodic TAU/RAU timer T3412 in seconds.

    Source: 3GPP TS 24.008 clause 10.5.7.4a, Table 10.5.163a.1 (GPRS Timer 3): the timer
    unit (bits 8-6) is 0 = 10 min, 1 = 1 h, 2 = 10 h, 3 = 2 s, 4 = 30 s, 5 = 1 min,
    6 = 320 h, 7 = deactivated; the value (bits 5-1) is a binary multiplier 0..31.

    Args:
        unit: timer unit code, integer 0..6 (7, deactivated, is refused).
        value: timer value, integer 0..31.

    Returns:
        Timer duration in seconds (unit × value; for example unit 2, value 1 -> 36000 s).
    """
    return _timer_seconds(unit, value, _GPRS_TIMER3_UNIT_S, "TS 24.008 Table 10.5.163a.1")


def t3324_seconds(unit: int, value: int) -> int:
    """Duration of the PSM active timer T3324 in seconds.

    Source: 3GPP TS 24.008 clause 10.5.7.4 (GPRS Timer 2, coded as octet 2 of the GPRS Timer
    IE), Table 10.5.172: the timer unit (bits 8-6) is 0 = 2 s, 1 = 1 min, 2 = 6 min
    (decihours), 7 = deactivated; other units are interpreted as 1 min; the value
    (bits 5-1) is a binary multiplier 0..31.

    Args:
        unit: timer unit code, integer 0..6 (7, deactivated, is refused).
        value: timer value, integer 0..31.

    Returns:
        Timer duration in seconds (unit × value; for example unit 1, value 5 -> 300 s).
    """
    return _timer_seconds(unit, value, _GPRS_TIMER2_UNIT_S, "TS 24.008 Table 10.5.172")
