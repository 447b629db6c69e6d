"""Security functions: the 3GPP generic key derivation function and algorithm identifiers.

Sources: 3GPP TS 33.220 Annex B.2.0 (generic KDF, HMAC-SHA-256), TS 33.501 clauses 5.11.1.1
and 5.11.1.2 (5G/NR ciphering and integrity algorithm identifiers, whose names this module
returns; the LTE names of TS 33.401 are not).
"""

from __future__ import annotations

import hashlib
import hmac

from . import _validate as check

# Each parameter's length L_i is encoded in two octets, so P_i is at most 65535 octets.
_MAX_PARAMETER_OCTETS = 0xFFFF


def kdf_hmac_sha256(key_hex: str, fc: int, parameters: list[str]) -> str:
    """3GPP generic key derivation function, derived key as lowercase hex.

    Source: 3GPP TS 33.220 Annex B.2.0: derived key = HMAC-SHA-256(Key, S) with
    S = FC || P0 || L0 || P1 || L1 || ... || Pn || Ln, where FC is one octet and L_i is the
    length of P_i in octets as a two-octet big-endian number.

    Args:
        key_hex: the key Key as hexadecimal digits (either case, even length, not empty;
            256 bits for the 3GPP key hierarchy).
        fc: function code FC, integer 0..255.
        parameters: the input parameters P0..Pn, each as hexadecimal digits (even length,
            may be empty, at most 65535 octets), in order.

    Returns:
        The 256-bit derived key as 64 lowercase hexadecimal digits.
    """
    key = check.hex_bytes("key_hex", key_hex, allow_empty=False)
    code = check.integer("fc", fc, low=0, high=255)
    if not isinstance(parameters, list | tuple):
        raise ValueError(
            "parameters must be a list of hexadecimal strings (P0, P1, ...); got "
            f"{type(parameters).__name__} {parameters!r}"
        )
    s = bytearray([code])
    for index, parameter in enumerate(parameters):
        value = check.hex_bytes(f"parameters[{index}]", parameter)
        if len(value) > _MAX_PARAMETER_OCTETS:
            raise ValueError(
                f"parameters[{index}] is {len(value)} octets; at most 65535 fit the two-octet "
                "length field"
            )
        s += value
        s += len(value).to_bytes(2, "big")
    return hmac.new(key, bytes(s), hashlib.sha256).hexdigest()


# TS 33.501 5.11.1.1 / 5.11.1.2: 4-bit algorithm identifiers 0..3; the rest are reserved.
# LTE (TS 33.401 5.1.3.2 / 5.1.4.2) numbers EEA0..128-EEA3 and EIA0..128-EIA3 the same way,
# but the signature (fixed by the built-in dataset's doc) cannot say which system is meant,
# so the 5G names are the only ones returned.
_ALGORITHMS = {
    "ciphering": ("NEA0", "128-NEA1", "128-NEA2", "128-NEA3"),
    "integrity": ("NIA0", "128-NIA1", "128-NIA2", "128-NIA3"),
}


def security_algorithm_name(algorithm_type: str, identifier: int) -> str:
    """Name of a 5G (NR) security algorithm, NEA or NIA, from its 4-bit identifier.

    Source: 3GPP TS 33.501 clause 5.11.1.1 (ciphering: 0000 NEA0 null, 0001 128-NEA1 SNOW 3G,
    0010 128-NEA2 AES, 0011 128-NEA3 ZUC) and clause 5.11.1.2 (integrity: NIA0 ... 128-NIA3).
    Identifiers 4..15 are reserved. Only the 5G names are returned: LTE's TS 33.401
    (clauses 5.1.3.2 and 5.1.4.2) gives the same identifiers the names EEA0, 128-EEA1..3 and
    EIA0, 128-EIA1..3, so for LTE read "E" for "N" in the result (identifier 2 ciphering is
    128-EEA2 in LTE, 128-NEA2 in 5G).

    Args:
        algorithm_type: "ciphering" (NEA) or "integrity" (NIA).
        identifier: algorithm identifier, integer 0..3.

    Returns:
        The 5G algorithm name, for example "128-NEA2".
    """
    kind = check.str_choice("algorithm_type", algorithm_type, tuple(_ALGORITHMS))
    names = _ALGORITHMS[kind]
    ident = check.integer("identifier", identifier, low=0, high=15)
    if ident >= len(names):
        raise ValueError(
            f"identifier {ident} is reserved in TS 33.501 5.11.1 (4-bit field); defined "
            f"{kind} identifiers are 0..3"
        )
    return names[ident]
