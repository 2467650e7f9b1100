"""numpy script -> bundle: graph clean-up, pattern recognition (softmax), mapping to the kernel
library, element-wise fusion (-O2 and up), the GM plan, and the bundle file (docs/pyasc.md
"numpy scripts").  The bundle is asc's own JSON format ("asc-bundle"), NOT Huawei's OM.
"""
from __future__ import annotations

import json
import os

import numpy as np

from .trace import Node, ScriptError, trace

FORMAT = "asc-bundle"
VERSION = 1
NOTE = "asc's own bundle format (JSON); not Huawei's OM format, no Huawei tool reads it"

_EW_BIN = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "max": "max", "min": "min"}
_EW_SCALAR = {"add": "adds", "mul": "muls", "max": "maxs", "min": "mins"}
_EW_UNARY = ("exp", "abs", "sqrt", "ln", "tanh")


def _live(g):
    seen, stack = set(), list(g.outputs)
    while stack:
        n = stack.pop()
        if n.id in seen:
            continue
        seen.add(n.id)
        stack += [a for a in n.args if isinstance(a, Node)]
    return [n for n in g.nodes if n.id in seen]


def _softmax(g):
    """div(e, sum(e, -1, keepdims)) with e = exp(sub(x, max(x, -1, keepdims))) -> softmax(x)."""
    for n in g.nodes:
        if n.op != "div" or not n.attrs.get("bcast"):
            continue
        e, s = n.args
        if not (isinstance(s, Node) and s.op == "reduce_sum" and s.attrs.get("keepdims") and s.args[0] is e):
            continue
        if not (e.op == "exp" and isinstance(e.args[0], Node) and e.args[0].op == "sub"):
            continue
        d = e.args[0]
        x, m = d.args
        if isinstance(m, Node) and m.op == "reduce_max" and m.attrs.get("keepdims") and m.args[0] is x:
            n.op, n.args, n.attrs = "softmax", [x], {k: v for k, v in n.attrs.items() if k == "cores"}


def _elementwise(n):
    """The fused-kernel step of node n as (op, tensor args, scalar) or None."""
    if n.op in _EW_BIN and not n.attrs.get("bcast"):
        a, b = n.args
        if isinstance(a, Node) and isinstance(b, Node):
            return (_EW_BIN[n.op], [a, b], None)
        t, s = (a, b) if isinstance(a, Node) else (b, a)
        s = float(np.asarray(s).astype(n.dtype))
        if n.op == "sub":
            if t is a:
                return ("adds", [t], -s)      # x - s = x + (-s): the same rounded sum
            return None                        # s - x: no single instruction; stays unfused
        if n.op == "div":
            if t is a and s != 0 and abs(float(np.frexp(s)[0])) == 0.5:
                return ("muls", [t], 1.0 / s)   # x / 2**k = x * 2**-k exactly
            return None
        return (_EW_SCALAR[n.op], [t], s)
    if n.op in _EW_UNARY:
        if n.op == "tanh" and n.dtype != np.float32:
            return None
        return (n.op, [n.args[0]], None)
    return None


def _library_step(n):
    """(module, function, kwargs) of the kernel library for a node that runs alone, or None."""
    if n.op == "matmul":
        return ("matmul", "matmul", {})
    if n.op == "softmax":
        return ("softmax", "softmax", {})
    if n.op in ("reduce_sum", "reduce_max"):
        return ("reduce", "reduce_rows" if n.attrs.get("axis") == -1 else "reduce_all", {"op": n.op[7:]})
    if n.op in ("add", "mul") and all(isinstance(a, Node) for a in n.args) and not n.attrs.get("bcast"):
        return ("elementwise", {"add": "vadd", "mul": "vmul"}[n.op], {})
    if n.op == "sub" and all(isinstance(a, Node) for a in n.args) and not n.attrs.get("bcast"):
        return ("elementwise", "axpy", {"alpha": -1.0, "swap": True})
    if n.op == "tanh":
        return ("elementwise", "tanh", {})
    return None


def _groups(nodes, outputs, fuse):
    """Element-wise fusion: chains (trees) of fusable nodes whose intermediates have one consumer and
    are not outputs, at most 3 external inputs and 6 registers."""
    users = {}
    for n in nodes:
        for a in n.args:
            if isinstance(a, Node):
                users.setdefault(a.id, []).append(n)
    outs = {n.id for n in outputs}
    group_of = {}
    groups = []
    for n in nodes:
        st = _elementwise(n)
        if st is None:
            continue
        g = None
        if fuse:
            for a in st[1]:
                ga = group_of.get(a.id)
                if ga is not None and len(users.get(a.id, [])) == 1 and a.id not in outs and a.dtype == n.dtype \
                        and a.shape == n.shape:
                    ext = set(ga["inputs"]) | {x.id for x in st[1] if x.id not in ga["members"]}
                    if len(ext) <= 3 and len(ga["members"]) < 8:
                        g = ga
                        break
        if g is None:
            g = {"members": [], "inputs": []}
            groups.append(g)
        for x in st[1]:
            if x.id not in g["members"] and x.id not in g["inputs"]:
                g["inputs"].append(x.id)
        g["members"].append(n.id)
        group_of[n.id] = g
    # an intermediate that feeds another member from a second group makes the group's inputs include it
    return groups


def _program(g, by_id):
    """(prog, input ids) of a group, registers allocated by last use."""
    members = g["members"]
    inputs = list(g["inputs"])
    reg = {x: i for i, x in enumerate(inputs)}
    last = {}
    for k, m in enumerate(members):
        for a in _elementwise(by_id[m])[1]:
            last[a.id] = k
    free = []
    nxt = len(inputs)
    prog = []
    for k, m in enumerate(members):
        op, args, s = _elementwise(by_id[m])
        ra = [reg[a.id] for a in args]
        for a in args:                            # registers whose value dies here can hold the result
            if last.get(a.id) == k and a.id in reg and reg[a.id] not in free:
                free.append(reg[a.id])
        if free:
            free.sort()
            d = free.pop(0)
        else:
            d, nxt = nxt, nxt + 1
        if d >= 6:
            raise ScriptError("internal: a fused chain needs more than 6 registers", None, None)
        reg[m] = d
        prog.append([op, d, ra[0], ra[1] if len(ra) > 1 else s])
    return prog, inputs


def _shape_str(s):
    return list(int(x) for x in s)


def parse_dims(text):
    """--dynamic-dims "1-4,224-256" -> [[1, 4], [224, 256]]."""
    out = []
    for part in text.split(","):
        part = part.strip()
        try:
            lo, hi = (int(x) for x in part.split("-")) if "-" in part else (int(part), int(part))
        except ValueError:
            raise ValueError(f"--dynamic-dims: '{part}' is not N or LO-HI") from None
        if not 1 <= lo <= hi:
            raise ValueError(f"--dynamic-dims: range '{part}' needs 1 <= LO <= HI")
        out.append([lo, hi])
    return out


def load_custom(path):
    """--custom-op-config=ops.json: {"ops": {"NAME": {"module": "file.py", "function": "f",
    "kernel": "jit_name"}}}; module paths are relative to the json file."""
    try:
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
    except OSError as e:
        raise ValueError(f"--custom-op-config {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    ops = cfg.get("ops") if isinstance(cfg, dict) else None
    if not isinstance(ops, dict) or not ops:
        raise ValueError(f"{path}: needs an object \"ops\" mapping numpy names to {{module, function, kernel}}")
    out = {}
    for name, ent in ops.items():
        if not isinstance(ent, dict) or not isinstance(ent.get("module"), str) or \
                not isinstance(ent.get("function"), str):
            raise ValueError(f"{path}: ops.{name}: needs \"module\" (a .py file) and \"function\" strings")
        mod = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), ent["module"]))
        if not os.path.isfile(mod):
            raise ValueError(f"{path}: ops.{name}.module: no file {ent['module']}")
        out[name] = dict(ent, module=mod)
    return out


def build(g, opt_level=2, target="ascend910b", memory_opt=False, dynamic=None, tile=2048):
    """The bundle dict of a traced graph."""
    _softmax(g)
    nodes = _live(g)
    for n in nodes:
        if n.attrs.get("bcast") and n.op != "softmax":
            raise ScriptError(f"operation '{n.op}' between shapes {n.args[0].shape} and {n.args[1].shape}: "
                              f"broadcasting is supported only inside the softmax pattern "
                              f"exp(x - x.max(-1, keepdims=True)) / sum(..., keepdims=True)", g.file, n.line)
    by_id = {n.id: n for n in nodes}
    groups = _groups(nodes, g.outputs, opt_level >= 2)
    gmem = {m: gr for gr in groups for m in gr["members"]}
    steps, done = [], set()
    for n in nodes:
        if n.op in ("input", "const") or n.id in done:
            continue
        gr = gmem.get(n.id)
        lib = _library_step(n)
        if gr is not None and (len(gr["members"]) > 1 or lib is None):
            if n.id != gr["members"][0]:
                continue
            prog, ins = _program(gr, by_id)
            outn = by_id[gr["members"][-1]]
            if any(by_id[m].op == "tanh" for m in gr["members"]) and outn.dtype != np.float32:
                # unreachable: _fusible leaves float16 tanh unfused, and no fused op changes dtype
                raise ScriptError("internal: tanh in float16 cannot be fused", g.file, outn.line)
            steps.append({"kind": "fused", "module": "fused", "function": "run_chain", "prog": prog,
                          "inputs": ins, "output": outn.id, "nodes": list(gr["members"]),
                          "lines": sorted({by_id[m].line for m in gr["members"]}),
                          "cores": outn.attrs.get("cores")})
            done.update(gr["members"])
            continue
        if n.op == "cast" and {n.dtype.name, n.args[0].dtype.name} != {"float16", "float32"}:
            steps.append({"kind": "host", "function": "cast", "inputs": [n.args[0].id], "output": n.id,
                          "nodes": [n.id], "lines": [n.line], "dtype": n.dtype.name,
                          "note": "a conversion the cast kernel does not cover (float32 <-> float16): on the host"})
            continue
        if n.op == "cast":     # float32 <-> float16 on the vector unit (kernels/pyasc/cast.py, vconv)
            steps.append({"kind": "library", "module": "cast", "function": "cast", "kwargs": {"dtype": n.dtype.name},
                          "inputs": [n.args[0].id], "output": n.id, "nodes": [n.id], "lines": [n.line],
                          "cores": n.attrs.get("cores")})
            continue
        if n.op == "custom":
            steps.append({"kind": "custom", "module": n.attrs["module"], "function": n.attrs["function"],
                          "kernel": n.attrs.get("kernel"), "inputs": [a.id for a in n.args], "output": n.id,
                          "nodes": [n.id], "lines": [n.line], "cores": n.attrs.get("cores"),
                          "custom": n.attrs["custom"]})
            continue
        if lib is None:
            raise ScriptError(f"operation '{n.op}' with operands {[getattr(a, 'shape', a) for a in n.args]} has no "
                              f"kernel in the kernel library and cannot be fused", g.file, n.line)
        mod, fn, kw = lib
        steps.append({"kind": "library", "module": mod, "function": fn, "kwargs": kw,
                      "inputs": [a.id for a in n.args if isinstance(a, Node)], "output": n.id, "nodes": [n.id],
                      "lines": [n.line], "cores": n.attrs.get("cores")})
    # the GM plan: every value a step writes is a buffer; with memory_opt a buffer whose last reader ran
    # is reused by a later value of at most its size (first fit); inputs and outputs are never reused
    outs = {n.id for n in g.outputs}
    last_use = {}
    for i, s in enumerate(steps):
        for x in s["inputs"]:
            last_use[x] = i
    bufs, assign, free = [], {}, []
    for i, s in enumerate(steps):
        o = by_id[s["output"]]
        nb = int(np.prod(o.shape, dtype=np.int64)) * o.dtype.itemsize
        b = None
        if memory_opt and o.id not in outs:
            for k, fb in enumerate(free):
                if bufs[fb]["bytes"] >= nb:
                    b = free.pop(k)
                    break
        if b is None:
            b = len(bufs)
            bufs.append({"id": b, "bytes": nb, "values": []})
        bufs[b]["values"].append(o.id)
        assign[o.id] = b
        for x in s["inputs"]:
            if last_use.get(x) == i and x in assign and x not in outs:
                free.append(assign[x])
    off = 0
    for b in bufs:
        b["offset"] = off
        off += -(-b["bytes"] // 512) * 512
    graph = []
    for n in nodes:
        graph.append({"id": n.id, "op": n.op, "shape": _shape_str(n.shape), "dtype": n.dtype.name, "line": n.line,
                      "name": n.name,
                      "args": [{"node": a.id} if isinstance(a, Node) else {"scalar": float(np.asarray(a))}
                               for a in n.args],
                      "attrs": {k: v for k, v in sorted(n.attrs.items()) if isinstance(v, (int, float, str, bool))
                                or v is None}})
    dyn = None
    if dynamic:
        dyn = {"ranges": dynamic, "inputs": []}
        for n in nodes:
            if n.op == "input" and len(n.shape) == len(dynamic):
                for d, (lo, hi) in zip(n.shape, dynamic):
                    if not lo <= d <= hi:
                        raise ScriptError(f"--dynamic-dims: input '{n.name}' has shape {tuple(n.shape)} outside "
                                          f"the ranges {dynamic}", g.file, n.line)
                dyn["inputs"].append(n.id)
        if not dyn["inputs"]:
            raise ScriptError(f"--dynamic-dims gives {len(dynamic)} dimensions and no input has that rank",
                              g.file, 1)
    return {"format": FORMAT, "version": VERSION, "note": NOTE, "source": os.path.basename(g.file),
            "target": target, "opt_level": opt_level, "memory_opt": bool(memory_opt), "amp": g.amp,
            "seed": getattr(g, "seed", 0), "tile": tile, "graph": graph, "steps": steps,
            "outputs": [{"node": n.id, "name": n.name, "save": n.attrs.get("save")} for n in g.outputs],
            "gm_plan": {"buffers": bufs, "bytes": off,
                        "bytes_without_reuse": sum(-(-b["bytes"] // 512) * 512 for b in bufs) if not memory_opt
                        else None},
            "dynamic_dims": dyn}


def add_native(b, path=None):
    """Run the bundle once (generated inputs) recording every launch: b["native"] holds the ELF
    kernel binaries and the launch plan asc-sim run executes (script/native.py)."""
    from .run import Bundle
    _, rep = Bundle(b, path).run(record=True)
    b["native"] = rep["native"]
    return b


def write(bundle, path):
    """Deterministic bytes: sorted keys, no time stamps."""
    text = json.dumps(bundle, indent=1, sort_keys=True) + "\n"
    from .. import _outfile
    _outfile.write(path, text)


def compile_script(path, out, opt_level=2, target="ascend910b", memory_opt=False, dynamic_dims=None,
                   custom_op_config=None):
    custom = load_custom(custom_op_config) if custom_op_config else None
    g = trace(path, custom)
    dyn = parse_dims(dynamic_dims) if dynamic_dims else None
    b = add_native(build(g, opt_level, target, memory_opt, dyn), path)
    if out:
        write(b, out)
    return b


def save_as_om(obj, path, example_inputs=None, opt_level=2, target="ascend910b", memory_opt=False,
               dynamic_dims=None):
    """Write the asc bundle of `obj` to path: a numpy script (its path), a Python function of
    numpy arrays (traced with `example_inputs`: arrays or (shape, dtype) pairs), a traced Graph,
    or a bundle (dict or run.Bundle).  The format is asc's own (JSON), NOT Huawei's OM.  An
    @asc.jit kernel is not a graph: write it with `pyasc compile kernel.py -o kernel.bin`."""
    from .trace import Graph, trace_function
    dyn = parse_dims(dynamic_dims) if isinstance(dynamic_dims, str) else dynamic_dims
    if isinstance(obj, (str, os.PathLike)):
        b = build(trace(os.fspath(obj)), opt_level, target, memory_opt, dyn)
    elif isinstance(obj, Graph):
        b = build(obj, opt_level, target, memory_opt, dyn)
    elif isinstance(obj, dict) and obj.get("format") == FORMAT:
        b = obj
    elif hasattr(obj, "data") and isinstance(getattr(obj, "data"), dict) and obj.data.get("format") == FORMAT:
        b = obj.data
    elif getattr(obj, "_asc_inline", False):
        raise TypeError(f"save_as_om: {obj!r} is an @asc.jit kernel, not a graph; write its kernel binary with "
                        f"`pyasc compile FILE.py -k {obj.__name__} -o {obj.__name__}.bin`")
    elif callable(obj):
        if example_inputs is None:
            raise TypeError("save_as_om(function, path, example_inputs=[...]): the inputs' shapes and dtypes are needed")
        ex = [np.zeros(x[0], x[1]) if isinstance(x, tuple) else x for x in example_inputs]
        b = build(trace_function(obj, ex), opt_level, target, memory_opt, dyn)
    else:
        raise TypeError(f"save_as_om: cannot save a {type(obj).__name__} (a script path, function, Graph or bundle)")
    if "native" not in b:
        add_native(b, os.fspath(obj) if isinstance(obj, (str, os.PathLike)) else None)
    write(b, os.fspath(path))
    return b
