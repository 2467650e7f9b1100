"""Running a bundle (`pyasc run out.om`, `pyasc.load_bundle(path).run(...)`): each step launches its
kernel on the simulator (kernel library, generated fused chains, custom ops) at the bundle's
optimisation level; the report lists cycles and GM bytes (MTE2 reads + MTE3 writes, from the
simulator's report) per operator.  Inputs: npy files by name, or generated (seeded: uniform
[0, 1) for np.random.rand/random, standard normal for randn/standard_normal, in the input's
final dtype).  Steps run one after another (their cycles add up).
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys

import numpy as np

from .compile import FORMAT, VERSION
from .trace import ScriptError


class BundleError(Exception):
    pass


def _lib(module):
    from ..host import kernels
    return kernels.library(module)


def _load_py(path):
    # keyed by the file's real path: two configs' different myops.py are two modules (by base name
    # alone the second got the first's functions)
    import hashlib
    real = os.path.realpath(path)
    name = ("pyasc_custom_" + os.path.splitext(os.path.basename(path))[0] + "_" +
            hashlib.sha256(real.encode()).hexdigest()[:12])
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _bytes(res):
    rep = json.loads(res.report_json) if res and res.report_json else {}
    return int(sum(v for k, v in rep.get("bytes", {}).items() if "GM" in k))


class Bundle:
    def __init__(self, data, path=None):
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BundleError(f"{path}: not an asc bundle (format "
                              f"{data.get('format') if isinstance(data, dict) else type(data).__name__!r}, an asc "
                              f"bundle's is '{FORMAT}'); asc does not read Huawei OM files")
        if data.get("version") != VERSION:
            raise BundleError(f"{path}: bundle version {data.get('version')}, this pyasc reads {VERSION}")
        self.data, self.path = data, path
        self.nodes = {n["id"]: n for n in data["graph"]}
        self.shapes = {i: tuple(n["shape"]) for i, n in self.nodes.items()}

    # ---- shapes ---------------------------------------------------------------------------
    def set_input_shape(self, shape):
        """Bind the dynamic dimensions (--dynamic-dims) to `shape`: checked against the ranges, then
        every node's shape is re-derived."""
        dyn = self.data.get("dynamic_dims")
        if not dyn:
            raise BundleError("set_input_shape: the bundle was compiled without --dynamic-dims")
        shape = tuple(int(x) for x in shape)
        rng = dyn["ranges"]
        if len(shape) != len(rng):
            raise BundleError(f"set_input_shape: shape {list(shape)} has {len(shape)} dimensions, the bundle's "
                              f"--dynamic-dims gives {len(rng)} (one range per dimension)")
        for i, (d, (lo, hi)) in enumerate(zip(shape, rng)):
            if not lo <= d <= hi:
                raise BundleError(f"set_input_shape: dimension {i} = {d} is outside the compiled range {lo}-{hi} "
                                  f"(--dynamic-dims)")
        for i in dyn["inputs"]:
            self.shapes[i] = shape
        self._propagate()

    def _propagate(self):
        for i in sorted(self.nodes):
            n = self.nodes[i]
            args = [a["node"] for a in n["args"] if "node" in a]
            if n["op"] in ("input", "const"):
                continue
            if n["op"] == "matmul":
                a, b = (self.shapes[x] for x in args)
                if a[1] != b[0]:
                    raise BundleError(f"set_input_shape: matmul at line {n['line']} of the script: inner dimensions "
                                      f"differ: {a} @ {b} (the shape is bound to every dynamic input)")
                self.shapes[i] = (a[0], b[1])
            elif n["op"] in ("reduce_sum", "reduce_max"):
                s = self.shapes[args[0]]
                keep = n["attrs"].get("keepdims")
                if n["attrs"].get("axis") is None:
                    self.shapes[i] = (1,) * len(s) if keep else ()
                else:
                    self.shapes[i] = s[:-1] + ((1,) if keep else ())
            else:
                self.shapes[i] = self.shapes[args[0]]

    # ---- inputs -----------------------------------------------------------------------------
    def inputs(self, given=None):
        """{node id: array} for every input node: given by name (npy path or array) or generated."""
        given = dict(given or {})
        rng = np.random.default_rng(self.data.get("seed", 0))
        out = {}
        for i in sorted(self.nodes):
            n = self.nodes[i]
            if n["op"] not in ("input", "const"):
                continue
            shape, dt = self.shapes[i], np.dtype(n["dtype"])
            if n["op"] == "const":
                out[i] = np.full(shape, n["attrs"]["value"], dt)
                continue
            v = given.pop(n["name"], None) if n["name"] else None
            if v is None and n["attrs"].get("npy"):
                base = os.path.dirname(os.path.abspath(self.path)) if self.path else "."
                v = os.path.join(base, n["attrs"]["npy"])
            if isinstance(v, str):
                v = np.load(v)
            if v is None:
                v = rng.random(shape) if n["attrs"].get("dist") == "uniform" else rng.standard_normal(shape)
            v = np.asarray(v)
            if v.shape != shape:
                raise BundleError(f"input '{n['name']}' (line {n['line']}): shape {v.shape}, the bundle expects "
                                  f"{shape}" + (" (set_input_shape binds dynamic dimensions)"
                                                if self.data.get("dynamic_dims") else ""))
            out[i] = v.astype(dt)
        if given:
            raise BundleError(f"the bundle has no input(s) {', '.join(given)} (inputs: " +
                              ", ".join(n["name"] or "?" for n in self.nodes.values() if n["op"] == "input") + ")")
        return out

    # ---- running ----------------------------------------------------------------------------
    def run(self, inputs=None, cores=None, record=False):
        """Execute every step; returns (outputs {name: array}, report dict).  record=True also
        records the native launch plan (script/native.py) into report["native"]."""
        from ..runtime import config, launch
        from . import native
        vals = self.inputs(inputs)
        rows = []
        tgt = self.data["target"]
        planner = native.Planner(self) if record else None
        if planner:
            for i in sorted(vals):
                planner.value(i, vals[i], "const" if self.nodes[i]["op"] == "const" else "input")
        with config.opt_level(self.data["opt_level"]):
            for s in self.data["steps"]:
                rec = native.Recorder() if planner else None
                if rec:
                    launch.RECORDERS.append(rec)
                try:
                    y, res = self._step(s, vals, tgt, cores)
                finally:
                    if rec:
                        launch.RECORDERS.remove(rec)
                if planner:
                    planner.step(s, rec, y, None if s["kind"] != "host" else
                                 f"a host step ({s['function']} on the host): no kernel to launch")
                y = np.asarray(y).reshape(self.shapes[s["output"]])
                vals[s["output"]] = y
                rows.append({"step": len(rows), "kind": s["kind"], "kernel": f"{s.get('module', 'host')}."
                             f"{s['function']}", "lines": s["lines"], "nodes": s["nodes"],
                             "cycles": int(res.cycles) if res else 0, "gm_bytes": _bytes(res),
                             "blocks": _blocks(res)})
        outs = {}
        for o in self.data["outputs"]:
            outs[o["name"] or f"node{o['node']}"] = vals[o["node"]]
        rep = {"source": self.data["source"], "opt_level": self.data["opt_level"], "steps": rows,
               "kernels": sum(1 for r in rows if r["kind"] != "host"),
               "total_cycles": sum(r["cycles"] for r in rows), "total_gm_bytes": sum(r["gm_bytes"] for r in rows),
               "gm_plan_bytes": self.data["gm_plan"]["bytes"]}
        if planner:
            rep["native"] = planner.result(rows, self.data["outputs"], vals)
        return outs, rep

    def _step(self, s, vals, tgt, cores):
        xs = [vals[x] for x in s["inputs"]]
        c = s.get("cores") or cores
        res = None
        if s["kind"] == "library":
            mod = _lib(s["module"])
            f = getattr(mod, s["function"])
            kw = dict(s.get("kwargs") or {})
            if s["function"] == "axpy":
                kw.pop("swap", None)
                y = f(kw.pop("alpha"), xs[1], xs[0], target=tgt, cores=c)
            else:
                y = f(*xs, target=tgt, cores=c, **kw)
            res = _last(mod, s["module"])
        elif s["kind"] == "fused":
            mod = _lib("fused")
            prog = tuple(tuple(p) for p in s["prog"])
            y = mod.run_chain(prog, xs, target=tgt, cores=c, tile=self.data.get("tile", mod.TILE))
            res = mod.fused_kernel.last_result
        elif s["kind"] == "custom":
            mod = _load_py(s["module"])
            y = getattr(mod, s["function"])(*xs)
            k = getattr(mod, s["kernel"], None) if s.get("kernel") else None
            res = getattr(k, "last_result", None)
        else:   # host cast
            y = xs[0].astype(s["dtype"])
        return y, res

    def reference(self, inputs=None):
        """The graph evaluated with numpy in the bundle's dtypes (matmul in float32 from its float16
        operands), for checking a run: {output name: array}."""
        vals = {k: v.astype(np.float32) if v.dtype == np.float16 else v for k, v in self.inputs(inputs).items()}
        dts = {i: np.dtype(n["dtype"]) for i, n in self.nodes.items()}
        for i in sorted(self.nodes):
            n = self.nodes[i]
            if n["op"] in ("input", "const"):
                continue
            a = [vals[x["node"]].astype(dts[i]) if "node" in x else x["scalar"] for x in n["args"]]
            op = n["op"]
            if op == "matmul":
                r = vals[n["args"][0]["node"]].astype(np.float32) @ vals[n["args"][1]["node"]].astype(np.float32)
            elif op == "softmax":
                e = np.exp(a[0] - a[0].max(-1, keepdims=True))
                r = e / e.sum(-1, keepdims=True)
            elif op in ("reduce_sum", "reduce_max"):
                r = getattr(np, op[7:])(a[0], axis=n["attrs"].get("axis"), keepdims=bool(n["attrs"].get("keepdims")))
            elif op == "cast":
                r = a[0]
            elif op == "custom":
                continue
            else:
                f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
                     "min": np.minimum, "exp": np.exp, "abs": np.abs, "sqrt": np.sqrt, "ln": np.log,
                     "tanh": np.tanh}[op]
                a = [x if isinstance(x, np.ndarray) else dts[i].type(x) for x in a]
                r = f(*a)
            vals[i] = np.asarray(r).astype(dts[i])
        return {(o["name"] or f"node{o['node']}"): vals.get(o["node"]) for o in self.data["outputs"]}


_KERNEL = {"matmul": "matmul_kernel", "softmax": "softmax_kernel_off", "reduce": "reduce_kernel",
           "elementwise": "ew_kernel", "cast": "cast_kernel"}


def _last(mod, module):
    return getattr(mod, _KERNEL[module]).last_result


def _blocks(res):
    rep = json.loads(res.report_json) if res and res.report_json else {}
    return rep.get("blocks", 0)


def load_bundle(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise BundleError(f"{path}: {e.strerror}") from None
    except json.JSONDecodeError:
        raise BundleError(f"{path}: not an asc bundle (not JSON); asc does not read Huawei OM files") from None
    return Bundle(data, path)


def format_report(rep):
    lines = [f"{rep['source']} at -O{rep['opt_level']}: {rep['kernels']} kernels, {rep['total_cycles']} cycles, "
             f"{rep['total_gm_bytes']} GM bytes moved, GM plan {rep['gm_plan_bytes']} bytes",
             f"{'step':>4}  {'kernel':<26} {'lines':<12} {'blocks':>6} {'cycles':>10} {'GM bytes':>10}"]
    for r in rep["steps"]:
        lines.append(f"{r['step']:>4}  {r['kernel']:<26} {','.join(map(str, r['lines'])):<12} {r['blocks']:>6} "
                     f"{r['cycles']:>10} {r['gm_bytes']:>10}")
    return "\n".join(lines) + "\n"


__all__ = ["Bundle", "BundleError", "load_bundle", "format_report", "ScriptError"]
