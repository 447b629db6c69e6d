"""Radio propagation: free-space loss, 3GPP TR 38.901 UMa/UMi, Okumura-Hata, Fresnel zones.

Sources: Friis free-space equation; 3GPP TR 38.901 clause 7.4.1, Table 7.4.1-1; Hata (1980)
as given in ITU-R P.529-3 and the COST 231 final report clause 4.4.1; ITU-R P.530 (Fresnel
ellipsoid radius).
"""

from __future__ import annotations

import math
import sys

from . import _validate as check
from ._constants import SPEED_OF_LIGHT_M_S


def free_space_path_loss(frequency_ghz: float, distance_m: float) -> float:
    """Free-space path loss between isotropic antennas, in dB.

    Source: Friis transmission equation, FSPL = (4π d f / c)^2, i.e.
    FSPL = 20 log10(d) + 20 log10(f) + 20 log10(4π / c) with d in m, f in Hz and
    c = 299 792 458 m/s (about 32.45 dB + 20 log10(f/MHz) + 20 log10(d/km)).
    Closer than d = λ / 4π (λ = c / f; about 2.4 cm at 1 GHz) the formula gives a negative
    loss, a gain no passive path has: the equation holds only in the far field, so such a
    distance is refused.

    Args:
        frequency_ghz: carrier frequency in GHz, > 0.
        distance_m: distance in metres, >= λ / 4π (where the loss is 0 dB).

    Returns:
        Path loss in dB, >= 0 (for example 1 GHz over 1 km -> about 92.45 dB).
    """
    f_ghz = check.real("frequency_ghz", frequency_ghz, low=0.0, low_open=True, unit="GHz")
    d = check.real("distance_m", distance_m, low=0.0, low_open=True, unit="m")
    # λ/4π and the logarithms are formed without f in Hz, which overflows for f near 1e300 GHz.
    nearest = SPEED_OF_LIGHT_M_S / (4 * math.pi * 1e9) / f_ghz
    if d < nearest:
        raise ValueError(
            f"distance_m must be at least λ/4π = {nearest:.6g} m at {f_ghz:g} GHz, where the "
            f"free-space loss is 0 dB (closer in, Friis gives a negative loss); got {d!r}"
        )
    loss = (
        20 * math.log10(d)
        + 20 * math.log10(f_ghz)
        + 20 * math.log10(4 * math.pi * 1e9 / SPEED_OF_LIGHT_M_S)
    )
    # At d = λ/4π the sum of logarithms can round to -1e-15; the loss there is 0 dB.
    return max(loss, 0.0)


# TR 38.901 Table 7.4.1-1 (UMa, UMi-Street Canyon) validity and constants.
_SCENARIOS = ("UMa", "UMi")
_EFFECTIVE_ENV_HEIGHT_M = 1.0  # h_E, fixed at 1 m here (UMi always; UMa's most likely value)
_MIN_D2D_M = 10.0
_MAX_D2D_M = 5000.0
_MIN_H_UT_M = 1.5
_MAX_H_UT_M = 22.5
_MIN_FREQ_GHZ = 0.5
_MAX_FREQ_GHZ = 100.0
# Table 7.4.1-1 note 1 fixes c = 3.0e8 m/s for the breakpoint distance d'_BP (only there:
# free-space quantities keep the exact SI value).
_BREAKPOINT_C_M_S = 3.0e8


def _uma_los(d2d: float, d3d: float, fc: float, d_bp: float, h_bs: float, h_ut: float) -> float:
    if d2d <= d_bp:
        return 28.0 + 22 * math.log10(d3d) + 20 * math.log10(fc)
    return (
        28.0
        + 40 * math.log10(d3d)
        + 20 * math.log10(fc)
        - 9 * math.log10(d_bp**2 + (h_bs - h_ut) ** 2)
    )


def _umi_los(d2d: float, d3d: float, fc: float, d_bp: float, h_bs: float, h_ut: float) -> float:
    if d2d <= d_bp:
        return 32.4 + 21 * math.log10(d3d) + 20 * math.log10(fc)
    return (
        32.4
        + 40 * math.log10(d3d)
        + 20 * math.log10(fc)
        - 9.5 * math.log10(d_bp**2 + (h_bs - h_ut) ** 2)
    )


def path_loss_38901(
    scenario: str,
    frequency_ghz: float,
    distance_2d_m: float,
    h_bs_m: float,
    h_ut_m: float,
    los: bool,
) -> float:
    """Path loss of the 3GPP TR 38.901 UMa or UMi-Street Canyon model, in dB.

    Source: 3GPP TR 38.901 clause 7.4.1, Table 7.4.1-1 (no shadow fading added).
    d_3D = sqrt(d_2D^2 + (h_BS − h_UT)^2); breakpoint d'_BP = 4 h'_BS h'_UT f_c / c with
    h'_BS = h_BS − h_E, h'_UT = h_UT − h_E, h_E = 1 m, f_c in Hz and c = 3.0 × 10^8 m/s
    (Note 1 fixes this value of c, so d'_BP = 560 m for UMa at 3.5 GHz, h_UT 1.5 m).
    UMa LOS: PL1 = 28.0 + 22 log10(d_3D) + 20 log10(f_c) for 10 m <= d_2D <= d'_BP;
    PL2 = 28.0 + 40 log10(d_3D) + 20 log10(f_c) − 9 log10(d'_BP^2 + (h_BS − h_UT)^2) beyond.
    UMa NLOS: max(PL_LOS, 13.54 + 39.08 log10(d_3D) + 20 log10(f_c) − 0.6 (h_UT − 1.5)).
    UMi LOS: PL1 = 32.4 + 21 log10(d_3D) + 20 log10(f_c);
    PL2 = 32.4 + 40 log10(d_3D) + 20 log10(f_c) − 9.5 log10(d'_BP^2 + (h_BS − h_UT)^2).
    UMi NLOS: max(PL_LOS, 35.3 log10(d_3D) + 22.4 + 21.3 log10(f_c) − 0.3 (h_UT − 1.5)).
    f_c in GHz in the path-loss formulas, distances in metres.

    Args:
        scenario: "UMa" (urban macro) or "UMi" (urban micro, street canyon).
        frequency_ghz: carrier frequency f_c in GHz, 0.5..100 (the TR's frequency range).
        distance_2d_m: ground distance d_2D in metres, 10..5000.
        h_bs_m: base-station antenna height in metres, > h_E = 1 m (the table's nominal
            value is 25 m for UMa and 10 m for UMi).
        h_ut_m: user-terminal antenna height in metres, 1.5..22.5.
        los: True for line of sight, False for non-line of sight.

    Returns:
        Path loss in dB.
    """
    kind = check.str_choice("scenario", scenario, _SCENARIOS)
    fc = check.real(
        "frequency_ghz", frequency_ghz, low=_MIN_FREQ_GHZ, high=_MAX_FREQ_GHZ, unit="GHz"
    )
    d2d = check.real("distance_2d_m", distance_2d_m, low=_MIN_D2D_M, high=_MAX_D2D_M, unit="m")
    h_bs = check.real(
        "h_bs_m", h_bs_m, low=_EFFECTIVE_ENV_HEIGHT_M, low_open=True, unit="m (above h_E = 1 m)"
    )
    h_ut = check.real("h_ut_m", h_ut_m, low=_MIN_H_UT_M, high=_MAX_H_UT_M, unit="m")
    is_los = check.boolean("los", los)

    d3d = math.hypot(d2d, h_bs - h_ut)
    d_bp = (
        4
        * (h_bs - _EFFECTIVE_ENV_HEIGHT_M)
        * (h_ut - _EFFECTIVE_ENV_HEIGHT_M)
        * (fc * 1e9)
        / _BREAKPOINT_C_M_S
    )
    if kind == "UMa":
        pl_los = _uma_los(d2d, d3d, fc, d_bp, h_bs, h_ut)
        if is_los:
            return pl_los
        pl_nlos = 13.54 + 39.08 * math.log10(d3d) + 20 * math.log10(fc) - 0.6 * (h_ut - 1.5)
        return max(pl_los, pl_nlos)
    pl_los = _umi_los(d2d, d3d, fc, d_bp, h_bs, h_ut)
    if is_los:
        return pl_los
    pl_nlos = 35.3 * math.log10(d3d) + 22.4 + 21.3 * math.log10(fc) - 0.3 * (h_ut - 1.5)
    return max(pl_los, pl_nlos)


def fresnel_zone_radius(frequency_ghz: float, d1_m: float, d2_m: float, zone: int = 1) -> float:
    """Radius of the n-th Fresnel zone at a point between two antennas, in metres.

    Source: ITU-R P.530 (and P.526): r_n = sqrt(n λ d1 d2 / (d1 + d2)), λ = c / f,
    c = 299 792 458 m/s.

    Args:
        frequency_ghz: frequency in GHz, > 0.
        d1_m: distance from the point to one end of the path in metres, > 0.
        d2_m: distance from the point to the other end in metres, > 0.
        zone: Fresnel zone number n, integer >= 1.

    Returns:
        Zone radius in metres (for example 10 GHz, midpoint of a 10 km hop -> about 8.66 m).
    """
    f_ghz = check.real("frequency_ghz", frequency_ghz, low=0.0, low_open=True, unit="GHz")
    d1 = check.real("d1_m", d1_m, low=0.0, low_open=True, unit="m")
    d2 = check.real("d2_m", d2_m, low=0.0, low_open=True, unit="m")
    n = check.integer("zone", zone, low=1)
    if n > sys.float_info.max:  # exact: Python compares an int with a float without rounding
        raise ValueError(
            f"zone must be an integer >= 1 that a float can hold (below about 1.8e308); got "
            f"{check.shown(n)}"
        )
    wavelength = SPEED_OF_LIGHT_M_S / (f_ghz * 1e9)
    # d1 d2 / (d1 + d2) written as a harmonic form so that huge distances cannot overflow.
    radius = math.sqrt(n * wavelength / (1.0 / d1 + 1.0 / d2))
    if not math.isfinite(radius):  # f near 5e-324 GHz: a wavelength beyond the float range
        raise ValueError(
            "the Fresnel radius for these arguments is beyond the float range (frequency_ghz "
            f"{f_ghz!r}, d1_m {d1!r}, d2_m {d2!r}, zone {n!r})"
        )
    return radius


_HATA_AREAS = ("urban", "urban_large", "suburban", "rural")


def okumura_hata_path_loss(
    frequency_mhz: float,
    distance_km: float,
    h_bs_m: float,
    h_ms_m: float,
    area: str = "urban",
) -> float:
    """Median path loss of the Okumura-Hata model, in dB.

    Source: M. Hata (1980), as given in ITU-R P.529-3 and the COST 231 final report clause
    4.4.1. With f in MHz, d in km, h_b and h_m in m:
    L_urban = 69.55 + 26.16 log f − 13.82 log h_b − a(h_m) + (44.9 − 6.55 log h_b) log d.
    "urban" (small/medium city): a(h_m) = (1.1 log f − 0.7) h_m − (1.56 log f − 0.8).
    "urban_large" (large city): a(h_m) = 8.29 (log 1.54 h_m)^2 − 1.1 for f <= 200 MHz and
    3.2 (log 11.75 h_m)^2 − 4.97 above 200 MHz (Hata gives the second for f >= 400 MHz; the
    200 MHz split between them is the usual convention).
    "suburban": L_urban − 2 (log(f / 28))^2 − 5.4.
    "rural" (open area): L_urban − 4.78 (log f)^2 + 18.33 log f − 40.94.
    Suburban and rural start from L_urban with the small/medium-city a(h_m).

    Args:
        frequency_mhz: frequency in MHz, 150..1500.
        distance_km: distance in km, 1..20.
        h_bs_m: effective base-station antenna height in m, 30..200.
        h_ms_m: mobile antenna height in m, 1..10.
        area: "urban", "urban_large", "suburban" or "rural".

    Returns:
        Median path loss in dB.
    """
    f = check.real("frequency_mhz", frequency_mhz, low=150.0, high=1500.0, unit="MHz")
    d = check.real("distance_km", distance_km, low=1.0, high=20.0, unit="km")
    h_b = check.real("h_bs_m", h_bs_m, low=30.0, high=200.0, unit="m")
    h_m = check.real("h_ms_m", h_ms_m, low=1.0, high=10.0, unit="m")
    kind = check.str_choice("area", area, _HATA_AREAS)

    log_f = math.log10(f)
    if kind == "urban_large":
        if f <= 200.0:
            a_hm = 8.29 * math.log10(1.54 * h_m) ** 2 - 1.1
        else:
            a_hm = 3.2 * math.log10(11.75 * h_m) ** 2 - 4.97
    else:
        a_hm = (1.1 * log_f - 0.7) * h_m - (1.56 * log_f - 0.8)
    loss = (
        69.55
        + 26.16 * log_f
        - 13.82 * math.log10(h_b)
        - a_hm
        + (44.9 - 6.55 * math.log10(h_b)) * math.log10(d)
    )
    if kind == "suburban":
        return loss - 2 * math.log10(f / 28) ** 2 - 5.4
    if kind == "rural":
        return loss - 4.78 * log_f**2 + 18.33 * log_f - 40.94
    return loss
