"""5QI table (TS 23.501 Table 5.7.4-1, Rel-17), IMSI (TS 23.003 2.2), KDF (TS 33.220 B.2.0)
and algorithm identifiers (TS 33.501 5.11.1)."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest


@pytest.mark.parametrize(
    ("five_qi", "expected"),
    [
        pytest.param(1, ("GBR", 20, 100, 1e-2), id="1-conversational-voice"),
        pytest.param(2, ("GBR", 40, 150, 1e-3), id="2-conversational-video"),
        pytest.param(3, ("GBR", 30, 50, 1e-3), id="3-real-time-gaming"),
        pytest.param(4, ("GBR", 50, 300, 1e-6), id="4-buffered-video"),
        pytest.param(65, ("GBR", 7, 75, 1e-2), id="65-MC-PTT-voice"),
        pytest.param(67, ("GBR", 15, 100, 1e-3), id="67-MC-video"),
        pytest.param(71, ("GBR", 56, 150, 1e-6), id="71-live-UL-streaming"),
        pytest.param(76, ("GBR", 56, 500, 1e-4), id="76-live-UL-streaming"),
        pytest.param(5, ("Non-GBR", 10, 100, 1e-6), id="5-IMS-signalling"),
        pytest.param(9, ("Non-GBR", 90, 300, 1e-6), id="9-default-bearer"),
        pytest.param(10, ("Non-GBR", 90, 1100, 1e-6), id="10-satellite-Rel17"),
        pytest.param(69, ("Non-GBR", 5, 60, 1e-6), id="69-MC-signalling"),
        pytest.param(80, ("Non-GBR", 68, 10, 1e-6), id="80-low-latency-eMBB"),
        pytest.param(82, ("Delay-critical GBR", 19, 10, 1e-4), id="82-discrete-automation"),
        pytest.param(85, ("Delay-critical GBR", 21, 5, 1e-5), id="85-electricity-HV"),
        pytest.param(86, ("Delay-critical GBR", 18, 5, 1e-4), id="86-V2X-collision"),
        pytest.param(90, ("Delay-critical GBR", 25, 20, 1e-4), id="90-split-rendering"),
    ],
)
def test_qos_5qi(fn: ModuleType, five_qi: int, expected: tuple[str, int, int, float]) -> None:
    resource_type, priority, pdb, per = expected
    assert fn.qos_5qi_characteristics(five_qi=five_qi) == {
        "resource_type": resource_type,
        "priority_level": priority,
        "packet_delay_budget_ms": pdb,
        "packet_error_rate": per,
    }


def test_qos_table_size_and_types(fn: ModuleType) -> None:
    core = importlib.import_module(f"{fn.__name__}.core")
    # Rel-17 Table 5.7.4-1: 12 GBR + 10 Non-GBR + 9 Delay-critical GBR rows (75 unsupported).
    kinds = [row.resource_type for row in core._QOS_TABLE.values()]
    assert (kinds.count("GBR"), kinds.count("Non-GBR"), kinds.count("Delay-critical GBR")) == (
        12,
        10,
        9,
    )


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param(75, "not supported", id="75-reserved"),
        pytest.param(11, "not a standardized 5QI", id="11-unassigned"),
        pytest.param(128, "standardized values are 1, 2, 3", id="operator-specific"),
        pytest.param(0, "five_qi must be an integer >= 1 and <= 255", id="zero"),
        pytest.param(256, "five_qi must be an integer", id="too-big"),
        pytest.param("9", "five_qi must be an integer", id="string"),
        pytest.param(9.0, "five_qi must be an integer", id="float"),
    ],
)
def test_qos_5qi_rejects(fn: ModuleType, bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.qos_5qi_characteristics(five_qi=bad)


@pytest.mark.parametrize(
    ("imsi", "mnc_length", "expected"),
    [
        pytest.param("460001234567890", 2, ("460", "00", "1234567890"), id="China-Mobile-2-digit"),
        pytest.param("310150123456789", 3, ("310", "150", "123456789"), id="US-3-digit"),
        pytest.param("001010000000001", 2, ("001", "01", "0000000001"), id="test-PLMN-zeros"),
        pytest.param("2620112345", 2, ("262", "01", "12345"), id="short-IMSI"),
        pytest.param("234150", 2, ("234", "15", "0"), id="one-digit-MSIN"),
    ],
)
def test_parse_imsi(
    fn: ModuleType, imsi: str, mnc_length: int, expected: tuple[str, str, str]
) -> None:
    mcc, mnc, msin = expected
    assert fn.parse_imsi(imsi=imsi, mnc_length=mnc_length) == {
        "mcc": mcc,
        "mnc": mnc,
        "msin": msin,
    }


def test_parse_imsi_default_mnc_length_is_2(fn: ModuleType) -> None:
    assert fn.parse_imsi(imsi="460001234567890")["mnc"] == "00"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"imsi": "4600012345678901"}, "6..15 digits", id="16-digits"),
        pytest.param({"imsi": "46000"}, "6..15 digits", id="no-MSIN"),
        pytest.param({"imsi": "310150", "mnc_length": 3}, "7..15 digits", id="no-MSIN-3"),
        pytest.param({"imsi": "46000123456789A"}, "only the digits 0-9", id="letter"),
        pytest.param({"imsi": "460 00123456789"}, "only the digits", id="space"),
        pytest.param({"imsi": "４６０００１２３４５６７８９０"}, "only the digits", id="fullwidth"),
        pytest.param({"imsi": 460001234567890}, "must be a string", id="int"),
        pytest.param({"imsi": ""}, "only the digits", id="empty"),
        pytest.param(
            {"imsi": "460001234567890", "mnc_length": 4}, "mnc_length must be one of 2, 3"
        ),
    ],
)
def test_parse_imsi_rejects(fn: ModuleType, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fn.parse_imsi(**kwargs)


# Expected digests computed independently with OpenSSL, e.g. for the first case:
# printf '\x6a\x01\x02\x00\x02\x00\x00' | openssl dgst -sha256 -mac HMAC -macopt hexkey:00..00
@pytest.mark.parametrize(
    ("kwargs", "digest"),
    [
        pytest.param(
            {"key_hex": "00" * 32, "fc": 0x6A, "parameters": ["0102", ""]},
            "2f3ebcaa5bb4e2693fab23f426f7ba9e6ecfd204195a516ed94694c4c80d049f",
            id="S=6a|0102|0002||0000",
        ),
        pytest.param(
            {"key_hex": "0F" * 32, "fc": 0x15, "parameters": ["01", "0123456789abcdef"]},
            "a8a6b26c25f69da23f3fe2617a7146f7faafb67d507d567b930ae3ecdd4f6c14",
            id="S=15|01|0001|P1|0008-uppercase-key",
        ),
        pytest.param(
            {"key_hex": "ab" * 32, "fc": 0, "parameters": []},
            "b70e5785a09689b04bdfec0e9e38ada478df8a2504c9ca252d68eda6491b8198",
            id="S=FC-only",
        ),
    ],
)
def test_kdf_hmac_sha256(fn: ModuleType, kwargs: dict[str, object], digest: str) -> None:
    assert fn.kdf_hmac_sha256(**kwargs) == digest


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"key_hex": ""}, "key_hex .*not empty"),
        pytest.param({"key_hex": "abc"}, "even length"),
        pytest.param({"key_hex": "0x00"}, "no prefix"),
        pytest.param({"key_hex": "zz"}, "hexadecimal"),
        pytest.param({"fc": 256}, "fc must be an integer >= 0 and <= 255"),
        pytest.param({"fc": -1}, "fc"),
        pytest.param({"fc": "6a"}, "fc must be an integer"),
        pytest.param({"parameters": "0102"}, "parameters must be a list"),
        pytest.param({"parameters": ["01", "1"]}, r"parameters\[1\] must be"),
        pytest.param({"parameters": [1]}, r"parameters\[0\] must be"),
        pytest.param({"parameters": ["00" * 65536]}, "at most 65535"),
    ],
)
def test_kdf_rejects(fn: ModuleType, change: dict[str, object], message: str) -> None:
    base = {"key_hex": "00" * 32, "fc": 0x6A, "parameters": ["0102"]}
    with pytest.raises(ValueError, match=message):
        fn.kdf_hmac_sha256(**{**base, **change})


# TS 33.501 5.11.1.1 (NEA) and 5.11.1.2 (NIA).
@pytest.mark.parametrize(
    ("kind", "ident", "name"),
    [
        ("ciphering", 0, "NEA0"),
        ("ciphering", 1, "128-NEA1"),
        ("ciphering", 2, "128-NEA2"),
        ("ciphering", 3, "128-NEA3"),
        ("integrity", 0, "NIA0"),
        ("integrity", 1, "128-NIA1"),
        ("integrity", 2, "128-NIA2"),
        ("integrity", 3, "128-NIA3"),
    ],
)
def test_security_algorithm_name(fn: ModuleType, kind: str, ident: int, name: str) -> None:
    assert fn.security_algorithm_name(algorithm_type=kind, identifier=ident) == name


@pytest.mark.parametrize(
    ("kind", "ident", "message"),
    [
        ("ciphering", 4, "reserved"),
        ("integrity", 15, "reserved"),
        ("ciphering", 16, "identifier must be an integer >= 0 and <= 15"),
        ("ciphering", -1, "identifier"),
        ("Ciphering", 1, "'ciphering', 'integrity' \\(case-sensitive\\)"),
        ("encryption", 1, "'ciphering', 'integrity'"),
        ("integrity", True, "identifier must be an integer"),
    ],
)
def test_security_algorithm_rejects(
    fn: ModuleType, kind: object, ident: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        fn.security_algorithm_name(algorithm_type=kind, identifier=ident)
