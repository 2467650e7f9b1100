"""The compile pipeline: kernel function + argument signature -> IR -> passes -> assembly.

Users: runtime.jit (launch and the cache), the CLI.  `compile_kernel` is pure: the same source,
options and signature give the same assembly text (so the disk cache can key on them).
PYASC_DUMP_PATH=dir writes <kernel>.ir (after the frontend), <kernel>.lowered.ir and <kernel>.s.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from . import abi, codegen, ir, passes, targets
from .builder import Builder, GmPtr, RVal
from .errors import CompileError, NeedUnroll
from .frontend import Frontend


@dataclass
class ArgSpec:
    name: str
    kind: str            # gm, int, float, const
    dtype: object = None  # DataType for gm
    value: object = None  # the value, for const


@dataclass
class Compiled:
    name: str
    asm: str
    ir_text: str
    lowered_text: str
    kernel_kind: str
    target: str
    args: list
    deps: dict = None    # Frontend.deps(): files and module constants a cache hit must re-check


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


def compile_kernel(fn, specs: list, options: dict | None = None) -> Compiled:
    """Every problem is a CompileError at the kernel's line: an exception the compiler did not
    expect becomes an 'internal compiler error' at the line being compiled (PYASC_DEBUG=1 lets
    it through with its traceback)."""
    where = []
    try:
        return _compile(fn, specs, options, where)
    except (CompileError, KeyboardInterrupt, MemoryError):
        raise
    except Exception as e:
        if debug():
            raise
        loc = where[0].loc if where and where[0].loc is not None else None
        raise CompileError(f"internal compiler error: {type(e).__name__}: {e} "
                           f"(PYASC_DEBUG=1 shows the compiler's traceback)", loc) from None


def _compile(fn, specs: list, options: dict | None, where: list) -> Compiled:
    options = dict(options or {})
    tname = options.get("target") or targets.DEFAULT_TARGET
    try:
        target = targets.load(tname)
    except ValueError as e:
        raise CompileError(str(e)) from None
    fe_file = getattr(fn, "__code__", None) and fn.__code__.co_filename
    func = ir.Function(fn.__name__, fe_file or "?", [], ir.Block(), target=tname, options=options)
    b = Builder(func, target)      # this compilation's builder, passed explicitly from here on
    where.append(b)
    env = {}
    fe = Frontend(b)
    parsed = fe.parsed(fn)
    func.file = parsed.file
    reg = 0
    for s in specs:
        if s.kind == "const":
            env[s.name] = s.value
            continue
        v = b.new_value("f32" if s.kind == "float" else "i64", hint=s.name + ".")
        func.args.append(ir.Arg(s.name, s.kind, s.dtype, v))
        reg += 1
        env[s.name] = GmPtr(RVal(b, v), s.dtype, s.name) if s.kind == "gm" else RVal(b, v)
    if reg > abi.ARG_REGS:
        raise CompileError(f"a kernel takes at most {abi.ARG_REGS} run-time arguments "
                           f"(x{abi.FIRST_ARG_REG}..x{abi.FIRST_ARG_REG + abi.ARG_REGS - 1}), {fn.__name__} has {reg}",
                           parsed.loc(parsed.node))
    kt = options.get("kernel_type")
    if kt is not None:
        func.kernel_kind = {0: "aiv", 1: "aic"}.get(int(kt), "mix")
    try:
        fe.run_kernel(fn, env)
    except NeedUnroll as e:
        raise CompileError(e.msg, e.loc) from None
    b.loc = None
    for q in b.queues:
        q.drain(b)
    if kt is None:
        if b.uses_cube and b.uses_vector:
            raise CompileError("kernels using both cube (mmad/load_data/fixpipe) and vector ops are mix "
                               "kernels, which are not supported yet: split them into an AIC and an AIV kernel",
                               parsed.loc(parsed.node))
        func.kernel_kind = "aic" if b.uses_cube else "aiv"
    ir_text = ir.dump(func)
    passes.const_fold(func)
    passes.alloc_events(func, target)
    passes.place_buffers(func, target, options.get("opt_level", 3) >= 1)
    if options.get("insert_sync") or any(getattr(r, "auto", False) for r in func.buffers):
        passes.insert_sync(func, target)
    passes.lower(func)
    if options.get("opt_level", 3) >= 1:
        passes.dce(func)
    lowered = ir.dump(func)
    asm = codegen.emit_asm(func)
    return Compiled(func.name, asm, ir_text, lowered, func.kernel_kind, tname,
                    [(a.name, a.kind, a.dtype) for a in func.args], fe.deps())
