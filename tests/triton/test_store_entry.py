"""The Python store's entries (safetune_triton/store/entry.py) against the C++ store's: the
shared fixture tests/store/interop/ (which tests/store/store_interop_test.cpp checks the C++ side
against), every kind of damage as a miss with its reason, and the fingerprint's version."""

import json
import re

from harness import REPO
from safetune_triton.store.entry import (
    SAFETUNE_VERSION,
    Device,
    Entry,
    Fingerprint,
    Rejected,
    decode,
    encode,
    entry_name,
    space_hash,
)

INTEROP = REPO / "tests" / "store" / "interop"
EXPECTED = json.loads((INTEROP / "expected.json").read_text(encoding="utf-8"))
SHARED_TEXT = (INTEROP / "entry.json").read_bytes().decode("utf-8")
SPACE = EXPECTED["space"]
DEVICE = Device(**EXPECTED["device"])
FINGERPRINT = Fingerprint(kernel=EXPECTED["kernel"], space_hash=space_hash(SPACE), device=DEVICE)


def shared_entry(winner=EXPECTED["winner"], key=EXPECTED["key"], fingerprint=FINGERPRINT):
    return Entry(
        key=key,
        fingerprint=fingerprint,
        winner=winner,
        times=[tuple(t) for t in EXPECTED["times"]],
    )


def rejection(text, expected=FINGERPRINT):
    found = decode(text, EXPECTED["key"], expected, SPACE)
    assert isinstance(found, Rejected), found
    return found.reason


def test_it_encodes_the_shared_entry_byte_for_byte_as_the_cpp_store_does():
    assert encode(shared_entry()) == SHARED_TEXT


def test_it_decodes_the_shared_entry_as_valid():
    found = decode(SHARED_TEXT, EXPECTED["key"], FINGERPRINT, SPACE)
    assert found == shared_entry()


def test_it_names_the_file_and_hashes_the_space_as_the_cpp_store_does():
    assert space_hash(SPACE) == EXPECTED["space_hash"]
    assert entry_name(EXPECTED["kernel"], EXPECTED["key"], DEVICE.name) == EXPECTED["entry_name"]
    assert entry_name("a", "bc", "d") != entry_name("ab", "c", "d")  # NUL-separated parts


def test_every_kind_of_damage_is_a_miss_with_its_reason():
    assert "truncated" in rejection(SHARED_TEXT[: len(SHARED_TEXT) // 2])
    assert "not valid JSON" in rejection('{"schema":1,\n')
    assert "schema is missing, not 1" in rejection("[1,2]\n")
    assert "schema is 2, not 1" in rejection(SHARED_TEXT.replace('"schema":1', '"schema":2'))
    assert "not a safetune entry" in rejection('{"schema":1}\n')
    assert "schema is true, not 1" in rejection(SHARED_TEXT.replace('"schema":1', '"schema":true'))
    assert "not valid JSON" in rejection("[" * 100000 + "]" * 100000 + "\n")
    bad_time = SHARED_TEXT.replace('"time_ns":1500.5', '"time_ns":"x"')
    assert "not a safetune entry" in rejection(bad_time)
    outside = encode(shared_entry(winner="BLOCK=64,num_ctas=1,num_stages=3,num_warps=4"))
    assert "is not in the config space" in rejection(outside)
    assert "it is the entry of key 'n=1'" in rejection(encode(shared_entry(key="n=1")))


def test_a_foreign_fingerprint_names_the_field_that_differs_and_keeps_the_winner():
    other_driver = Fingerprint(
        kernel=FINGERPRINT.kernel,
        space_hash=FINGERPRINT.space_hash,
        device=Device(**dict(EXPECTED["device"], driver="570.1")),
    )
    found = decode(SHARED_TEXT, EXPECTED["key"], other_driver, SPACE)
    assert found.reason == (
        "foreign fingerprint: driver is '580.65.06', not this autotuner's '570.1'"
    )
    assert found.winner == EXPECTED["winner"]
    reordered = Fingerprint(
        kernel=FINGERPRINT.kernel, space_hash=space_hash(SPACE[::-1]), device=DEVICE
    )
    assert "config space hash" in rejection(SHARED_TEXT, reordered)


def test_the_fingerprints_safetune_version_is_the_projects():
    cmake = (REPO / "CMakeLists.txt").read_text(encoding="utf-8")
    version = re.search(r"project\(safetune VERSION ([0-9.]+)", cmake).group(1)
    assert SAFETUNE_VERSION == version
