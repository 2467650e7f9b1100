"""What a launch needs of the compiler when the kernel is already compiled (a cache hit):
the argument signature (ArgSpec), the compiled kernel (Compiled), the dependency re-check of a
cached kernel (deps_valid), PYASC_DEBUG and PYASC_DUMP_PATH.

Users: compiler.driver and compiler.frontend (which re-export these names), runtime.jit.  Kept
apart from driver.py so that a launch served from the cache imports none of the compiler
(frontend, passes, codegen, register allocator): bench/README.md "Session 3b".
"""
from __future__ import annotations

import hashlib
import os
import reprlib
import sys


# ArgSpec and Compiled are written out as the classes @dataclasses.dataclass made of them (the
# same __init__, repr, == on the fields of the same class, unhashable), as compiler/ir.py's
# records: the decorator's exec() at import was ~1 ms of every launch (tests/python/test_ir_records.py
# checks them against the dataclass definitions).
class ArgSpec:
    """One kernel parameter of a launch: name, kind (gm, int, float, const), dtype (a DataType,
    for gm), value (for const)."""
    __match_args__ = ("name", "kind", "dtype", "value")
    __hash__ = None

    def __init__(self, name: str, kind: str, dtype: object = None, value: object = None):
        self.name, self.kind, self.dtype, self.value = name, kind, dtype, value

    @reprlib.recursive_repr()
    def __repr__(self):
        return (f"{self.__class__.__qualname__}(name={self.name!r}, kind={self.kind!r}, dtype={self.dtype!r}, "
                f"value={self.value!r})")

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return (self.name, self.kind, self.dtype, self.value) == (other.name, other.kind, other.dtype, other.value)
        return NotImplemented


class Compiled:
    """A compiled kernel: its assembly, IR dumps, kind, target, argument list (name, kind, dtype),
    what a cache hit re-checks, the compiler's warnings."""
    __match_args__ = ("name", "asm", "ir_text", "lowered_text", "kernel_kind", "target", "args", "deps",
                      "warnings", "aivs")
    __hash__ = None

    def __init__(self, name: str, asm: str, ir_text: str, lowered_text: str, kernel_kind: str, target: str,
                 args: list, deps: dict = None, warnings: list = None, aivs: int = 0):
        self.name = name
        self.asm = asm
        self.ir_text = ir_text
        self.lowered_text = lowered_text
        self.kernel_kind = kernel_kind
        self.target = target
        self.args = args
        self.deps = deps            # Frontend.deps(): files and module constants a cache hit must re-check
        self.warnings = warnings    # 'file:line:col: warning: ...' the compiler found (passes/sync_check.py)
        self.aivs = aivs            # a mix kernel's AIVs per AI core (MIX_AIC_1_1: 1, launched with aiv_per_core=1)

    def _fields(self):
        return (self.name, self.asm, self.ir_text, self.lowered_text, self.kernel_kind, self.target, self.args,
                self.deps, self.warnings, self.aivs)

    @reprlib.recursive_repr()
    def __repr__(self):
        return (self.__class__.__qualname__ + "(" +
                ", ".join(f"{n}={v!r}" for n, v in zip(self.__match_args__, self._fields())) + ")")

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._fields() == other._fields()
        return NotImplemented


def dump(c: Compiled) -> None:
    """PYASC_DUMP_PATH=dir: write <kernel>.ir, <kernel>.lowered.ir and <kernel>.s (on every
    compile request, cache hits included, so a dump never silently goes missing)."""
    d = os.environ.get("PYASC_DUMP_PATH")
    if not d:
        return
    os.makedirs(d, exist_ok=True)
    for ext, text in ((".ir", c.ir_text), (".lowered.ir", c.lowered_text), (".s", c.asm)):
        with open(os.path.join(d, c.name + ext), "w", encoding="utf-8") as f:
            f.write(text)


def debug() -> bool:
    """PYASC_DEBUG=1: compile errors keep the compiler's own traceback, and an unexpected
    exception inside the compiler propagates as itself instead of becoming a CompileError."""
    return os.environ.get("PYASC_DEBUG", "") not in ("", "0")


def file_digest(path: str) -> str:
    """sha256 (16 hex digits) of a file's bytes, '' when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError:
        return ""


def deps_valid(deps: dict | None, kernel_globals: dict | None = None) -> bool:
    """True when every file and module constant recorded by Frontend.deps still has its value.
    A module is found in sys.modules, or is the kernel's own (`kernel_globals`: modules loaded
    from a path are often not in sys.modules)."""
    if not deps:
        return True
    for f, h in deps.get("files", ()):
        if file_digest(f) != h:
            return False
    for mod, name, r in deps.get("globals", ()):
        m = sys.modules.get(mod)
        g = vars(m) if m is not None else None
        if g is None and kernel_globals is not None and kernel_globals.get("__name__") == mod:
            g = kernel_globals
        if g is not None and name not in g and m is not None and hasattr(m, name):
            g = {name: getattr(m, name)}   # a name a package loads on first use (PEP 562)
        if g is None or name not in g or repr(g[name]) != r:
            return False
    return True
