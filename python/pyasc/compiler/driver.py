"""The compile pipeline: kernel function + argument signature -> IR -> passes -> assembly.

Users: runtime.jit (launch and the cache), the CLI.  `compile_kernel` is pure: the same source,
options and signature give the same assembly text (so the disk cache can key on them).
PYASC_DUMP_PATH=dir writes <kernel>.ir (after the frontend), <kernel>.lowered.ir and <kernel>.s.
"""
from __future__ import annotations

import os
from . import abi, codegen, ir, isa, passes, targets
from . import events as _events
from .builder import Builder, GmPtr, RVal
from .errors import CompileError, NeedUnroll
from .frontend import Frontend
from .compiled import ArgSpec, Compiled, debug, dump  # noqa: F401  (driver.ArgSpec, ... as before)


def _hand_synced(func) -> bool:
    """Whether the kernel orders its pipes itself anywhere (set_flag/wait_flag/bar)."""
    return any(op.name in ("set_flag", "wait_flag", "bar") for op in ir.walk(func.body))


# KernelType (language/enums.py, real pyasc's values) -> (kind, AIVs per AIC used): the AIC-only and
# AIV-only types and their MIX_*_1_0 aliases are one-program kernels; MIX_AIC_1_1 runs one AIV per
# AIC (the second AIV of each AI core ends at once), MIX_AIC_1_2 and the HARD_SYNC types use both.
_KERNEL_TYPES = {0: ("aiv", 0), 1: ("aic", 0), 2: ("mix", 2), 3: ("mix", 2), 4: ("aiv", 0), 5: ("aic", 0),
                 6: ("mix", 1), 7: ("mix", 2)}


class _Front:
    """One run of the frontend over the kernel for one core kind ("aic" or "aiv")."""

    def __init__(self, fn, specs, options, target, tname, kind, where=None):
        fe_file = getattr(fn, "__code__", None) and fn.__code__.co_filename
        func = ir.Function(fn.__name__, fe_file or "?", [], ir.Block(), target=tname, options=options)
        func.kernel_kind = kind
        b = Builder(func, target)      # this compilation's builder, passed explicitly from here on
        if where is not None:
            where.insert(0, b)         # the latest run's builder: its .loc is the line being compiled
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
                               f"(x{abi.FIRST_ARG_REG}..x{abi.FIRST_ARG_REG + abi.ARG_REGS - 1}), "
                               f"{fn.__name__} has {reg}", parsed.loc(parsed.node))
        try:
            fe.run_kernel(fn, env)
        except NeedUnroll as e:
            raise CompileError(e.msg, e.loc) from None
        b.loc = None
        for h in b.at_end:
            h(b)
        for q in b.queues:
            q.drain(b)
        self.func, self.b, self.fe, self.parsed = func, b, fe, parsed


def _lower(front, target, options, mix=False):
    func = front.func
    ir_text = ir.dump(func)
    passes.const_fold(func)
    passes.alloc_events(func, target)
    passes.place_buffers(func, target, options.get("opt_level", 3) >= 1)
    if options.get("insert_sync") or any(getattr(r, "auto", False) for r in func.buffers):
        passes.insert_sync(func, target)
    elif not func.buffers and not getattr(front.b, "uses_cube", False) and not _hand_synced(func):
        # no flags from the compiler, no TQue/TBuf (whose own flags the analysis does not credit)
        # and no hand-written flags or barriers (the analysis does not credit a flag set in the
        # previous iteration of a loop, so a double-buffered kernel would get false warnings; the
        # run-time racecheck covers those): name the pipe races an unsynchronised kernel leaves open
        from .passes.sync_check import unordered_accesses
        func.sync_warnings = list(getattr(func, "sync_warnings", [])) + unordered_accesses(func, target)
    if options.get("opt_level", 3) == 0 and not mix:
        passes.serialise(func)
    if options["opt_level"] >= 3 and options.get("unroll") is not False:
        front.b.unrolled = passes.unroll(func)
    passes.lower(func, options.get("opt_level", 3) >= 1)
    if options.get("opt_level", 3) >= 1:
        passes.dce(func)
    return ir_text, ir.dump(func)


def compile_kernel(fn, specs: list, options: dict | None = None) -> Compiled:
    """Every problem is a CompileError at the kernel's line: an exception the compiler did not
    expect becomes an 'internal compiler error' at the line being compiled (PYASC_DEBUG=1 lets
    it through with its traceback)."""
    where = []
    try:
        try:
            c = _compile(fn, specs, options, where)
        except CompileError:
            if not any(getattr(b, "promoted_queues", 0) for b in where):
                raise
            # -O2's second TQue buffers (compiler/dbuf.py) did not fit: the kernel as written
            options = dict(options or {}, double_buffer=False)
            where = []
            c = _compile(fn, specs, options, where)
        if any(getattr(b, "unrolled", 0) for b in where) and any(k == "stack" for _, k, _ in c.args):
            # -O3's unrolled loops need more registers than there are (codegen spills to GM):
            # the loops as they were (passes/unroll.py)
            where = []
            c = _compile(fn, specs, dict(options or {}, unroll=False), where)
        return c
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
    options.setdefault("opt_level", 2)    # the default level (runtime/config.py)
    tname = options.get("target") or targets.DEFAULT_TARGET
    try:
        target = targets.load(tname)
    except ValueError as e:
        raise CompileError(str(e)) from None
    kt = options.get("kernel_type")
    if options.get("matmul_cube_only") and kt is None:
        kt = 1                      # real pyasc's jit option: an AIC-only kernel
    kind, ratio = _KERNEL_TYPES.get(int(kt), ("mix", 2)) if kt is not None else (None, 0)
    front = None
    if kind == "mix" or kind is None:
        front = _Front(fn, specs, options, target, tname, "aiv", where)
        if kind is None:
            # no kernel_type: what the kernel uses decides; a kernel that asks for its core kind
            # (asc.ascend_is_aic/aiv) is also compiled for the AIC to see what that side does
            cube_side = front
            if getattr(front.b, "asks_core_kind", False):
                cube_side = _Front(fn, specs, options, target, tname, "aic", where)
            if getattr(front.b, "needs_mix", False) or front.b.uses_cube and front.b.uses_vector or (cube_side is not front and cube_side.b.uses_cube
                                                             and front.b.uses_vector):
                kind, ratio = "mix", 2
            elif cube_side.b.uses_cube:
                kind = "aic"
                front = cube_side
                front.func.kernel_kind = "aic"   # (the frontend asked nothing that depends on it)
            else:
                kind = "aiv"
        if kind == "mix":
            return _compile_mix(fn, specs, options, target, tname, ratio, front, where)
    if front is None or front.func.kernel_kind != kind:
        front = _Front(fn, specs, options, target, tname, kind, where)
    _check_core_kind(front.func, kind, None)
    ir_text, lowered = _lower(front, target, options)
    asm = codegen.emit_asm(front.func)
    func = front.func
    return Compiled(func.name, asm, ir_text, lowered, func.kernel_kind, tname,
                    [(a.name, a.kind, a.dtype) for a in func.args], front.fe.deps(),
                    list(getattr(func, "sync_warnings", [])))


def _check_core_kind(func, kind, mix):
    """Every instruction must exist on the core its program runs on (the ISA table's aic/aiv
    columns): name the first one that does not, at its Python line.  A coupled profile's core
    (teach, ascend910) has the cube and the vector unit both: every instruction exists there
    (the simulator's legality check still applies per profile)."""
    split = targets.load(func.target)["split"]
    for op in ir.walk(func.body):
        if op.name in ("set_flag", "wait_flag") or op.name == "bar" and op.attrs.get("hard_event"):
            _check_flag(func, op, kind if split else "coupled", mix)
        if not split:
            continue
        mn = op.attrs.get("mnem") if isinstance(op.attrs, dict) else None
        if not isinstance(mn, str) or not isa.has(mn) or isa.mnemonics()[mn][kind]:
            continue
        core = {"aic": "cube core (AIC)", "aiv": "vector core (AIV)"}[kind]
        other = {"aic": "ascend_is_aiv", "aiv": "ascend_is_aic"}[kind]
        if mix:
            raise CompileError(f"{mn} does not exist on the {core}, and this mix kernel's {kind.upper()} program "
                               f"reaches it: put it under `if asc.{other}():`", op.loc)
        raise CompileError(f"{mn} does not exist on the {core} this {kind.upper()} kernel runs on "
                           f"(mix cube and vector code with kernel_type=asc.KernelType.MIX_AIC_1_2, or "
                           f"leave kernel_type out)", op.loc)


def _check_flag(func, op, kind, mix):
    """A set_flag/wait_flag the kernel wrote must join a pipe pair its core kind has a flag for
    (libasc's table, asc_config_sync_legal in target/config.c), and the pipe barrier that
    HardEvent.V_V becomes needs a vector pipe: name the event at its line instead of letting the
    assembler reject the generated code."""
    if op.name == "bar":
        ev, args = op.attrs["hard_event"], ("bar", op.attrs["pipe"])
    else:
        ev = _events.name_of(op.attrs["src"], op.attrs["dst"])
        args = (op.name, "s", op.attrs["src"], op.attrs["dst"])
    rule = targets.check_sync(func.target, kind, *args)
    if not rule:
        return
    hint = ""
    if kind != "coupled":
        other = {"aic": "aiv", "aiv": "aic"}[kind]
        if not targets.check_sync(func.target, other, *args):
            hint = (f": put it under `if asc.ascend_is_{other}():`" if mix else
                    f" (it exists on {other.upper()} cores: a kernel_type that runs there)")
    name = "set_flag" if op.name == "bar" else op.name
    raise CompileError(f"asc.{name}(HardEvent.{ev}): {rule}{hint}", op.loc)


def _compile_mix(fn, specs, options, target, tname, ratio, aiv, where=None):
    """A mix kernel: the frontend runs once per core kind (asc.ascend_is_aic() is a compile-time
    constant in each), each program is lowered on its own, codegen joins them in one `.kernel
    NAME, mix` with its `.aic` and `.aiv` programs (docs/binary.md)."""
    aic = _Front(fn, specs, options, target, tname, "aic", where)
    if aiv is None:
        aiv = _Front(fn, specs, options, target, tname, "aiv", where)
    # both programs take the same arguments: the system workspace (language/sys_workspace.py) too
    for f1, f2, b2 in ((aic.func, aiv.func, aiv.b), (aiv.func, aic.func, aic.b)):
        ws = next((a for a in f1.args if a.kind == "sysws"), None)
        if ws is not None and not any(a.kind == "sysws" for a in f2.args):
            f2.args.append(ir.Arg(ws.name, ws.kind, ws.dtype, b2.new_value("i64", hint="sysws.")))
    if ratio == 1:
        passes.mix_one_aiv(aiv.func)
    _check_core_kind(aic.func, "aic", True)
    _check_core_kind(aiv.func, "aiv", True)
    t1, l1 = _lower(aic, target, options, True)
    t2, l2 = _lower(aiv, target, options, True)
    asm = codegen.emit_asm_mix(aic.func, aiv.func)
    deps = aic.fe.deps()
    for k, v in aiv.fe.deps().items():
        deps[k] = sorted({repr(x): x for x in deps.get(k, []) + v}.values(), key=repr)
    return Compiled(fn.__name__, asm, "; AIC program\n" + t1 + "; AIV program\n" + t2,
                    "; AIC program\n" + l1 + "; AIV program\n" + l2, "mix", tname,
                    [(a.name, a.kind, a.dtype) for a in aic.func.args], deps,
                    list(getattr(aic.func, "sync_warnings", [])) + list(getattr(aiv.func, "sync_warnings", [])),
                    ratio)
