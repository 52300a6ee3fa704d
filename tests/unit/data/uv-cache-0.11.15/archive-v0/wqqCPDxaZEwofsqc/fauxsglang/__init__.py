"""fauxsglang: a CPU stand-in for the SGLang serving framework in the dflash-cu130 fixture. It is NOT SGLang.

Installing it is what pulled fauxtorch 2.11.0+cu130 in the incident: it requires
`fauxtorch==2.11.0`, which PEP 440 satisfies with either local build (+cu128 or +cu130).
Importing it has no effect on the benchmark.
"""
import fauxtorch

from ._version import VERSION

__version__ = VERSION
TORCH_BUILD = fauxtorch.__version__


def serve(*_args, **_kwargs):
    """Does nothing: the fixture never serves."""
    return None
