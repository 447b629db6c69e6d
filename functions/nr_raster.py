"""NR frequency rasters: NR-ARFCN (global raster) and GSCN (synchronization raster).

Source: 3GPP TS 38.104 clause 5.4.2.1 (Table 5.4.2.1-1, NR-ARFCN parameters for the global
frequency raster) and clause 5.4.3.1 (Table 5.4.3.1-1, GSCN parameters for the global
frequency raster). Arithmetic is done in integer hertz / kilohertz so that raster points come
out exact before the final conversion to MHz.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from . import _validate as check


class _RasterRange(NamedTuple):
    n_min: int
    n_max: int
    f_offs_hz: int  # F_REF-Offs
    n_offs: int  # N_REF-Offs
    step_hz: int  # ΔF_Global


# TS 38.104 Table 5.4.2.1-1.
_NR_ARFCN_RANGES = (
    _RasterRange(0, 599_999, 0, 0, 5_000),  # 0-3000 MHz
    _RasterRange(600_000, 2_016_666, 3_000_000_000, 600_000, 15_000),  # 3000-24250 MHz
    _RasterRange(2_016_667, 3_279_165, 24_250_080_000, 2_016_667, 60_000),  # 24250-100000 MHz
)
_NR_ARFCN_MAX = _NR_ARFCN_RANGES[-1].n_max

# A frequency given in MHz as a float is accepted as a raster point if it lies within this
# distance of one; 1 Hz is far below the 5 kHz raster step and far above float rounding.
_RASTER_TOLERANCE_HZ = 1.0


def _arfcn_hz(nr_arfcn: int) -> int:
    for rng in _NR_ARFCN_RANGES:
        if rng.n_min <= nr_arfcn <= rng.n_max:
            return rng.f_offs_hz + rng.step_hz * (nr_arfcn - rng.n_offs)
    raise AssertionError("unreachable: nr_arfcn was range-checked")


def nr_arfcn_to_frequency(nr_arfcn: int) -> float:
    """Convert an NR-ARFCN to its RF reference frequency F_REF in MHz.

    Source: 3GPP TS 38.104 clause 5.4.2.1, Table 5.4.2.1-1 (global frequency raster):
    F_REF = F_REF-Offs + ΔF_Global × (N_REF − N_REF-Offs), with
    N_REF 0..599999: ΔF_Global 5 kHz, F_REF-Offs 0 MHz, N_REF-Offs 0;
    N_REF 600000..2016666: ΔF_Global 15 kHz, F_REF-Offs 3000 MHz, N_REF-Offs 600000;
    N_REF 2016667..3279165: ΔF_Global 60 kHz, F_REF-Offs 24250.08 MHz, N_REF-Offs 2016667.

    Args:
        nr_arfcn: NR Absolute Radio Frequency Channel Number N_REF, integer 0..3279165.

    Returns:
        F_REF in MHz (for example 600000 -> 3000.0, 2016667 -> 24250.08).
    """
    n = check.integer("nr_arfcn", nr_arfcn, low=0, high=_NR_ARFCN_MAX)
    return _arfcn_hz(n) / 1e6


def frequency_to_nr_arfcn(frequency_mhz: float) -> int:
    """Convert an RF reference frequency in MHz to its NR-ARFCN (inverse of the raster).

    Source: 3GPP TS 38.104 clause 5.4.2.1, Table 5.4.2.1-1, solved for N_REF:
    N_REF = N_REF-Offs + (F_REF − F_REF-Offs) / ΔF_Global in the range that contains F_REF.
    The frequency must be a raster point (within 1 Hz): 5 kHz steps below 3000 MHz, 15 kHz
    steps from 3000 MHz, 60 kHz steps from 24250.08 MHz up to 99999.96 MHz. 3000 MHz itself
    is NR-ARFCN 600000.

    Args:
        frequency_mhz: F_REF in MHz, 0..99999.96.

    Returns:
        The NR-ARFCN N_REF (integer 0..3279165).
    """
    top_mhz = _arfcn_hz(_NR_ARFCN_MAX) / 1e6
    freq = check.real("frequency_mhz", frequency_mhz, low=0.0, high=top_mhz, unit="MHz")
    hz = freq * 1e6
    for rng in _NR_ARFCN_RANGES:
        n = rng.n_offs + round((hz - rng.f_offs_hz) / rng.step_hz)
        on_raster = abs(hz - (rng.f_offs_hz + rng.step_hz * (n - rng.n_offs)))
        if rng.n_min <= n <= rng.n_max and on_raster <= _RASTER_TOLERANCE_HZ:
            return n
    raise ValueError(_off_raster_message(freq))


def _off_raster_message(freq_mhz: float) -> str:
    hz = freq_mhz * 1e6
    if hz < 3e9:
        rng = _NR_ARFCN_RANGES[0]
    elif hz < 24_250e6:
        rng = _NR_ARFCN_RANGES[1]
    else:
        rng = _NR_ARFCN_RANGES[2]
    position = (hz - rng.f_offs_hz) / rng.step_hz + rng.n_offs
    below = min(max(math.floor(position), rng.n_min), rng.n_max)
    above = min(max(math.ceil(position), rng.n_min), rng.n_max)
    neighbours = sorted({below, above})
    listed = " and ".join(f"{_arfcn_hz(n) / 1e6!r} MHz (NR-ARFCN {n})" for n in neighbours)
    return (
        f"frequency_mhz {freq_mhz!r} is not on the NR global raster of TS 38.104 Table "
        f"5.4.2.1-1 (ΔF_Global {rng.step_hz // 1000} kHz in this range); nearest raster "
        f"points: {listed}"
    )


# TS 38.104 Table 5.4.3.1-1: GSCN ranges.
_GSCN_RANGE1 = (2, 7498)  # 0-3000 MHz: SS_REF = N × 1200 kHz + M × 50 kHz
_GSCN_RANGE2 = (7499, 22255)  # 3000-24250 MHz: SS_REF = 3000 MHz + N × 1.44 MHz
_GSCN_RANGE3 = (22256, 26639)  # 24250-100000 MHz: SS_REF = 24250.08 MHz + N × 17.28 MHz


def gscn_to_frequency(gscn: int) -> float:
    """Convert a GSCN (Global Synchronization Channel Number) to SS_REF in MHz.

    Source: 3GPP TS 38.104 clause 5.4.3.1, Table 5.4.3.1-1:
    0-3000 MHz: SS_REF = N × 1200 kHz + M × 50 kHz, N = 1..2499, M ∈ {1, 3, 5},
    GSCN = 3N + (M − 3)/2 (GSCN 2..7498);
    3000-24250 MHz: SS_REF = 3000 MHz + N × 1.44 MHz, N = 0..14756, GSCN = 7499 + N;
    24250-100000 MHz: SS_REF = 24250.08 MHz + N × 17.28 MHz, N = 0..4383, GSCN = 22256 + N.

    Args:
        gscn: GSCN, integer 2..26639.

    Returns:
        The SS block reference frequency SS_REF in MHz (for example 7499 -> 3000.0).
    """
    g = check.integer("gscn", gscn, low=_GSCN_RANGE1[0], high=_GSCN_RANGE3[1])
    if g <= _GSCN_RANGE1[1]:
        # GSCN = 3N + (M - 3)/2 with M in {1, 3, 5}: the residue mod 3 selects M.
        m = {0: 3, 1: 5, 2: 1}[g % 3]
        n = (g - (m - 3) // 2) // 3
        khz = n * 1200 + m * 50
    elif g <= _GSCN_RANGE2[1]:
        khz = 3_000_000 + (g - _GSCN_RANGE2[0]) * 1440
    else:
        khz = 24_250_080 + (g - _GSCN_RANGE3[0]) * 17_280
    return khz / 1e3
