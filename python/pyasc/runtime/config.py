"""asc.runtime.config: backends and platforms (real pyasc's module of the same name).

Users: host code (`config.set_platform(config.Backend.Model)`), runtime.jit.  Our simulator is
the backend that Backend.Model selects (real pyasc: Huawei's CAModel); Backend.Sim is an alias.
Backend.NPU is accepted by name but cannot run here: launching on it raises, unless the
environment variable ASC_BACKEND=model says to run Backend.NPU launches on the simulator (so test
suites written for a card run unchanged).
"""
import os
from enum import Enum

from ..language.enums import KernelType  # noqa: F401  (real pyasc exposes it here)


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"
    Sim = "Model"   # alias of Model: the asc simulator


class Platform(Enum):
    """Real pyasc's SoC list (same names and values); all map to our ascend910b profile."""
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


# SoC -> our target profile
_PLATFORM_TARGET = dict({p.value: "ascend910b" for p in Platform}, Ascend910="ascend910")

_state = {"backend": Backend.Model, "platform": "Ascend910B1", "target": "ascend910b", "opt_level": 2}


def set_platform(backend=Backend.Model, soc_version=None, device_id=None, check=True):
    """Select the backend and SoC (real pyasc's signature).  `soc_version` may be a Platform, a
    SoC name or one of our target profile names (ascend910b, ascend910, teach); None keeps the
    current one.  `device_id` is accepted and ignored (one simulated device); `check` too (the
    simulator is always available once libasc.so is built)."""
    backend = Backend(backend.value if isinstance(backend, Backend) else backend)
    _state["backend"] = backend
    if soc_version is not None:
        name = soc_version.value if isinstance(soc_version, Platform) else str(soc_version)
        _state["platform"] = name
        _state["target"] = _PLATFORM_TARGET.get(name, name)


def get_backend() -> Backend:
    return _state["backend"]


def get_target() -> str:
    return _state["target"]


def npu_on_model() -> bool:
    """ASC_BACKEND=model (case-insensitive; also sim): Backend.NPU launches run on the simulator."""
    return os.environ.get("ASC_BACKEND", "").strip().lower() in ("model", "sim")


def get_opt_level() -> int:
    """The optimisation level of kernels whose @asc.jit gives none (2 unless opt_level() is active;
    -O3 adds a simulator search at a kernel's first launch, so it is asked for: docs/pyasc.md)."""
    return _state.get("opt_level", 2)


class opt_level:
    """`with config.opt_level(0): kernel[n](...)`: kernels without their own opt_level option
    compile at this level inside the block (the numpy-script runner and bench use it)."""

    def __init__(self, level):
        if level not in (0, 1, 2, 3):
            raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {level!r}")
        self.level = level

    def __enter__(self):
        self.old = _state.get("opt_level", 2)
        _state["opt_level"] = self.level
        return self

    def __exit__(self, *exc):
        _state["opt_level"] = self.old
        return False
