"""fauxtorch: a CPU stand-in for torch + torch.compile in the dflash-cu130 fixture. It is NOT torch.

Each wheel build carries a generated _build.py (VERSION, CUDA, THREAD_SAFE_TRACING); the +cu130
builds have the unsynchronised FX-tracing flag described in _compile.py.
"""
from ._build import CUDA, THREAD_SAFE_TRACING, VERSION
from ._compile import FX_ERROR, CompiledFunction, cache_dir, compile, is_fx_tracing
from ._tensor import Tensor, fold, gtz, relu, scale, tensor, tile, total

__version__ = VERSION


class version:  # mirrors torch.version.cuda
    cuda = CUDA


__all__ = ["CUDA", "FX_ERROR", "THREAD_SAFE_TRACING", "CompiledFunction", "Tensor", "cache_dir",
           "compile", "fold", "gtz", "is_fx_tracing", "relu", "scale", "tensor", "tile", "total",
           "version", "__version__"]
