"""Telecom value pools and the generators that draw parameter values from them.

A generator (`Gen`) takes the item's random.Random and returns one value.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Gen = Callable[[random.Random], Any]

CITIES = ("北京", "上海", "广州", "深圳", "成都", "杭州", "武汉", "南京", "西安", "重庆")
REGIONS = ("华东", "华北", "华南", "西南", "西北", "东北", "华中")
SITE_AREAS = ("BJ-Haidian", "SH-Pudong", "GZ-Tianhe", "SZ-Nanshan", "CD-Gaoxin", "HZ-Binjiang")
KPIS = (
    "rrc_success_rate",
    "erab_drop_rate",
    "prb_utilization_dl",
    "prb_utilization_ul",
    "handover_success_rate",
    "avg_cqi",
    "dl_throughput_mbps",
    "volte_mos",
)
APNS = ("cmnet", "cmwap", "ims", "iot.cmcc", "internet", "ctnet")


def floats(lo: float, hi: float, digits: int = 1) -> Gen:
    """A float, integral in about 40 % of draws (43.0), as ground truths often are."""

    def gen(rng: random.Random) -> float:
        if rng.random() < 0.4:
            return float(rng.randint(int(lo), int(hi)))
        return round(rng.uniform(lo, hi), digits)

    return gen


def ints(lo: int, hi: int) -> Gen:
    return lambda rng: rng.randint(lo, hi)


def choice(values: tuple[Any, ...]) -> Gen:
    return lambda rng: rng.choice(values)


def boolean(rng: random.Random) -> bool:
    return rng.random() < 0.5


def cell_id(rng: random.Random) -> str:
    return f"CELL-{rng.randint(1, 99999):05d}"


def site(rng: random.Random) -> str:
    return f"{rng.choice(SITE_AREAS)}-{rng.randint(1, 999):03d}"


def time_window(rng: random.Random) -> str:
    hour = rng.randint(0, 21)
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {hour:02d}:00-{hour + 2:02d}:00"


def date(rng: random.Random) -> str:
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def cities(rng: random.Random) -> str:
    return rng.choice((",", "、")).join(rng.sample(CITIES, rng.randint(2, 3)))


def imsi(rng: random.Random) -> str:
    return "46000" + "".join(str(rng.randint(0, 9)) for _ in range(10))


def slice_id(rng: random.Random) -> str:
    return f"SST{rng.randint(1, 3)}-SD{rng.randint(0, 0xFFFFFF):06X}"


def link_id(rng: random.Random) -> str:
    a, b = rng.sample(("BJ", "SH", "GZ", "SZ", "CD", "WH"), 2)
    return f"LINK-{a}-{b}-{rng.randint(1, 20):02d}"


def list_of(gen: Gen, lo: int, hi: int) -> Gen:
    def make(rng: random.Random) -> list[Any]:
        out: list[Any] = []
        for _ in range(rng.randint(lo, hi) * 3):
            value = gen(rng)
            if value not in out:
                out.append(value)
            if len(out) >= hi:
                break
        return out[: max(lo, min(hi, len(out)))]

    return make


def location(rng: random.Random) -> dict[str, float]:
    return {"lat": round(rng.uniform(18.0, 45.0), 4), "lon": round(rng.uniform(100.0, 125.0), 4)}


def cell_power(rng: random.Random) -> dict[str, Any]:
    return {"cell_id": cell_id(rng), "tx_power_dbm": float(rng.choice((40, 43, 46, 49)))}
