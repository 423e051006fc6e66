"""Records Triton's @triton.autotune as a black-box safetune trace (docs/checking-triton.md).

Usage:
    with Recorder(fix=False) as recorder:   # patches triton.runtime.autotuner.Autotuner
        ...call autotuned kernels from any threads...
    recorder.write("trace.jsonl")            # then: safetune check trace.jsonl

Contract:
- While installed, every Autotuner.run is one call: `call_begin` and `call_end` on the calling
  thread, with the key Triton computes (triton_api.tuning_key). call_end carries the config the
  call launched, or the error it raised (`TypeName: message`).
- Every Autotuner._bench inside a call is one `bench` of that config: `time_ns` is the median
  that do_bench returned (ms * 1e6), or `error` when _bench raised or returned a non-finite time
  (Triton gives inf to a config that failed to compile or ran out of resources).
- The call's final launch (its fn.run outside _bench) is one `launch`, taken after fn.run
  returns; its config is read back from the launch's keyword arguments. A final fn.run that
  raises is one `launch_failed` of that config, with the error (`TypeName: message`).
- The header lists each kernel's configs (config_text) in Triton's bench order, except for a
  kernel whose prune_configs ever returned fewer or other configs: its attempts bench a subset.
- Events go through one TraceLog: one lock, one global seq. Threads are numbered in the order
  they first call; set_stream() tags a thread's events with its stream.
- A call that took its winner from a results store, without benching, records a `load` of it
  before its launch: a hit of Triton's own disk cache (Autotuner.check_disk_cache returned True:
  `cache_results=True` or TRITON_CACHE_AUTOTUNING=1), or, under the fix with a store, an entry
  another process published. An entry the fix rejected (damaged, foreign) is a `load` with its
  `error`. So the traces of several processes (one file each) are judged as one run.
- fix=True installs fix.SingleFlightFix underneath (with `store`, one tuning per machine), so
  the trace shows the fixed autotuner. The recorder itself never changes what Triton does, with
  or without the fix.
- Every private name it uses is checked (triton_api); a missing one raises TritonApiMismatch.
  After a call that benched, the key it computed must be in Autotuner.cache, or it raises too.
- One recorder is installed on a class at a time; uninstall() (or leaving the `with`) restores
  the class and every Autotuner.fn it wrapped.
"""

import math
import threading
from operator import itemgetter

from .class_patch import ClassPatch
from .config_text import config_fields, config_text, launch_text
from .fix import SingleFlightFix
from .trace_log import TraceLog
from .triton_api import (
    OPTIONAL_DISK_CACHE,
    WRITTEN_FOR,
    KeyRule,
    TritonApiMismatch,
    key_text,
    load_autotuner_class,
    require_class,
    require_instance,
    triton_version,
)

_INSTALLED_MARK = "_safetune_recorder"
_MISSING = object()


def describe(error):
    text = "{}: {}".format(type(error).__name__, error)
    return text if len(text) <= 300 else text[:297] + "..."


class _Kernel:
    """One Autotuner seen by the recorder: its trace name, config texts and launch probe.

    Everything a call on a tuned key needs is worked out here, once: the key rule, the key's text
    and a table that names a launch by one lookup of its values."""

    def __init__(self, tuner, name):
        self.tuner = tuner
        self.name = name
        self.configs = list(tuner.configs)
        self.texts = [config_text(config) for config in self.configs]
        self.text_set = set(self.texts)
        if len(self.text_set) != len(self.texts):
            twins = sorted({t for t in self.texts if self.texts.count(t) > 1})
            raise ValueError(
                "kernel {}: several configs pass the same values ({}); a trace cannot "
                "tell them apart".format(name, "; ".join(twins))
            )
        self.text_by_id = {id(c): t for c, t in zip(self.configs, self.texts)}
        # For each set of names the configs pass: the values of those names -> text, so that a
        # launch is named by one lookup, not by formatting its kwargs.
        self.launch_tables = {}  # names -> (getter of their values, {values: text})
        for config, text in zip(self.configs, self.texts):
            fields = config_fields(config)
            names = tuple(sorted(fields))
            if names not in self.launch_tables:
                self.launch_tables[names] = (_values_getter(names), {})
            getter, table = self.launch_tables[names]
            _put(table, getter(fields), text)
        self.name_sets = list(self.launch_tables) or [()]
        self.key_of = KeyRule(tuner).key
        self.key_texts = {}  # Triton's key tuple -> its text in the trace
        self.pruned = False
        self.probe = None

    def text_of(self, config):
        return self.text_by_id.get(id(config)) or config_text(config)

    def key_text(self, key, args, kwargs):
        """One text per Triton key tuple, so that the trace's keys are Triton's keys."""
        try:
            return self.key_texts[key]
        except KeyError:
            return self.key_texts.setdefault(key, key_text(self.tuner, args, kwargs))
        except TypeError:  # an unhashable key value: no entry can hold it
            return key_text(self.tuner, args, kwargs)

    def launched_text(self, kwargs):
        for getter, table in self.launch_tables.values():
            try:
                text = table.get(getter(kwargs))
            except (KeyError, TypeError):  # a name not passed, or an unhashable value
                continue
            if text is not None:
                return text
        # Not a config of the space (or one with unhashable values): format what was passed.
        texts = [launch_text(names, kwargs) for names in self.name_sets]
        return next((t for t in texts if t in self.text_set), texts[0])


def _values_getter(names):
    """A function of a kwargs dict: the values of `names` (KeyError when one is missing)."""
    if not names:
        return lambda kwargs: ()
    return itemgetter(*names)


def _put(table, key, value):
    try:
        table.setdefault(key, value)
    except TypeError:
        pass


class _LaunchProbe:
    """Stands in for Autotuner.fn: forwards everything, and reports each fn.run to the recorder.

    Its attribute `fn` is the wrapped object, so Triton's own walk down `.fn` to the JITFunction
    (disk cache, listener) still finds it.

    do_bench runs a bench's launch hundreds of times, through here: run() itself tells those
    launches (and any outside a recorded call of this kernel) from a call's final launch, and
    calls the recorder only for the latter."""

    def __init__(self, fn, recorder, kernel):
        self.fn = fn
        self._local = recorder._local
        self._on_launch = recorder._on_launch
        self._on_launch_failed = recorder._on_launch_failed
        self._kernel = kernel

    def run(self, *args, **kwargs):
        try:
            result = self.fn.run(*args, **kwargs)
        except BaseException as error:
            thread, call = self._final_launch_of()
            if call is not None:
                self._on_launch_failed(thread, call, kwargs, error)
            raise
        thread, call = self._final_launch_of()
        if call is not None:
            self._on_launch(thread, call, kwargs)
        return result

    def _final_launch_of(self):
        """(thread, call) when this fn.run is the final launch of the thread's innermost call of
        this kernel, else (thread, None)."""
        thread = getattr(self._local, "state", None)
        if thread is not None and thread.calls:
            call = thread.calls[-1]
            if call.kernel is self._kernel and not call.benching:
                return thread, call
        return thread, None

    def __getattr__(self, name):
        return getattr(self.fn, name)


class _Call:
    __slots__ = ("kernel", "key", "key_text", "benching", "benched", "launched")

    def __init__(self, kernel, key, key_text):
        self.kernel, self.key, self.key_text = kernel, key, key_text
        self.benching, self.benched, self.launched = False, 0, None


class _Thread:
    def __init__(self, number):
        self.number = number
        self.stream = None
        self.calls = []  # open calls, innermost last


class Recorder:
    def __init__(self, fix=False, store=None, device=None):
        if store is not None and not fix:
            raise ValueError("a results store is the fix's (store=... needs fix=True)")
        self.log = TraceLog()
        self.fix = fix
        self._fix = SingleFlightFix(store=store, device=device) if fix else None
        if self._fix is not None and self._fix.gate is not None:
            self._fix.gate.on_load = self._on_load
        self._local = threading.local()
        self._lock = threading.Lock()  # guards the kernel registry
        self._kernels = {}  # id(Autotuner) -> _Kernel
        self._triton_run = None  # Triton's own run, under the fix if there is one
        self._patch = ClassPatch()

    # -- installing ----------------------------------------------------------------------------

    def install(self, cls=None):
        """Patches `cls` (default: Triton's Autotuner); TritonApiMismatch if a name is missing."""
        cls = require_class(cls) if cls is not None else load_autotuner_class()
        if cls.__dict__.get(_INSTALLED_MARK):
            raise RuntimeError(
                "a safetune recorder is already installed on {}".format(cls.__name__)
            )
        # With the fix, a call goes to the fix's run directly (not through the class), so that
        # the fix reuses the key computed here instead of computing it again.
        self._triton_run = cls.run
        if self._fix:
            self._fix.install(cls)
        bench, prune = cls._bench, cls.prune_configs
        check_disk_cache = getattr(cls, OPTIONAL_DISK_CACHE, None)
        recorder, record = self, self._run

        def traced_run(tuner, *args, **kwargs):
            return record(tuner, args, kwargs)

        def traced_bench(tuner, *args, config, **meta):
            return recorder._bench(bench, tuner, args, config, meta)

        def traced_prune(tuner, kwargs):
            return recorder._prune(prune, tuner, kwargs)

        patches = {
            "run": traced_run,
            "_bench": traced_bench,
            "prune_configs": traced_prune,
            _INSTALLED_MARK: True,
        }
        if callable(check_disk_cache):  # Triton has a disk cache of tuning results

            def traced_check_disk_cache(tuner, tuning_key, configs, bench_fn):
                hit = check_disk_cache(tuner, tuning_key, configs, bench_fn)
                if hit is True:
                    recorder._on_load(tuner, recorder._kernel(tuner).text_of(tuner.cache[tuning_key]), None)
                return hit

            patches[OPTIONAL_DISK_CACHE] = traced_check_disk_cache
        self._patch.apply(cls, patches)
        return self

    def uninstall(self):
        if self._patch.cls is None:
            return
        self._patch.restore()
        if self._fix:
            self._fix.uninstall()
        with self._lock:
            for kernel in self._kernels.values():
                if kernel.tuner.fn is kernel.probe:
                    kernel.tuner.fn = kernel.probe.fn
        self._triton_run = None

    def __enter__(self):
        return self.install() if self._patch.cls is None else self

    def __exit__(self, *exc):
        self.uninstall()

    # -- output --------------------------------------------------------------------------------

    def set_stream(self, stream):
        """Tags this thread's later events with `stream` (an int or a string)."""
        self._thread().stream = stream

    def configs(self):
        """The header's config spaces: every kernel seen whose attempts bench its whole list."""
        with self._lock:
            return {k.name: k.texts for k in self._kernels.values() if not k.pruned}

    def write(self, path):
        self.log.write(
            path,
            self.configs(),
            {
                "recorder": {
                    "tool": "safetune_triton.recorder",
                    "written_for_triton": WRITTEN_FOR,
                    "triton": triton_version(),
                    "fix": self.fix,
                }
            },
        )

    # -- the wrappers --------------------------------------------------------------------------

    def _thread(self):
        state = getattr(self._local, "state", None)
        if state is None:
            state = self._local.state = _Thread(self.log.new_thread())
        return state

    def _kernel(self, tuner):
        kernel = self._kernels.get(id(tuner))
        if kernel is not None and kernel.tuner is tuner:
            return kernel
        with self._lock:
            kernel = self._kernels.get(id(tuner))
            if kernel is None or kernel.tuner is not tuner:
                kernel = self._register(require_instance(tuner))
            return kernel

    def _register(self, tuner):
        base = tuner.base_fn.__name__
        taken = {k.name for k in self._kernels.values()}
        name, n = base, 1
        while name in taken:  # two autotuners of one function still get two names
            n += 1
            name = "{}#{}".format(base, n)
        kernel = _Kernel(tuner, name)
        kernel.probe = _LaunchProbe(tuner.fn, self, kernel)
        tuner.fn = kernel.probe
        self._kernels[id(tuner)] = kernel
        return kernel

    def _event(self, thread, event, call, config=None, error=None, time_ns=None):
        self.log.add(
            thread.number,
            event,
            call.kernel.name,
            call.key_text,
            config,
            error,
            time_ns,
            thread.stream,
        )

    # _run and _on_launch are the hot path (every call, tuned or not): they pass the log its
    # fields by position and look each thing up once.

    def _run(self, tuner, args, kwargs):
        kernel = self._kernels.get(id(tuner))
        if kernel is None or kernel.tuner is not tuner:
            kernel = self._kernel(tuner)
        key = kernel.key_of(args, kwargs)
        try:
            text = kernel.key_texts[key]
        except (KeyError, TypeError):  # the key's first call (or an unhashable key)
            text = kernel.key_text(key, args, kwargs)
        thread = getattr(self._local, "state", None) or self._thread()
        call = _Call(kernel, key, text)
        add = self.log.add
        thread.calls.append(call)
        add(thread.number, "call_begin", kernel.name, text, None, None, None, thread.stream)
        try:
            if self._fix is None:
                result = self._triton_run(tuner, *args, **kwargs)
            else:
                result = self._fix.run(self._triton_run, tuner, args, kwargs, key)
        except BaseException as error:
            self._event(thread, "call_end", call, error=describe(error))
            raise
        finally:
            thread.calls.pop()
        if call.launched is None:
            self._event(
                thread, "call_end", call, error="returned without a launch the recorder saw"
            )
        else:
            add(
                thread.number,
                "call_end",
                kernel.name,
                call.key_text,
                call.launched,
                None,
                None,
                thread.stream,
            )
        if call.benched and len(kernel.configs) > 1 and key not in tuner.cache:
            raise TritonApiMismatch(
                "after tuning {}, the key the recorder computed ({!r}) is not in Autotuner.cache: "
                "Triton's key rule differs from the Triton {} rule that triton_api.tuning_key "
                "copies".format(kernel.name, key, WRITTEN_FOR)
            )
        return result

    def _innermost_call(self, thread):
        return thread.calls[-1] if thread.calls else None

    def _bench(self, bench, tuner, args, config, meta):
        thread = self._thread()
        call = self._innermost_call(thread)
        if call is None or call.kernel.tuner is not tuner:  # outside a recorded call of this tuner
            return bench(tuner, *args, config=config, **meta)
        text = call.kernel.text_of(config)
        call.benching = True
        try:
            result = bench(tuner, *args, config=config, **meta)
        except BaseException as error:
            self._event(thread, "bench", call, config=text, error=describe(error))
            raise
        finally:
            call.benching = False
        call.benched += 1
        median = _median_ms(result)
        if median is None:
            self._event(
                thread,
                "bench",
                call,
                config=text,
                error="Triton timed it as {!r} (inf: the config failed to compile or ran "
                "out of resources)".format(result),
            )
        else:
            self._event(thread, "bench", call, config=text, time_ns=median * 1e6)
        return result

    def _on_launch(self, thread, call, kwargs):
        """The final launch of `call` (the probe has checked that it is not a bench's)."""
        call.launched = text = call.kernel.launched_text(kwargs)
        self.log.add(
            thread.number,
            "launch",
            call.kernel.name,
            call.key_text,
            text,
            None,
            None,
            thread.stream,
        )

    def _on_launch_failed(self, thread, call, kwargs, error):
        """The final launch of `call` raised: a `launch_failed`, and the call ends with that error."""
        config = call.kernel.launched_text(kwargs)
        self._event(thread, "launch_failed", call, config=config, error=describe(error))

    def _on_load(self, tuner, config, error):
        """The innermost call of `tuner` on this thread took its winner (`config`) from a store,
        or rejected the entry there (`error`)."""
        thread = self._thread()
        call = self._innermost_call(thread)
        if call is None or call.kernel.tuner is not tuner:
            return  # outside a recorded call (a warm-up): nothing to attach it to
        self._event(thread, "load", call, config=config, error=error)

    def _prune(self, prune, tuner, kwargs):
        configs = prune(tuner, kwargs)
        kernel = self._kernel(tuner)
        if len(configs) != len(kernel.configs) or any(
            a is not b for a, b in zip(configs, kernel.configs)
        ):
            kernel.pruned = True  # its attempts bench a subset: the header must not list its space
        return configs


def _median_ms(result):
    """The median (ms) in what _bench returned, or None when it is not a finite number >= 0."""
    value = result[0] if isinstance(result, (list, tuple)) and result else result
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None
