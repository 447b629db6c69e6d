"""Link-level quantities: noise, capacity, SINR, RSRQ, EIRP and the link budget.

Sources: Shannon-Hartley theorem; thermal noise kTB at T0 = 290 K; 3GPP TS 36.214 and
TS 38.215 clause 5.1.3 (RSRQ); the usual link-budget and EIRP definitions.
"""

from __future__ import annotations

import math

from . import _validate as check
from ._constants import BOLTZMANN_J_PER_K, REFERENCE_TEMPERATURE_K


def _db_sum(*levels: float) -> float:
    """10 log10 of the sum of 10^(level/10), factored by the largest level so as not to
    overflow for any finite input."""
    top = max(levels)
    return top + 10.0 * math.log10(sum(math.pow(10.0, (level - top) / 10.0) for level in levels))


def shannon_capacity(bandwidth_hz: float, snr_db: float) -> float:
    """Shannon-Hartley channel capacity in bit/s.

    Source: Shannon-Hartley theorem, C = B log2(1 + S/N) with S/N = 10^(SNR_dB / 10).

    Args:
        bandwidth_hz: bandwidth B in Hz, > 0.
        snr_db: signal-to-noise ratio in dB (any finite value).

    Returns:
        Capacity in bit/s (for example 1 MHz at 0 dB -> 1e6 bit/s).
    """
    b = check.real("bandwidth_hz", bandwidth_hz, low=0.0, low_open=True, unit="Hz")
    snr = check.real("snr_db", snr_db, unit="dB")
    if snr <= 0.0:
        return b * math.log2(1.0 + math.pow(10.0, snr / 10.0))
    # log2(1 + x) = log2(x) + log2(1 + 1/x): the same value without overflow at huge SNR.
    return b * (snr / 10.0 * math.log2(10.0) + math.log2(1.0 + math.pow(10.0, -snr / 10.0)))


def thermal_noise_dbm(bandwidth_hz: float, noise_figure_db: float = 0.0) -> float:
    """Thermal noise power kTB plus a receiver noise figure, in dBm.

    Source: N = 10 log10(k T B / 1 mW) + NF with k = 1.380649e-23 J/K (SI) and T = 290 K
    (ITU-R/3GPP reference temperature), i.e. about −173.98 dBm/Hz + 10 log10(B) + NF.

    Args:
        bandwidth_hz: noise bandwidth B in Hz, > 0.
        noise_figure_db: receiver noise figure NF in dB, >= 0.

    Returns:
        Noise power in dBm (for example 1 Hz -> about −173.98 dBm, 1 MHz -> about −113.98).
    """
    b = check.real("bandwidth_hz", bandwidth_hz, low=0.0, low_open=True, unit="Hz")
    nf = check.real("noise_figure_db", noise_figure_db, low=0.0, unit="dB")
    noise_w = BOLTZMANN_J_PER_K * REFERENCE_TEMPERATURE_K * b
    return 10.0 * math.log10(noise_w / 1e-3) + nf


def rsrq_db(rsrp_dbm: float, rssi_dbm: float, n_rb: int) -> float:
    """Reference Signal Received Quality in dB.

    Source: 3GPP TS 36.214 clause 5.1.3 (E-UTRA RSRQ) and TS 38.215 clause 5.1.3 (NR
    SS-RSRQ): RSRQ = N × RSRP / RSSI, where N is the number of resource blocks of the RSSI
    measurement bandwidth; in dB, RSRQ = 10 log10(N) + RSRP_dBm − RSSI_dBm.
    RSRP is the average power of one reference-signal resource element; RSSI is the total
    power over all N × 12 subcarriers of OFDM symbols that (by default in both
    specifications) carry those reference signals, so it includes them and cannot be
    below RSRP. An RSRP above the RSSI is therefore refused (usually the two were
    swapped), and the result is at most 10 log10(N) dB.

    Args:
        rsrp_dbm: RSRP in dBm (power per resource element), <= rssi_dbm.
        rssi_dbm: RSSI in dBm (total power over the measurement bandwidth).
        n_rb: N, the number of resource blocks, integer 1..275.

    Returns:
        RSRQ in dB (for example RSRP −100 dBm, RSSI −70 dBm, 50 RBs -> about −13.01 dB).
    """
    rsrp = check.real("rsrp_dbm", rsrp_dbm, unit="dBm")
    rssi = check.real("rssi_dbm", rssi_dbm, unit="dBm")
    n = check.integer("n_rb", n_rb, low=1, high=275)
    if rsrp > rssi:
        raise ValueError(
            f"rsrp_dbm must not exceed rssi_dbm: RSRP is the power of one resource element "
            f"and RSSI the total over the N resource blocks (were they swapped?); got RSRP "
            f"{rsrp_dbm!r} dBm and RSSI {rssi_dbm!r} dBm"
        )
    return 10.0 * math.log10(n) + rsrp - rssi


def link_budget_max_path_loss(
    tx_power_dbm: float,
    tx_antenna_gain_dbi: float,
    rx_antenna_gain_dbi: float,
    rx_sensitivity_dbm: float,
    cable_loss_db: float = 0.0,
    fade_margin_db: float = 0.0,
) -> float:
    """Maximum allowable path loss of a radio link budget, in dB.

    Source: standard link budget, MAPL = P_tx + G_tx + G_rx − L_cable − M_fade − S_rx.

    Args:
        tx_power_dbm: transmitter output power P_tx in dBm.
        tx_antenna_gain_dbi: transmit antenna gain G_tx in dBi.
        rx_antenna_gain_dbi: receive antenna gain G_rx in dBi.
        rx_sensitivity_dbm: receiver sensitivity S_rx in dBm.
        cable_loss_db: total cable and connector loss L_cable in dB, >= 0.
        fade_margin_db: fade (and other) margin M_fade in dB, >= 0.

    Returns:
        Maximum path loss in dB (for example 43 + 15 + 0 − 2 − 5 − (−120) = 171 dB).
    """
    p_tx = check.real("tx_power_dbm", tx_power_dbm, unit="dBm")
    g_tx = check.real("tx_antenna_gain_dbi", tx_antenna_gain_dbi, unit="dBi")
    g_rx = check.real("rx_antenna_gain_dbi", rx_antenna_gain_dbi, unit="dBi")
    s_rx = check.real("rx_sensitivity_dbm", rx_sensitivity_dbm, unit="dBm")
    cable = check.real("cable_loss_db", cable_loss_db, low=0.0, unit="dB")
    margin = check.real("fade_margin_db", fade_margin_db, low=0.0, unit="dB")
    return p_tx + g_tx + g_rx - cable - margin - s_rx


def sinr_db(signal_dbm: float, interference_dbm: float, noise_dbm: float) -> float:
    """Signal to interference-plus-noise ratio in dB.

    Source: SINR = S / (I + N) with the three powers converted to milliwatts and summed
    linearly, then 10 log10 of the ratio.

    Args:
        signal_dbm: wanted signal power S in dBm.
        interference_dbm: total interference power I in dBm.
        noise_dbm: noise power N in dBm.

    Returns:
        SINR in dB (for example S −80, I −90, N −90 dBm -> about 6.99 dB).
    """
    s = check.real("signal_dbm", signal_dbm, unit="dBm")
    i = check.real("interference_dbm", interference_dbm, unit="dBm")
    n = check.real("noise_dbm", noise_dbm, unit="dBm")
    return s - _db_sum(i, n)


def eirp_dbm(tx_power_dbm: float, antenna_gain_dbi: float, cable_loss_db: float = 0.0) -> float:
    """Effective isotropic radiated power in dBm.

    Source: EIRP = P_tx + G − L (transmitter power plus antenna gain relative to an isotropic
    radiator minus feeder loss).

    Args:
        tx_power_dbm: transmitter output power in dBm.
        antenna_gain_dbi: antenna gain in dBi.
        cable_loss_db: cable and connector loss in dB, >= 0.

    Returns:
        EIRP in dBm (for example 43 dBm + 18 dBi − 3 dB -> 58 dBm).
    """
    p = check.real("tx_power_dbm", tx_power_dbm, unit="dBm")
    g = check.real("antenna_gain_dbi", antenna_gain_dbi, unit="dBi")
    loss = check.real("cable_loss_db", cable_loss_db, low=0.0, unit="dB")
    return p + g - loss
