"""What the recorder and the fix need from Triton's autotuner, and the checks that it is there.

Written against Triton 3.6 (python/triton/runtime/autotuner.py). The names below are private: no
Triton release promises them, so every one is checked before it is used, and a missing one raises
TritonApiMismatch naming what was not found and the Triton version that lacks it. Nothing here
falls back silently: a recorder that guessed would write traces that judge the wrong thing.

Depended on (all in triton.runtime.autotuner):
- class Autotuner, with methods
  - run(self, *args, **kwargs): one call of the autotuned kernel. It computes the key, benches
    every config when the key is not in self.cache, and then launches through self.fn.run;
  - _bench(self, *args, config, **meta): benchmarks one config and returns do_bench's
    [median, 20th, 80th percentile] in ms, or [inf, inf, inf] for a config that failed to compile
    or ran out of resources;
  - prune_configs(self, kwargs): the configs one attempt benches (all of them, unless
    prune_configs_by is given);
- Autotuner instance attributes: configs (a list of Config), keys (argument names), arg_names,
  cache (a dict from the key tuple to the Config chosen), fn (the launch and every bench go
  through fn.run), base_fn (the Python function; its __name__ names the kernel);
- optional: Autotuner.check_disk_cache (OPTIONAL_DISK_CACHE), whose hits the recorder records as
  loads;
- only the fix: the instance fields nargs and restore_copies, which run, _bench and the
  restore_value hooks write and read on self;
- Config attributes kwargs, num_warps, num_stages, num_ctas (maxnreg and ir_override if present);
- the key rule of Autotuner.run, copied in tuning_key() below: the values of the `key` arguments
  that the call passes, then str(arg.dtype) of every argument that has a dtype.
"""

import importlib
import inspect

WRITTEN_FOR = "3.6"
MODULE = "triton.runtime.autotuner"
CLASS_METHODS = ("run", "_bench", "prune_configs")
# Triton's disk cache of tuning results (3.x): check_disk_cache(self, tuning_key, configs,
# bench_fn) returns True when it took the winner from the cache, after putting it in self.cache.
# Optional: a Triton without it has no disk cache for the recorder to see.
OPTIONAL_DISK_CACHE = "check_disk_cache"
INSTANCE_FIELDS = ("configs", "keys", "arg_names", "cache", "fn", "base_fn")


class TritonApiMismatch(RuntimeError):
    """Triton's autotuner lacks a private name that the recorder depends on."""


def triton_version():
    try:
        return importlib.import_module("triton").__version__
    except (ImportError, AttributeError):
        return "unknown"


def _mismatch(what_is_missing):
    return TritonApiMismatch(
        "safetune's Triton recorder was written against Triton {} and needs {}, which this Triton "
        "({}) does not have; see docs/checking-triton.md for the names it depends on".format(
            WRITTEN_FOR, what_is_missing, triton_version()
        )
    )


def load_autotuner_class():
    """triton.runtime.autotuner.Autotuner, checked; TritonApiMismatch when it is not there."""
    try:
        module = importlib.import_module(MODULE)
    except ImportError as error:
        raise TritonApiMismatch("cannot import {} ({}): is Triton installed?".format(MODULE, error))
    if not hasattr(module, "Autotuner"):
        raise _mismatch(MODULE + ".Autotuner")
    return require_class(module.Autotuner)


def require_class(cls):
    """`cls` when it has every method in CLASS_METHODS, with _bench taking `config` by keyword."""
    missing = [
        "Autotuner." + name for name in CLASS_METHODS if not callable(getattr(cls, name, None))
    ]
    if missing:
        raise _mismatch(", ".join(missing))
    try:
        config = inspect.signature(cls._bench).parameters.get("config")
    except (TypeError, ValueError):
        config = None
    if config is None or config.kind is not inspect.Parameter.KEYWORD_ONLY:
        raise _mismatch("Autotuner._bench(self, *args, config, **meta)")
    return cls


def require_instance(tuner):
    """`tuner` when it has every field in INSTANCE_FIELDS and a callable fn.run."""
    missing = ["Autotuner." + name for name in INSTANCE_FIELDS if not hasattr(tuner, name)]
    if not missing and not callable(getattr(tuner.fn, "run", None)):
        missing.append("Autotuner.fn.run")
    if not missing and not isinstance(tuner.cache, dict):
        missing.append("Autotuner.cache as a dict")
    if missing:
        raise _mismatch(", ".join(missing))
    return tuner


def tuning_key(tuner, args, kwargs):
    """Triton's key tuple for one call, computed the way Autotuner.run does.

    The recorder checks after each tuning that the tuple is in tuner.cache, so a Triton whose key
    rule changed fails loudly instead of being traced under the wrong keys."""
    named = _named_args(tuner.arg_names, args, kwargs)
    values = [named[name] for name in tuner.keys if name in named]
    values += [str(value.dtype) for value in named.values() if hasattr(value, "dtype")]
    return tuple(values)


class KeyRule:
    """tuning_key for one autotuner, with its names looked up once: what the recorder and the fix
    compute on every call.

    It reads arg_names and keys when it is made (Triton never changes them after __init__). A call
    that passes only positional values of the kernel's arguments (Triton's own `kernel[grid](...)`
    does: grid, warmup and the launch options are not argument names) is keyed from positions
    worked out here; any other call goes through tuning_key, so the key is always the same tuple."""

    __slots__ = ("tuner", "tunes", "_names", "_count", "_positions", "_simple")

    def __init__(self, tuner):
        self.tuner = tuner
        self.tunes = len(tuner.configs) > 1  # Triton neither keys nor tunes the others
        self._names = frozenset(tuner.arg_names)
        self._count = len(tuner.arg_names)
        # The key's names that are arguments, as positions, in the order of tuner.keys.
        self._positions = tuple(
            list(tuner.arg_names).index(k) for k in tuner.keys if k in self._names
        )
        self._simple = len(self._names) == self._count  # no name twice (zip would keep the last)

    def key(self, args, kwargs):
        if not self._simple or (kwargs and not self._names.isdisjoint(kwargs)):
            return tuning_key(self.tuner, args, kwargs)
        count = len(args)
        values = [args[i] for i in self._positions if i < count]
        for value in args if count <= self._count else args[: self._count]:
            if hasattr(value, "dtype"):
                values.append(str(value.dtype))
        return tuple(values)


def key_text(tuner, args, kwargs):
    """The same key with names, for the trace: `n=4096,x.dtype=torch.float32`."""
    named = _named_args(tuner.arg_names, args, kwargs)
    parts = ["{}={}".format(name, named[name]) for name in tuner.keys if name in named]
    parts += [
        "{}.dtype={}".format(name, value.dtype)
        for name, value in named.items()
        if hasattr(value, "dtype")
    ]
    return ",".join(parts)


def _named_args(arg_names, args, kwargs):
    """{**dict(zip(arg_names, args)), **kwargs} restricted to arg_names, in Triton's order."""
    named = dict(zip(arg_names, args))
    for name, value in kwargs.items():
        if name in arg_names:
            named[name] = value
    return named
