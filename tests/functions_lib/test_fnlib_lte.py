"""EARFCN conversion (TS 36.101 Table 5.7.3-1) and N_RB (TS 36.101 Table 5.6-1)."""

from __future__ import annotations

import importlib
import itertools
from types import ModuleType

import pytest


# TS 36.101 Table 5.7.3-1: F = F_low + 0.1 (N - N_Offs); first and last EARFCN of each range.
@pytest.mark.parametrize(
    ("earfcn", "mhz"),
    [
        pytest.param(0, 2110.0, id="B1-DL-first"),
        pytest.param(599, 2169.9, id="B1-DL-last"),
        pytest.param(18000, 1920.0, id="B1-UL-first"),
        pytest.param(18599, 1979.9, id="B1-UL-last"),
        pytest.param(1200, 1805.0, id="B3-DL-first"),
        pytest.param(1300, 1815.0, id="B3-DL-1300"),
        pytest.param(1949, 1879.9, id="B3-DL-last"),
        pytest.param(19200, 1710.0, id="B3-UL-first"),
        pytest.param(19949, 1784.9, id="B3-UL-last"),
        pytest.param(2400, 869.0, id="B5-DL-first"),
        pytest.param(2649, 893.9, id="B5-DL-last"),
        pytest.param(20400, 824.0, id="B5-UL-first"),
        pytest.param(2750, 2620.0, id="B7-DL-first"),
        pytest.param(3100, 2655.0, id="B7-DL-3100"),
        pytest.param(3449, 2689.9, id="B7-DL-last"),
        pytest.param(20750, 2500.0, id="B7-UL-first"),
        pytest.param(21449, 2569.9, id="B7-UL-last"),
        pytest.param(3450, 925.0, id="B8-DL-first"),
        pytest.param(3799, 959.9, id="B8-DL-last"),
        pytest.param(21450, 880.0, id="B8-UL-first"),
        pytest.param(3800, 1844.9, id="B9-DL-first-decimal-F_low"),
        pytest.param(6150, 791.0, id="B20-DL-first"),
        pytest.param(6449, 820.9, id="B20-DL-last"),
        pytest.param(24150, 832.0, id="B20-UL-first"),
        pytest.param(24449, 861.9, id="B20-UL-last"),
        pytest.param(9210, 758.0, id="B28-DL-first"),
        pytest.param(9659, 802.9, id="B28-DL-last"),
        pytest.param(27210, 703.0, id="B28-UL-first"),
        pytest.param(27659, 747.9, id="B28-UL-last"),
        pytest.param(9920, 1452.0, id="B32-SDL-first"),
        pytest.param(37750, 2570.0, id="B38-TDD-first"),
        pytest.param(38249, 2619.9, id="B38-TDD-last"),
        pytest.param(38650, 2300.0, id="B40-TDD-first"),
        pytest.param(39649, 2399.9, id="B40-TDD-last"),
        pytest.param(39650, 2496.0, id="B41-TDD-first"),
        pytest.param(41589, 2689.9, id="B41-TDD-last"),
        pytest.param(66436, 2110.0, id="B66-DL-first"),
        pytest.param(131972, 1710.0, id="B66-UL-first"),
        pytest.param(68586, 617.0, id="B71-DL-first"),
        pytest.param(133471, 697.9, id="B71-UL-last"),
    ],
)
def test_lte_earfcn_to_frequency(fn: ModuleType, earfcn: int, mhz: float) -> None:
    assert fn.lte_earfcn_to_frequency(earfcn=earfcn) == mhz


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param(4950, "not in the N_DL or N_UL range", id="gap-after-B11"),
        pytest.param(10360, "not in the N_DL or N_UL range", id="gap-after-B32"),
        pytest.param(17999, "not in the N_DL or N_UL range", id="just-before-B1-UL"),
        pytest.param(35999, "not in the N_DL or N_UL range", id="just-before-B33"),
        pytest.param(262144, "earfcn must be an integer >= 0 and <= 262143", id="above-18-bit"),
        pytest.param(-1, "earfcn must be an integer", id="negative"),
        pytest.param(1300.0, "earfcn must be an integer", id="float"),
        pytest.param(True, "earfcn must be an integer", id="bool"),
    ],
)
def test_lte_earfcn_rejects(fn: ModuleType, bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.lte_earfcn_to_frequency(earfcn=bad)


def test_earfcn_ranges_do_not_overlap_and_have_table_widths(fn: ModuleType) -> None:
    lte = importlib.import_module(f"{fn.__name__}.lte")
    ranges: list[tuple[int, int, int]] = []
    for band in lte._BANDS:
        ranges.append((band.dl_offs, band.dl_last, band.band))
        if band.ul_offs is not None and band.ul_last is not None:
            ranges.append((band.ul_offs, band.ul_last, band.band))
            # Both directions span the same number of channels, except the two bands whose
            # downlink is wider in Table 5.7.3-1: 66 (90/70 MHz) and 70 (25/15 MHz).
            dl_width = band.dl_last - band.dl_offs + 1
            ul_width = band.ul_last - band.ul_offs + 1
            expected = {66: (900, 700), 70: (250, 150)}.get(band.band, (dl_width, dl_width))
            assert (dl_width, ul_width) == expected, band.band
    ranges.sort()
    for (_, last, band_a), (first, _, band_b) in itertools.pairwise(ranges):
        assert last < first, f"bands {band_a} and {band_b} overlap"


# TS 36.101 Table 5.6-1.
@pytest.mark.parametrize(
    ("bw", "n_rb"),
    [(1.4, 6), (3, 15), (3.0, 15), (5, 25), (10, 50), (15.0, 75), (20, 100)],
)
def test_lte_transmission_bandwidth_rbs(fn: ModuleType, bw: float, n_rb: int) -> None:
    assert fn.lte_transmission_bandwidth_rbs(channel_bandwidth_mhz=bw) == n_rb


@pytest.mark.parametrize("bad", [1.5, 0, 25, 100, -5, True, "20", None, float("inf")])
def test_lte_transmission_bandwidth_rejects(fn: ModuleType, bad: object) -> None:
    with pytest.raises(ValueError, match="channel_bandwidth_mhz must be"):
        fn.lte_transmission_bandwidth_rbs(channel_bandwidth_mhz=bad)
