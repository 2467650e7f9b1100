"""pyasc.fuse(): consecutive element-wise eager operators become one generated kernel.

Users: `with pyasc.fuse() as f: ...; print(f.report())` (docs/pyasc.md "Host runtime"), pyasc.jit
(host_call, at the end, for simt.HostJIT: a host function of eager operators fused at -O2), the
eager operators of pyasc.host.ops (add, sub, mul with tensors or Python scalars, div, relu,
sigmoid, tanh, gelu, erf) and pyasc.host.nn (cast float16 <-> float32, the pools' max/sum),
tests/python/test_host_fusion.py.

Inside the scope an element-wise operator does not launch: it allocates its result tensor and
appends a node to the scope's current group.  The group is compiled and launched as ONE kernel
(`flush`) when the scope ends, when a result of the group is read (.numpy()), when an operator
that is not element-wise launches, or when the next operator does not fit the group (another
element count, a dtype other than float16/float32 that is not the group's, more than MAX_REGS
UB tiles).  A group may mix float16 and float32 (cast nodes): every UB tile, DMA and tail store
is in its register's type, and the cores' ranges start on whole 32 B blocks of both.  The kernel is generated Python source
(`_source`): one @asc.jit function with the group's inputs and live results as GM arguments;
per tile it DMAs each input once into UB, runs every node's vector instructions on UB tiles and
stores only the results still referenced from Python (the nodes' tensors are held by weak
references; a result nobody can read is never written), so the intermediate results of a chain
never touch GM.  The instruction sequence of every node is the one the unfused kernel
(kernels/pyasc/elementwise.py ew_kernel; div and erf: elementwise_ext.py ext_kernel) runs, so
fused results equal the unfused ones bit for bit (div: one vdiv in the operands' type, float16
included, as ext_kernel; erf: ext_kernel's _erf_f32 in float32, float16 widened and rounded once); the generated file lives in a per-process temporary directory and is imported by path.

The report (`Fusion.report()`, `.stats`) gives, per fused launch, the GM bytes the simulator
counted (report "bytes": GM->UB + UB->GM) and the bytes the same operators move one by one
(every operand read and every result written, whole: what an unfused launch each moves at
least), and the difference as saved.
"""
import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import weakref

import numpy as np

from ..runtime import config
from ..runtime.jit import JITFunction
from . import kernels, log
from .errors import AscendError

MAX_REGS = 20         # UB tiles per fused kernel: inputs + nodes (5 more are f32 scratch)
TILE = 1024           # elements per tile (every slot has room for TILE float32 + 256 B skew)
BINARY = ("add", "sub", "mul", "div")     # tensor (op) tensor operators that join a scope
UNARY = ("relu", "sigmoid", "tanh", "gelu", "erf")
FLOATS = (np.dtype(np.float16), np.dtype(np.float32))    # a group may mix them (cast nodes)
F32_OPS = ("sigmoid", "tanh", "gelu", "erf")


class Node:
    def __init__(self, op, args, scalar, tensor):
        self.op, self.args, self.scalar = op, args, scalar    # args: Node or ("in", index)
        self.dtype = tensor.dtype                               # the result's (cast: the target type)
        self.ref = weakref.ref(tensor)
        self.nbytes = tensor.nbytes


class Group:
    def __init__(self, size, dtype, device):
        self.size, self.dtype, self.device = size, dtype, device
        self.inputs = []      # AscendTensors read from GM
        self.nodes = []
        self.unfused_bytes = 0

    def regs(self):
        return len(self.inputs) + len(self.nodes)

    def accepts(self, dtype):
        """A float16/float32 group takes both (a cast node converts); other dtypes only their own."""
        return dtype == self.dtype or (dtype in FLOATS and self.dtype in FLOATS)

    def reg_dtype(self, r):
        ni = len(self.inputs)
        return self.inputs[r].dtype if r < ni else self.nodes[r - ni].dtype

    def dtypes(self):
        """The group's element types, the first input's first."""
        out = [self.dtype]
        for r in range(self.regs()):
            d = self.reg_dtype(r)
            if d not in out:
                out.append(d)
        return out


class Fusion:
    """The object `with pyasc.fuse() as f` gives: .launches (one dict per fused kernel), report()."""

    def __init__(self):
        self.group = None
        self.launches = []
        self.active = False

    @property
    def stats(self):
        gm = sum(x["gm_bytes_moved"] or 0 for x in self.launches)
        unf = sum(x["unfused_bytes"] for x in self.launches)
        return {"kernels": len(self.launches), "operators": sum(x["operators"] for x in self.launches),
                "gm_bytes_moved": gm, "unfused_bytes": unf, "saved_bytes": unf - gm}

    def report(self):
        s = self.stats
        lines = [f"pyasc.fuse: {s['operators']} element-wise operators in {s['kernels']} fused kernel(s)"]
        for i, x in enumerate(self.launches):
            lines.append(f"  kernel {i}: {' '.join(x['ops'])}: {x['elements']} x {x['dtype']}, "
                         f"{x['inputs']} inputs, {x['outputs']} outputs written, GM bytes {x['gm_bytes_moved']} "
                         f"(simulator report) vs {x['unfused_bytes']} one by one, {x['cycles']} cycles")
        lines.append(f"  GM bytes: {s['gm_bytes_moved']} fused, {s['unfused_bytes']} unfused, saved "
                     f"{s['saved_bytes']}")
        return "\n".join(lines)

    def __str__(self):
        return self.report()


_stack = []


def current():
    return _stack[-1] if _stack and _stack[-1].active else None


@contextlib.contextmanager
def fuse():
    """with pyasc.fuse() as f: element-wise operators inside are fused (see the module docstring)."""
    f = Fusion()
    f.active = True
    _stack.append(f)
    try:
        yield f
    finally:
        try:
            flush(f)
        finally:
            f.active = False
            _stack.pop()


def pending(t):
    return getattr(t, "_fuse_node", None) is not None


def materialize(t):
    """Called before tensor t is read or used by a non-fused operator: launch its group.  t may
    be a view (t[...], reshape) of a pending result: the view holds no node of its own, so the
    chain of bases is walked, and a view made while its base was pending (so that copied no
    producer, _ready None) takes the base's producer once it has one."""
    chain = []
    while t is not None:
        chain.append(t)
        t = getattr(t, "_base", None)
    for x in chain:
        f = getattr(x, "_fuse_owner", None)
        if f is not None and pending(x):
            flush(f)
    for i in range(len(chain) - 2, -1, -1):
        if getattr(chain[i], "_ready", None) is None:
            chain[i]._ready = getattr(chain[i + 1], "_ready", None)


def flush_all():
    for f in list(_stack):
        flush(f)


def record(op, a, b=None, scalar=None, out_factory=None):
    """Append `op` to the current group; returns the result tensor (allocated, not computed).
    a, b: AscendTensors of one shape and dtype (broadcasts were materialised by the caller);
    scalar: a Python number for the scalar forms (op adds, muls, rsubs)."""
    f = current()
    operands = [x for x in (a, b) if x is not None]
    t0 = operands[0]
    for x in operands:
        # a view of a pending result (y.reshape(...), y[1:]) is no node of the group: the group
        # must run before the view is read as an input (else the kernel reads y's GM before y is
        # stored: silently stale values)
        if not (pending(x) and getattr(x, "_fuse_owner", None) is f):
            materialize(x)
    g = f.group
    new_inputs = sum(1 for x in operands if not (pending(x) and getattr(x, "_fuse_owner", None) is f
                                                 and x._fuse_node in (g.nodes if g else [])))
    if g is not None and (g.size != t0.size or not g.accepts(t0.dtype) or g.device is not t0.device
                          or g.regs() + new_inputs + 1 > MAX_REGS):
        flush(f)
        g = None
    if g is None:
        g = f.group = Group(t0.size, t0.dtype, t0.device)
    args = []
    for x in operands:
        node = getattr(x, "_fuse_node", None)
        if node is not None and getattr(x, "_fuse_owner", None) is f and node in g.nodes:
            args.append(node)
        else:
            materialize(x)
            x = x.contiguous()
            for i, y in enumerate(g.inputs):
                if y is x:
                    args.append(("in", i))
                    break
            else:
                g.inputs.append(x)
                args.append(("in", len(g.inputs) - 1))
    out = out_factory()
    node = Node(op, args, scalar, out)
    g.nodes.append(node)
    g.unfused_bytes += sum(x.nbytes for x in operands) + out.nbytes + (out.nbytes if scalar is not None else 0)
    out._fuse_node = node
    out._fuse_owner = f
    return out


def _reg(g, arg):
    if isinstance(arg, tuple):
        return f"r{arg[1]}"
    return f"r{len(g.inputs) + g.nodes.index(arg)}"


def _source(g, live, name):
    """Python source of the fused kernel for group g writing the nodes in `live`.  Registers of
    the first input's type use dt / per_block / blocks / wg; in a group that mixes float16 and
    float32 (cast nodes) those of the other type use dt1 / per_block1 / blocks1 / wg1."""
    ni, no = len(g.inputs), len(live)
    mixed = len(g.dtypes()) > 1
    sfx = {r: ("1" if g.reg_dtype(r) != g.dtype else "") for r in range(g.regs())}
    params = [f"x{i}: asc.GlobalAddress" for i in range(ni)] + [f"o{j}: asc.GlobalAddress" for j in range(no)]
    ws = "ws: asc.GlobalAddress, ws1: asc.GlobalAddress" if mixed else "ws: asc.GlobalAddress"
    L = ['"""Generated by pyasc.host.fusion: one kernel for the element-wise chain',
         "  " + " ".join(n.op for n in g.nodes) + '"""',
         "import asc",
         "from pyasc_kernels import _common as cm",
         "from pyasc_kernels import elementwise as ew",
         "from pyasc_kernels import elementwise_ext as ewx",
         "",
         "",
         "@asc.jit",
         f"def {name}({', '.join(params)}, {ws}, n: int, per_core: int, "
         "tile: asc.ConstExpr[int]):",
         "    c = asc.get_block_idx()",
         "    start = c * per_core",
         "    length = min(per_core, n - start)",
         "    dt = x0.dtype",
         "    per_block = 32 // dt.sizeof()",
         "    slot = tile * 4 + 256"]
    if mixed:
        other = "float32" if g.dtype == np.dtype(np.float16) else "float16"
        L += [f"    dt1 = asc.{other}", "    per_block1 = 32 // dt1.sizeof()"]
    for i in range(ni):
        L += [f"    g{i} = asc.GlobalTensor()", f"    g{i}.set_global_buffer(x{i} + start)"]
    for j in range(no):
        L += [f"    h{j} = asc.GlobalTensor()", f"    h{j}.set_global_buffer(o{j} + start)"]
    L += ["    wg = asc.GlobalTensor()", "    wg.set_global_buffer(ws + c * per_block)"]
    if mixed:
        L += ["    wg1 = asc.GlobalTensor()", "    wg1.set_global_buffer(ws1 + c * per_block1)"]
    nreg = ni + len(g.nodes)
    for r in range(nreg):
        pos = "VECIN" if r < ni else "VECOUT"
        L.append(f"    r{r} = asc.LocalTensor(dt{sfx[r]}, asc.TPosition.{pos}, {r} * slot, tile)")
    for k, s in enumerate(("af", "bf", "tf", "uf", "vf")):
        L.append(f"    {s} = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, {nreg + k} * slot, tile)")
    L += ["    tiles = (length + tile - 1) // tile",
          "    for t in range(tiles):",
          "        cnt = min(tile, length - t * tile)",
          "        blocks = (cnt + per_block - 1) // per_block"]
    if mixed:
        L.append("        blocks1 = (cnt + per_block1 - 1) // per_block1")
    for i in range(ni):
        L.append(f"        asc.data_copy(r{i}, g{i}[t * tile:], asc.DataCopyParams(1, blocks{sfx[i]}, 0, 0))")
    L += ["        asc.set_flag(asc.HardEvent.MTE2_V, 0)", "        asc.wait_flag(asc.HardEvent.MTE2_V, 0)"]
    for n in g.nodes:
        d = _reg(g, n)
        a = _reg(g, n.args[0])
        b = _reg(g, n.args[1]) if len(n.args) > 1 else None
        s = repr(float(n.scalar)) if n.scalar is not None else None
        f16 = n.dtype == np.dtype(np.float16)
        # the unfused kernels' sequences (elementwise.ew_kernel; ops.sub is axpy(-1, b, a);
        # cast: cast.py's _cast_tiles, narrowing rounds to nearest even, widening is exact)
        body = {"add": [f"asc.add({d}, {a}, {b}, cnt)"],
                "mul": [f"asc.mul({d}, {a}, {b}, cnt)"],
                "max": [f"asc.max({d}, {a}, {b}, cnt)"],
                "sub": [f"asc.muls({d}, {b}, -1.0, cnt)", f"asc.add({d}, {d}, {a}, cnt)"],
                "adds": [f"asc.adds({d}, {a}, {s}, cnt)"],
                "muls": [f"asc.muls({d}, {a}, {s}, cnt)"],
                "rsubs": [f"asc.muls({d}, {a}, -1.0, cnt)", f"asc.adds({d}, {d}, {s}, cnt)"],
                "div": [f"asc.div({d}, {a}, {b}, cnt)"],          # ext_kernel: vdiv in the input type
                "cast": [f"asc.cast({d}, {a}, asc.RoundMode.{'CAST_RINT' if f16 else 'CAST_NONE'}, cnt)"],
                "relu": [f"asc.relu({d}, {a}, cnt)"]}.get(n.op)
        f32 = (lambda dst, src: f"ewx._erf_f32({dst}, {src}, tf, uf, vf, cnt)") if n.op == "erf" else \
            (lambda dst, src: f"ew._f32_compute({n.op!r}, {dst}, {src}, tf, uf, cnt)")
        if body is None and not f16:
            body = [f32(d, a)]
        elif body is None:
            body = [f"asc.cast(af, {a}, asc.RoundMode.CAST_NONE, cnt)", f32("bf", "af"),
                    f"asc.cast({d}, bf, asc.RoundMode.CAST_RINT, cnt)"]
        L += ["        " + x for x in body]
    L += ["        asc.set_flag(asc.HardEvent.V_MTE3, 0)", "        asc.wait_flag(asc.HardEvent.V_MTE3, 0)"]
    for j, n in enumerate(live):
        r = len(g.inputs) + g.nodes.index(n)
        L.append(f"        cm.store_tail(h{j}[t * tile:], r{r}, cnt, wg{sfx[r]}, per_block{sfx[r]})")
    L += ["        asc.set_flag(asc.HardEvent.MTE3_MTE2, 0)", "        asc.wait_flag(asc.HardEvent.MTE3_MTE2, 0)", ""]
    return "\n".join(L)


_dir = None
_modules = {}


def _kernel(src, name):
    """The @asc.jit function of generated source `src` (a module file per distinct source)."""
    global _dir
    key = hashlib.sha256(src.encode()).hexdigest()[:16]
    m = _modules.get(key)
    if m is None:
        if _dir is None:
            _dir = tempfile.mkdtemp(prefix="pyasc-fuse-")
            import atexit
            atexit.register(shutil.rmtree, _dir, True)
        kernels.library("elementwise")          # registers the pyasc_kernels package
        kernels.library("elementwise_ext")
        path = os.path.join(_dir, f"fused_{key}.py")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(src)
        spec = importlib.util.spec_from_file_location(f"pyasc_kernels_fused_{key}", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        _modules[key] = m
        log.debug("fusion: generated %s (%d lines)", path, src.count("\n"))
    return getattr(m, name)


def flush(f):
    """Compile and launch f's current group as one kernel (no-op when it is empty)."""
    g = f.group
    if g is None:
        return
    f.group = None
    live = []
    for n in g.nodes:
        t = n.ref()
        if t is not None:
            live.append((n, t))
    if not live:              # nothing can read any result: nothing to compute
        return
    from . import ops
    cm = kernels.library("_common")
    name = "fused_kernel"
    src = _source(g, [n for n, _ in live], name)
    kern = _kernel(src, name)
    outs = [t for _, t in live]
    for t in outs:
        t._fuse_node = None
    target = g.device.target
    ins = list(g.inputs)
    entry = {"ops": [n.op for n in g.nodes], "operators": len(g.nodes), "elements": g.size,
             "dtype": "+".join(d.name for d in g.dtypes()), "inputs": len(ins), "outputs": len(outs),
             "unfused_bytes": g.unfused_bytes, "gm_bytes_moved": None, "cycles": None}
    f.launches.append(entry)

    def call(**o):
        with cm.on_target(target) as tgt:
            dts = g.dtypes()      # core ranges start on whole 32 B blocks of every type
            ncores, per = cm.core_split(g.size, max(cm.epb(d) for d in dts), None, tgt)
            ws = [cm.workspace(d, ncores) for d in dts]
            kern[ncores](*[x._flat() for x in ins], *[t._flat() for t in outs], *ws, g.size, per, TILE, **o)

    def done(res, rep):
        entry["gm_bytes_moved"] = gm_bytes(rep)
        entry["cycles"] = res.cycles
    log.debug("fusion: %d operators (%s) -> one kernel, %d inputs, %d outputs", len(g.nodes),
              " ".join(entry["ops"]), len(ins), len(outs))
    ops.launch("fused(" + "+".join(entry["ops"]) + ")", kern, ins, outs, call, on_result=done)


def gm_bytes(rep):
    """GM bytes a launch moved, from its simulator report ("bytes": GM->x and x->GM)."""
    return sum(v for k, v in (rep.get("bytes") or {}).items() if "GM" in k)


# ---- -O2: a host function of eager operators fuses its element-wise chains ----------------------
def _is_kernel_param(p):
    """A parameter annotated with a kernel-language type (asc.GlobalAddress, ConstExpr, ...)."""
    a = p.annotation
    mod = getattr(a, "__module__", "") or getattr(getattr(a, "__origin__", None), "__module__", "") or ""
    return mod.startswith("pyasc.language")


def _holds_tensor(args, kwargs):
    from .tensor import AscendTensor
    vals = list(args) + list(kwargs.values())
    return any(isinstance(v, AscendTensor) or (isinstance(v, (list, tuple))
                                               and any(isinstance(u, AscendTensor) for u in v)) for v in vals)


def host_call(hj, args, kwargs):
    """A call of a pyasc.jit function that is not per-element (simt.HostJIT): an asc.jit kernel as
    before (`k[cores](...)`), and, called with AscendTensor arguments (no parameter with a kernel
    annotation), a host function of eager operators.  At opt_level >= 2 (the default,
    `@pyasc.jit(opt_level=n)` or runtime.config.opt_level) its body runs in a fusion scope:
    consecutive element-wise operators become one kernel, `.last_fusion` is the scope's Fusion
    (its report() gives the GM bytes saved).  At -O0/-O1 every operator launches on its own
    (`.last_fusion` is None).  Inside an enclosing pyasc.fuse() the body joins that scope."""
    if not _holds_tensor(args, kwargs) or any(_is_kernel_param(p) for p in hj.signature.parameters.values()):
        return JITFunction.__call__(hj, *args, **kwargs)
    level = hj.options.get("opt_level", config.get_opt_level())
    if level < 2 or current() is not None:
        log.debug("host function %s at -O%d: eager operators one by one", hj.__name__, level)
        hj.last_fusion = None
        return hj.fn(*args, **kwargs)
    log.debug("host function %s at -O%d: element-wise chains fused", hj.__name__, level)
    with fuse() as f:
        r = hj.fn(*args, **kwargs)
    hj.last_fusion = f
    return r
