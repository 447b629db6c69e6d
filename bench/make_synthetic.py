"""Build a synthetic TFCE-format dataset, model outputs for it, and the same cases in BFCL's form.

The dataset has TFCE's size and category mix (917 items: 300 simple, 88 multiple, 166
parallel, 363 parallel_multiple) or any other size in the same proportions, with
telecom-flavoured function docs of every parameter type the checkers handle (integer, float,
string, boolean, arrays, dicts, arrays of dicts, enums, defaults, dotted names).

For every item the generator writes one model answer in one of the shapes models produce
(OpenAI `tool_calls` with JSON-string arguments, a run record holding the raw OpenAI message,
Anthropic content blocks, Python call text, a plain calls list). About 70 % of answers are
right (some in forms a careful checker should still accept: an int for a float, a different
case, full-width punctuation, calls in another order, an optional parameter sent with its
default value) and the rest carry realistic mistakes. Each answer is labelled with its
variant, so that disagreements between checkers can be grouped by cause.

Output, in `OUT/n<size>/`:
- `data/questions/<category>.jsonl`, `data/answers/<category>.jsonl` (TFCE ground truth);
- `outputs.jsonl`: one model answer per item;
- `cases.jsonl`: per item the calls the answer holds (null when it cannot be decoded), the
  ground truth in BFCL's form (each parameter lists its acceptable values, `""` meaning it
  may be left out), the docs, the category, the variant and whether the answer is right
  under the project's rules;
- `manifest.json`: seed, counts per category, variant and shape.

The same seed and size always give the same files. Only the standard library is used, so
the script runs in either virtual environment.

Usage: python bench/make_synthetic.py [--sizes 917,100000] [--seed N] [--out DIR] [--force]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

GENERATOR_VERSION = 1
DEFAULT_SEED = 20240601
DEFAULT_OUT = Path(__file__).resolve().parent / "out"

#: TFCE's category mix.
TFCE_MIX: tuple[tuple[str, int], ...] = (
    ("simple", 300),
    ("multiple", 88),
    ("parallel", 166),
    ("parallel_multiple", 363),
)
ID_PREFIX = {
    "simple": "base_simple_",
    "multiple": "base_multiple_",
    "parallel": "base_parallel_",
    "parallel_multiple": "base_parallel_multi_",
}

Gen = Callable[[random.Random], Any]

# --------------------------------------------------------------------------------------------
# Value pools


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


def _float(lo: float, hi: float, digits: int = 1) -> Gen:
    """A float, integral in about 40 % of draws (43.0), as ground truths often are."""

    def gen(rng: random.Random) -> float:
        if rng.random() < 0.4:
            return float(rng.randint(int(lo), int(hi)))
        return round(rng.uniform(lo, hi), digits)

    return gen


def _int(lo: int, hi: int) -> Gen:
    return lambda rng: rng.randint(lo, hi)


def _choice(values: tuple[Any, ...]) -> Gen:
    return lambda rng: rng.choice(values)


def _bool(rng: random.Random) -> bool:
    return rng.random() < 0.5


def _cell_id(rng: random.Random) -> str:
    return f"CELL-{rng.randint(1, 99999):05d}"


def _site(rng: random.Random) -> str:
    return f"{rng.choice(SITE_AREAS)}-{rng.randint(1, 999):03d}"


def _time_window(rng: random.Random) -> str:
    hour = rng.randint(0, 21)
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {hour:02d}:00-{hour + 2:02d}:00"


def _date(rng: random.Random) -> str:
    return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _cities(rng: random.Random) -> str:
    return rng.choice((",", "、")).join(rng.sample(CITIES, rng.randint(2, 3)))


def _imsi(rng: random.Random) -> str:
    return "46000" + "".join(str(rng.randint(0, 9)) for _ in range(10))


def _slice_id(rng: random.Random) -> str:
    return f"SST{rng.randint(1, 3)}-SD{rng.randint(0, 0xFFFFFF):06X}"


def _link_id(rng: random.Random) -> str:
    a, b = rng.sample(("BJ", "SH", "GZ", "SZ", "CD", "WH"), 2)
    return f"LINK-{a}-{b}-{rng.randint(1, 20):02d}"


def _list(gen: Gen, lo: int, hi: int) -> Gen:
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


def _location(rng: random.Random) -> dict[str, float]:
    return {"lat": round(rng.uniform(18.0, 45.0), 4), "lon": round(rng.uniform(100.0, 125.0), 4)}


def _cell_power(rng: random.Random) -> dict[str, Any]:
    return {"cell_id": _cell_id(rng), "tx_power_dbm": float(rng.choice((40, 43, 46, 49)))}


# --------------------------------------------------------------------------------------------
# Function templates


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict[str, Any]
    gen: Gen
    required: bool = True

    @property
    def type(self) -> str:
        return str(self.schema["type"])

    @property
    def has_default(self) -> bool:
        return "default" in self.schema


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    question: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)


def _p(
    name: str,
    type_: str,
    description: str,
    gen: Gen,
    *,
    default: Any = None,
    has_default: bool = False,
    required: bool = True,
    **extra: Any,
) -> Param:
    schema: dict[str, Any] = {"type": type_, "description": description, **extra}
    if has_default:
        schema["default"] = default
        required = False
    return Param(name, schema, gen, required)


def _opt(name: str, type_: str, description: str, gen: Gen, default: Any, **extra: Any) -> Param:
    return _p(name, type_, description, gen, default=default, has_default=True, **extra)


STR_ARRAY = {"type": "string"}
INT_ARRAY = {"type": "integer"}
LOCATION = {
    "lat": {"type": "float", "description": "Latitude in degrees."},
    "lon": {"type": "float", "description": "Longitude in degrees."},
}
CELL_POWER = {
    "type": "dict",
    "properties": {
        "cell_id": {"type": "string", "description": "Cell identifier."},
        "tx_power_dbm": {"type": "float", "description": "Transmit power in dBm."},
    },
    "required": ["cell_id", "tx_power_dbm"],
}

TEMPLATES: tuple[Template, ...] = (
    Template(
        "nr_arfcn_to_frequency",
        "Convert a 5G NR absolute radio frequency channel number (NR-ARFCN) to its RF "
        "reference frequency on the global frequency raster of 3GPP TS 38.104 clause "
        "5.4.2.1. Returns the frequency in MHz.",
        "计算NR-ARFCN对应的射频参考频率",
        (_p("nr_arfcn", "integer", "NR-ARFCN, 0 to 3279165.", _int(0, 3279165)),),
    ),
    Template(
        "frequency_to_nr_arfcn",
        "Convert an RF reference frequency to its NR-ARFCN on the global frequency "
        "raster of 3GPP TS 38.104 clause 5.4.2.1. Returns the NR-ARFCN.",
        "把频点换算成NR-ARFCN",
        (_p("frequency_mhz", "float", "RF reference frequency in MHz.", _float(400, 6000, 2)),),
    ),
    Template(
        "lte_earfcn_to_frequency",
        "Convert an LTE E-UTRA EARFCN to its carrier frequency per 3GPP TS 36.101 Table "
        "5.7.3-1. Returns the frequency in MHz.",
        "把LTE EARFCN换算成载频",
        (_p("earfcn", "integer", "E-UTRA EARFCN, downlink or uplink.", _int(0, 65535)),),
    ),
    Template(
        "max_resource_blocks",
        "Maximum transmission bandwidth configuration N_RB of a 5G NR carrier from 3GPP "
        "TS 38.101-1 Table 5.3.2-1 (FR1) and TS 38.101-2 Table 5.3.2-1 (FR2).",
        "查询NR载波的最大资源块数",
        (
            _p(
                "bandwidth_mhz",
                "integer",
                "Channel bandwidth in MHz.",
                _choice((5, 10, 20, 40, 50, 80, 100)),
            ),
            _p(
                "scs_khz",
                "integer",
                "Subcarrier spacing in kHz.",
                _choice((15, 30, 60)),
                enum=[15, 30, 60, 120],
            ),
            _opt(
                "frequency_range",
                "string",
                "Frequency range of the carrier.",
                _choice(("FR1", "FR2")),
                "FR1",
                enum=["FR1", "FR2"],
            ),
        ),
    ),
    Template(
        "free_space_path_loss",
        "Free-space path loss FSPL = 20 log10(d) + 20 log10(f) + 32.45 (d in km, f in "
        "MHz). Returns dB.",
        "计算自由空间路径损耗",
        (
            _p("frequency_ghz", "float", "Carrier frequency in GHz.", _float(0.7, 40, 2)),
            _p("distance_m", "float", "Link distance in metres.", _float(10, 5000)),
        ),
    ),
    Template(
        "path_loss_38901",
        "Path loss of the 3GPP TR 38.901 channel models (UMa, UMi street canyon, RMa, "
        "InH office) for a link. Returns dB.",
        "按38.901模型计算路径损耗",
        (
            _p(
                "scenario",
                "string",
                "Deployment scenario.",
                _choice(("UMa", "UMi", "RMa", "InH")),
                enum=["UMa", "UMi", "RMa", "InH"],
            ),
            _p("frequency_ghz", "float", "Carrier frequency in GHz.", _float(0.5, 100, 2)),
            _p("distance_2d_m", "float", "Ground distance in metres.", _float(10, 5000)),
            _opt("h_bs_m", "float", "Base station antenna height in metres.", _float(10, 35), 25.0),
            _opt("h_ut_m", "float", "UE antenna height in metres.", _float(1, 22, 1), 1.5),
            _opt("los", "boolean", "True for line of sight.", _bool, True),
        ),
    ),
    Template(
        "eirp_dbm",
        "Effective isotropic radiated power EIRP = transmit power + antenna gain - cable "
        "loss. Returns dBm.",
        "计算扇区EIRP",
        (
            _p("tx_power_dbm", "float", "Transmitter output power in dBm.", _float(20, 49)),
            _p("antenna_gain_dbi", "float", "Antenna gain in dBi.", _float(0, 25)),
            _opt("cable_loss_db", "float", "Cable and connector loss in dB.", _float(0.5, 5), 0.0),
        ),
    ),
    Template(
        "thermal_noise_dbm",
        "Thermal noise power N = -174 dBm/Hz + 10 log10(B) + NF. Returns dBm.",
        "计算接收机热噪声功率",
        (
            _p(
                "bandwidth_hz",
                "float",
                "Noise bandwidth in Hz.",
                _choice((180000.0, 1.4e6, 5e6, 1e7, 2e7, 1e8)),
            ),
            _opt("noise_figure_db", "float", "Receiver noise figure in dB.", _float(1, 9), 0.0),
        ),
    ),
    Template(
        "query_cell_kpi",
        "Query performance counters (KPIs) of one cell from the OSS for a time window. "
        "Returns one row per KPI and granularity period.",
        "查询小区KPI",
        (
            _p("cell_id", "string", "Cell identifier, e.g. CELL-00123.", _cell_id),
            _p(
                "kpi_names",
                "array",
                "KPI names to return.",
                _list(_choice(KPIS), 1, 4),
                items=STR_ARRAY,
            ),
            _p("time_window", "string", "Time window, 'YYYY-MM-DD HH:MM-HH:MM'.", _time_window),
            _opt(
                "granularity",
                "string",
                "Aggregation period.",
                _choice(("15min", "hour", "day")),
                "hour",
                enum=["15min", "hour", "day"],
            ),
            _opt(
                "include_history",
                "boolean",
                "Also return the same window a week earlier.",
                _bool,
                False,
            ),
        ),
    ),
    Template(
        "query_alarm_history",
        "List active and cleared alarms of a site from the network management system.",
        "查询站点告警记录",
        (
            _p("site_name", "string", "Site name, e.g. BJ-Haidian-012.", _site),
            _opt(
                "severity",
                "string",
                "Lowest severity to include.",
                _choice(("critical", "major", "minor", "warning")),
                "major",
                enum=["critical", "major", "minor", "warning"],
            ),
            _p(
                "cities",
                "string",
                "Cities to search, separated by commas.",
                _cities,
                required=False,
            ),
            _opt("limit", "integer", "Maximum number of alarms.", _int(10, 500), 100),
        ),
    ),
    Template(
        "configure_neighbor_relation",
        "Add neighbour relations from a source cell (by PCI) to target cells on one "
        "EARFCN, with an optional handover offset.",
        "配置邻区关系",
        (
            _p("source_pci", "integer", "PCI of the source cell, 0 to 1007.", _int(0, 1007)),
            _p(
                "target_pcis",
                "array",
                "PCIs of the target cells.",
                _list(_int(0, 1007), 2, 5),
                items=INT_ARRAY,
            ),
            _p("earfcn", "integer", "EARFCN of the target cells.", _int(0, 65535)),
            _opt(
                "handover_offset_db", "float", "Cell individual offset in dB.", _float(-6, 6), 0.0
            ),
        ),
    ),
    Template(
        "estimate_cell_coverage",
        "Estimate the coverage radius of a planned cell at a location from its power, "
        "band and environment. Returns metres.",
        "估算规划小区的覆盖半径",
        (
            _p("location", "dict", "Site location.", _location, properties=LOCATION),
            _p("tx_power_dbm", "float", "Transmit power in dBm.", _float(30, 49)),
            _p(
                "frequency_band",
                "string",
                "NR or LTE band, e.g. n78.",
                _choice(("n78", "n41", "n28", "n1", "n79", "B3", "B40")),
            ),
            _opt(
                "environment",
                "string",
                "Clutter type.",
                _choice(("urban", "suburban", "rural")),
                "urban",
                enum=["urban", "suburban", "rural"],
            ),
        ),
    ),
    Template(
        "check_slice_sla",
        "Check whether a network slice meets its service level agreement over the last "
        "reporting period.",
        "检查网络切片SLA",
        (
            _p("slice_id", "string", "Slice identifier, SST and SD.", _slice_id),
            _p("latency_budget_ms", "float", "End-to-end latency budget in ms.", _float(1, 100)),
            _p(
                "throughput_mbps",
                "float",
                "Guaranteed throughput in Mbit/s.",
                _float(1, 1000),
                required=False,
            ),
            _opt(
                "reliability",
                "float",
                "Required success probability.",
                _choice((0.999, 0.9999, 0.99999)),
                0.99999,
            ),
        ),
    ),
    Template(
        "get_subscriber_profile",
        "Read a subscriber's profile (services, APNs, roaming) from the HSS/UDM.",
        "查询用户签约信息",
        (
            _p("imsi", "string", "IMSI, 15 digits.", _imsi),
            _opt("include_usage", "boolean", "Also return this month's usage.", _bool, False),
        ),
    ),
    Template(
        "set_apn_config",
        "Set the QoS of an APN/DNN: QCI/5QI and aggregate maximum bit rates.",
        "修改APN的QoS配置",
        (
            _p("apn", "string", "APN or DNN name.", _choice(APNS)),
            _p("qos_class", "integer", "QCI or 5QI, 1 to 9.", _int(1, 9)),
            _p("ambr_ul_mbps", "float", "Uplink AMBR in Mbit/s.", _float(1, 500), required=False),
            _p(
                "ambr_dl_mbps", "float", "Downlink AMBR in Mbit/s.", _float(1, 2000), required=False
            ),
        ),
    ),
    Template(
        "link_budget_max_path_loss",
        "Maximum allowed path loss of a radio link budget: Tx power + gains - losses - "
        "sensitivity - fade margin. Returns dB.",
        "计算链路预算的最大允许路径损耗",
        (
            _p("tx_power_dbm", "float", "Transmit power in dBm.", _float(20, 49)),
            _p("tx_antenna_gain_dbi", "float", "Transmit antenna gain in dBi.", _float(0, 25)),
            _p("rx_antenna_gain_dbi", "float", "Receive antenna gain in dBi.", _float(0, 10)),
            _p("rx_sensitivity_dbm", "float", "Receiver sensitivity in dBm.", _float(-130, -90)),
            _opt("cable_loss_db", "float", "Cable loss in dB.", _float(0.5, 5), 0.0),
            _opt("fade_margin_db", "float", "Fade margin in dB.", _float(1, 15), 0.0),
        ),
    ),
    Template(
        "shannon_capacity",
        "Shannon capacity C = B log2(1 + SNR). Returns bit/s.",
        "计算香农信道容量",
        (
            _p("bandwidth_hz", "float", "Bandwidth in Hz.", _choice((1.4e6, 5e6, 1e7, 2e7, 1e8))),
            _p("snr_db", "float", "Signal-to-noise ratio in dB.", _float(-5, 30)),
        ),
    ),
    Template(
        "sinr_db",
        "Signal to interference plus noise ratio from powers in dBm. Returns dB.",
        "计算SINR",
        (
            _p("signal_dbm", "float", "Wanted signal power in dBm.", _float(-120, -60)),
            _p("interference_dbm", "float", "Interference power in dBm.", _float(-120, -70)),
            _p("noise_dbm", "float", "Noise power in dBm.", _float(-125, -90)),
        ),
    ),
    Template(
        "plan_pci",
        "Propose PCIs for a set of new cells, avoiding collisions and confusion with the "
        "reserved PCIs.",
        "为新建小区规划PCI",
        (
            _p(
                "cell_ids",
                "array",
                "Cells that need a PCI.",
                _list(_cell_id, 2, 4),
                items=STR_ARRAY,
            ),
            _p(
                "reserved_pcis",
                "array",
                "PCIs that must not be used.",
                _list(_int(0, 1007), 1, 4),
                items=INT_ARRAY,
                required=False,
            ),
            _opt(
                "frequency_band",
                "string",
                "Band of the new cells.",
                _choice(("n78", "n41", "n28")),
                "n78",
            ),
        ),
    ),
    Template(
        "transport_link_load",
        "Load of a transport (backhaul) link over a time window, per direction.",
        "查询传输链路负载",
        (
            _p("link_id", "string", "Link identifier, e.g. LINK-BJ-SH-01.", _link_id),
            _p("time_window", "string", "Time window, 'YYYY-MM-DD HH:MM-HH:MM'.", _time_window),
            _opt(
                "direction",
                "string",
                "Direction.",
                _choice(("uplink", "downlink", "both")),
                "both",
                enum=["uplink", "downlink", "both"],
            ),
        ),
    ),
    Template(
        "batch_set_cell_power",
        "Set the transmit power of several cells in one change order.",
        "批量修改小区发射功率",
        (
            _p(
                "cells",
                "array",
                "Cells and their new power.",
                _list(_cell_power, 2, 3),
                items=CELL_POWER,
            ),
            _opt("dry_run", "boolean", "Validate only, change nothing.", _bool, True),
        ),
    ),
    Template(
        "units.dbm_to_watts",
        "Convert a power level from dBm to watts: P = 10^((dBm - 30) / 10).",
        "把dBm换算成瓦特",
        (_p("power_dbm", "float", "Power in dBm.", _float(-30, 60)),),
    ),
    Template(
        "units.watts_to_dbm",
        "Convert a power from watts to dBm: 10 log10(P) + 30.",
        "把瓦特换算成dBm",
        (_p("power_w", "float", "Power in watts.", _float(0.001, 200, 3)),),
    ),
    Template(
        "oss.export_pm_report",
        "Export a performance management report of a region from the OSS.",
        "导出区域性能报表",
        (
            _p("region", "string", "Region, e.g. 华东.", _choice(REGIONS)),
            _p(
                "report_type",
                "string",
                "Report period.",
                _choice(("daily", "weekly", "monthly")),
                enum=["daily", "weekly", "monthly"],
            ),
            _p("date", "string", "First day of the report, YYYY-MM-DD.", _date),
            _opt(
                "file_format",
                "string",
                "File format.",
                _choice(("csv", "xlsx")),
                "csv",
                enum=["csv", "xlsx"],
            ),
        ),
    ),
    Template(
        "handover_success_rate",
        "Handover success rate between two cells over a time window. Returns a percentage.",
        "查询两个小区之间的切换成功率",
        (
            _p("source_cell", "string", "Source cell identifier.", _cell_id),
            _p("target_cell", "string", "Target cell identifier.", _cell_id),
            _p("time_window", "string", "Time window, 'YYYY-MM-DD HH:MM-HH:MM'.", _time_window),
        ),
    ),
    Template(
        "ue_peak_throughput",
        "Approximate NR UE peak throughput per TS 38.306 clause 4.1.2 for one carrier. "
        "Returns Mbit/s.",
        "估算终端峰值速率",
        (
            _p(
                "bandwidth_mhz",
                "integer",
                "Carrier bandwidth in MHz.",
                _choice((20, 40, 60, 80, 100)),
            ),
            _opt("mimo_layers", "integer", "MIMO layers.", _choice((1, 2, 4)), 2),
            _p(
                "modulation",
                "string",
                "Highest modulation.",
                _choice(("QPSK", "16QAM", "64QAM", "256QAM")),
                enum=["QPSK", "16QAM", "64QAM", "256QAM"],
            ),
            _opt("scs_khz", "integer", "Subcarrier spacing in kHz.", _choice((15, 30)), 30),
        ),
    ),
    Template(
        "tdd_frame_config",
        "Check a TDD frame structure (slot pattern and special slot format) for a "
        "subcarrier spacing. Returns the DL/UL ratio.",
        "校验TDD帧结构配置",
        (
            _p(
                "pattern",
                "string",
                "Slot pattern, e.g. DDDSU.",
                _choice(("DDDSU", "DDDDDDDSUU", "DSUUD", "DDSUU")),
            ),
            _p(
                "special_slot",
                "string",
                "Special slot symbols D:G:U, e.g. 10:2:2.",
                _choice(("10:2:2", "6:4:4", "12:2:0", "11:1:2")),
            ),
            _p("scs_khz", "integer", "Subcarrier spacing in kHz.", _choice((15, 30, 60))),
        ),
    ),
    Template(
        "iot_battery_life",
        "Estimate the battery life of an NB-IoT or LTE-M device from its reporting "
        "pattern and power saving settings. Returns years.",
        "估算物联网终端电池寿命",
        (
            _p(
                "report_interval_s",
                "integer",
                "Seconds between reports.",
                _choice((60, 300, 900, 3600, 86400)),
            ),
            _p("payload_bytes", "integer", "Bytes per report.", _int(10, 1000)),
            _opt("psm_enabled", "boolean", "Power saving mode on.", _bool, True),
            _opt(
                "edrx_cycle_s",
                "float",
                "eDRX cycle in seconds.",
                _choice((5.12, 10.24, 20.48, 40.96)),
                20.48,
            ),
        ),
    ),
    Template(
        "fiber_attenuation",
        "Total attenuation of a fibre span: length x loss per km + connectors + splices. "
        "Returns dB.",
        "计算光纤链路衰减",
        (
            _p("length_km", "float", "Span length in km.", _float(0.5, 80)),
            _opt(
                "wavelength_nm",
                "integer",
                "Wavelength in nm.",
                _choice((1310, 1550)),
                1550,
                enum=[1310, 1550],
            ),
            _opt("connectors", "integer", "Number of connectors.", _int(2, 8), 2),
        ),
    ),
    Template(
        "antenna_downtilt",
        "Mechanical plus electrical downtilt that points the upper 3 dB beam edge at the "
        "cell edge. Returns degrees.",
        "计算天线下倾角",
        (
            _p("height_m", "float", "Antenna height above ground in metres.", _float(15, 60)),
            _p("coverage_radius_m", "float", "Intended cell radius in metres.", _float(200, 3000)),
            _opt(
                "vertical_beamwidth_deg",
                "float",
                "Vertical 3 dB beamwidth in degrees.",
                _choice((6.5, 7.0, 10.0)),
                6.5,
            ),
        ),
    ),
)

#: Namespaces put in front of some names, so that names with dots occur as in TFCE.
NAMESPACES = ("ran", "oss", "core", "tn")


def _doc(template: Template, name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": template.description,
        "parameters": {
            "type": "dict",
            "properties": {p.name: copy.deepcopy(p.schema) for p in template.params},
            "required": [p.name for p in template.params if p.required],
        },
    }


def _wire(name: str) -> str:
    return name.replace(".", "_")


# --------------------------------------------------------------------------------------------
# Items and answers

#: Right answers (the project's rules accept them) and wrong ones, with their weights.
RIGHT_VARIANTS: dict[str, float] = {
    "exact": 43.0,
    "int_for_float": 4.0,
    "case_space": 3.0,
    "reordered_calls": 5.0,
    "float_for_int": 2.0,
    "unicode_punct": 6.0,
    "explicit_default": 2.0,
    "greedy_order": 5.0,
}
WRONG_VARIANTS: dict[str, float] = {
    "wrong_value": 6.0,
    "wrong_string": 3.0,
    "missing_required": 3.0,
    "wrong_function": 3.0,
    "invented_param": 2.0,
    "string_for_number": 3.0,
    "wrong_count": 3.0,
    "no_call": 2.0,
    "parse_error": 2.0,
    "array_order": 2.0,
    "bool_as_string": 1.0,
    "optional_not_asked": 1.0,
}
SHAPES: dict[str, float] = {
    "openai": 25.0,
    "openai_run_record": 10.0,
    "anthropic": 25.0,
    "python_text": 25.0,
    "calls_list": 15.0,
}

Call = tuple[str, dict[str, Any]]


@dataclass
class Built:
    """One generated item with its answer."""

    item_id: str
    category: str
    docs: list[dict[str, Any]]
    templates: dict[str, Template]  # name -> template
    truth: list[Call]
    question: str
    variant: str = "exact"
    calls: list[Call] | None = None  # what the answer holds; None: it cannot be decoded
    shape: str = "openai"
    broken_text: str | None = None  # for parse_error: the undecodable answer text
    prose: str | None = None  # for no_call: the text answer
    notes: dict[str, Any] = field(default_factory=dict)


def _pick_templates(rng: random.Random, count: int) -> list[tuple[Template, str]]:
    chosen = rng.sample(TEMPLATES, count)
    out: list[tuple[Template, str]] = []
    for template in chosen:
        name = template.name
        if "." not in name and rng.random() < 0.12:
            name = f"{rng.choice(NAMESPACES)}.{name}"
        out.append((template, name))
    return out


def _truth_call(rng: random.Random, template: Template, name: str) -> Call:
    args: dict[str, Any] = {}
    for p in template.params:
        if p.required or rng.random() < 0.45:
            args[p.name] = p.gen(rng)
    return name, args


def _question(template: Template, args: dict[str, Any]) -> str:
    shown = "，".join(f"{k}为{json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return f"{template.question}：{shown}。" if shown else f"{template.question}。"


def build_item(rng: random.Random, category: str, index: int) -> Built:
    """One item of `category` with its ground truth (the answer is made by `make_answer`)."""
    n_docs = 1 if category in ("simple", "parallel") else rng.randint(2, 4)
    picked = _pick_templates(rng, n_docs)
    docs = [_doc(t, name) for t, name in picked]
    templates = {name: t for t, name in picked}
    if category in ("simple", "parallel"):
        n_calls = 1 if category == "simple" else rng.randint(2, 4)
        template, name = picked[0]
        truth = [_truth_call(rng, template, name) for _ in range(n_calls)]
    elif category == "multiple":
        template, name = rng.choice(picked)
        truth = [_truth_call(rng, template, name)]
    else:
        n_calls = rng.randint(2, 4)
        targets = rng.sample(picked, min(len(picked), n_calls))
        while len(targets) < n_calls:
            targets.append(rng.choice(picked))
        rng.shuffle(targets)
        truth = [_truth_call(rng, t, name) for t, name in targets]
    question = "；".join(_question(templates[n], a) for n, a in truth)
    item_id = f"{ID_PREFIX[category]}{index}"
    return Built(item_id, category, docs, templates, truth, question)


def _weighted(rng: random.Random, table: dict[str, float]) -> str:
    return rng.choices(list(table), weights=list(table.values()))[0]


def _params_where(
    built: Built, calls: list[Call], test: Callable[[Param, Any], bool]
) -> list[tuple[int, str]]:
    """(call index, parameter) pairs of the answer's calls whose parameter passes `test`."""
    found: list[tuple[int, str]] = []
    for ci, (name, args) in enumerate(calls):
        template = built.templates.get(name)
        if template is None:
            continue
        for pname, value in args.items():
            if test(template.param(pname), value):
                found.append((ci, pname))
    return found


def _different(rng: random.Random, param: Param, value: Any) -> Any:
    """A value of the same type that no normalisation can mistake for `value`."""
    for _ in range(20):
        other = param.gen(rng)
        if _loose(other) != _loose(value):
            return other
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 7
    if isinstance(value, str):
        return value + "X9"
    return None


def _loose(value: Any) -> Any:
    if isinstance(value, str):
        return "".join(ch for ch in value.casefold() if ch.isalnum())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return json.dumps(value, sort_keys=True)


def _apply(rng: random.Random, built: Built, variant: str) -> bool:
    """Turn the ground truth into an answer of `variant`; False if it does not apply here."""
    calls: list[Call] = [(n, copy.deepcopy(a)) for n, a in built.truth]

    def pick(test: Callable[[Param, Any], bool]) -> tuple[int, str] | None:
        found = _params_where(built, calls, test)
        return rng.choice(found) if found else None

    if variant == "exact":
        pass
    elif variant == "int_for_float":
        spot = pick(lambda p, v: p.type == "float" and isinstance(v, float) and v.is_integer())
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]] = int(calls[spot[0]][1][spot[1]])
    elif variant == "float_for_int":
        spot = pick(lambda p, v: p.type == "integer" and "enum" not in p.schema)
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]] = float(calls[spot[0]][1][spot[1]])
    elif variant == "case_space":
        spot = pick(lambda p, v: p.type == "string" and isinstance(v, str))
        if spot is None:
            return False
        value = calls[spot[0]][1][spot[1]]
        changed = value.lower() if value.lower() != value else value.upper()
        calls[spot[0]][1][spot[1]] = changed if changed != value else value + " "
    elif variant == "unicode_punct":
        spot = pick(
            lambda p, v: p.type == "string" and isinstance(v, str) and ("," in v or "-" in v)
        )
        if spot is None:
            return False
        value = calls[spot[0]][1][spot[1]]
        calls[spot[0]][1][spot[1]] = value.replace(",", "，").replace("-", "–")
    elif variant == "explicit_default":
        spots = [
            (ci, p.name)
            for ci, (name, args) in enumerate(calls)
            for p in built.templates[name].params
            if p.has_default and p.name not in args
        ]
        if not spots:
            return False
        ci, pname = rng.choice(spots)
        calls[ci][1][pname] = built.templates[calls[ci][0]].param(pname).schema["default"]
    elif variant == "reordered_calls":
        if len(calls) < 2 or all(c == calls[0] for c in calls):
            return False
        calls.reverse()
    elif variant == "greedy_order":
        return _greedy_order(rng, built)
    elif variant in ("wrong_value", "wrong_string"):
        want_string = variant == "wrong_string"
        spot = pick(
            lambda p, v: (
                (p.type == "string") == want_string and p.type in ("string", "integer", "float")
            )
        )
        if spot is None:
            return False
        name, args = calls[spot[0]]
        args[spot[1]] = _different(rng, built.templates[name].param(spot[1]), args[spot[1]])
    elif variant == "missing_required":
        spot = pick(lambda p, v: p.required)
        if spot is None:
            return False
        del calls[spot[0]][1][spot[1]]
    elif variant == "wrong_function":
        ci = rng.randrange(len(calls))
        name, args = calls[ci]
        others = [d["name"] for d in built.docs if d["name"] != name]
        calls[ci] = (rng.choice(others) if others else _misspell(name), args)
    elif variant == "invented_param":
        ci = rng.randrange(len(calls))
        calls[ci][1][rng.choice(("note", "unit", "vendor", "mode"))] = "auto"
    elif variant == "string_for_number":
        spot = pick(lambda p, v: p.type in ("integer", "float"))
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]] = str(calls[spot[0]][1][spot[1]])
    elif variant == "wrong_count":
        if len(calls) > 1:
            del calls[rng.randrange(len(calls))]
        else:
            calls.append((calls[0][0], copy.deepcopy(calls[0][1])))
    elif variant == "no_call":
        built.prose = rng.choice(
            (
                "抱歉，问题中缺少必要的参数，请补充后再试。",
                "根据3GPP规范，这个问题可以直接回答，无需调用工具。",
                "我需要更多信息才能完成计算。",
            )
        )
        calls = []
    elif variant == "parse_error":
        built.calls = None
        built.variant = variant
        return True
    elif variant == "array_order":
        spot = pick(
            lambda p, v: p.type == "array" and isinstance(v, list) and len(v) > 1 and v != v[::-1]
        )
        if spot is None:
            return False
        calls[spot[0]][1][spot[1]].reverse()
    elif variant == "bool_as_string":
        spot = pick(lambda p, v: p.type == "boolean")
        if spot is None:
            return False
        value = calls[spot[0]][1][spot[1]]
        calls[spot[0]][1][spot[1]] = "true" if value else "false"
    elif variant == "optional_not_asked":
        candidates = [
            (ci, p)
            for ci, (name, args) in enumerate(calls)
            for p in built.templates[name].params
            if not p.required and p.name not in args and p.type != "boolean"
        ]
        if not candidates:
            return False
        ci, param = rng.choice(candidates)
        value = param.gen(rng)
        if param.has_default and _loose(value) == _loose(param.schema["default"]):
            value = _different(rng, param, value)
        calls[ci][1][param.name] = value
    else:
        raise ValueError(f"unknown variant {variant}")
    built.calls = calls
    built.variant = variant
    return True


def _misspell(name: str) -> str:
    head, _, tail = name.rpartition(".")
    parts = tail.split("_")
    if len(parts) > 1:
        parts[0], parts[1] = parts[1], parts[0]
        tail = "_".join(parts)
    else:
        tail += "s"
    # A name the model made up is sent as is: the wire form, which nothing maps back.
    return _wire(f"{head}.{tail}") if head else tail


def _greedy_order(rng: random.Random, built: Built) -> bool:
    """A parallel item whose answer only a non-greedy matching accepts.

    Ground truth: f(x, opt=default) and f(x); answer: f(x) then f(x, opt=default). Every call
    satisfies the first expected call, only the first call the second; matching expected calls
    one at a time to the first call that fits leaves the second without a partner.
    """
    if built.category != "parallel":
        return False
    name = built.docs[0]["name"]
    template = built.templates[name]
    defaults = [p for p in template.params if p.has_default]
    if not defaults:
        return False
    opt = rng.choice(defaults)
    base = {k: v for k, v in built.truth[0][1].items() if k != opt.name}
    if not base:
        return False
    with_default = {**base, opt.name: opt.schema["default"]}
    rest = built.truth[2:]
    built.truth = [(name, with_default), (name, dict(base)), *rest]
    built.calls = [
        (name, dict(base)),
        (name, dict(with_default)),
        *[(n, copy.deepcopy(a)) for n, a in rest],
    ]
    built.question = "；".join(_question(template, a) for _, a in built.truth)
    built.variant = "greedy_order"
    return True


def make_answer(rng: random.Random, built: Built) -> None:
    """Choose a variant and a shape for the item's answer."""
    table = RIGHT_VARIANTS if rng.random() < 0.70 else WRONG_VARIANTS
    variant = _weighted(rng, table)
    if not _apply(rng, built, variant):
        _apply(rng, built, "exact" if table is RIGHT_VARIANTS else "wrong_value")
        if built.calls is None and built.variant != "parse_error":
            _apply(rng, built, "missing_required")
    built.shape = _weighted(rng, SHAPES)
    if built.variant == "parse_error":
        built.shape = rng.choice(("openai", "python_text"))
    if built.variant == "no_call" and built.shape == "calls_list":
        built.shape = "python_text"


# --------------------------------------------------------------------------------------------
# Rendering


def _py(value: Any) -> str:
    """Python literal text for a JSON-like value."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_py(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_py(v) for v in value) + "]"
    return repr(value)


def _py_call(name: str, args: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={_py(v)}" for k, v in args.items()) + ")"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render_output(rng: random.Random, built: Built) -> dict[str, Any]:
    """The answer as one line of an outputs file, in the item's shape."""
    record: dict[str, Any] = {"id": built.item_id}
    calls = built.calls
    if built.variant == "parse_error":
        name, args = built.truth[0]
        text = _dumps(args)
        broken = text[: max(2, len(text) - rng.randint(2, 6))]
        if built.shape == "openai":
            record["tool_calls"] = [
                {
                    "id": f"call_{rng.getrandbits(48):012x}",
                    "type": "function",
                    "function": {"name": _wire(name), "arguments": broken},
                }
            ]
        else:
            record["text"] = f"[{_py_call(name, args)[:-1]}, ]]"
        return record
    assert calls is not None
    if built.shape in ("openai", "openai_run_record"):
        message: dict[str, Any] = {"role": "assistant", "content": built.prose}
        message["tool_calls"] = [
            {
                "id": f"call_{rng.getrandbits(48):012x}",
                "type": "function",
                "function": {"name": _wire(n), "arguments": _dumps(a)},
            }
            for n, a in calls
        ]
        if built.shape == "openai":
            record["tool_calls"] = message["tool_calls"]
            if built.prose is not None:
                record["content"] = built.prose
        else:
            record.update(
                {
                    "category": built.category,
                    "raw": message,
                    "calls": None,
                    "error": None,
                    "usage": {
                        "prompt_tokens": rng.randint(300, 1500),
                        "completion_tokens": rng.randint(20, 200),
                    },
                    "latency_s": round(rng.uniform(0.3, 4.0), 3),
                }
            )
    elif built.shape == "anthropic":
        blocks: list[dict[str, Any]] = []
        if built.prose is not None or rng.random() < 0.3:
            blocks.append({"type": "text", "text": built.prose or "好的，我来调用相应的工具。"})
        blocks.extend(
            {
                "type": "tool_use",
                "id": f"toolu_{rng.getrandbits(64):016x}",
                "name": _wire(n),
                "input": a,
            }
            for n, a in calls
        )
        record["content"] = blocks
    elif built.shape == "python_text":
        if built.prose is not None:
            record["text"] = built.prose
        else:
            body = "[" + ", ".join(_py_call(n, a) for n, a in calls) + "]"
            record["text"] = f"```python\n{body}\n```" if rng.random() < 0.3 else body
    else:
        record["calls"] = [{"name": n, "arguments": a} for n, a in calls]
    return record


def _bfcl_value(value: Any, schema: dict[str, Any] | None) -> Any:
    """A ground-truth value written as BFCL writes one acceptable value.

    BFCL lists acceptable values per key inside dicts too ({"lat": [31.2]}), and inside each
    dict of an array of dicts.
    """
    if isinstance(value, dict):
        props = (schema or {}).get("properties", {})
        return {k: [_bfcl_value(v, props.get(k))] for k, v in value.items()}
    if isinstance(value, list) and (schema or {}).get("items", {}).get("type") == "dict":
        return [_bfcl_value(v, schema["items"] if schema else None) for v in value]
    return value


def bfcl_possible_answer(built: Built) -> list[dict[str, Any]]:
    """The TFCE ground truth in BFCL's form.

    Each value becomes the one acceptable value; a value equal to the declared default also
    gets `""` (may be left out), as the project's rule 5.2.4 lets it be left out. Optional
    parameters the ground truth does not mention are not listed, so BFCL forbids them.
    """
    out: list[dict[str, Any]] = []
    for name, args in built.truth:
        template = built.templates[name]
        params: dict[str, list[Any]] = {}
        for pname, value in args.items():
            param = template.param(pname)
            acceptable = [_bfcl_value(value, param.schema)]
            if param.has_default and _dumps(param.schema["default"]) == _dumps(value):
                acceptable.append("")
            params[pname] = acceptable
        out.append({name: params})
    return out


def case_record(built: Built) -> dict[str, Any]:
    return {
        "id": built.item_id,
        "test_category": built.category,
        "variant": built.variant,
        "shape": built.shape,
        "right": built.variant in RIGHT_VARIANTS,
        "func_description": built.docs,
        "model_output": None if built.calls is None else [{n: a} for n, a in built.calls],
        "possible_answer": bfcl_possible_answer(built),
    }


def truth_json(built: Built) -> Any:
    """TFCE ground truth: one object for one call, a list for several."""
    if built.category in ("simple", "multiple"):
        name, args = built.truth[0]
        return {name: args}
    return [{n: a} for n, a in built.truth]


# --------------------------------------------------------------------------------------------
# Driver


def category_counts(size: int) -> dict[str, int]:
    """TFCE's proportions scaled to `size` (largest remainder, so they add up exactly)."""
    total = sum(n for _, n in TFCE_MIX)
    exact = {c: size * n / total for c, n in TFCE_MIX}
    counts = {c: int(v) for c, v in exact.items()}
    left = size - sum(counts.values())
    for c in sorted(exact, key=lambda c: exact[c] - counts[c], reverse=True)[:left]:
        counts[c] += 1
    return counts


def generate(size: int, seed: int) -> Iterator[tuple[Built, dict[str, Any]]]:
    """Items with their rendered answers, category by category, deterministic in `seed`."""
    rng = random.Random(f"{seed}:{size}")
    for category, count in category_counts(size).items():
        for index in range(count):
            built = build_item(rng, category, index)
            make_answer(rng, built)
            yield built, render_output(rng, built)


def dataset_dir(out: Path, size: int) -> Path:
    return out / f"n{size}"


def write_size(out: Path, size: int, seed: int, *, force: bool = False) -> Path:
    """Write the files for one size (kept when already written with the same settings)."""
    target = dataset_dir(out, size)
    manifest_path = target / "manifest.json"
    wanted = {"generator_version": GENERATOR_VERSION, "seed": seed, "size": size}
    if not force and manifest_path.is_file():
        old = json.loads(manifest_path.read_text(encoding="utf-8"))
        if all(old.get(k) == v for k, v in wanted.items()):
            return target
    (target / "data" / "questions").mkdir(parents=True, exist_ok=True)
    (target / "data" / "answers").mkdir(parents=True, exist_ok=True)
    manifest_path.unlink(missing_ok=True)
    files: dict[str, tuple[TextIO, TextIO]] = {}
    variants: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    with (
        (target / "outputs.jsonl").open("w", encoding="utf-8") as outputs,
        (target / "cases.jsonl").open("w", encoding="utf-8") as cases,
    ):
        try:
            for built, output in generate(size, seed):
                if built.category not in files:
                    files[built.category] = (
                        (target / "data" / "questions" / f"{built.category}.jsonl").open(
                            "w", encoding="utf-8"
                        ),
                        (target / "data" / "answers" / f"{built.category}.jsonl").open(
                            "w", encoding="utf-8"
                        ),
                    )
                qfh, afh = files[built.category]
                qfh.write(
                    _dumps(
                        {
                            "id": built.item_id,
                            "category": built.category,
                            "question": built.question,
                            "function": built.docs,
                        }
                    )
                    + "\n"
                )
                afh.write(_dumps({"id": built.item_id, "ground_truth": truth_json(built)}) + "\n")
                outputs.write(_dumps(output) + "\n")
                cases.write(_dumps(case_record(built)) + "\n")
                variants[built.variant] += 1
                shapes[built.shape] += 1
        finally:
            for qfh, afh in files.values():
                qfh.close()
                afh.close()
    manifest = {
        **wanted,
        "categories": category_counts(size),
        "right": sum(n for v, n in variants.items() if v in RIGHT_VARIANTS),
        "variants": dict(sorted(variants.items())),
        "shapes": dict(sorted(shapes.items())),
    }
    manifest_path.write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return target


def parse_sizes(text: str) -> list[int]:
    sizes = [int(s.replace("_", "")) for s in text.split(",") if s.strip()]
    if not sizes or any(s < 4 for s in sizes):
        raise argparse.ArgumentTypeError("sizes are comma-separated integers of at least 4")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=parse_sizes,
        default=[917, 100_000],
        help="comma-separated item counts (default: 917,100000)",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--force", action="store_true", help="rewrite files that exist")
    args = parser.parse_args(argv)
    for size in args.sizes:
        target = write_size(args.out, size, args.seed, force=args.force)
        manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
        print(
            f"{target}: {size} items, {manifest['right']} right, "
            f"categories {manifest['categories']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
