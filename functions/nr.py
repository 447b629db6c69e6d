"""NR numerology, transmission bandwidth configuration and peak data rate.

Sources: 3GPP TS 38.211 clauses 4.2 and 4.3.2 (numerology, slots per subframe), TS 38.101-1
and TS 38.101-2 Table 5.3.2-1 (maximum transmission bandwidth configuration N_RB, Release 17
values), TS 38.306 clause 4.1.2 (approximate maximum data rate).

"FR2" means FR2-1 (24.25-52.6 GHz, SCS 60 and 120 kHz) throughout, in max_resource_blocks
and nr_peak_data_rate alike. FR2-2 (52.6-71 GHz, Release 17, SCS 120, 480 and 960 kHz with
channels up to 2 GHz) is not covered: its 480 and 960 kHz numerologies are refused.
"""

from __future__ import annotations

from . import _validate as check

# TS 38.211 Table 4.2-1: subcarrier spacing Δf = 2^μ × 15 kHz.
_MU_BY_SCS_KHZ = {15: 0, 30: 1, 60: 2, 120: 3, 240: 4, 480: 5, 960: 6}

_FREQUENCY_RANGES = ("FR1", "FR2")

# Subcarrier spacings of the data channels per frequency range (FR2 = FR2-1), kHz.
_SCS_BY_FR = {"FR1": (15, 30, 60), "FR2": (60, 120)}
# How a refusal names the range, so that a 480 or 960 kHz caller learns why.
_FR_LABEL = {"FR1": "FR1", "FR2": "FR2 (FR2-1; FR2-2 is not covered)"}

# TS 38.101-1 Table 5.3.2-1 (FR1, Release 17): SCS kHz -> {channel bandwidth MHz: N_RB}.
# None marks an empty ("N/A") cell of the table.
_FR1_BANDWIDTHS_MHZ = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100)
_FR1_NRB: dict[int, tuple[int | None, ...]] = {
    15: (25, 52, 79, 106, 133, 160, 188, 216, 242, 270, None, None, None, None, None),
    30: (11, 24, 38, 51, 65, 78, 92, 106, 119, 133, 162, 189, 217, 245, 273),
    60: (None, 11, 18, 24, 31, 38, 44, 51, 58, 65, 79, 93, 107, 121, 135),
}

# TS 38.101-2 Table 5.3.2-1 (FR2-1): SCS kHz -> {channel bandwidth MHz: N_RB}.
_FR2_BANDWIDTHS_MHZ = (50, 100, 200, 400)
_FR2_NRB: dict[int, tuple[int | None, ...]] = {
    60: (66, 132, 264, None),
    120: (32, 66, 132, 264),
}

_NRB_TABLES = {
    "FR1": (_FR1_BANDWIDTHS_MHZ, _FR1_NRB, "TS 38.101-1 Table 5.3.2-1"),
    "FR2": (_FR2_BANDWIDTHS_MHZ, _FR2_NRB, "TS 38.101-2 Table 5.3.2-1"),
}


def nr_slot_duration_ms(scs_khz: int) -> float:
    """Duration of one NR slot (normal cyclic prefix) in milliseconds.

    Source: 3GPP TS 38.211 clause 4.2 (Table 4.2-1, Δf = 2^μ × 15 kHz, μ = 0..6) and
    clause 4.3.2 (2^μ slots per 1 ms subframe), so a slot lasts 1 / 2^μ ms.

    Args:
        scs_khz: subcarrier spacing in kHz, one of 15, 30, 60, 120, 240, 480, 960.

    Returns:
        Slot duration in ms (15 kHz -> 1.0, 30 kHz -> 0.5, ..., 960 kHz -> 0.015625).
    """
    scs = check.int_choice("scs_khz", scs_khz, tuple(_MU_BY_SCS_KHZ), unit="kHz")
    return 1.0 / (1 << _MU_BY_SCS_KHZ[scs])


def max_resource_blocks(bandwidth_mhz: int, scs_khz: int, frequency_range: str = "FR1") -> int:
    """Maximum transmission bandwidth configuration N_RB for an NR channel bandwidth.

    Source: 3GPP TS 38.101-1 Table 5.3.2-1 (FR1: SCS 15/30/60 kHz, channel bandwidths 5-100
    MHz, Release 17 including 35 and 45 MHz) and TS 38.101-2 Table 5.3.2-1 (FR2-1: SCS 60/120
    kHz, 50-400 MHz). Cells marked N/A in the tables (FR1 15 kHz above 50 MHz, FR1 60 kHz at
    5 MHz, FR2 60 kHz at 400 MHz) are invalid combinations. "FR2" is FR2-1, as in
    nr_peak_data_rate; FR2-2 (480/960 kHz, 800-2000 MHz channels) is not covered.

    Args:
        bandwidth_mhz: channel bandwidth in MHz (integer, a column of the table; a whole
            float such as 100.0 is taken as that integer).
        scs_khz: subcarrier spacing in kHz (FR1: 15, 30, 60; FR2: 60, 120).
        frequency_range: "FR1" or "FR2".

    Returns:
        N_RB, the number of resource blocks (for example 100 MHz at 30 kHz in FR1 -> 273).
    """
    fr = check.str_choice("frequency_range", frequency_range, _FREQUENCY_RANGES)
    bandwidths, table, source = _NRB_TABLES[fr]
    scs = check.int_choice("scs_khz", scs_khz, _SCS_BY_FR[fr], unit=f"kHz for {_FR_LABEL[fr]}")
    # A bandwidth is a quantity: 100.0 MHz is the 100 MHz column (NaN and 20.5 are in none).
    given: object = bandwidth_mhz
    if isinstance(given, float) and given in bandwidths:
        given = int(given)
    bw = check.int_choice("bandwidth_mhz", given, bandwidths, unit=f"MHz for {fr}")
    n_rb = table[scs][bandwidths.index(bw)]
    if n_rb is None:
        valid = [b for b, cell in zip(bandwidths, table[scs], strict=True) if cell is not None]
        raise ValueError(
            f"{source} has no N_RB for {bw} MHz at {scs} kHz SCS (N/A cell); at {scs} kHz the "
            f"valid bandwidths are {', '.join(str(b) for b in valid)} MHz"
        )
    return n_rb


# TS 38.306 clause 4.1.2: overhead OH(j) by direction and frequency range.
_OVERHEAD = {
    ("downlink", "FR1"): 0.14,
    ("downlink", "FR2"): 0.18,
    ("uplink", "FR1"): 0.08,
    ("uplink", "FR2"): 0.10,
}
_R_MAX = 948 / 1024
_SCALING_FACTORS = (1.0, 0.8, 0.75, 0.4)
_MODULATION_ORDERS = (1, 2, 4, 6, 8, 10)
_MAX_LAYERS = {"downlink": 8, "uplink": 4}


def nr_peak_data_rate(
    layers: int,
    modulation_order: int,
    scaling_factor: float,
    max_rbs: int,
    scs_khz: int,
    direction: str = "downlink",
    frequency_range: str = "FR1",
) -> float:
    """Approximate maximum NR data rate of one carrier in Mbit/s.

    Source: 3GPP TS 38.306 clause 4.1.2, for a single component carrier (J = 1):
    rate = 1e-6 × v_Layers × Q_m × f × R_max × (N_PRB × 12 / T_s^μ) × (1 − OH),
    with R_max = 948/1024, T_s^μ = 1e-3 / (14 × 2^μ) s (average OFDM symbol duration, normal
    cyclic prefix) and OH = 0.14 (DL FR1), 0.18 (DL FR2), 0.08 (UL FR1), 0.10 (UL FR2).

    Args:
        layers: number of MIMO layers v_Layers, 1..8 for downlink, 1..4 for uplink.
        modulation_order: maximum modulation order Q_m: 1 (π/2-BPSK), 2 (QPSK), 4 (16QAM),
            6 (64QAM), 8 (256QAM) or 10 (1024QAM).
        scaling_factor: scaling factor f, one of 1, 0.8, 0.75, 0.4.
        max_rbs: N_PRB^{BW,μ}, maximum RB allocation of the bandwidth, 1..275 (see
            max_resource_blocks).
        scs_khz: subcarrier spacing in kHz (FR1: 15, 30, 60; FR2: 60, 120). FR2 is FR2-1, as
            in max_resource_blocks; FR2-2's 480 and 960 kHz are not covered.
        direction: "downlink" or "uplink".
        frequency_range: "FR1" or "FR2".

    Returns:
        Peak data rate in Mbit/s (for example 4 layers, Q_m 8, f 1, 273 RBs, 30 kHz, DL FR1
        -> about 2337 Mbit/s).
    """
    link = check.str_choice("direction", direction, tuple(_MAX_LAYERS))
    fr = check.str_choice("frequency_range", frequency_range, _FREQUENCY_RANGES)
    v = check.integer("layers", layers, low=1, high=_MAX_LAYERS[link], unit=f"for {link}")
    qm = check.int_choice("modulation_order", modulation_order, _MODULATION_ORDERS)
    f = check.real("scaling_factor", scaling_factor)
    if not any(abs(f - allowed) < 1e-9 for allowed in _SCALING_FACTORS):
        raise ValueError(
            f"scaling_factor must be one of 1, 0.8, 0.75, 0.4 (TS 38.306 4.1.2); got "
            f"{scaling_factor!r}"
        )
    n_prb = check.integer("max_rbs", max_rbs, low=1, high=275)
    scs = check.int_choice("scs_khz", scs_khz, _SCS_BY_FR[fr], unit=f"kHz for {_FR_LABEL[fr]}")
    mu = _MU_BY_SCS_KHZ[scs]
    symbol_duration_s = 1e-3 / (14 * (1 << mu))
    overhead = _OVERHEAD[(link, fr)]
    rate = v * qm * f * _R_MAX * (n_prb * 12 / symbol_duration_s) * (1 - overhead)
    return rate * 1e-6
