"""One tuning per machine for Triton: the C++ directory store's on-disk protocol in Python.

- entry.py: an entry and its fingerprint, byte for byte as the C++ store writes them;
- directory.py: the store's files and OFD locks (claim, view, atomic publication, quarantine);
- gate.py: StoreGate, what the fix's owner of a cold key does with the store;
- device.py: the identity of the GPU the entries are valid for.
"""

from .directory import DirectoryStore, StoreError
from .entry import Device
from .gate import StoreGate

__all__ = ["Device", "DirectoryStore", "StoreError", "StoreGate"]
