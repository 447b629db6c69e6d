"""All templates, in the order items draw them from."""

from __future__ import annotations

from .operations import OPERATIONS
from .radio import RADIO
from .schema import Template

#: Template names in the order `random.sample` draws from: another order
#: gives other datasets for the same seed.
DRAW_ORDER: tuple[str, ...] = (
    "nr_arfcn_to_frequency",
    "frequency_to_nr_arfcn",
    "lte_earfcn_to_frequency",
    "max_resource_blocks",
    "free_space_path_loss",
    "path_loss_38901",
    "eirp_dbm",
    "thermal_noise_dbm",
    "query_cell_kpi",
    "query_alarm_history",
    "configure_neighbor_relation",
    "estimate_cell_coverage",
    "check_slice_sla",
    "get_subscriber_profile",
    "set_apn_config",
    "link_budget_max_path_loss",
    "shannon_capacity",
    "sinr_db",
    "plan_pci",
    "transport_link_load",
    "batch_set_cell_power",
    "units.dbm_to_watts",
    "units.watts_to_dbm",
    "oss.export_pm_report",
    "handover_success_rate",
    "ue_peak_throughput",
    "tdd_frame_config",
    "iot_battery_life",
    "fiber_attenuation",
    "antenna_downtilt",
)

_BY_NAME = {t.name: t for t in (*RADIO, *OPERATIONS)}
assert sorted(_BY_NAME) == sorted(DRAW_ORDER), "every template is drawn, once"

TEMPLATES: tuple[Template, ...] = tuple(_BY_NAME[name] for name in DRAW_ORDER)

#: Namespaces put in front of some names, so that names with dots occur as in TFCE.
NAMESPACES = ("ran", "oss", "core", "tn")
