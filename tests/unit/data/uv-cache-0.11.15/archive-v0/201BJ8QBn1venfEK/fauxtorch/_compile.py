"""fauxtorch.compile: a compiler with a real on-disk cache, and (in racy builds) the bug.

On the first call of a compiled function the cache directory ($FAUXTORCH_CACHE_DIR) is looked up
by a content hash of (fauxtorch version, function source, argument shapes):
  hit  -> the entry file is read and validated (milliseconds);
  miss -> "compile": pass 1 symbolically traces the function (with the FX-tracing flag set),
          pass 2 lowers and autotunes it (deterministic CPU work), then the entry is written.
A compiled call checks, like a dynamo-optimized function, that no FX symbolic trace is running.

The FX-tracing flag:
  thread-safe builds (+cu128): the flag is thread-local and compiles are serialised by a lock
     (a thread waiting for the lock finds the entry the first one wrote: a cache hit).
  racy builds (+cu130): the flag is ONE process-global bool, saved and restored without any
     lock. Two threads tracing at once interleave `old = flag; flag = True; ...; flag = old`,
     so a thread sees another thread's trace, and the last restore can leave the flag stuck at
     True. The thread that notices raises the FX-tracing RuntimeError (fullgraph=True) or
     breaks the graph: the function's code is skipped process-wide (like dynamo's skip_code), so
     every thread runs it eagerly from then on (~5x slower). Only a cold cache with two or
     more threads compiling at once can trigger it: a warm cache never traces.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import sys
import threading
import time

from . import _tensor
from ._build import THREAD_SAFE_TRACING, VERSION

FX_ERROR = ("Detected that you are using FX to symbolically trace a dynamo-optimized function. "
            "This is not supported at the moment.")

# Compile work, in chunks; the sleeps stand for waiting on the kernel-compile workers and give
# other threads the interpreter (which is what opens the window in racy builds).
_TRACE_CHUNKS = 6
_TUNE_CHUNKS = 10
_CHUNK_ITERS = 12000
_CHUNK_SLEEP_S = 0.004


class _GlobalFlag:
    value = False


_global_flag = _GlobalFlag()
# Code objects that broke the graph: like dynamo's skip_code(), process-wide, so every thread
# running that function falls back to eager once any thread broke it.
_skipped_codes = set()
_local_flag = threading.local()
_compile_lock = threading.Lock()


def is_fx_tracing() -> bool:
    """Returns whether an FX symbolic trace is running (as this build sees it)."""
    if THREAD_SAFE_TRACING:
        return getattr(_local_flag, "value", False)
    return _global_flag.value


def _set_flag(value: bool) -> bool:
    if THREAD_SAFE_TRACING:
        old = getattr(_local_flag, "value", False)
        _local_flag.value = value
        return old
    old = _global_flag.value
    _global_flag.value = value
    return old


class GraphBreak(Exception):
    """Raised inside the compiler when tracing hit a dynamo-optimized function under FX."""


def cache_dir() -> str:
    """Returns $FAUXTORCH_CACHE_DIR (created if missing); raises RuntimeError when unset."""
    path = os.environ.get("FAUXTORCH_CACHE_DIR", "")
    if not path:
        raise RuntimeError("fauxtorch: FAUXTORCH_CACHE_DIR is not set; the compile cache needs a directory")
    os.makedirs(path, exist_ok=True)
    return path


def _busy(seed: int, iters: int) -> int:
    # Deterministic integer work (a cost model evaluation).
    x = seed & 0xFFFFFFFF
    for i in range(iters):
        x = (x * 1103515245 + 12345 + i) & 0x7FFFFFFF
    return x


def _guard(fullgraph: bool) -> None:
    if is_fx_tracing():
        if fullgraph:
            raise RuntimeError(FX_ERROR)
        raise GraphBreak(FX_ERROR)


class CompiledFunction:
    """A function compiled on first call; falls back to eager after a graph break."""

    def __init__(self, fn, fullgraph: bool):
        self._fn = fn
        self._fullgraph = fullgraph
        self._entry = None
        self._eager = False
        self.cache_hit = None
        self.compile_seconds = 0.0
        self.graph_break = None
        self.__name__ = getattr(fn, "__name__", "compiled")

    def _key(self, args) -> str:
        try:
            source = inspect.getsource(self._fn)
        except (OSError, TypeError):
            source = self._fn.__code__.co_code.hex()
        shapes = [len(a) if isinstance(a, _tensor.Tensor) else type(a).__name__ for a in args]
        text = json.dumps([VERSION, self._fn.__module__, self._fn.__qualname__, source, shapes])
        return hashlib.sha256(text.encode()).hexdigest()[:40]

    def _load(self, path: str, key: str):
        try:
            with open(path, encoding="utf-8") as fh:
                entry = json.load(fh)
        except (OSError, ValueError):
            return None
        if entry.get("key") != key or entry.get("version") != VERSION:
            return None
        return entry

    def _compile(self, key: str, args) -> dict:
        # Pass 1: symbolic trace with the FX-tracing flag set.
        old = _set_flag(True)
        try:
            _tensor._mode.trace = []
            _tensor._mode.compiled = True
            try:
                self._fn(*args)
            finally:
                ops = _tensor._mode.trace
                _tensor._mode.trace = None
                _tensor._mode.compiled = False
            state = int(key[:8], 16)
            for _ in range(_TRACE_CHUNKS):
                state = _busy(state, _CHUNK_ITERS)
                time.sleep(_CHUNK_SLEEP_S)
        finally:
            _set_flag(old)
        # Pass 2: lower and autotune; the traced graph calls dynamo-optimized helpers, which
        # check that no FX trace is running.
        best = None
        for chunk in range(_TUNE_CHUNKS):
            _guard(self._fullgraph)
            state = _busy(state + chunk, _CHUNK_ITERS)
            cost = state % 1000
            if best is None or cost < best[0]:
                best = (cost, 16 << (chunk % 4))
            time.sleep(_CHUNK_SLEEP_S)
        _guard(self._fullgraph)
        return {"key": key, "version": VERSION, "function": self._fn.__qualname__,
                "graph": ops, "config": {"block": best[1], "cost": best[0]}}

    def _write(self, path: str, entry: dict) -> None:
        tmp = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(entry, fh, sort_keys=True)
        os.replace(tmp, path)

    def _ensure(self, args) -> None:
        start = time.perf_counter()
        key = self._key(args)
        path = os.path.join(cache_dir(), f"fxgraph-{key}.json")
        try:
            if THREAD_SAFE_TRACING:
                with _compile_lock:
                    self._entry = self._load(path, key)
                    self.cache_hit = self._entry is not None
                    if self._entry is None:
                        self._entry = self._compile(key, args)
                        self._write(path, self._entry)
            else:
                self._entry = self._load(path, key)
                self.cache_hit = self._entry is not None
                if self._entry is None:
                    self._entry = self._compile(key, args)
                    self._write(path, self._entry)
        except GraphBreak as brk:
            self._break(str(brk))
        finally:
            self.compile_seconds = time.perf_counter() - start

    def _break(self, why: str) -> None:
        self._eager = True
        _skipped_codes.add(self._fn.__code__)
        self.graph_break = why
        print(f"fauxtorch: [WARNING] graph break in {self.__name__}: {why} Falling back to eager.",
              file=sys.stderr, flush=True)

    def __call__(self, *args):
        if not self._eager and self._fn.__code__ in _skipped_codes:
            self._eager = True
            self.graph_break = "skipped: another thread broke this graph"
        if self._entry is None and not self._eager:
            self._ensure(args)
        if not self._eager:
            try:
                _guard(self._fullgraph)
            except GraphBreak as brk:
                self._break(str(brk))
        if self._eager:
            return self._fn(*args)
        _tensor._mode.compiled = True
        try:
            return self._fn(*args)
        finally:
            _tensor._mode.compiled = False


def compile(fn=None, *, fullgraph: bool = False):  # noqa: A001 (mirrors torch.compile)
    """Returns fn compiled lazily (usable as @compile or compile(fn, fullgraph=True))."""
    if fn is None:
        return lambda f: CompiledFunction(f, fullgraph)
    return CompiledFunction(fn, fullgraph)
