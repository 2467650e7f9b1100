"""@asc.jit, kernel launch and the compile cache.

Users: kernel modules (`@asc.jit`, `kernel[core_num](...)`, `kernel[core_num, stream](...)`),
the CLI (JITFunction.compile), benchmarks.

A launch: check the arguments against the signature (count; arrays for GlobalAddress; ints,
floats; ConstExpr values), specialise on the array dtypes and ConstExpr values, compile (memory
cache, then disk cache under $PYASC_CACHE_DIR or ~/.pyasc/cache keyed by the module source,
options, signature and compiler version; `always_compile` bypasses both), assemble with libasc,
run on the simulator, copy every array argument back in place, return a LaunchResult.
Helpers called from kernels are @asc.jit too: calling one directly from host code is an error.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import time
import warnings

import numpy as np

from ..compiler import compiled as driver, targets  # the compiler proper (driver.py) only on a miss: _compile
from ..compiler.compiled import deps_valid
from ..compiler.errors import CompileError, KernelFault, LaunchError
from ..compiler.source import module_source
from ..language import dtype as dt
from ..language.tensor import ConstExpr, GlobalAddress
from ..language.adv_tiling import TCubeTiling
from . import config

COMPILER_VERSION = "pyasc-0.1"


_DIGEST_RACY_NS = 2_000_000_000


def _digest_files():
    """(path relative to the pyasc package, absolute path) of every file _compiler_digest hashes,
    in the order it hashes them."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    # os.walk joins root (normalised by abspath) and names with "/", so the relative path is the
    # text after root: what os.path.relpath gave, without its ~10 us per file of normalising
    n = len(root) + 1
    for d, subdirs, files in sorted(os.walk(root)):
        pre = d[n:] + "/" if d != root else ""
        for f in sorted(files):
            if f.endswith(".py") or f == "isa.json":
                out.append((pre + f, d + "/" + f))
    return out


def _compiler_digest():
    """Hash of the bytes of every pyasc source file and of isa.json (the ISA table the compiler
    reads), so a changed compiler or a regenerated ISA never reuses stale cache entries.
    Computed once per process.  Hashing the 1.3 MB of sources (sha256, about 29 M instructions,
    ~2% of a small launch) is skipped when a memo in the cache directory was written for the very
    same files: the memo is named by a hash of every file's path, size, mtime, ctime and inode
    (any write to a file moves its ctime, which no tool can set back), and holds the content
    digest computed when those stats were seen.  File times tick coarsely (a few ms), so a file
    written less than _DIGEST_RACY_NS ago could be written again with the same stats: then there
    is no memo, read or written (git's rule for racily clean files)."""
    files = _digest_files()
    stats = []
    recent = time.time_ns() - _DIGEST_RACY_NS
    try:
        for rel, path in files:
            st = os.stat(path)
            if st.st_mtime_ns >= recent or st.st_ctime_ns >= recent:
                stats = None
                break
            stats.append((rel, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    except OSError:
        stats = None
    memo = None
    if stats is not None:
        memo = os.path.join(cache_dir(), "compiler-digest-" +
                            hashlib.sha256(repr((COMPILER_VERSION, stats)).encode()).hexdigest()[:32])
        try:
            with open(memo, encoding="ascii") as f:
                d = f.read()
            if len(d) == 16 and all(c in "0123456789abcdef" for c in d):
                return d
        except (OSError, ValueError):
            pass
    h = hashlib.sha256(COMPILER_VERSION.encode())
    for rel, path in files:
        with open(path, "rb") as fh:
            h.update(rel.encode() + b"\0" + fh.read())
    d = h.hexdigest()[:16]
    if memo is not None:
        try:  # an optimisation only: written whole (a temporary, then renamed)
            os.makedirs(os.path.dirname(memo), exist_ok=True)
            tmp = f"{memo}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="ascii") as f:
                f.write(d)
            os.replace(tmp, memo)
        except OSError:
            pass
    return d


_DIGEST = None


def _at_user_call(method):
    """An entry point of the API (a launch, compile, asm): a CompileError, LaunchError or
    KernelFault leaves it with its traceback cut at this frame, so the user sees their own call
    and the error's 'file:line:col' in the kernel, not 15-30 lines of compiler internals
    (PYASC_DEBUG=1 keeps the full traceback and the exception chain)."""
    @functools.wraps(method)
    def entry(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except (CompileError, LaunchError, KernelFault) as e:
            if driver.debug():
                raise
            e.__suppress_context__ = True
            raise e.with_traceback(None) from None
    return entry


class LaunchResult:
    """What a launch returns: cycles, microseconds, the simulator summary, the trace path."""

    def __init__(self, kernel, cycles, mhz, report, trace=None, insns=0, report_json=None):
        self.kernel, self.cycles, self.report, self.trace, self.insns = kernel, cycles, report, trace, insns
        self.microseconds = cycles / mhz if mhz else 0.0
        self._mhz = mhz
        self.report_json = report_json
        self.warnings = []    # 'file:line:col: warning: ...': copies the card truncates or pads
        self.prints = []      # (core, 'file:line', text): what asc.printf / asc.dump_tensor printed
        self._summary = None

    def _parse_summary(self):
        # cube utilisation (percent of the launch's cube peak, run/report.c "roofline") and the
        # report's sentence on what bounds the run, read from the C report, never recomputed;
        # None when the kernel ran no cube work.  Parsed on first use: the JSON is 0.3-1 MB
        # and most launches never ask.
        if self._summary is None:
            cube = bound = None
            if self.report_json:
                r = json.loads(self.report_json)
                if r.get("flops", {}).get("cube"):
                    cube = float(r["roofline"]["cube"]["pct"])
                bound = r.get("bound")
            self._summary = (cube, bound)
        return self._summary

    @property
    def cube_utilisation(self):
        return self._parse_summary()[0]

    @property
    def bound(self):
        return self._parse_summary()[1]

    def __repr__(self):
        t = f", trace={self.trace!r}" if self.trace else ""
        u = f", cube {self.cube_utilisation:.1f}%" if self.cube_utilisation is not None else ""
        # microseconds to 3 decimals rounded down, in integers, exactly as asc-sim prints them
        ns = int(self.cycles * 1000 // self._mhz) if self._mhz else 0
        return f"LaunchResult({self.kernel}: {self.cycles} cycles, {ns // 1000}.{ns % 1000:03d} us{u}{t})"


class JITFunction:
    _asc_inline = True   # compiler.frontend inlines calls of other @asc.jit functions (via .fn)

    def __init__(self, fn, **options):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        known = {"kernel_type", "insert_sync", "auto_sync", "auto_sync_log", "opt_level", "always_compile",
                 "debug", "matmul_cube_only", "bisheng_options", "verify_sync", "target", "tune", "double_buffer", "unroll"}
        bad = set(options) - known
        if bad:
            raise TypeError(f"@asc.jit got unknown option(s) {', '.join(sorted(bad))} "
                            f"(known: {', '.join(sorted(known))})")
        self.options = options
        self.signature = inspect.signature(fn)
        self._mem = {}
        self.last_result = None
        self.last_compiled = None

    def __repr__(self):
        return f"<asc.jit kernel {self.fn.__module__}.{self.fn.__name__}>"

    def __call__(self, *args, **kwargs):
        raise LaunchError(f"{self.fn.__name__} is an @asc.jit function: launch it as "
                          f"{self.fn.__name__}[core_num](...) from host code, or call it from another kernel")

    def __getitem__(self, grid):
        stream = None
        if isinstance(grid, tuple):
            if len(grid) != 2:
                raise LaunchError("launch as kernel[core_num] or kernel[core_num, stream]")
            grid, stream = grid
        if not isinstance(grid, (int, np.integer)) or grid < 1:
            raise LaunchError(f"core_num must be a positive integer, got {grid!r}")
        return _Launcher(self, int(grid), stream)

    # ---- signature ------------------------------------------------------------------------
    def specs(self, args, kwargs=None):
        """ArgSpecs of a call, checking count and types; LaunchError names the parameter."""
        params = list(self.signature.parameters.values())
        kwargs = kwargs or {}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise LaunchError(f"{self.fn.__name__}() takes {len(params)} argument(s) "
                              f"({', '.join(p.name for p in params)}): {e}") from None
        bound.apply_defaults()
        specs = []
        for p in params:
            v = bound.arguments[p.name]
            ann = p.annotation
            if ann is ConstExpr or (isinstance(ann, str) and "ConstExpr" in ann):
                if not isinstance(v, (int, float, bool, str, tuple, list, dt.DataType)):
                    raise LaunchError(f"argument '{p.name}' is ConstExpr and must be a Python constant, "
                                      f"got {type(v).__name__}")
                specs.append(driver.ArgSpec(p.name, "const", value=v))
                continue
            if isinstance(v, TCubeTiling):
                # the host's matmul tiling: a compile-time constant (each tiling its own kernel)
                specs.append(driver.ArgSpec(p.name, "const", value=v))
                continue
            arr = _as_array(v)
            gm_ann = ann is GlobalAddress or (isinstance(ann, str) and "GlobalAddress" in ann)
            if arr is None and isinstance(v, (list, tuple)) and (
                    gm_ann or (v and all(isinstance(a, np.ndarray) for a in v))):
                # a tensor list: the kernel gets the descriptor's address (asc.ListTensorDesc); an
                # empty list or one of non-arrays for a GlobalAddress is refused here, before compiling
                from . import tensor_list
                tensor_list.check(p.name, v)
                specs.append(driver.ArgSpec(p.name, "gm", dt.uint64))
                continue
            if ann is GlobalAddress or (isinstance(ann, str) and "GlobalAddress" in ann):
                if arr is None:
                    raise LaunchError(f"argument '{p.name}' is a GlobalAddress and needs a numpy array "
                                      f"(or torch tensor), got {type(v).__name__}")
            if arr is not None:
                try:
                    d = dt.from_numpy(arr.dtype)
                except TypeError as e:
                    raise LaunchError(f"argument '{p.name}': {e}") from None
                specs.append(driver.ArgSpec(p.name, "gm", d))
            elif isinstance(v, bool) or isinstance(v, (int, np.integer)):
                if ann is not float and not -(1 << 63) <= int(v) < 1 << 64:
                    # a scalar register holds 64 bits: a larger value would reach the kernel wrapped
                    raise LaunchError(f"argument '{p.name}' = {int(v)} does not fit in 64 bits (the scalar "
                                      f"registers' width): pass a value in [-2**63, 2**64)")
                if ann is float:
                    specs.append(driver.ArgSpec(p.name, "float"))
                else:
                    specs.append(driver.ArgSpec(p.name, "int"))
            elif isinstance(v, (float, np.floating)):
                if ann is int:
                    raise LaunchError(f"argument '{p.name}' is annotated int but got a float ({v!r})")
                specs.append(driver.ArgSpec(p.name, "float"))
            else:
                raise LaunchError(f"argument '{p.name}': {type(v).__name__} cannot be passed to a kernel "
                                  f"(arrays, ints and floats only; str/list/tuple need asc.ConstExpr)")
        return specs, bound

    # ---- compile ---------------------------------------------------------------------------
    def _options(self):
        o = dict(self.options)
        o.setdefault("target", config.get_target())
        o.setdefault("opt_level", config.get_opt_level())   # 2 unless config.opt_level(n) says
        if o.get("auto_sync") is False:
            pass
        return o

    @_at_user_call
    def compile(self, *args, **kwargs):
        """Compile for these arguments (arrays or ArgSpecs); returns driver.Compiled.
        Uses the memory and disk caches unless always_compile."""
        if args and all(isinstance(a, driver.ArgSpec) for a in args):
            specs = list(args)
        else:
            specs, _ = self.specs(args, kwargs)
        opts = self._options()
        key = self._key(specs, opts)
        always = opts.get("always_compile")
        c = None
        if not always:
            c = self._mem.get(key)
            if c is None:
                c = _disk_get(key)
            if c is not None and not deps_valid(c.deps, self.fn.__globals__):
                c = None    # a helper's file or a module constant changed since
        if c is None:
            c = _compile(self.fn, specs, opts)
            if not always:
                _disk_put(key, c)
        self._mem[key] = c
        self.last_compiled = c
        driver.dump(c)
        for w in c.warnings or ():   # pipe races a kernel without insert_sync leaves open
            warnings.warn(w, RuntimeWarning, stacklevel=3)
        return c

    @_at_user_call
    def asm(self, *args, **kwargs) -> str:
        """The assembly text of this kernel for these arguments."""
        return self.compile(*args, **kwargs).asm

    def _key(self, specs, opts):
        global _DIGEST
        if _DIGEST is None:
            _DIGEST = _compiler_digest()
        h = hashlib.sha256()
        h.update(_DIGEST.encode())
        src = module_source(self.fn)   # a CompileError naming the kernel when Python has no source
        h.update(src.encode())
        h.update(f"{self.fn.__code__.co_filename}:{self.fn.__qualname__}".encode())
        try:  # the target profile (buffer sizes, alignment, event ids) shapes the code
            h.update(json.dumps(targets.load(opts.get("target")), sort_keys=True).encode())
        except ValueError:
            pass  # unknown target: compile_kernel reports it
        h.update(json.dumps({k: (v if isinstance(v, (int, str, bool, float, type(None))) else repr(v))
                             for k, v in sorted(opts.items())}, sort_keys=True).encode())
        for s in specs:
            h.update(f"{s.name}:{s.kind}:{s.dtype!r}:{s.value!r};".encode())
        return h.hexdigest()[:32]


def _compile(fn, specs, opts):
    """A cache miss: the compiler, imported here, not at start-up (a cache hit never loads it)."""
    from ..compiler import driver as _driver
    return _driver.compile_kernel(fn, specs, opts)


def jit(fn=None, **options):
    """@asc.jit or @asc.jit(kernel_type=..., insert_sync=..., opt_level=..., always_compile=..., ...)."""
    if fn is None:
        return lambda f: JITFunction(f, **options)
    if isinstance(fn, JITFunction):
        return fn
    return JITFunction(fn, **options)


# ---- the disk cache ---------------------------------------------------------------------------
def cache_dir() -> str:
    return os.environ.get("PYASC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".pyasc", "cache")


def _disk_get(key):
    p = os.path.join(cache_dir(), key + ".json")
    try:
        with open(p, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    args = [(n, k, dt.by_name(t) if t else None) for n, k, t in d["args"]]
    return driver.Compiled(d["name"], d["asm"], d["ir"], d["lowered"], d["kind"], d["target"], args,
                           d.get("deps"), d.get("warnings"))


def _disk_put(key, c):
    d = cache_dir()
    try:
        os.makedirs(d, exist_ok=True)
        tmp = os.path.join(d, f".{key}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"name": c.name, "asm": c.asm, "ir": c.ir_text, "lowered": c.lowered_text,
                       "kind": c.kernel_kind, "target": c.target,
                       "args": [(n, k, t.name if t else None) for n, k, t in c.args], "deps": c.deps,
                       "warnings": c.warnings}, f)
        os.replace(tmp, os.path.join(d, key + ".json"))
    except OSError:
        pass  # the cache is an optimisation only


def _as_array(v):
    if isinstance(v, np.ndarray):
        return v
    if type(v).__module__.startswith("torch"):
        return v  # converted at launch (cpu tensors)
    return None


class _Launcher:
    def __init__(self, jf: JITFunction, core_num: int, stream):
        self.jf, self.core_num, self.stream = jf, core_num, stream

    @_at_user_call
    def __call__(self, *args, trace=None, report_dir=None, functional=False, max_cycles=0, check_races=False,
                 sanitize=None, **kwargs):
        from . import launch
        if config.get_backend() == config.Backend.NPU and not config.npu_on_model():
            raise LaunchError("Backend.NPU needs an Ascend card and CANN; this pyasc runs kernels on the asc "
                              "simulator: config.set_platform(config.Backend.Model), or set ASC_BACKEND=model to run "
                              "Backend.NPU launches on the simulator")
        specs, bound = self.jf.specs(args, kwargs)
        values = [bound.arguments[s.name] for s in specs if s.kind != "const"]
        if self.jf.options.get("tune") and self.jf._options()["opt_level"] >= 3:
            from . import tune           # -O3: the tiling search (runtime/tune.py)
            specs = tune.search(self.jf, specs, values, self.core_num, launch.run, {"max_cycles": max_cycles})
        t0 = time.perf_counter()
        c = self.jf.compile(*specs)
        self.jf.compile_seconds = time.perf_counter() - t0
        trace = trace or os.environ.get("PYASC_TRACE")
        res = launch.run(c, values, self.core_num, trace=trace, report_dir=report_dir, functional=functional,
                         max_cycles=max_cycles, check_races=check_races, sanitize=sanitize)
        self.jf.last_result = res
        return res
