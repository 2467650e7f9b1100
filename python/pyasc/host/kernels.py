"""Where the eager operators find their kernels, and the runtime's own layout kernel.

The kernel library is kernels/pyasc/ of the checkout pyasc runs from (python/pyasc/../../
kernels/pyasc; $PYASC_KERNELS names another directory).  It is not a Python package and stays
runnable as scripts (`/usr/bin/python3 kernels/pyasc/elementwise.py`): `library(name)` imports
kernels/pyasc/<name>.py by path as the submodule `<name>` of a package `pyasc_kernels` whose
search path is that directory, so the library's `from . import _common` works unchanged.
A module or function that does not exist gives KernelNotFound naming it: the runtime never
computes an operator's result on the host.

`gather` (here, not in the library: it is the runtime's data-layout kernel) materialises a
strided view or a broadcast on the device: dst[i] = src[idx[i]], with the index table built on
the host from shapes and strides (layout metadata, not data).  It moves elements one by one with
the scalar unit's GM loads and stores (GlobalTensor.get_value/set_value), byte-exact, so any
layout and any element size of 2 or 4 bytes work; it is slow (two scalar GM accesses per
element) and meant for the broadcasts and strided views eager code makes, not bulk data.
"""
import importlib
import importlib.util
import os
import sys

import numpy as np

from ..language import api as asc     # the kernel API (`import asc` would be circular here)
from ..runtime.jit import jit
from .errors import KernelNotFound

PACKAGE = "pyasc_kernels"


def library_dir():
    env = os.environ.get("PYASC_KERNELS")
    if env:
        return os.path.abspath(env)
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "kernels", "pyasc"))


def _package():
    pkg = sys.modules.get(PACKAGE)
    d = library_dir()
    if pkg is None or list(pkg.__path__) != [d]:
        spec = importlib.util.spec_from_loader(PACKAGE, loader=None, is_package=True)
        pkg = importlib.util.module_from_spec(spec)
        pkg.__path__ = [d]
        sys.modules[PACKAGE] = pkg
        for k in [k for k in sys.modules if k.startswith(PACKAGE + ".")]:
            del sys.modules[k]
    return pkg


def _shown(path):
    """kernels/pyasc/NAME.py for the repository's library, $PYASC_KERNELS/NAME.py for another."""
    return ("$PYASC_KERNELS/" if os.environ.get("PYASC_KERNELS") else "kernels/pyasc/") + os.path.basename(path)


def library(module):
    """kernels/pyasc/<module>.py as a module; KernelNotFound if there is no such file."""
    _package()
    path = os.path.join(library_dir(), module + ".py")
    if not os.path.exists(path):
        raise KernelNotFound(f"the kernel library has no module {module!r} ({_shown(path)} does not exist)")
    return importlib.import_module(f"{PACKAGE}.{module}")


def function(op, module, name):
    """library(module).name, or KernelNotFound naming the operator and the missing kernel."""
    path = os.path.join(library_dir(), module + ".py")
    if not os.path.exists(path):
        raise KernelNotFound(f"pyasc.{op}: no kernel in the kernel library: {_shown(path)} "
                             f"(with {name}) does not exist")
    m = library(module)
    f = getattr(m, name, None)
    if f is None:
        raise KernelNotFound(f"pyasc.{op}: no kernel in the kernel library: {_shown(path)} "
                             f"has no {name}")
    return f


_INT = {2: np.int16, 4: np.int32, 1: np.int8}


@jit
def gather_kernel(src: asc.GlobalAddress, idx: asc.GlobalAddress, dst: asc.GlobalAddress, n: int,
                  per_core: int):
    """dst[i] = src[idx[i]] for i < n; core c does [c*per_core, min(n, (c+1)*per_core))."""
    c = asc.get_block_idx()
    start = c * per_core
    length = min(per_core, n - start)
    sg = asc.GlobalTensor()
    ig = asc.GlobalTensor()
    dg = asc.GlobalTensor()
    sg.set_global_buffer(src)
    ig.set_global_buffer(idx + start)
    dg.set_global_buffer(dst + start)
    for i in range(length):
        dg.set_value(i, sg.get_value(ig.get_value(i)))


GATHER_CORES = 8


def gather(src_buf, itemsize, idx, dst_buf, **launch):
    """Launch gather_kernel: src_buf and dst_buf are uint8 views of device memory, idx the int32
    element indexes (in units of itemsize from src_buf's start).  Returns the LaunchResult."""
    if itemsize not in (2, 4):
        raise KernelNotFound(f"gather (the copy that makes a strided view contiguous): no layout kernel for "
                             f"{itemsize}-byte elements (2 and 4 only): make the view contiguous on the host "
                             f"(pyasc.from_numpy(np.ascontiguousarray(t.numpy())))")
    it = _INT[itemsize]
    n = idx.size
    cores = max(1, min(GATHER_CORES, n // 64 or 1))
    per = -(-n // cores)
    cores = -(-n // per)
    return gather_kernel[cores](src_buf.view(it), idx.astype(np.int32), dst_buf.view(it), n, per, **launch)
