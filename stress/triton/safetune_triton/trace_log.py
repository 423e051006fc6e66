"""A thread-safe event log that writes safetune's JSON Lines trace, version 1.

Contract:
- add() takes one event under one lock and gives it the next global seq (1, 2, ...), so seq order
  is the order in which the events were taken, across every thread.
- new_thread() hands out thread numbers 1, 2, ... in the order threads first ask.
- write() writes the header line (the caller's config spaces, policies block/error, black-box)
  and then one line per event, fields in the order docs/trace-format.md gives. Events are kept
  as tuples in memory until then: formatting JSON while the kernel runs would slow the calls
  that the trace times.
- t_ns is CLOCK_MONOTONIC (time.monotonic_ns), one clock for every process of the machine: the
  traces of several processes merge by it (`safetune check A.jsonl B.jsonl ...`).
"""

import json
import threading
import time

FIELDS = ("seq", "thread", "event", "kernel", "key", "config", "error", "time_ns", "stream", "t_ns")


class TraceLog:
    def __init__(self, clock=time.monotonic_ns):
        self._lock = threading.Lock()
        self._clock = clock
        self._events = []  # FIELDS[1:] of each event; its seq is its place in this list, from 1
        self._append = self._events.append
        self._threads = 0

    def new_thread(self):
        with self._lock:
            self._threads += 1
            return self._threads

    def add(self, thread, event, kernel, key, config=None, error=None, time_ns=None, stream=None):
        # Appending under the lock is what gives the seq. The clock is read under the lock too,
        # so that t_ns never goes backwards along seq.
        with self._lock:
            self._append(
                (thread, event, kernel, key, config, error, time_ns, stream, self._clock())
            )

    def events(self):
        """Every event so far, as dicts without the absent fields (a copy, taken under the lock)."""
        with self._lock:
            rows = list(self._events)
        return [
            {name: value for name, value in zip(FIELDS, (seq,) + row) if value is not None}
            for seq, row in enumerate(rows, 1)
        ]

    def write(self, path, configs, extra_header=None):
        """Writes the trace to `path`. `configs` maps a kernel to its config strings in bench order;
        `extra_header` adds fields that the reader ignores (e.g. who recorded the trace)."""
        header = {
            "format": "safetune-trace",
            "version": 1,
            "policy": {"wait": "block", "reentry": "error"},
            "configs": configs,
            "white_box": False,
        }
        header.update(extra_header or {})
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps(header) + "\n")
            for event in self.events():
                out.write(json.dumps(event, allow_nan=False) + "\n")
