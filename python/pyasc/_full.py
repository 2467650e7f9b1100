"""Every name of pyasc's namespace, in the order pyasc/__init__.py used to import them at start-up:
pyasc/__init__.py copies this module's names into itself on the first name it does not load
alone (`_load_all`), on `dir(pyasc)`, `from pyasc import *` and before any compile."""
from .language.api import *  # noqa: F401,F403
from .language.api import range, static_range, property  # noqa: F401,A004
from .language import dtype as _dtype
from .runtime.jit import jit, JITFunction, LaunchResult  # noqa: F401
from .compiler.errors import CompileError, KernelFault, LaunchError  # noqa: F401
from .runtime.launch import KernelRace  # noqa: F401
from . import runtime, lib, adv  # noqa: F401
from .lib import runtime as _rt  # noqa: F401  (so asc.lib.runtime is importable as an attribute)

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
