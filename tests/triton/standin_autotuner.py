"""A stand-in for triton.runtime.autotuner (Triton 3.6), for testing the recorder without Triton.

Shaped like Triton's: Config has kwargs, num_warps, num_stages, num_ctas, maxnreg and
all_kwargs(); Autotuner has run, _bench, prune_configs and the fields configs, keys, arg_names,
cache, fn, base_fn. Like Triton's, it passes state between run, _bench and the hooks through the
shared fields nargs and restore_copies, takes no lock, and its _bench turns OutOfResources into
[inf, inf, inf]; so it has Triton's races, which the tests rely on. It is written for the tests,
not copied: it leaves out the listener, printing and the perf model. Its disk cache
(cache_results=True, in the folder cache_dir) has Triton's shape: check_disk_cache(tuning_key,
configs, bench_fn) reads a file named by a hash of the key and the configs, puts the best of its
timings into self.cache and returns True; on a miss it calls bench_fn and writes the file (a
temp file renamed into place, as Triton's cache manager does), with no lock.

StandinKernel plays the JITFunction: run() records each launch (and, with increments=True, adds 1
to the value of its first argument, a Cell, like an in-place kernel). Its do_bench "runs" the
config, sleeps (a stream synchronize, which lets other threads in) and returns [median, p20, p80]
in ms from time_ms(kwargs): a number (p20 and p80 are made from it) or the three values.
"""

import builtins
import hashlib
import inspect
import json
import os
import threading
import time


class OutOfResources(Exception):
    pass


class Cell:
    """A one-value tensor: what the restore_value and reset_to_zero hooks need of a tensor."""

    def __init__(self, value=0):
        self.value = value

    def clone(self):
        return Cell(self.value)

    def copy_(self, other):
        self.value = other.value

    def zero_(self):
        self.value = 0


class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self):
        extra = {
            "num_warps": self.num_warps,
            "num_ctas": self.num_ctas,
            "num_stages": self.num_stages,
            "maxnreg": self.maxnreg,
        }
        return {**self.kwargs, **{k: v for k, v in extra.items() if v is not None}}

    def __repr__(self):
        return "Config({})".format(self.all_kwargs())


class StandinKernel:
    """The JITFunction's part: run() launches (records) one kernel call."""

    def __init__(
        self,
        name="add",
        arg_names=("x", "n"),
        time_ms=None,
        fail=(),
        bench_sleep_s=0.002,
        increments=False,
    ):
        def body():
            pass

        body.__name__ = body.__qualname__ = name
        self.fn = body  # Triton's Autotuner walks .fn down to a Python function for base_fn
        self.arg_names = list(arg_names)
        self.time_ms = time_ms or (lambda kwargs: 1.0 + kwargs.get("BLOCK", 0) / 1000.0)
        self.fail = dict(fail)  # BLOCK value -> exception class its launch raises
        self.bench_sleep_s = bench_sleep_s
        self.increments = increments
        self.launches = []  # (thread ident, kwargs) of every run, benches included
        self._last = threading.local()

    def run(self, *args, grid=None, warmup=False, **kwargs):
        error = self.fail.get(kwargs.get("BLOCK"))
        if error is not None:
            raise error("config BLOCK={} cannot launch".format(kwargs.get("BLOCK")))
        self.launches.append((threading.get_ident(), dict(kwargs)))
        if self.increments:
            args[0].value += 1
        self._last.ms = self.time_ms(kwargs)

    def do_bench(self, kernel_call, quantiles):
        kernel_call()
        time.sleep(self.bench_sleep_s)
        ms = self._last.ms
        return list(ms) if isinstance(ms, (list, tuple)) else [ms, ms * 0.9, ms * 1.1]


class Autotuner:
    def __init__(
        self,
        fn,
        arg_names,
        configs,
        key,
        reset_to_zero=None,
        restore_value=None,
        pre_hook=None,
        prune_configs_by=None,
        do_bench=None,
        cache_results=False,
        cache_dir=None,
    ):
        self.configs = configs or [Config({})]
        self.keys = key
        self.cache = {}
        self.arg_names = arg_names
        self.fn = fn
        self.base_fn = fn
        while not inspect.isfunction(self.base_fn):
            self.base_fn = self.base_fn.fn
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.pre_hook = pre_hook or self._default_pre_hook
        self.post_hook = self._default_post_hook
        self.early_config_prune = (prune_configs_by or {}).get("early_config_prune")
        self.do_bench = do_bench or fn.do_bench
        self.cache_results = cache_results
        self.cache_dir = cache_dir

    def __getitem__(self, grid):  # kernel[grid](*args), as KernelInterface has it
        return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)

    def _default_pre_hook(self, kwargs, reset_only=False):
        for name in self.reset_to_zero:
            kwargs[name].zero_()
        if not reset_only:
            self.restore_copies = {name: kwargs[name].clone() for name in self.restore_value}

    def _default_post_hook(self, kwargs, exception):
        for name, saved in self.restore_copies.items():
            kwargs[name].copy_(saved)
        self.restore_copies = {}

    def _bench(self, *args, config, **meta):
        current = dict(meta, **config.all_kwargs())
        full_nargs = {**self.nargs, **current}  # the shared field another thread may have cleared

        def kernel_call():
            if config.pre_hook:
                config.pre_hook(full_nargs)
            self.pre_hook(full_nargs)
            try:
                self.fn.run(*args, **current)
            except Exception as error:
                self.post_hook(full_nargs, exception=error)
                raise
            self.post_hook(full_nargs, exception=None)

        try:
            return self.do_bench(kernel_call, quantiles=(0.5, 0.2, 0.8))
        except OutOfResources:
            return [float("inf")] * 3

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(self.arg_names, args))
        if len(self.configs) > 1:
            named = {k: v for k, v in {**self.nargs, **kwargs}.items() if k in self.arg_names}
            key = [named[k] for k in self.keys if k in named]
            key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
            key = tuple(key)
            if key not in self.cache:
                pruned = self.prune_configs(kwargs)

                def benchmark():
                    timings = {c: self._bench(*args, config=c, **kwargs) for c in pruned}
                    self.cache[key] = builtins.min(timings, key=timings.get)
                    self.pre_hook(
                        {**self.nargs, **kwargs, **self.cache[key].all_kwargs()}, reset_only=True
                    )
                    self.configs_timings = timings

                if self.cache_results:
                    self.check_disk_cache(key, pruned, benchmark)
                else:
                    benchmark()
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**self.nargs, **kwargs, **config.all_kwargs()})
        result = self.fn.run(*args, **kwargs, **config.all_kwargs())
        self.nargs = None
        return result

    def check_disk_cache(self, tuning_key, configs, bench_fn):
        os.makedirs(self.cache_dir, exist_ok=True)  # as Triton's cache manager makes its folder
        text = "-".join([str(tuning_key)] + [repr(c) for c in configs])
        path = os.path.join(self.cache_dir, hashlib.sha256(text.encode()).hexdigest() + ".json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as cached:
                timings = [(Config(**c), t) for c, t in json.load(cached)["configs_timings"]]
            self.cache[tuning_key] = builtins.min(timings, key=lambda pair: pair[1])[0]
            self.configs_timings = dict(timings)
            return True
        bench_fn()
        temp = "{}.tmp.{}.{}".format(path, os.getpid(), threading.get_ident())
        with open(temp, "w", encoding="utf-8") as out:
            json.dump({"configs_timings": [(c.__dict__, t) for c, t in self.configs_timings.items()]}, out)
        os.replace(temp, path)
        return False

    def prune_configs(self, kwargs):
        if self.early_config_prune:
            return self.early_config_prune(self.configs, self.nargs, **kwargs)
        return self.configs


def autotune(kernel, configs, key, **options):
    """The decorator's job: an Autotuner over `kernel` (a StandinKernel)."""
    return Autotuner(kernel, kernel.arg_names, configs, key, **options)


def block_configs(blocks, num_warps=4):
    return [Config({"BLOCK": b}, num_warps=num_warps) for b in blocks]
