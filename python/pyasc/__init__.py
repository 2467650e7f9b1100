"""pyasc: Python kernels for the asc Ascend AI Core simulator, with real pyasc's API.

Users: kernel authors (`import asc` or `import pyasc`), the `pyasc` CLI, tests.
Layout: language/ (the asc.* kernel API), compiler/ (AST -> IR -> passes -> assembly),
runtime/ (jit, launch, cache, config), lib/runtime (streams), _libasc (ctypes over libasc.so).
Needs only the standard library and numpy; torch tensors are accepted when torch is installed.
"""
from .language.api import *  # noqa: F401,F403
from .language.api import range, static_range, property  # noqa: F401,A004
from .language import dtype as _dtype
from .runtime.jit import jit, JITFunction, LaunchResult  # noqa: F401
from .compiler.errors import CompileError, KernelFault, LaunchError  # noqa: F401
from .runtime.launch import KernelRace  # noqa: F401
from . import runtime, lib, adv  # noqa: F401
from .lib import runtime as _rt  # noqa: F401  (so asc.lib.runtime is importable as an attribute)

__version__ = "0.1.0"

# the host runtime (pyasc/host/, docs/pyasc.md "Host runtime"): tensors, eager operators, ...
from . import host as _host  # noqa: E402
from .host import (AscendError, AscendTensor, empty, from_numpy, full, ones, randn, zeros,  # noqa: E402,F401
                   memory_allocator, register_op, utils, profiler)
from .host import ops, streams as stream  # noqa: E402,F401
from .host import fuse, distributed, autocast  # noqa: E402,F401
_host.export(globals())

# per-element (SIMT-style) kernels: pyasc.jit also takes them (pyasc/simt.py, docs/pyasc.md
# "Per-element (SIMT) kernels"); the style's names exist for them (calling one outside is an error)
from .simt import jit, SimtKernel, MARKERS as _SIMT_MARKERS  # noqa: E402,F401,F811
globals().update({_k: _v for _k, _v in _SIMT_MARKERS.items() if _k not in globals()})
# numpy scripts -> asc bundles (pyasc/script/, docs/pyasc.md "numpy scripts"): asc's format, not Huawei's OM
from .script import load_bundle, save_as_om  # noqa: E402,F401
