"""asc.runtime.config: backends and platforms (real pyasc's module of the same name).

Users: host code (`config.set_platform(config.Backend.Model)`), runtime.jit.  Our simulator is
the backend that Backend.Model selects (real pyasc: Huawei's CAModel); Backend.Sim is an alias.
Backend.NPU is accepted by name but cannot run here: launching on it raises.
"""
from enum import Enum

from ..language.enums import KernelType  # noqa: F401  (real pyasc exposes it here)


class Backend(Enum):
    Model = "Model"
    NPU = "NPU"
    Sim = "Model"   # alias of Model: the asc simulator


class Platform(Enum):
    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910_9382 = "Ascend910_9382"


# SoC -> our target profile
_PLATFORM_TARGET = {"Ascend910B1": "ascend910b", "Ascend910B2": "ascend910b", "Ascend910B2C": "ascend910b",
                    "Ascend910B3": "ascend910b", "Ascend910B4": "ascend910b", "Ascend910_9382": "ascend910b",
                    "Ascend910": "ascend910"}

_state = {"backend": Backend.Model, "platform": "Ascend910B1", "target": "ascend910b"}


def set_platform(backend=Backend.Model, platform=None, check=True):
    """Select the backend and SoC.  `platform` may be a Platform, a SoC name or one of our target
    profile names (ascend910b, ascend910, teach)."""
    backend = Backend(backend.value if isinstance(backend, Backend) else backend)
    _state["backend"] = backend
    if platform is not None:
        name = platform.value if isinstance(platform, Platform) else str(platform)
        _state["platform"] = name
        _state["target"] = _PLATFORM_TARGET.get(name, name)


def get_backend() -> Backend:
    return _state["backend"]


def get_target() -> str:
    return _state["target"]
