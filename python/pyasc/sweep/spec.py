"""Sweep specs: read (JSON or TOML), check, and expand into points and jobs.

Users: pyasc.sweep.run, the asc-sweep CLI.  The format is documented in docs/sweep.md; every
error is a SpecError whose text names the spec file, the key (`profile.ub_bank_groups[2]`) and
the rule broken, and for profile values the rule as libasc states it.

Paths in a spec (kernel, config, input .npy files) are relative to the spec file's directory.
"""
from __future__ import annotations

import ast
import hashlib
import io
import itertools
import json
import os

import numpy as np

from . import engine

TOP_KEYS = ("kernel", "kernel_name", "target", "config", "set", "args", "profile", "params", "zip", "max_cycles")
ARG_KEYS = ("seed", "low", "high", "fill", "shape")


class SpecError(Exception):
    """A bad spec: the message names file, key and rule."""


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read(path: str) -> dict:
    """The spec file as a dict: TOML when it ends in .toml, JSON otherwise."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SpecError(f"{path}: cannot read the spec: {e.strerror}") from None
    try:
        if path.endswith(".toml"):
            import tomllib
            spec = tomllib.loads(data.decode())
        else:
            spec = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise SpecError(f"{path}: not valid {'TOML' if path.endswith('.toml') else 'JSON'}: {e}") from None
    if not isinstance(spec, dict):
        raise SpecError(f"{path}: a spec is an object (a table) of keys {', '.join(TOP_KEYS)}")
    return spec


# ---- arithmetic on parameters ---------------------------------------------------------------------

_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}


class Expr:
    """An integer expression over parameter names: numbers, names, + - * // % and parentheses."""

    def __init__(self, text: str, where: str):
        self.text, self.where = text, where
        try:
            self.tree = ast.parse(text, mode="eval").body
        except SyntaxError:
            raise SpecError(f"{where}: '{text}' is not an expression (numbers, parameter names, "
                            "+ - * // % and parentheses)") from None
        self.names = []
        self._check(self.tree)

    def _check(self, n):
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            self._check(n.left)
            self._check(n.right)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            self._check(n.operand)
        elif isinstance(n, ast.Constant) and type(n.value) in (int, float):
            pass
        elif isinstance(n, ast.Name):
            if n.id not in self.names:
                self.names.append(n.id)
        else:
            raise SpecError(f"{self.where}: '{self.text}': only numbers, parameter names, + - * // % and "
                            "parentheses are allowed")

    def __repr__(self):
        return f"Expr({self.text!r})"

    def eval(self, env: dict):
        def ev(n):
            if isinstance(n, ast.BinOp):
                b = ev(n.right)
                if isinstance(n.op, (ast.FloorDiv, ast.Mod)) and b == 0:
                    raise SpecError(f"{self.where}: '{self.text}' divides by zero at {_point_text(env)}")
                return _OPS[type(n.op)](ev(n.left), b)
            if isinstance(n, ast.UnaryOp):
                return -ev(n.operand)
            if isinstance(n, ast.Constant):
                return n.value
            return env[n.id]
        return ev(self.tree)


def _point_text(env):
    return ", ".join(f"{k}={v}" for k, v in env.items())


def _expr_or_int(v, where):
    if isinstance(v, bool):
        raise SpecError(f"{where}: expected an integer or an expression, got {json.dumps(v)}")
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        return Expr(v, where)
    raise SpecError(f"{where}: expected an integer or an expression, got {json.dumps(v)}")


def _shape(v, where):
    if isinstance(v, (int, str)) and not isinstance(v, bool):
        v = [v] if isinstance(v, int) else [x.strip() for x in v.split(",")]
    if not isinstance(v, list) or not 1 <= len(v) <= 8:
        raise SpecError(f"{where}: a shape is 1 to 8 sizes, e.g. [4096], [64, 64] or \"n\"")
    return [_expr_or_int(x, f"{where}[{i}]") for i, x in enumerate(v)]


def _eval_shape(shape, env, where):
    out = []
    for s in shape:
        n = s.eval(env) if isinstance(s, Expr) else s
        if not isinstance(n, int) or n < 0:
            raise SpecError(f"{where}: size {n} at {_point_text(env)} is not a non-negative integer")
        out.append(n)
    return out


# ---- value lists ------------------------------------------------------------------------------------

def values(v, where):
    """A value list: [a, b, ...], one scalar, {"from", "to", "step"} (inclusive) or {"from", "to",
    "times"} (geometric, inclusive)."""
    if isinstance(v, list):
        if not v:
            raise SpecError(f"{where}: empty list: give at least one value")
        for i, x in enumerate(v):
            if not isinstance(x, (int, float, str)) or isinstance(x, bool):
                raise SpecError(f"{where}[{i}]: values are numbers or strings, got {json.dumps(x)}")
        if len(set(map(json.dumps, v))) != len(v):
            raise SpecError(f"{where}: a value is listed twice")
        return list(v)
    if isinstance(v, dict):
        extra = set(v) - {"from", "to", "step", "times"}
        if extra or "from" not in v or "to" not in v or ("step" in v) == ("times" in v):
            raise SpecError(f"{where}: a range is {{\"from\": A, \"to\": B, \"step\": S}} or "
                            "{\"from\": A, \"to\": B, \"times\": F} (integers, both ends included)")
        for k in v:
            if not isinstance(v[k], int) or isinstance(v[k], bool):
                raise SpecError(f"{where}.{k}: must be an integer, got {json.dumps(v[k])}")
        a, b = v["from"], v["to"]
        if "step" in v:
            s = v["step"]
            if s <= 0:
                raise SpecError(f"{where}.step: must be positive, got {s}")
            r = range(a, b + 1, s)
            if len(r) > 1_000_000:     # counted before it is built
                raise SpecError(f"{where}: {len(r)} values: at most 1000000")
            out = list(r)
        else:
            f = v["times"]
            if f < 2 or a <= 0:
                raise SpecError(f"{where}: a geometric range needs \"times\" >= 2 and \"from\" >= 1")
            out = []
            x = a
            while x <= b:
                out.append(x)
                x *= f
        if not out:
            raise SpecError(f"{where}: empty range: from {a} to {b} holds no value")
        if len(out) > 1_000_000:
            raise SpecError(f"{where}: {len(out)} values: at most 1000000")
        return out
    if isinstance(v, (int, float, str)) and not isinstance(v, bool):
        return [v]
    raise SpecError(f"{where}: give a list of values, one value or a range {{\"from\", \"to\", \"step\"}}")


def _fmt(v) -> str:
    """A parameter value as it appears in the CSV and in `key=value`."""
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return str(v)


# ---- the whole spec ---------------------------------------------------------------------------------

class Sweep:
    """A checked spec: `columns` (parameter names, in order), `points` (list of {name: value}),
    `blobs` (shared data), `job(i)` (what a worker needs for point i) and `digest` (what the
    results depend on besides the parameters: a CSV written for another digest is not resumed)."""

    def __init__(self, spec: dict, origin: str, base_dir: str | None = None):
        self.origin = origin
        base_dir = base_dir if base_dir is not None else os.path.dirname(os.path.abspath(origin))
        unknown = [k for k in spec if k not in TOP_KEYS]
        if unknown:
            raise SpecError(f"{origin}: unknown key '{unknown[0]}': a spec has {', '.join(TOP_KEYS)}")
        self.blobs = {}

        def where(k):
            return f"{origin}: {k}"

        def path_of(k, v):
            if not isinstance(v, str) or not v:
                raise SpecError(f"{where(k)}: expected a file path")
            return v if os.path.isabs(v) else os.path.join(base_dir, v)

        # the kernel: a .s assembled once here, or a .bin
        if "kernel" not in spec:
            raise SpecError(f"{where('kernel')}: missing: name the kernel (.s or .bin file)")
        kpath = path_of("kernel", spec["kernel"])
        target = spec.get("target")
        if target is not None and not isinstance(target, str):
            raise SpecError(f"{where('target')}: expected a profile name (ascend910b, ...)")
        if target is not None and "config" in spec:
            raise SpecError(f"{where('config')}: give target or config, not both")
        if not os.path.exists(kpath):
            raise SpecError(f"{where('kernel')}: {spec['kernel']}: no such file")
        try:
            if kpath.endswith(".s"):
                data = engine.assemble_file(kpath, target)
            else:
                with open(kpath, "rb") as f:
                    data = f.read()
            image = engine.Image(data, spec["kernel"])
        except engine.LibascError as e:
            raise SpecError(f"{where('kernel')}: {e}") from None
        self.image_key = _sha(data)
        self.blobs[self.image_key] = data
        kname = spec.get("kernel_name")
        if kname is not None and not isinstance(kname, str):
            raise SpecError(f"{where('kernel_name')}: expected a kernel name")
        info = image.kernel(kname)
        if info is None:
            raise SpecError(f"{where('kernel_name')}: no kernel '{kname}' in {spec['kernel']} "
                            f"(it has {', '.join(image.names())})")
        self.kernel_name, kargs = info
        self.kernel = kname
        karg = {a[0]: a for a in kargs}
        takes = ", ".join(karg) or "no arguments"

        # the base profile: config file, target, or the binary's target
        if "config" in spec:
            cpath = path_of("config", spec["config"])
            try:
                with open(cpath, encoding="utf-8") as f:
                    self.base = {"config_text": f.read(), "config_origin": spec["config"]}
            except OSError as e:
                raise SpecError(f"{where('config')}: {spec['config']}: {e.strerror}") from None
        else:
            bt = image.img.target.decode()
            if not (target or bt):
                # unreachable: asc_image_read validates the binary, and loader/validate.c refuses an
                # empty target name ("target name is empty")
                raise SpecError(f"internal: {where('kernel')}: the binary names no target")
            self.base = {"target": target or bt}

        sets = spec.get("set", {})
        if isinstance(sets, dict):
            self.fixed_sets = [f"{k}={_fmt(v)}" for k, v in sets.items()]
        elif isinstance(sets, list) and all(isinstance(x, str) for x in sets):
            self.fixed_sets = list(sets)
        else:
            raise SpecError(f"{where('set')}: expected {{\"key\": value}} or [\"key=value\", ...]")
        for i, s in enumerate(self.fixed_sets):
            d = engine.Diags()
            if engine.make_config(self.base, self.fixed_sets[:i + 1], d) is None:
                raise SpecError(f"{where('set')}: {s}: {d.text()}")

        mc = spec.get("max_cycles")
        if mc is None:
            mc = 0     # run to the profile's own limit (its max_cycles key)
        if not isinstance(mc, int) or isinstance(mc, bool) or mc < 0:
            raise SpecError(f"{where('max_cycles')}: a non-negative integer (0 = the profile's max_cycles key)")
        self.max_cycles = mc

        # swept names: profile keys, then kernel parameters
        self.axes = {}       # name -> values
        self.kind = {}       # name -> "profile" | "blocks" | "arg" | "free"
        prof = spec.get("profile", {})
        params = spec.get("params", {})
        for sect, tab in (("profile", prof), ("params", params)):
            if not isinstance(tab, dict):
                raise SpecError(f"{where(sect)}: expected an object of name: values")
        for k, v in prof.items():
            vals = values(v, where(f"profile.{k}"))
            for i, x in enumerate(vals):
                d = engine.Diags()
                if engine.make_config(self.base, self.fixed_sets + [f"{k}={_fmt(x)}"], d) is None:
                    at = f"profile.{k}[{i}]" if len(vals) > 1 else f"profile.{k}"
                    raise SpecError(f"{where(at)}: {k}={_fmt(x)}: {d.text()}")
            self.axes[k] = vals
            self.kind[k] = "profile"

        # arguments
        args = spec.get("args", {})
        if not isinstance(args, dict):
            raise SpecError(f"{where('args')}: expected an object of argument name: value")
        used = set()         # names in scalar expressions: parameters
        used_shape = set()   # names in shapes: parameters or int/float arguments
        self.args = []   # (name, how, payload)
        for name, v in args.items():
            at = f"args.{name}"
            if name not in karg:
                raise SpecError(f"{where(at)}: unknown kernel argument '{name}': kernel '{self.kernel_name}' "
                                f"takes {takes}")
            _, kind, dt, descr = karg[name]
            a = self._arg(name, kind, dt, descr, v, where(at), base_dir)
            self.args.append(a)
            if isinstance(a[2], dict):
                for s in a[2].get("shape", []):
                    if isinstance(s, Expr):
                        used_shape.update(s.names)
            elif isinstance(a[2], Expr):
                used.update(a[2].names)
        for k, v in params.items():
            at = f"params.{k}"
            if k in self.axes:
                raise SpecError(f"{where(at)}: '{k}' is swept twice (in profile and in params)")
            vals = values(v, where(at))
            if k == "blocks":
                for i, x in enumerate(vals):
                    if not isinstance(x, int) or isinstance(x, bool) or x < 1:
                        raise SpecError(f"{where(at)}[{i}]: blocks must be a positive integer, got {json.dumps(x)}")
                self.kind[k] = "blocks"
            elif k in karg:
                if karg[k][1] == "gm":
                    raise SpecError(f"{where(at)}: '{k}' is a gm argument: only int and float arguments, "
                                    "blocks and names used in args can be swept")
                self.kind[k] = "arg"
                if k not in args:
                    self.args.append((k, "value", Expr(k, where(at))))
                    used.add(k)
            elif k in used or k in used_shape:
                self.kind[k] = "free"
            else:
                raise SpecError(f"{where(at)}: unknown kernel argument '{k}': kernel '{self.kernel_name}' takes "
                                f"{takes} (and blocks); any other parameter must be used in an args expression")
            self.axes[k] = vals
        scalars = {a[0] for a in self.args if a[1] == "value"}
        for n in sorted(used | used_shape):
            if n not in self.axes and not (n in used_shape and n in scalars):
                raise SpecError(f"{where('args')}: '{n}' is used in an expression but is not a parameter "
                                "(give it in params)" + (" or an int argument" if n in used_shape else ""))
        missing = [n for n in karg if n not in {a[0] for a in self.args}]
        if missing:
            raise SpecError(f"{where('args')}: kernel '{self.kernel_name}' takes {takes}: argument "
                            f"'{missing[0]}' is missing (give it in args, or sweep it in params)")
        self.args.sort(key=lambda a: list(karg).index(a[0]))
        self._kdtype = {n: a[2] for n, a in karg.items()}

        # points: the product of the axes, zip groups varying together
        self.columns = list(self.axes)
        groups = self._zip(spec.get("zip", []), where("zip"))
        axes = []
        seen = set()
        for k in self.columns:
            if k in seen:
                continue
            g = next((g for g in groups if k in g), [k])
            seen.update(g)
            axes.append([dict(zip(g, t)) for t in zip(*(self.axes[n] for n in g))])
        # the count first: a product of long axes must not be built to be refused (57 M points
        # took 11 GB before the check)
        count = 1
        for a in axes:
            count *= len(a)
        if count > 10_000_000:
            raise SpecError(f"{origin}: {count} points: at most 10000000")
        self.points = []
        for combo in itertools.product(*axes) if axes else [()]:
            p = {}
            for part in combo:
                p.update(part)
            self.points.append({k: p[k] for k in self.columns})
        self._inputs = {}
        self.digest = _sha(json.dumps({"image": self.image_key, "kernel": self.kernel, "base": self.base,
                                       "set": self.fixed_sets, "max_cycles": self.max_cycles,
                                       "args": [(n, h, repr(p) if not isinstance(p, dict) else
                                                 {k: repr(x) for k, x in p.items()}) for n, h, p in self.args],
                                       "columns": self.columns}, sort_keys=True).encode())[:16]

    def _zip(self, z, where):
        if not isinstance(z, list) or not all(isinstance(g, list) for g in z):
            raise SpecError(f"{where}: expected a list of name lists, e.g. [[\"n\", \"blocks\"]]")
        seen = set()
        for i, g in enumerate(z):
            if len(g) < 2:
                raise SpecError(f"{where}[{i}]: a zip group names at least two swept keys")
            for n in g:
                if n not in self.axes:
                    raise SpecError(f"{where}[{i}]: '{n}' is not swept (not in profile or params)")
                if n in seen:
                    raise SpecError(f"{where}[{i}]: '{n}' is in two zip groups")
                seen.add(n)
            lens = {n: len(self.axes[n]) for n in g}
            if len(set(lens.values())) != 1:
                raise SpecError(f"{where}[{i}]: zipped keys need as many values each: " +
                                ", ".join(f"{n} has {c}" for n, c in lens.items()))
        return z

    def _arg(self, name, kind, dt, descr, v, where, base_dir):
        if kind != "gm":
            if isinstance(v, str) and (v.endswith(".npy") or v.startswith("@")):
                raise SpecError(f"{where}: '{name}' is {'an' if kind == 'int' else 'a'} {kind} argument: give a "
                                "number or an expression, not a file")
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return (name, "value", v)
            if isinstance(v, str):
                return (name, "value", Expr(v, where))
            raise SpecError(f"{where}: '{name}' is {'an' if kind == 'int' else 'a'} {kind} argument: give a number "
                            "or an expression")
        if isinstance(v, str) and v.startswith("@"):
            body = v[1:]
            shape, _, odt = body.rpartition(":") if ":" in body else (body, "", "")
            if odt and odt != dt:
                raise SpecError(f"{where}: output declared {odt} but argument '{name}' is {dt}")
            return (name, "out", {"shape": _shape(shape, where)})
        if isinstance(v, str):
            p = v if os.path.isabs(v) else os.path.join(base_dir, v)
            try:
                with open(p, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise SpecError(f"{where}: {v}: {e.strerror}") from None
            key = _sha(data)
            self.blobs[key] = data
            return (name, "in", key)
        if isinstance(v, dict):
            extra = [k for k in v if k not in ARG_KEYS]
            if extra:
                raise SpecError(f"{where}: unknown key '{extra[0]}': a generated input has "
                                f"{', '.join(ARG_KEYS)}")
            if "shape" not in v:
                raise SpecError(f"{where}: a generated input needs a shape")
            if ("fill" in v) == ("seed" in v):
                raise SpecError(f"{where}: give \"seed\" (uniform random values in [low, high)) or \"fill\" "
                                "(one value everywhere)")
            g = {"shape": _shape(v["shape"], where + ".shape"), "dtype": dt, "descr": descr}
            for k in ("seed", "low", "high", "fill"):
                if k in v:
                    x = v[k]
                    if not isinstance(x, (int, float)) or isinstance(x, bool) or (k == "seed" and
                                                                                   not isinstance(x, int)):
                        raise SpecError(f"{where}.{k}: must be a number" + (" (an integer)" if k == "seed" else ""))
                    g[k] = x
            if "seed" in g:
                g.setdefault("low", -1.0)
                g.setdefault("high", 1.0)
                if not g["low"] < g["high"]:
                    raise SpecError(f"{where}: low must be below high")
            return (name, "gen", g)
        raise SpecError(f"{where}: '{name}' is a gm pointer to {dt}: give a .npy path, a generated input "
                        "{\"seed\": S, \"shape\": [...]} or an output \"@SHAPE\"")

    def _generate(self, g, shape):
        key = (tuple(shape), g["descr"], g["dtype"], g.get("seed"), g.get("low"), g.get("high"), g.get("fill"))
        k = self._inputs.get(key)
        if k is not None:
            return k
        dt = g["dtype"]
        if "fill" in g:
            a = np.full(shape, g["fill"], dtype=np.float32 if dt == "bf16" else np.dtype(g["descr"]))
        else:
            rng = np.random.default_rng(g["seed"])
            if dt.startswith(("s", "u")):
                a = rng.integers(int(np.ceil(g["low"])), int(np.ceil(g["high"])), size=shape).astype(g["descr"])
            else:
                a = rng.uniform(g["low"], g["high"], size=shape).astype(np.float32)
        if dt == "bf16":   # the upper half of f32, truncated (bf16 travels as '<u2')
            a = (np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)
        else:
            a = a.astype(g["descr"])
        buf = io.BytesIO()
        np.save(buf, a, allow_pickle=False)
        data = buf.getvalue()
        k = _sha(data)
        self.blobs[k] = data
        self._inputs[key] = k
        return k

    def job(self, i: int) -> dict:
        p = self.points[i]
        env = {k: v for k, v in p.items()}
        sets = list(self.fixed_sets) + [f"{k}={_fmt(v)}" for k, v in p.items() if self.kind[k] == "profile"]
        scalar = {}
        for name, how, x in self.args:
            if how == "value":
                scalar[name] = x.eval(env) if isinstance(x, Expr) else x
        env = {**scalar, **env}
        args = []
        for name, how, x in self.args:
            at = f"{self.origin}: args.{name}"
            if how == "value":
                args.append((name, "value", _fmt(scalar[name])))
            elif how == "in":
                args.append((name, "in", x))
            elif how == "gen":
                args.append((name, "in", self._generate(x, _eval_shape(x["shape"], env, at))))
            else:
                shape = _eval_shape(x["shape"], env, at)
                args.append((name, "out", ",".join(map(str, shape)) + ":" + self._kdtype[name]))
        return {"index": i, "image": self.image_key, "kernel": self.kernel, "base": self.base, "sets": sets,
                "blocks": p.get("blocks", 1), "max_cycles": self.max_cycles, "args": args}

    def row_params(self, i: int) -> dict:
        return {k: _fmt(v) for k, v in self.points[i].items()}

    def check(self, indices):
        """Bind every point of `indices` through libasc without running it: a profile, kernel or
        argument libasc rejects is a SpecError naming the point."""
        cache = {}
        for i in indices:
            j = self.job(i)
            key = json.dumps([j["sets"], j["blocks"], j["args"]])
            if key in cache:
                continue
            r = engine.run_point(self.blobs, j, simulate=False)
            cache[key] = r
            if r["status"] != "ok":
                raise SpecError(f"{self.origin}: point {i} ({_point_text(self.row_params(i)) or 'the only point'}): "
                                f"{r['error']}")


def load(path: str) -> Sweep:
    return Sweep(read(path), path)
