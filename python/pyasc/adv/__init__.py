"""asc.adv: real pyasc's advanced API (python/asc/language/adv in hicann/pyasc), one submodule
per area: matmul.py (Matmul and its configuration), the others added beside it."""
from .matmul import *  # noqa: F401,F403
from .matmul import __all__ as _mm_all
from ..language.adv_tiling import TCubeTiling  # noqa: F401

__all__ = list(_mm_all) + ["TCubeTiling"]

import importlib as _il
for _m in ("math", "activation", "sort", "quantization", "normalization"):
    try:
        _mod = _il.import_module(f".{_m}", __name__)
    except ModuleNotFoundError as _e:
        if _e.name != f"{__name__}.{_m}":
            raise
        continue
    for _n in getattr(_mod, "__all__", ()):
        globals()[_n] = getattr(_mod, _n)
        __all__.append(_n)
