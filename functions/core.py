"""Core-network look-ups: standardized 5QI characteristics and IMSI structure.

Sources: 3GPP TS 23.501 clause 5.7.4, Table 5.7.4-1 (Release 17 edition), and TS 23.003
clause 2.2 (composition of the IMSI).
"""

from __future__ import annotations

from typing import NamedTuple

from . import _validate as check


class _QosRow(NamedTuple):
    resource_type: str
    priority_level: int
    packet_delay_budget_ms: int
    packet_error_rate: float


_GBR = "GBR"
_NON_GBR = "Non-GBR"
_DC_GBR = "Delay-critical GBR"

# TS 23.501 Table 5.7.4-1, Release 17: 5QI -> (resource type, default priority level,
# packet delay budget, packet error rate). Release 17 added 5QI 10 and 87-90.
_QOS_TABLE: dict[int, _QosRow] = {
    1: _QosRow(_GBR, 20, 100, 1e-2),  # conversational voice
    2: _QosRow(_GBR, 40, 150, 1e-3),  # conversational video (live streaming)
    3: _QosRow(_GBR, 30, 50, 1e-3),  # real-time gaming, V2X, process automation monitoring
    4: _QosRow(_GBR, 50, 300, 1e-6),  # non-conversational video (buffered streaming)
    65: _QosRow(_GBR, 7, 75, 1e-2),  # mission-critical push-to-talk voice
    66: _QosRow(_GBR, 20, 100, 1e-2),  # non-mission-critical push-to-talk voice
    67: _QosRow(_GBR, 15, 100, 1e-3),  # mission-critical video user plane
    71: _QosRow(_GBR, 56, 150, 1e-6),  # live uplink streaming
    72: _QosRow(_GBR, 56, 300, 1e-4),  # live uplink streaming
    73: _QosRow(_GBR, 56, 300, 1e-8),  # live uplink streaming
    74: _QosRow(_GBR, 56, 500, 1e-8),  # live uplink streaming
    76: _QosRow(_GBR, 56, 500, 1e-4),  # live uplink streaming
    5: _QosRow(_NON_GBR, 10, 100, 1e-6),  # IMS signalling
    6: _QosRow(_NON_GBR, 60, 300, 1e-6),  # buffered video, TCP-based services
    7: _QosRow(_NON_GBR, 70, 100, 1e-3),  # voice, live video, interactive gaming
    8: _QosRow(_NON_GBR, 80, 300, 1e-6),  # buffered video, TCP-based services
    9: _QosRow(_NON_GBR, 90, 300, 1e-6),  # buffered video, TCP-based services (default)
    10: _QosRow(_NON_GBR, 90, 1100, 1e-6),  # as 6/8/9, including over satellite access
    69: _QosRow(_NON_GBR, 5, 60, 1e-6),  # mission-critical delay-sensitive signalling
    70: _QosRow(_NON_GBR, 55, 200, 1e-6),  # mission-critical data
    79: _QosRow(_NON_GBR, 65, 50, 1e-2),  # V2X messages
    80: _QosRow(_NON_GBR, 68, 10, 1e-6),  # low-latency eMBB, augmented reality
    82: _QosRow(_DC_GBR, 19, 10, 1e-4),  # discrete automation
    83: _QosRow(_DC_GBR, 22, 10, 1e-4),  # discrete automation, V2X platooning
    84: _QosRow(_DC_GBR, 24, 30, 1e-5),  # intelligent transport systems
    85: _QosRow(_DC_GBR, 21, 5, 1e-5),  # electricity distribution (high voltage), remote driving
    86: _QosRow(_DC_GBR, 18, 5, 1e-4),  # V2X collision avoidance, high-LoA platooning
    87: _QosRow(_DC_GBR, 25, 5, 1e-3),  # interactive service: motion tracking data
    88: _QosRow(_DC_GBR, 25, 10, 1e-3),  # interactive service: motion tracking data
    89: _QosRow(_DC_GBR, 25, 15, 1e-4),  # visual content for cloud/edge/split rendering
    90: _QosRow(_DC_GBR, 25, 20, 1e-4),  # visual content for cloud/edge/split rendering
}

# 5QI 75 keeps its row in the table but is not supported there (V2X over MBMS only).
_RESERVED_5QI = {75}


def qos_5qi_characteristics(five_qi: int) -> dict[str, str | int | float]:
    """Standardized QoS characteristics of a 5QI value.

    Source: 3GPP TS 23.501 clause 5.7.4, Table 5.7.4-1 (standardized 5QI to QoS
    characteristics mapping), Release 17 edition: GBR 5QIs 1-4, 65-67, 71-74, 76; Non-GBR
    5QIs 5-10, 69, 70, 79, 80; Delay-critical GBR 5QIs 82-90. 5QI 75 is not supported by the
    table and is refused like any other unlisted value.

    Args:
        five_qi: the 5QI, integer 1..255 listed in the table.

    Returns:
        {"resource_type": "GBR" | "Non-GBR" | "Delay-critical GBR",
         "priority_level": default priority level (int),
         "packet_delay_budget_ms": packet delay budget in ms (int),
         "packet_error_rate": packet error rate (float, for example 1e-6)}.
    """
    qi = check.integer("five_qi", five_qi, low=1, high=255)
    row = _QOS_TABLE.get(qi)
    if row is None:
        listed = ", ".join(str(key) for key in sorted(_QOS_TABLE))
        reason = (
            "is not supported in TS 23.501 Table 5.7.4-1 (V2X over MBMS only)"
            if qi in _RESERVED_5QI
            else "is not a standardized 5QI of TS 23.501 Table 5.7.4-1"
        )
        raise ValueError(f"five_qi {qi} {reason}; standardized values are {listed}")
    return {
        "resource_type": row.resource_type,
        "priority_level": row.priority_level,
        "packet_delay_budget_ms": row.packet_delay_budget_ms,
        "packet_error_rate": row.packet_error_rate,
    }


_MAX_IMSI_DIGITS = 15
_MCC_DIGITS = 3


def parse_imsi(imsi: str, mnc_length: int = 2) -> dict[str, str]:
    """Split an IMSI into MCC, MNC and MSIN.

    Source: 3GPP TS 23.003 clause 2.2: IMSI = MCC (3 digits) + MNC (2 or 3 digits) + MSIN,
    not more than 15 digits in all. The MNC length cannot be read from the IMSI itself; it
    depends on the MCC's numbering plan, so the caller states it.

    Args:
        imsi: the IMSI as a string of decimal digits (leading zeros are significant), at most
            15 digits and long enough to leave at least one MSIN digit.
        mnc_length: number of MNC digits, 2 or 3.

    Returns:
        {"mcc": 3 digits, "mnc": 2 or 3 digits, "msin": the remaining digits}, all strings.
    """
    mnc_len = check.int_choice("mnc_length", mnc_length, (2, 3), unit="digits")
    if not isinstance(imsi, str):
        raise ValueError(
            f"imsi must be a string of decimal digits (leading zeros matter); got "
            f"{type(imsi).__name__} {imsi!r}"
        )
    if not imsi or any(char not in "0123456789" for char in imsi):
        raise ValueError(f"imsi must contain only the digits 0-9; got {imsi!r}")
    shortest = _MCC_DIGITS + mnc_len + 1
    if not shortest <= len(imsi) <= _MAX_IMSI_DIGITS:
        raise ValueError(
            f"imsi must have {shortest}..{_MAX_IMSI_DIGITS} digits with a {mnc_len}-digit MNC "
            f"(TS 23.003 2.2); got {len(imsi)} digits"
        )
    return {
        "mcc": imsi[:_MCC_DIGITS],
        "mnc": imsi[_MCC_DIGITS : _MCC_DIGITS + mnc_len],
        "msin": imsi[_MCC_DIGITS + mnc_len :],
    }
