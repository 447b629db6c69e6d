"""Telecom function library: reference implementations of the built-in dataset's functions.

The evaluation harness executes these to compare a model's call with the expected call by
their results. Each function is pure and deterministic, takes keyword arguments, validates
them (a ValueError says what is valid) and cites its 3GPP, ITU or vendor source in its
docstring. Dotted names map to modules: `units.dbm_to_watts` is `units.py`, `dbm_to_watts`.

The package uses only the standard library and relative imports, so it can be loaded from
its directory under any module name.
"""

from .core import parse_imsi, qos_5qi_characteristics
from .iot import (
    lora_time_on_air_ms,
    nb_iot_max_coupling_loss,
    t3324_seconds,
    t3412_extended_seconds,
)
from .link import (
    eirp_dbm,
    link_budget_max_path_loss,
    rsrq_db,
    shannon_capacity,
    sinr_db,
    thermal_noise_dbm,
)
from .lte import lte_earfcn_to_frequency, lte_transmission_bandwidth_rbs
from .nr import max_resource_blocks, nr_peak_data_rate, nr_slot_duration_ms
from .nr_raster import frequency_to_nr_arfcn, gscn_to_frequency, nr_arfcn_to_frequency
from .propagation import (
    free_space_path_loss,
    fresnel_zone_radius,
    okumura_hata_path_loss,
    path_loss_38901,
)
from .security import kdf_hmac_sha256, security_algorithm_name

__all__ = [
    "eirp_dbm",
    "free_space_path_loss",
    "frequency_to_nr_arfcn",
    "fresnel_zone_radius",
    "gscn_to_frequency",
    "kdf_hmac_sha256",
    "link_budget_max_path_loss",
    "lora_time_on_air_ms",
    "lte_earfcn_to_frequency",
    "lte_transmission_bandwidth_rbs",
    "max_resource_blocks",
    "nb_iot_max_coupling_loss",
    "nr_arfcn_to_frequency",
    "nr_peak_data_rate",
    "nr_slot_duration_ms",
    "okumura_hata_path_loss",
    "parse_imsi",
    "path_loss_38901",
    "qos_5qi_characteristics",
    "rsrq_db",
    "security_algorithm_name",
    "shannon_capacity",
    "sinr_db",
    "t3324_seconds",
    "t3412_extended_seconds",
    "thermal_noise_dbm",
]
