"""A results-store entry, byte for byte as the C++ store writes it (impl/store/entry_codec.cpp).

Contract (docs/store.md, "Entries and their fingerprint"):
- An entry is one JSON object on one line, ended by a newline: `schema` (1), `key`,
  `fingerprint` {kernel, space_hash, device {name, compute_capability, driver, toolkit},
  safetune}, `winner` (a config's text) and `times` [{config, time_ns}]. encode() writes it with
  sorted keys and no spaces, as nlohmann::json's dump() does, so the two writers agree byte for
  byte (tests/store/interop/ holds the shared fixture both test against).
- decode() returns the entry when the text is whole, JSON, schema 1, of the expected key, with
  exactly the expected fingerprint and a winner in the space; otherwise Rejected with the reason
  (and the winner when it could be read). A rejected entry is a miss and is never launched.
- space_hash() and entry_name() are FNV-1a (64 bits) over the same bytes as the C++ store's, so
  both name the same file for the same (kernel, key, device).
"""

import json
from dataclasses import dataclass, field

SCHEMA = 1
# safetune's version, as project() in the top-level CMakeLists.txt gives it to the C++ store
# (tests/triton/test_store_entry.py checks that the two agree).
SAFETUNE_VERSION = "0.1"

_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211
_MASK = (1 << 64) - 1


def fnv1a(value, data):
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & _MASK
    return value


def hex64(value):
    return "{:016x}".format(value)


def space_hash(config_texts):
    """The hash of a config space: its configs' texts in order, one per line."""
    value = _FNV_OFFSET
    for text in config_texts:
        value = fnv1a(value, (text + "\n").encode("utf-8"))
    return hex64(value)


def entry_name(kernel, key, device_name):
    """The entry's file stem: every part followed by a NUL byte, so no two ids share a name."""
    value = _FNV_OFFSET
    for part in (kernel, key, device_name):
        value = fnv1a(value, part.encode("utf-8") + b"\0")
    return hex64(value)


@dataclass(frozen=True)
class Device:
    name: str
    compute_capability: str
    driver: str
    toolkit: str


@dataclass(frozen=True)
class Fingerprint:
    kernel: str
    space_hash: str
    device: Device
    safetune: str = SAFETUNE_VERSION


@dataclass
class Entry:
    key: str
    fingerprint: Fingerprint
    winner: str
    times: list = field(default_factory=list)  # [(config text, time_ns)]


@dataclass(frozen=True)
class Rejected:
    reason: str
    winner: str = None


def encode(entry):
    device = entry.fingerprint.device
    document = {
        "schema": SCHEMA,
        "key": entry.key,
        "fingerprint": {
            "kernel": entry.fingerprint.kernel,
            "space_hash": entry.fingerprint.space_hash,
            "device": {
                "name": device.name,
                "compute_capability": device.compute_capability,
                "driver": device.driver,
                "toolkit": device.toolkit,
            },
            "safetune": entry.fingerprint.safetune,
        },
        "winner": entry.winner,
        "times": [{"config": config, "time_ns": float(ns)} for config, ns in entry.times],
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def decode(text, key, expected, space):
    """Entry, or Rejected with why; `space` is the set (or list) of the current configs' texts."""
    if not text.endswith("\n"):
        return Rejected("truncated: {} bytes, with no final newline".format(len(text.encode())))
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:  # RecursionError: nested too deep to read
        return Rejected("not valid JSON: {}".format(error))
    schema = document.get("schema") if isinstance(document, dict) else None
    if isinstance(schema, bool) or schema != SCHEMA:  # JSON's true is no schema number
        present = isinstance(document, dict) and "schema" in document
        found = json.dumps(schema) if present else "missing"
        return Rejected("schema is {}, not {}".format(found, SCHEMA))
    try:
        entry = _entry_from(document)
    except (KeyError, TypeError, ValueError) as error:
        return Rejected("not a safetune entry: {!r} is missing or malformed".format(error))
    if entry.key != key:
        return Rejected(
            "it is the entry of key '{}', not '{}'".format(entry.key, key), entry.winner
        )
    if entry.fingerprint != expected:
        return Rejected(
            "foreign fingerprint: " + _difference(entry.fingerprint, expected), entry.winner
        )
    if entry.winner not in space:
        return Rejected(
            "its winner {} is not in the config space".format(entry.winner), entry.winner
        )
    return entry


def _text(value):
    if not isinstance(value, str):
        raise TypeError("{!r} is not a string".format(value))
    return value


def _entry_from(document):
    fingerprint, device = document["fingerprint"], document["fingerprint"]["device"]
    times = []
    for time in document["times"]:
        ns = time["time_ns"]
        if isinstance(ns, bool) or not isinstance(ns, (int, float)):
            raise TypeError("time_ns {!r} is not a number".format(ns))
        times.append((_text(time["config"]), float(ns)))
    return Entry(
        key=_text(document["key"]),
        fingerprint=Fingerprint(
            kernel=_text(fingerprint["kernel"]),
            space_hash=_text(fingerprint["space_hash"]),
            device=Device(
                name=_text(device["name"]),
                compute_capability=_text(device["compute_capability"]),
                driver=_text(device["driver"]),
                toolkit=_text(device["toolkit"]),
            ),
            safetune=_text(fingerprint["safetune"]),
        ),
        winner=_text(document["winner"]),
        times=times,
    )


def _difference(found, expected):
    """The first field in which `found` differs from `expected`, named as the C++ store names it."""
    pairs = (
        ("kernel", found.kernel, expected.kernel),
        ("config space hash", found.space_hash, expected.space_hash),
        ("device", found.device.name, expected.device.name),
        (
            "compute capability",
            found.device.compute_capability,
            expected.device.compute_capability,
        ),
        ("driver", found.device.driver, expected.device.driver),
        ("toolkit", found.device.toolkit, expected.device.toolkit),
        ("safetune version", found.safetune, expected.safetune),
    )
    what, a, b = next((p for p in pairs if p[1] != p[2]), pairs[-1])
    return "{} is '{}', not this autotuner's '{}'".format(what, a, b)
