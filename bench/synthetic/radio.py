"""Templates of radio calculations: channels, path loss, link budgets, units."""

from __future__ import annotations

from .schema import Template, arg, opt
from .values import boolean, choice, floats, ints

RADIO: tuple[Template, ...] = (
    Template(
        "nr_arfcn_to_frequency",
        "Convert a 5G NR absolute radio frequency channel number (NR-ARFCN) to its RF "
        "reference frequency on the global frequency raster of 3GPP TS 38.104 clause "
        "5.4.2.1. Returns the frequency in MHz.",
        "计算NR-ARFCN对应的射频参考频率",
        (arg("nr_arfcn", "integer", "NR-ARFCN, 0 to 3279165.", ints(0, 3279165)),),
    ),
    Template(
        "frequency_to_nr_arfcn",
        "Convert an RF reference frequency to its NR-ARFCN on the global frequency "
        "raster of 3GPP TS 38.104 clause 5.4.2.1. Returns the NR-ARFCN.",
        "把频点换算成NR-ARFCN",
        (arg("frequency_mhz", "float", "RF reference frequency in MHz.", floats(400, 6000, 2)),),
    ),
    Template(
        "lte_earfcn_to_frequency",
        "Convert an LTE E-UTRA EARFCN to its carrier frequency per 3GPP TS 36.101 Table "
        "5.7.3-1. Returns the frequency in MHz.",
        "把LTE EARFCN换算成载频",
        (arg("earfcn", "integer", "E-UTRA EARFCN, downlink or uplink.", ints(0, 65535)),),
    ),
    Template(
        "max_resource_blocks",
        "Maximum transmission bandwidth configuration N_RB of a 5G NR carrier from 3GPP "
        "TS 38.101-1 Table 5.3.2-1 (FR1) and TS 38.101-2 Table 5.3.2-1 (FR2).",
        "查询NR载波的最大资源块数",
        (
            arg(
                "bandwidth_mhz",
                "integer",
                "Channel bandwidth in MHz.",
                choice((5, 10, 20, 40, 50, 80, 100)),
            ),
            arg(
                "scs_khz",
                "integer",
                "Subcarrier spacing in kHz.",
                choice((15, 30, 60)),
                enum=[15, 30, 60, 120],
            ),
            opt(
                "frequency_range",
                "string",
                "Frequency range of the carrier.",
                choice(("FR1", "FR2")),
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
            arg("frequency_ghz", "float", "Carrier frequency in GHz.", floats(0.7, 40, 2)),
            arg("distance_m", "float", "Link distance in metres.", floats(10, 5000)),
        ),
    ),
    Template(
        "path_loss_38901",
        "Path loss of the 3GPP TR 38.901 channel models (UMa, UMi street canyon, RMa, "
        "InH office) for a link. Returns dB.",
        "按38.901模型计算路径损耗",
        (
            arg(
                "scenario",
                "string",
                "Deployment scenario.",
                choice(("UMa", "UMi", "RMa", "InH")),
                enum=["UMa", "UMi", "RMa", "InH"],
            ),
            arg("frequency_ghz", "float", "Carrier frequency in GHz.", floats(0.5, 100, 2)),
            arg("distance_2d_m", "float", "Ground distance in metres.", floats(10, 5000)),
            opt("h_bs_m", "float", "Base station antenna height in metres.", floats(10, 35), 25.0),
            opt("h_ut_m", "float", "UE antenna height in metres.", floats(1, 22, 1), 1.5),
            opt("los", "boolean", "True for line of sight.", boolean, True),
        ),
    ),
    Template(
        "eirp_dbm",
        "Effective isotropic radiated power EIRP = transmit power + antenna gain - cable "
        "loss. Returns dBm.",
        "计算扇区EIRP",
        (
            arg("tx_power_dbm", "float", "Transmitter output power in dBm.", floats(20, 49)),
            arg("antenna_gain_dbi", "float", "Antenna gain in dBi.", floats(0, 25)),
            opt("cable_loss_db", "float", "Cable and connector loss in dB.", floats(0.5, 5), 0.0),
        ),
    ),
    Template(
        "thermal_noise_dbm",
        "Thermal noise power N = -174 dBm/Hz + 10 log10(B) + NF. Returns dBm.",
        "计算接收机热噪声功率",
        (
            arg(
                "bandwidth_hz",
                "float",
                "Noise bandwidth in Hz.",
                choice((180000.0, 1.4e6, 5e6, 1e7, 2e7, 1e8)),
            ),
            opt("noise_figure_db", "float", "Receiver noise figure in dB.", floats(1, 9), 0.0),
        ),
    ),
    Template(
        "link_budget_max_path_loss",
        "Maximum allowed path loss of a radio link budget: Tx power + gains - losses - "
        "sensitivity - fade margin. Returns dB.",
        "计算链路预算的最大允许路径损耗",
        (
            arg("tx_power_dbm", "float", "Transmit power in dBm.", floats(20, 49)),
            arg("tx_antenna_gain_dbi", "float", "Transmit antenna gain in dBi.", floats(0, 25)),
            arg("rx_antenna_gain_dbi", "float", "Receive antenna gain in dBi.", floats(0, 10)),
            arg("rx_sensitivity_dbm", "float", "Receiver sensitivity in dBm.", floats(-130, -90)),
            opt("cable_loss_db", "float", "Cable loss in dB.", floats(0.5, 5), 0.0),
            opt("fade_margin_db", "float", "Fade margin in dB.", floats(1, 15), 0.0),
        ),
    ),
    Template(
        "shannon_capacity",
        "Shannon capacity C = B log2(1 + SNR). Returns bit/s.",
        "计算香农信道容量",
        (
            arg("bandwidth_hz", "float", "Bandwidth in Hz.", choice((1.4e6, 5e6, 1e7, 2e7, 1e8))),
            arg("snr_db", "float", "Signal-to-noise ratio in dB.", floats(-5, 30)),
        ),
    ),
    Template(
        "sinr_db",
        "Signal to interference plus noise ratio from powers in dBm. Returns dB.",
        "计算SINR",
        (
            arg("signal_dbm", "float", "Wanted signal power in dBm.", floats(-120, -60)),
            arg("interference_dbm", "float", "Interference power in dBm.", floats(-120, -70)),
            arg("noise_dbm", "float", "Noise power in dBm.", floats(-125, -90)),
        ),
    ),
    Template(
        "units.dbm_to_watts",
        "Convert a power level from dBm to watts: P = 10^((dBm - 30) / 10).",
        "把dBm换算成瓦特",
        (arg("power_dbm", "float", "Power in dBm.", floats(-30, 60)),),
    ),
    Template(
        "units.watts_to_dbm",
        "Convert a power from watts to dBm: 10 log10(P) + 30.",
        "把瓦特换算成dBm",
        (arg("power_w", "float", "Power in watts.", floats(0.001, 200, 3)),),
    ),
    Template(
        "ue_peak_throughput",
        "Approximate NR UE peak throughput per TS 38.306 clause 4.1.2 for one carrier. "
        "Returns Mbit/s.",
        "估算终端峰值速率",
        (
            arg(
                "bandwidth_mhz",
                "integer",
                "Carrier bandwidth in MHz.",
                choice((20, 40, 60, 80, 100)),
            ),
            opt("mimo_layers", "integer", "MIMO layers.", choice((1, 2, 4)), 2),
            arg(
                "modulation",
                "string",
                "Highest modulation.",
                choice(("QPSK", "16QAM", "64QAM", "256QAM")),
                enum=["QPSK", "16QAM", "64QAM", "256QAM"],
            ),
            opt("scs_khz", "integer", "Subcarrier spacing in kHz.", choice((15, 30)), 30),
        ),
    ),
    Template(
        "tdd_frame_config",
        "Check a TDD frame structure (slot pattern and special slot format) for a "
        "subcarrier spacing. Returns the DL/UL ratio.",
        "校验TDD帧结构配置",
        (
            arg(
                "pattern",
                "string",
                "Slot pattern, e.g. DDDSU.",
                choice(("DDDSU", "DDDDDDDSUU", "DSUUD", "DDSUU")),
            ),
            arg(
                "special_slot",
                "string",
                "Special slot symbols D:G:U, e.g. 10:2:2.",
                choice(("10:2:2", "6:4:4", "12:2:0", "11:1:2")),
            ),
            arg("scs_khz", "integer", "Subcarrier spacing in kHz.", choice((15, 30, 60))),
        ),
    ),
    Template(
        "iot_battery_life",
        "Estimate the battery life of an NB-IoT or LTE-M device from its reporting "
        "pattern and power saving settings. Returns years.",
        "估算物联网终端电池寿命",
        (
            arg(
                "report_interval_s",
                "integer",
                "Seconds between reports.",
                choice((60, 300, 900, 3600, 86400)),
            ),
            arg("payload_bytes", "integer", "Bytes per report.", ints(10, 1000)),
            opt("psm_enabled", "boolean", "Power saving mode on.", boolean, True),
            opt(
                "edrx_cycle_s",
                "float",
                "eDRX cycle in seconds.",
                choice((5.12, 10.24, 20.48, 40.96)),
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
            arg("length_km", "float", "Span length in km.", floats(0.5, 80)),
            opt(
                "wavelength_nm",
                "integer",
                "Wavelength in nm.",
                choice((1310, 1550)),
                1550,
                enum=[1310, 1550],
            ),
            opt("connectors", "integer", "Number of connectors.", ints(2, 8), 2),
        ),
    ),
    Template(
        "antenna_downtilt",
        "Mechanical plus electrical downtilt that points the upper 3 dB beam edge at the "
        "cell edge. Returns degrees.",
        "计算天线下倾角",
        (
            arg("height_m", "float", "Antenna height above ground in metres.", floats(15, 60)),
            arg("coverage_radius_m", "float", "Intended cell radius in metres.", floats(200, 3000)),
            opt(
                "vertical_beamwidth_deg",
                "float",
                "Vertical 3 dB beamwidth in degrees.",
                choice((6.5, 7.0, 10.0)),
                6.5,
            ),
        ),
    ),
)
