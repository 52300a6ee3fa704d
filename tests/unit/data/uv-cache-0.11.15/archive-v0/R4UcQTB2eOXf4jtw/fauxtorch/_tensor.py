"""Flat float tensors with two kernel sets: eager (op-by-op dispatch) and compiled (fused).

Both kernel sets do the same float operations in the same order, so a compiled and an eager run
of one function give bit-identical results; only the speed differs (eager ~5x slower, like an
unfused eager path with per-op dispatcher overhead).
"""
from __future__ import annotations

import threading

_mode = threading.local()


def _compiled_mode() -> bool:
    return getattr(_mode, "compiled", False)


def _record(op: str, n: int) -> None:
    trace = getattr(_mode, "trace", None)
    if trace is not None:
        trace.append([op, n])


# --- eager path: every element goes through the dispatcher, which re-checks its operands ----
def _check(v):
    if type(v) is not float:
        raise TypeError(f"fauxtorch: expected float, got {type(v).__name__}")
    return v


_EAGER_OPS = {
    "add": lambda a, b: _check(a) + _check(b),
    "sub": lambda a, b: _check(a) - _check(b),
    "mul": lambda a, b: _check(a) * _check(b),
    "relu": lambda a, b: _check(a) if a > 0.0 else 0.0,
    "gtz": lambda a, b: 1.0 if _check(a) > 0.0 else 0.0,
    "scale": lambda a, b: _check(a) * b,
}


def _dispatch(op, a, b):
    # One element through the dispatcher: look the kernel up, check operands and result.
    fn = _EAGER_OPS[op]
    return _check(fn(_check(a), b if type(b) is float else float(b)))


def _eager_binary(op, xs, ys):
    out = []
    for i in range(len(xs)):
        out.append(_dispatch(op, xs[i], ys[i]))
    return out


def _eager_unary(op, xs, k=0.0):
    out = []
    for i in range(len(xs)):
        out.append(_dispatch(op, xs[i], k))
    return out


class Tensor:
    """A 1-D float tensor (list-backed)."""

    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data if type(data) is list else [float(v) for v in data]

    def __len__(self):
        return len(self.data)

    def _bin(self, other, op, fast):
        _record(op, len(self.data))
        if _compiled_mode():
            return Tensor(fast(self.data, other.data))
        return Tensor(_eager_binary(op, self.data, other.data))

    def __add__(self, other):
        return self._bin(other, "add", lambda x, y: [a + b for a, b in zip(x, y)])

    def __sub__(self, other):
        return self._bin(other, "sub", lambda x, y: [a - b for a, b in zip(x, y)])

    def __mul__(self, other):
        if not isinstance(other, Tensor):
            return scale(self, float(other))
        return self._bin(other, "mul", lambda x, y: [a * b for a, b in zip(x, y)])

    def tolist(self):
        return list(self.data)


def tensor(values) -> Tensor:
    """Returns a Tensor holding values as floats."""
    return Tensor([float(v) for v in values])


def relu(x: Tensor) -> Tensor:
    _record("relu", len(x.data))
    if _compiled_mode():
        return Tensor([a if a > 0.0 else 0.0 for a in x.data])
    return Tensor(_eager_unary("relu", x.data))


def gtz(x: Tensor) -> Tensor:
    """Returns the mask 1.0 where x > 0 else 0.0."""
    _record("gtz", len(x.data))
    if _compiled_mode():
        return Tensor([1.0 if a > 0.0 else 0.0 for a in x.data])
    return Tensor(_eager_unary("gtz", x.data))


def scale(x: Tensor, k: float) -> Tensor:
    _record("scale", len(x.data))
    if _compiled_mode():
        return Tensor([a * k for a in x.data])
    return Tensor(_eager_unary("scale", x.data, k))


def tile(x: Tensor, times: int) -> Tensor:
    _record("tile", len(x.data) * times)
    return Tensor(x.data * times)


def total(x: Tensor) -> float:
    """Returns the sum of all elements, accumulated left to right."""
    _record("sum", len(x.data))
    acc = 0.0
    if _compiled_mode():
        for a in x.data:
            acc += a
        return acc
    for i in range(len(x.data)):
        acc = _check(acc + _check(x.data[i]))
    return acc


def fold(x: Tensor, width: int) -> Tensor:
    """Returns the column sums of x viewed as rows of `width` (accumulated row by row)."""
    _record("fold", len(x.data))
    data = x.data
    out = [0.0] * width
    if _compiled_mode():
        for r in range(0, len(data), width):
            row = data[r:r + width]
            out = [o + v for o, v in zip(out, row)]
        return Tensor(out)
    for i in range(len(data)):
        out[i % width] = _check(out[i % width] + _check(data[i]))
    return Tensor(out)
