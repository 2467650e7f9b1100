"""Launching per-element (SIMT-style) kernels: `@pyasc.jit` on a function that reads
`pyasc.get_global_id()` (or get_local_id, get_row, get_col) gives a SimtKernel.

Users: pyasc/__init__ (`pyasc.jit`, the index functions), kernel authors
(`my_kernel(x, out, n)` runs on every vector core of the current target; `my_kernel[8](...)`
caps the cores), tests.

compiler/simt.py analyses the function (a map, a GEMM or a row softmax, or a CompileError at the
line that cannot be vectorised).  A map is specialised per launch on the array dtypes and the
scalar parameters' kinds: compiler/simt.py writes an asc-language TQue kernel, which is compiled
by the ordinary pipeline (frontend, builder, IR, passes, codegen) as an @asc.jit function and run
on all vector cores; its source is registered in linecache under
`<pyasc-simt MODULE.NAME DIGEST>` (PYASC_DUMP_PATH=dir also writes it as dir/NAME.simt.py).
A GEMM runs on the cube through the kernel library's matmul (kernels/pyasc/matmul.py), a row
softmax through its softmax (kernels/pyasc/softmax.py).
"""
from __future__ import annotations

import hashlib
import inspect
import linecache
import os

import numpy as np

from .compiler import simt_names as _names
from .compiler import targets
from .compiler.errors import CompileError, LaunchError
from .compiler.ir import Loc
from .runtime import config
from .runtime import jit as _jit
from .runtime import tune as _tune


class _Analyser:
    """compiler/simt.py, imported when a SIMT kernel is first analysed (not at `import pyasc`)."""

    def __getattr__(self, name):
        from .compiler import simt
        return getattr(simt, name)


_an = _Analyser()

SIMT_TILE = 4096            # the largest tile (elements); smaller when UB cannot hold the buffers
_TILES = (4096, 2048, 1024, 512, 256, 128, 64, 32, 16)


def _outside(name):
    def f(*args, **kwargs):
        raise LaunchError(f"pyasc.{name}() is part of the per-element kernel style: it has a meaning only "
                          f"inside an @pyasc.jit function, which the compiler turns into tile instructions")
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = f"Per-element kernel style (docs/pyasc.md 'Per-element (SIMT) kernels'): {name}."
    return f


# the names of the style, for `pyasc.get_global_id` etc.; never called when a kernel runs
MARKERS = {n: _outside(n) for n in _names.SIMT_FUNCS}


def jit(fn=None, **options):
    """pyasc.jit: a SimtKernel for a per-element function, else runtime.jit.jit (asc.jit)."""
    if fn is None:
        return lambda f: jit(f, **options)
    if isinstance(fn, (_jit.JITFunction, SimtKernel)):
        return fn
    if _names.is_simt(fn):
        return SimtKernel(fn, **options)
    return HostJIT(fn, **options)


class HostJIT(_jit.JITFunction):
    """pyasc.jit of a function that is not per-element: an asc.jit kernel (`k[cores](...)`) that,
    called directly with AscendTensor arguments, is a host function of eager operators, fused at
    -O2 (host/fusion.py host_call).  The host runtime is imported only at such a call, so
    decorating a kernel stays light (tests/python/test_lazy_import.py)."""

    last_fusion = None

    def __call__(self, *args, **kwargs):
        from .host import fusion
        return fusion.host_call(self, args, kwargs)


def _eval_scalar(e, env):
    if e.op == "c":
        return e.value
    if e.op == "p":
        return env[e.name]
    if e.op == "un":
        a = _eval_scalar(e.args[0], env)
        if e.name == "neg":
            return -a
        raise CompileError(f"pyasc.{e.name} of a scalar: compute it on the host and pass it in", e.loc)
    a, b = (_eval_scalar(x, env) for x in e.args)
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
            "max": lambda: max(a, b), "min": lambda: min(a, b)}[e.name]()


class SimtKernel:
    """A per-element kernel.  `k(*args)` launches on every vector core of the current target
    (config.set_platform); `k[cores](*args)` and `k[cores, stream](*args)` cap the cores.
    Keyword options of a launch: trace, report_dir, check_races, functional, max_cycles."""

    def __init__(self, fn, **options):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.options = options
        self.signature = inspect.signature(fn)
        self._plan = None
        self._kernels = {}
        self.last_result = None
        self.last_source = None         # the generated asc-language kernel of the last map launch
        self.tile = self.cores = None   # the last map launch's tile (elements) and vector cores

    def __repr__(self):
        return f"<pyasc per-element kernel {self.fn.__module__}.{self.fn.__name__}>"

    @_jit._at_user_call
    def plan(self):
        if self._plan is None:
            self._plan = _an.analyse(self.fn)
        return self._plan

    def __call__(self, *args, **kwargs):
        return self._launch(None, args, kwargs)

    def __getitem__(self, grid):
        if isinstance(grid, tuple):
            grid = grid[0]
        if not isinstance(grid, (int, np.integer)) or grid < 1:
            raise LaunchError(f"core_num must be a positive integer, got {grid!r}")
        return lambda *a, **k: self._launch(int(grid), a, k)

    @_jit._at_user_call
    def _launch(self, cores, args, kwargs):
        try:
            return self._launch_(cores, args, kwargs)
        except RecursionError:
            code = self.fn.__code__
            raise CompileError(f"pyasc.jit: {self.fn.__name__}'s expression is too deep for the per-element "
                               f"compiler (Python's recursion limit; a value built from thousands of "
                               f"operations in a chain): combine partial results in fewer levels, or write an "
                               f"@asc.jit kernel", Loc(code.co_filename, code.co_firstlineno, 1)) from None

    def _launch_(self, cores, args, kwargs):
        launch = {k: kwargs.pop(k) for k in ("trace", "report_dir", "check_races", "functional", "max_cycles",
                                             "sanitize") if k in kwargs}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise LaunchError(f"{self.fn.__name__}(): {e}") from None
        bound.apply_defaults()
        vals = dict(bound.arguments)
        plan = self.plan()
        tname = self.options.get("target") or config.get_target()
        if plan.kind == "map":
            return self._map(plan, vals, cores, tname, launch)
        return self._library(plan, vals, cores, tname, launch)

    # ---- element-wise -----------------------------------------------------------------------
    def _map(self, plan, vals, cores, tname, launch):
        arrays, scalars = {}, {}
        for n, v in vals.items():
            if isinstance(v, np.ndarray):
                arrays[n] = v
            elif isinstance(v, (bool, int, float, np.integer, np.floating)):
                scalars[n] = v.item() if hasattr(v, "item") else v
        outs = []
        for st in plan.stores:
            if not isinstance(vals.get(st.array), np.ndarray):
                raise LaunchError(f"argument '{st.array}' is stored to and needs a numpy array")
            if st.array not in outs:
                outs.append(st.array)
        first = arrays[outs[0]]
        for i in range(first.ndim):
            scalars[f"@dim{i}"] = first.shape[i]
        for n, a in arrays.items():
            scalars[f"@len:{n}"] = len(a)
        needed = []

        def walk(e):
            if e.op == "ld":
                if not isinstance(vals.get(e.name), np.ndarray):
                    raise LaunchError(f"argument '{e.name}' is read as an array (x[idx]) and needs a numpy array")
                needed.append(e.name)
            if e.op == "p" and e.name not in scalars:
                raise LaunchError(f"argument '{e.name}' is used as a scalar and needs an int or a float")
            for a in e.args:
                walk(a)
        for st in plan.stores:
            walk(st.expr)
        if plan.bound is not None:
            walk(plan.bound)
            n = _eval_scalar(plan.bound, scalars)
            if not isinstance(n, (int, np.integer)) and not float(n).is_integer():
                raise LaunchError(f"the guard's bound is {n!r}: it must be an integer")
            n = max(0, int(np.ceil(n)))
        else:
            n = min(arrays[o].size for o in outs) // plan.width
        elems = n * plan.width
        for name in set(needed) | set(outs):
            a = arrays[name]
            if a.size < elems:
                raise LaunchError(f"argument '{name}' has {a.size} elements; the launch covers {elems} "
                                  f"(size {n}{f' x {plan.width} per vector' if plan.width > 1 else ''})")
        for o in outs:
            if not arrays[o].flags.c_contiguous:
                raise LaunchError(f"argument '{o}' is written in place and must be C-contiguous")
        if elems == 0:
            self.last_result = None
            return None
        dtypes = {k: a.dtype for k, a in arrays.items()}
        types = _an.type_nodes(plan, dtypes, scalars)
        tgt = targets.load(tname)
        mc = tgt["ai_cores"] * (tgt["aiv_per_core"] if tgt["split"] else 1)
        ncores = min(cores or mc, mc)
        kname = self.fn.__name__
        budget = tgt["ub_bytes"] - tgt["ub_reserved_bytes"]
        cap = SIMT_TILE if not plan.shared_elems else max(16, plan.shared_elems // 16 * 16)
        fits = []
        need = ntmp = 0
        for t in _TILES:
            if t > cap:
                continue
            src, sargs, ins, outs2, ntmp = _an.map_source(plan, dtypes, types, t, kname)
            need = sum(2 * t * dtypes[a].itemsize + 32 for a in ins + outs2) + ntmp * (t * 4 + 32)
            if need <= budget:
                fits.append((t, src, sargs, ins, outs2))
        if not fits:
            raise CompileError(f"this per-element kernel needs more UB than the target has even with "
                               f"16-element tiles: {ntmp} temporary tiles and its arrays' queues take {need} "
                               f"bytes, {tname} has {budget}; compute fewer values per element in one "
                               f"kernel (split it)", plan.loc)
        per = -(-elems // ncores)
        per = -(-per // 16) * 16

        def kernel_of(src):
            key = (src, tname)
            jf = self._kernels.get(key)
            if jf is None:
                digest = hashlib.sha256(src.encode()).hexdigest()[:12]
                fname = f"<pyasc-simt {self.fn.__module__}.{kname} {digest}>"
                text = "import pyasc as asc\n\n\n@asc.runtime.jit.jit\n" + src
                linecache.cache[fname] = (len(text), None, text.splitlines(True), fname)
                ns = {"__name__": f"pyasc_simt_{kname}"}
                exec(compile(text, fname, "exec"), ns)   # noqa: S102  (our own generated kernel source)
                jf = ns[kname]
                jf.options.update({k: v for k, v in self.options.items() if k in ("target", "opt_level", "debug")})
                jf.options.setdefault("target", tname)
                self._kernels[key] = jf
            return jf

        def argv_of(sargs, ins, outs2, copy_outs):
            argv = [np.ascontiguousarray(arrays[a]).reshape(-1) for a in ins]
            argv += [(arrays[a].reshape(-1).copy() if copy_outs else arrays[a].reshape(-1)) for a in outs2]
            argv += [elems, per]
            for _, e, dt in sargs:
                v = _eval_scalar(e, scalars)
                argv.append(float(v) if dt.kind == "f" else int(v))
            return argv

        choice = fits[0]                 # the largest tile that fits
        level = self.options.get("opt_level", config.get_opt_level())
        if level >= 3 and len(fits) > 1:
            # -O3's tiling search (docs/pyasc.md "Optimisation levels"): every tile that fits, down
            # to 256 elements, runs once on copies of the outputs; the fewest cycles win (ties: the
            # larger tile), and every candidate must give the same bytes
            memo = self.__dict__.setdefault("_tuned", {})
            mkey = (fits[0][1], tname, elems, ncores)
            if mkey not in memo:
                cyc, ref = {}, None
                for cand in [f for f in fits if f[0] >= 256] or fits[:1]:
                    argv = argv_of(cand[2], cand[3], cand[4], True)
                    with _tune.trial_runs():
                        r = kernel_of(cand[1])[ncores](*argv)
                    got = [a.tobytes() for a in argv[len(cand[3]):len(cand[3]) + len(cand[4])]]
                    if ref is not None and got != ref:
                        raise LaunchError(f"internal: the per-element kernel gives other numbers with {cand[0]}-element "
                                          f"tiles than with {fits[0][0]}")
                    ref = got
                    cyc[cand[0]] = r.cycles
                best = min(cyc.values())
                memo[mkey] = (next(t for t, *_ in fits if cyc.get(t) == best), cyc)
            pick, cyc = memo[mkey]
            self.last_tuning = {"tile": {"chosen": pick, "cycles": cyc}}
            choice = next(f for f in fits if f[0] == pick)
        tile, src, sargs, ins, outs2 = choice
        jf = kernel_of(src)
        self.last_source = src
        d = os.environ.get("PYASC_DUMP_PATH")
        if d:
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, kname + ".simt.py"), "w", encoding="utf-8") as f:
                f.write(src)
        res = jf[ncores](*argv_of(sargs, ins, outs2, False), **launch)
        self.last_result = res
        self.tile, self.cores = tile, ncores
        return res

    # ---- GEMM and row softmax, by the kernel library ----------------------------------------
    def _library(self, plan, vals, cores, tname, launch):
        from .host import kernels as lib
        mm = plan.mm

        def bound(b):
            if b[0] == "c":
                return b[1]
            v = vals.get(b[1])
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise LaunchError(f"argument '{b[1]}' is a bound and must be a positive int, got {v!r}")
            return int(v)

        def arr(name, shape, role):
            a = vals.get(name)
            if not isinstance(a, np.ndarray) or a.ndim != 2:
                raise LaunchError(f"argument '{name}' ({role}) must be a 2-D numpy array")
            if a.shape[0] < shape[0] or a.shape[1] < shape[1]:
                raise LaunchError(f"argument '{name}' ({role}) has shape {a.shape}, smaller than the launch's "
                                  f"{shape}")
            return a

        def out(name, shape, dtype, role):
            a = vals.get(name)
            if not isinstance(a, np.ndarray) or a.shape != shape or a.dtype != dtype or not a.flags.c_contiguous:
                got = f"{a.shape} {a.dtype}" if isinstance(a, np.ndarray) else type(a).__name__
                raise LaunchError(f"argument '{name}' ({role}) must be a C-contiguous {np.dtype(dtype).name} array "
                                  f"of shape {shape} (it is written in place), got {got}")
            return a

        if plan.kind == "gemm":
            m, n, k = bound(mm["M"]), bound(mm["N"]), bound(mm["K"])
            a = arr(mm["A"], (m, k), "A")[:m, :k]
            b = arr(mm["B"], (k, n), "B")[:k, :n]
            if a.dtype != b.dtype or a.dtype not in (np.float16, np.uint16):
                raise LaunchError(f"the cube multiplies float16 (or bf16 as uint16 bits) operands into "
                                  f"float32: '{mm['A']}' is {a.dtype}, '{mm['B']}' is {b.dtype}")
            c = out(mm["C"], (m, n), np.float32, "C")
            mod = lib.library("matmul")
            mod.matmul(a, b, target=tname, cores=cores, out=c.reshape(-1), **launch)
            self.last_result = mod.matmul_kernel.last_result
        else:
            rows, cols = bound(mm["ROWS"]), bound(mm["COLS"])
            x = arr(mm["X"], (rows, cols), "input")[:rows, :cols]
            if x.dtype not in (np.float16, np.float32):
                raise LaunchError(f"softmax rows are float16 or float32, '{mm['X']}' is {x.dtype}")
            y = out(mm["Y"], (rows, cols), x.dtype, "output")
            mod = lib.library("softmax")
            mod.softmax(x, target=tname, cores=cores, out=y.reshape(-1), **launch)
            self.last_result = mod.softmax_kernel_off.last_result
        return self.last_result
