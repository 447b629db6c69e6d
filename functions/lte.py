"""LTE (E-UTRA) channel numbering and transmission bandwidth configuration.

Sources: 3GPP TS 36.101 Table 5.7.3-1 (E-UTRA channel numbers, EARFCN) and Table 5.6-1
(transmission bandwidth configuration N_RB).
"""

from __future__ import annotations

from typing import NamedTuple

from . import _validate as check


class _Band(NamedTuple):
    band: int
    dl_low: int  # F_DL_low in units of 100 kHz
    dl_offs: int  # N_Offs-DL, also the first DL EARFCN of the band
    dl_last: int  # last DL EARFCN of the band
    ul_low: int | None  # F_UL_low in units of 100 kHz; None for SDL and TDD bands
    ul_offs: int | None
    ul_last: int | None


def _fdd(band: int, dl: tuple[int, int, int], ul: tuple[int, int, int]) -> _Band:
    return _Band(band, *dl, *ul)


def _one(band: int, low: int, offs: int, last: int) -> _Band:
    # TDD bands use one EARFCN range for both directions; SDL bands have no uplink.
    return _Band(band, low, offs, last, None, None, None)


# TS 36.101 Table 5.7.3-1: (F_DL_low, N_Offs-DL, last N_DL), (F_UL_low, N_Offs-UL, last N_UL).
# Frequencies in 100 kHz units so that F = F_low + 0.1 (N - N_Offs) is integer arithmetic.
_BANDS: tuple[_Band, ...] = (
    _fdd(1, (21100, 0, 599), (19200, 18000, 18599)),
    _fdd(2, (19300, 600, 1199), (18500, 18600, 19199)),
    _fdd(3, (18050, 1200, 1949), (17100, 19200, 19949)),
    _fdd(4, (21100, 1950, 2399), (17100, 19950, 20399)),
    _fdd(5, (8690, 2400, 2649), (8240, 20400, 20649)),
    _fdd(6, (8750, 2650, 2749), (8300, 20650, 20749)),
    _fdd(7, (26200, 2750, 3449), (25000, 20750, 21449)),
    _fdd(8, (9250, 3450, 3799), (8800, 21450, 21799)),
    _fdd(9, (18449, 3800, 4149), (17499, 21800, 22149)),
    _fdd(10, (21100, 4150, 4749), (17100, 22150, 22749)),
    _fdd(11, (14759, 4750, 4949), (14279, 22750, 22949)),
    _fdd(12, (7290, 5010, 5179), (6990, 23010, 23179)),
    _fdd(13, (7460, 5180, 5279), (7770, 23180, 23279)),
    _fdd(14, (7580, 5280, 5379), (7880, 23280, 23379)),
    _fdd(17, (7340, 5730, 5849), (7040, 23730, 23849)),
    _fdd(18, (8600, 5850, 5999), (8150, 23850, 23999)),
    _fdd(19, (8750, 6000, 6149), (8300, 24000, 24149)),
    _fdd(20, (7910, 6150, 6449), (8320, 24150, 24449)),
    _fdd(21, (14959, 6450, 6599), (14479, 24450, 24599)),
    _fdd(22, (35100, 6600, 7399), (34100, 24600, 25399)),
    _fdd(23, (21800, 7500, 7699), (20000, 25500, 25699)),
    _fdd(24, (15250, 7700, 8039), (16265, 25700, 26039)),
    _fdd(25, (19300, 8040, 8689), (18500, 26040, 26689)),
    _fdd(26, (8590, 8690, 9039), (8140, 26690, 27039)),
    _fdd(27, (8520, 9040, 9209), (8070, 27040, 27209)),
    _fdd(28, (7580, 9210, 9659), (7030, 27210, 27659)),
    _one(29, 7170, 9660, 9769),
    _fdd(30, (23500, 9770, 9869), (23050, 27660, 27759)),
    _fdd(31, (4625, 9870, 9919), (4525, 27760, 27809)),
    _one(32, 14520, 9920, 10359),
    _one(33, 19000, 36000, 36199),
    _one(34, 20100, 36200, 36349),
    _one(35, 18500, 36350, 36949),
    _one(36, 19300, 36950, 37549),
    _one(37, 19100, 37550, 37749),
    _one(38, 25700, 37750, 38249),
    _one(39, 18800, 38250, 38649),
    _one(40, 23000, 38650, 39649),
    _one(41, 24960, 39650, 41589),
    _one(42, 34000, 41590, 43589),
    _one(43, 36000, 43590, 45589),
    _one(44, 7030, 45590, 46589),
    _one(45, 14470, 46590, 46789),
    _one(46, 51500, 46790, 54539),
    _one(47, 58550, 54540, 55239),
    _one(48, 35500, 55240, 56739),
    _one(49, 35500, 56740, 58239),
    _one(50, 14320, 58240, 59089),
    _one(51, 14270, 59090, 59139),
    _one(52, 33000, 59140, 60139),
    _one(53, 24835, 60140, 60254),
    _fdd(65, (21100, 65536, 66435), (19200, 131072, 131971)),
    _fdd(66, (21100, 66436, 67335), (17100, 131972, 132671)),
    _one(67, 7380, 67336, 67535),
    _fdd(68, (7530, 67536, 67835), (6980, 132672, 132971)),
    _one(69, 25700, 67836, 68335),
    _fdd(70, (19950, 68336, 68585), (16950, 132972, 133121)),
    _fdd(71, (6170, 68586, 68935), (6630, 133122, 133471)),
    _fdd(72, (4610, 68936, 68985), (4510, 133472, 133521)),
    _fdd(73, (4600, 68986, 69035), (4500, 133522, 133571)),
    _fdd(74, (14750, 69036, 69465), (14270, 133572, 134001)),
    _one(75, 14320, 69466, 70315),
    _one(76, 14270, 70316, 70365),
    _fdd(85, (7280, 70366, 70545), (6980, 134002, 134181)),
    _fdd(87, (4200, 70546, 70595), (4100, 134182, 134231)),
    _fdd(88, (4220, 70596, 70645), (4120, 134232, 134281)),
)

# EARFCN is an 18-bit value (0..262143) in RRC.
_EARFCN_MAX = 262_143


def lte_earfcn_to_frequency(earfcn: int) -> float:
    """Convert an E-UTRA EARFCN to its carrier frequency in MHz.

    Source: 3GPP TS 36.101 clause 5.7.3, Table 5.7.3-1:
    F_DL = F_DL_low + 0.1 (N_DL − N_Offs-DL) and F_UL = F_UL_low + 0.1 (N_UL − N_Offs-UL).
    A downlink EARFCN gives the downlink frequency, an uplink EARFCN the uplink frequency; a
    TDD band's single range gives the frequency used in both directions. Covered bands: 1-14,
    17-53, 65-76, 85, 87, 88.

    Args:
        earfcn: E-UTRA Absolute Radio Frequency Channel Number, integer 0..262143, inside
            one of the covered bands' N_DL or N_UL ranges.

    Returns:
        Carrier frequency in MHz (for example EARFCN 1300 -> 1815.0, band 3 downlink).
    """
    n = check.integer("earfcn", earfcn, low=0, high=_EARFCN_MAX)
    for band in _BANDS:
        if band.dl_offs <= n <= band.dl_last:
            return (band.dl_low + n - band.dl_offs) / 10
        if (
            band.ul_low is not None
            and band.ul_offs is not None
            and band.ul_last is not None
            and band.ul_offs <= n <= band.ul_last
        ):
            return (band.ul_low + n - band.ul_offs) / 10
    covered = ", ".join(str(band.band) for band in _BANDS)
    raise ValueError(
        f"earfcn {n} is not in the N_DL or N_UL range of any band of TS 36.101 Table 5.7.3-1 "
        f"covered here (bands {covered})"
    )


# TS 36.101 Table 5.6-1: channel bandwidth (MHz) -> transmission bandwidth configuration N_RB.
_LTE_NRB = ((1.4, 6), (3.0, 15), (5.0, 25), (10.0, 50), (15.0, 75), (20.0, 100))


def lte_transmission_bandwidth_rbs(channel_bandwidth_mhz: float) -> int:
    """Transmission bandwidth configuration N_RB of an E-UTRA channel bandwidth.

    Source: 3GPP TS 36.101 clause 5.6, Table 5.6-1: 1.4, 3, 5, 10, 15, 20 MHz ->
    6, 15, 25, 50, 75, 100 resource blocks.

    Args:
        channel_bandwidth_mhz: channel bandwidth BW_Channel in MHz, one of 1.4, 3, 5, 10, 15,
            20.

    Returns:
        N_RB, the number of resource blocks.
    """
    bw = check.real("channel_bandwidth_mhz", channel_bandwidth_mhz, unit="MHz")
    for channel_mhz, n_rb in _LTE_NRB:
        if abs(bw - channel_mhz) < 1e-9:
            return n_rb
    raise ValueError(
        "channel_bandwidth_mhz must be one of 1.4, 3, 5, 10, 15, 20 MHz (TS 36.101 Table "
        f"5.6-1); got {channel_bandwidth_mhz!r}"
    )
