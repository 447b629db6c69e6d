"""Templates of network operations: OSS, configuration, planning, users."""

from __future__ import annotations

from .schema import Template, arg, opt
from .values import (
    APNS,
    KPIS,
    REGIONS,
    boolean,
    cell_id,
    cell_power,
    choice,
    cities,
    date,
    floats,
    imsi,
    ints,
    link_id,
    list_of,
    location,
    site,
    slice_id,
    time_window,
)

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

OPERATIONS: tuple[Template, ...] = (
    Template(
        "query_cell_kpi",
        "Query performance counters (KPIs) of one cell from the OSS for a time window. "
        "Returns one row per KPI and granularity period.",
        "查询小区KPI",
        (
            arg("cell_id", "string", "Cell identifier, e.g. CELL-00123.", cell_id),
            arg(
                "kpi_names",
                "array",
                "KPI names to return.",
                list_of(choice(KPIS), 1, 4),
                items=STR_ARRAY,
            ),
            arg("time_window", "string", "Time window, 'YYYY-MM-DD HH:MM-HH:MM'.", time_window),
            opt(
                "granularity",
                "string",
                "Aggregation period.",
                choice(("15min", "hour", "day")),
                "hour",
                enum=["15min", "hour", "day"],
            ),
            opt(
                "include_history",
                "boolean",
                "Also return the same window a week earlier.",
                boolean,
                False,
            ),
        ),
    ),
    Template(
        "query_alarm_history",
        "List active and cleared alarms of a site from the network management system.",
        "查询站点告警记录",
        (
            arg("site_name", "string", "Site name, e.g. BJ-Haidian-012.", site),
            opt(
                "severity",
                "string",
                "Lowest severity to include.",
                choice(("critical", "major", "minor", "warning")),
                "major",
                enum=["critical", "major", "minor", "warning"],
            ),
            arg(
                "cities",
                "string",
                "Cities to search, separated by commas.",
                cities,
                required=False,
            ),
            opt("limit", "integer", "Maximum number of alarms.", ints(10, 500), 100),
        ),
    ),
    Template(
        "configure_neighbor_relation",
        "Add neighbour relations from a source cell (by PCI) to target cells on one "
        "EARFCN, with an optional handover offset.",
        "配置邻区关系",
        (
            arg("source_pci", "integer", "PCI of the source cell, 0 to 1007.", ints(0, 1007)),
            arg(
                "target_pcis",
                "array",
                "PCIs of the target cells.",
                list_of(ints(0, 1007), 2, 5),
                items=INT_ARRAY,
            ),
            arg("earfcn", "integer", "EARFCN of the target cells.", ints(0, 65535)),
            opt("handover_offset_db", "float", "Cell individual offset in dB.", floats(-6, 6), 0.0),
        ),
    ),
    Template(
        "estimate_cell_coverage",
        "Estimate the coverage radius of a planned cell at a location from its power, "
        "band and environment. Returns metres.",
        "估算规划小区的覆盖半径",
        (
            arg("location", "dict", "Site location.", location, properties=LOCATION),
            arg("tx_power_dbm", "float", "Transmit power in dBm.", floats(30, 49)),
            arg(
                "frequency_band",
                "string",
                "NR or LTE band, e.g. n78.",
                choice(("n78", "n41", "n28", "n1", "n79", "B3", "B40")),
            ),
            opt(
                "environment",
                "string",
                "Clutter type.",
                choice(("urban", "suburban", "rural")),
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
            arg("slice_id", "string", "Slice identifier, SST and SD.", slice_id),
            arg("latency_budget_ms", "float", "End-to-end latency budget in ms.", floats(1, 100)),
            arg(
                "throughput_mbps",
                "float",
                "Guaranteed throughput in Mbit/s.",
                floats(1, 1000),
                required=False,
            ),
            opt(
                "reliability",
                "float",
                "Required success probability.",
                choice((0.999, 0.9999, 0.99999)),
                0.99999,
            ),
        ),
    ),
    Template(
        "get_subscriber_profile",
        "Read a subscriber's profile (services, APNs, roaming) from the HSS/UDM.",
        "查询用户签约信息",
        (
            arg("imsi", "string", "IMSI, 15 digits.", imsi),
            opt("include_usage", "boolean", "Also return this month's usage.", boolean, False),
        ),
    ),
    Template(
        "set_apn_config",
        "Set the QoS of an APN/DNN: QCI/5QI and aggregate maximum bit rates.",
        "修改APN的QoS配置",
        (
            arg("apn", "string", "APN or DNN name.", choice(APNS)),
            arg("qos_class", "integer", "QCI or 5QI, 1 to 9.", ints(1, 9)),
            arg("ambr_ul_mbps", "float", "Uplink AMBR in Mbit/s.", floats(1, 500), required=False),
            arg(
                "ambr_dl_mbps", "float", "Downlink AMBR in Mbit/s.", floats(1, 2000), required=False
            ),
        ),
    ),
    Template(
        "plan_pci",
        "Propose PCIs for a set of new cells, avoiding collisions and confusion with the "
        "reserved PCIs.",
        "为新建小区规划PCI",
        (
            arg(
                "cell_ids",
                "array",
                "Cells that need a PCI.",
                list_of(cell_id, 2, 4),
                items=STR_ARRAY,
            ),
            arg(
                "reserved_pcis",
                "array",
                "PCIs that must not be used.",
                list_of(ints(0, 1007), 1, 4),
                items=INT_ARRAY,
                required=False,
            ),
            opt(
                "frequency_band",
                "string",
                "Band of the new cells.",
                choice(("n78", "n41", "n28")),
                "n78",
            ),
        ),
    ),
    Template(
        "transport_link_load",
        "Load of a transport (backhaul) link over a time window, per direction.",
        "查询传输链路负载",
        (
            arg("link_id", "string", "Link identifier, e.g. LINK-BJ-SH-01.", link_id),
            arg("time_window", "string", "Time window, 'YYYY-MM-DD HH:MM-HH:MM'.", time_window),
            opt(
                "direction",
                "string",
                "Direction.",
                choice(("uplink", "downlink", "both")),
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
            arg(
                "cells",
                "array",
                "Cells and their new power.",
                list_of(cell_power, 2, 3),
                items=CELL_POWER,
            ),
            opt("dry_run", "boolean", "Validate only, change nothing.", boolean, True),
        ),
    ),
    Template(
        "oss.export_pm_report",
        "Export a performance management report of a region from the OSS.",
        "导出区域性能报表",
        (
            arg("region", "string", "Region, e.g. 华东.", choice(REGIONS)),
            arg(
                "report_type",
                "string",
                "Report period.",
                choice(("daily", "weekly", "monthly")),
                enum=["daily", "weekly", "monthly"],
            ),
            arg("date", "string", "First day of the report, YYYY-MM-DD.", date),
            opt(
                "file_format",
                "string",
                "File format.",
                choice(("csv", "xlsx")),
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
            arg("source_cell", "string", "Source cell identifier.", cell_id),
            arg("target_cell", "string", "Target cell identifier.", cell_id),
            arg("time_window", "string", "Time window, 'YYYY-MM-DD HH:MM-HH:MM'.", time_window),
        ),
    ),
)
