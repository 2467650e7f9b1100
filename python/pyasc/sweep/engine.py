"""One point of a sweep: one simulation through libasc, in this process, and its flattened report.

Users: pyasc.sweep.run (the local process pool and Dask workers call `run_point`).
A job is plain data (strings, ints, bytes keys) so it pickles to any worker; everything a point
needs that is shared by many points (the kernel binary, input .npy files) travels once, as
`blobs` {sha256 hex: bytes}, and each worker process keeps what it decoded (the AscImage, the
input files written to a private temp dir) for the points that follow.

Binding, checking and running go through libasc's public API exactly as asc-sim run does
(sim/asc_sim_main.c): asc_config_builtin/parse + asc_config_set per override + asc_config_check,
asc_sim_new, asc_run_arg_parse + asc_sim_bind_args, asc_sim_run, asc_sim_report_json; so every
message about a bad key, value or argument is libasc's own.  The bindings below are new ones:
pyasc._libasc declares the rest.
"""
from __future__ import annotations

import atexit
import ctypes as C
import json
import os
import shutil
import tempfile

from .. import _libasc as L

# ---- new bindings (include/asc/config.h, include/asc/sim.h, include/asc/asm.h) -------------------


class AscRunArg(C.Structure):   # include/asc/sim.h
    _fields_ = [("name", C.c_char * L.ASC_NAME_MAX), ("how", C.c_int), ("path", C.c_char * 512),
                ("shape", C.c_uint64 * 8), ("ndim", C.c_uint32), ("dtype", C.c_uint8), ("value", C.c_char * 64)]


_bound = None


def lib():
    """libasc with the sweep's extra declarations (cached)."""
    global _bound
    lb = L.lib()
    if _bound is lb:
        return lb
    P = C.c_void_p
    D = C.POINTER(L.AscDiags)
    sig = {
        "asc_config_parse": (C.c_bool, [P, C.c_char_p, C.c_char_p, C.c_size_t, D]),
        "asc_config_check": (C.c_bool, [P, D]),
        "asc_asm_file": (C.c_bool, [P, C.c_char_p, C.POINTER(L.AscImage)]),
        "asc_image_kernel": (C.POINTER(L.AscKernelInfo), [C.POINTER(L.AscImage), C.c_char_p]),
        "asc_run_arg_parse": (C.c_bool, [C.POINTER(AscRunArg), C.c_char_p, D]),
        "asc_sim_bind_args": (C.c_bool, [P, C.POINTER(AscRunArg), C.c_uint32, D]),
        "asc_sim_status_format": (C.c_int, [P, C.c_int, C.c_uint64, C.c_char_p, C.c_size_t]),
        "asc_npy_descr": (C.c_char_p, [C.c_uint]),
        "asc_arg_kind_name": (C.c_char_p, [C.c_uint]),
        "asc_dtype_name": (C.c_char_p, [C.c_uint]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lb, name)
        f.restype, f.argtypes = res, args
    _bound = lb
    return lb


class Diags:
    """An AscDiags for one call sequence; `text()` joins its messages as libasc wrote them."""

    def __init__(self):
        self.d = L.AscDiags()
        lib().asc_diags_init(C.byref(self.d), None)

    def ref(self):
        return C.byref(self.d)

    def messages(self):
        return [m[4] for m in L.diag_messages(self.d)]

    def text(self):
        out = []
        for f, line, col, sev, msg in L.diag_messages(self.d):
            where = f"{f}:{line}:{col}: " if f and line else (f"{f}: " if f else "")
            out.append(where + msg)
        return "; ".join(out)

    def __del__(self):
        try:
            lib().asc_diags_free(C.byref(self.d))
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass


class LibascError(Exception):
    """A libasc call failed; the message is libasc's diagnostics."""


# ---- kernel images ---------------------------------------------------------------------------------

def assemble_file(path: str, target) -> bytes:
    """Assemble a .s file (with its .include files) for `target` (None: libasc's default target);
    the ELF kernel binary's bytes."""
    lb = lib()
    img = L.AscImage()
    lb.asc_image_init(C.byref(img), None)
    desc = L.AscAsmDesc()
    desc.target = target.encode() if target else None
    asm = lb.asc_asm_new(C.byref(desc))
    if not asm:
        raise MemoryError("asc_asm_new failed")
    try:
        if not lb.asc_asm_file(asm, path.encode(), C.byref(img)):
            msgs = L.diag_messages(lb.asc_asm_diags(asm).contents)
            raise LibascError("\n".join(f"{f}:{ln}:{col}: {sev}: {m}" if f else f"{sev}: {m}"
                                        for f, ln, col, sev, m in msgs[:10]) or f"{path}: cannot assemble")
        return _image_bytes(img)
    finally:
        lb.asc_asm_free(asm)
        lb.asc_image_free(C.byref(img))


def _image_bytes(img) -> bytes:
    lb = lib()
    buf = C.POINTER(C.c_uint8)()
    n = C.c_size_t()
    d = Diags()
    if not lb.asc_image_write(C.byref(img), C.byref(buf), C.byref(n), d.ref()):
        raise LibascError(d.text())
    data = C.string_at(buf, n.value)
    lb._free(buf)
    return data


class Image:
    """A kernel binary read back into an AscImage (kept alive while sims borrow it)."""

    def __init__(self, data: bytes, origin: str):
        lb = lib()
        self.img = L.AscImage()
        lb.asc_image_init(C.byref(self.img), None)
        self._data = data
        d = Diags()
        if not lb.asc_image_read(C.byref(self.img), data, len(data), d.ref()):
            lb.asc_image_free(C.byref(self.img))
            raise LibascError(f"{origin}: " + d.text())
        self._alive = True

    def kernel(self, name):
        """(name, [(arg name, kind name, dtype name, npy descr)]) of kernel `name` (None: the first), or
        None; dtype and descr are None for int and float arguments."""
        lb = lib()
        k = lb.asc_image_kernel(C.byref(self.img), name.encode() if name else None)
        if not k:
            return None
        k = k.contents
        args = []
        for i in range(k.nargs):
            a = k.args[i]
            kind = lb.asc_arg_kind_name(a.kind).decode()
            descr = lb.asc_npy_descr(a.dtype) if kind == "gm" else None
            dt = lb.asc_dtype_name(a.dtype) if kind == "gm" else None
            args.append((a.name.decode(), kind, dt.decode() if dt else None, descr.decode() if descr else None))
        return k.name.decode(), args

    def names(self):
        return [self.img.kernels[i].name.decode() for i in range(self.img.nkernels)]

    def __del__(self):
        if getattr(self, "_alive", False):
            try:
                lib().asc_image_free(C.byref(self.img))
            except Exception:  # noqa: BLE001
                pass


# ---- profiles ---------------------------------------------------------------------------------------

def make_config(base: dict, sets, d: Diags):
    """The resolved profile (a ConfigBuf) or None with the reason in d: the built-in target or the
    profile text, then every "key=value" in order, then the cross-key checks (asc_config_load's
    order, sim/config.c)."""
    lb = lib()
    cfg = L.config_buf()
    p = C.cast(cfg, C.c_void_p)
    if base.get("config_text") is not None:
        t = base["config_text"].encode()
        if not lb.asc_config_parse(p, base["config_origin"].encode(), t, len(t), d.ref()):
            return None
    elif not lb.asc_config_named(p, base["target"].encode(), d.ref()):  # or $ASC_CONFIG_DIR/<name>.json
        return None
    for s in sets:
        if not lb.asc_config_set(p, s.encode(), d.ref()):
            return None
    if not lb.asc_config_check(p, d.ref()):
        return None
    return cfg


# ---- one point --------------------------------------------------------------------------------------

class _Worker:
    """Per-process state: decoded images and input files, reused by the points that follow."""

    def __init__(self):
        self.images = {}
        self.files = {}
        self.dir = None

    def image(self, key, blobs):
        im = self.images.get(key)
        if im is None:
            im = self.images[key] = Image(blobs[key], "kernel")
        return im

    def file(self, key, blobs):
        p = self.files.get(key)
        if p is None:
            if self.dir is None:
                self.dir = tempfile.mkdtemp(prefix="asc-sweep-")
                atexit.register(shutil.rmtree, self.dir, True)
            p = os.path.join(self.dir, key + ".npy")
            with open(p + ".tmp", "wb") as f:
                f.write(blobs[key])
            os.replace(p + ".tmp", p)
            self.files[key] = p
        return p


_W = _Worker()
SIMULATIONS = [0]   # simulations run by this process (tests count them)


def run_point(blobs: dict, job: dict, simulate: bool = True) -> dict:
    """Simulate one point.  job: {"index", "image" (blob key), "kernel" (name or None), "base"
    (make_config's), "sets" ["key=value"...], "blocks", "max_cycles", "args" [(name, how, text)]
    with how "in" (text = blob key), "out" (text = "SHAPE:DTYPE") or "value"}.
    Returns {"index", "status" ("ok" | "error" | "fault" | "limit"), "error" (text), "figures"
    {column: text}}: the figures only for a finished run.  simulate=False stops after binding the
    arguments (status "ok" when libasc accepted profile, kernel and arguments)."""
    lb = lib()
    out = {"index": job["index"], "status": "error", "error": "", "figures": {}}
    d = Diags()
    cfg = make_config(job["base"], job["sets"], d)
    if cfg is None:
        out["error"] = d.text()
        return out
    img = _W.image(job["image"], blobs)
    desc = L.AscSimDesc()
    desc.cfg = C.cast(cfg, C.c_void_p)
    desc.image = C.pointer(img.img)
    desc.kernel = job["kernel"].encode() if job["kernel"] else None
    desc.blocks = job["blocks"]
    # the critical-path recorder, as asc-sim run has it: the bound comes from the path
    ex = L.explain_attach(lb, desc)
    sim = lb.asc_sim_new(C.byref(desc), d.ref())
    if not sim:
        lb.asc_explain_free(ex)
        out["error"] = d.text() or "asc_sim_new failed"
        return out
    try:
        args = (AscRunArg * max(1, len(job["args"])))()
        for i, (name, how, text) in enumerate(job["args"]):
            if how == "in":
                spec = f"{name}={_W.file(text, blobs)}"
            elif how == "out":
                spec = f"{name}=@{name}.npy:{text}"     # never written: the sweep reads no outputs
            else:
                spec = f"{name}={text}"
            if not lb.asc_run_arg_parse(C.byref(args[i]), spec.encode(), d.ref()):
                out["error"] = d.text()
                return out
        if not lb.asc_sim_bind_args(sim, args, len(job["args"]), d.ref()):
            out["error"] = d.text()
            return out
        if not simulate:
            out["status"] = "ok"
            return out
        SIMULATIONS[0] += 1
        st = lb.asc_sim_run(sim, job["max_cycles"])
        if st != L.ASC_SIM_DONE:
            buf = C.create_string_buffer(1 << 14)
            lb.asc_sim_status_format(sim, st, job["max_cycles"], buf, len(buf))
            out["status"] = "fault" if st == L.ASC_SIM_FAULT else "limit"
            out["error"] = buf.value.decode(errors="replace").strip().replace("\n", " | ")
            return out
        L.explain_analyse(lb, ex, sim)
        rep = L.take_string(lb.asc_report_json(sim, ex))
        if not rep:
            raise MemoryError("asc_report_json: out of memory")
        out["figures"] = flatten(json.loads(rep, parse_float=str, parse_int=str))
        out["status"] = "ok"
        return out
    finally:
        lb.asc_sim_free(sim)
        lb.asc_explain_free(ex)


def run_points(blobs: dict, jobs: list) -> list:
    return [run_point(blobs, j) for j in jobs]


# ---- the report as one row --------------------------------------------------------------------------

def _text(v) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v)     # true / false / null


def flatten(rep: dict) -> dict:
    """The report JSON (numbers kept as the text libasc printed) as {column: text}.
    Objects nest with '.'; `per_core` becomes one column per pipe and counter summed over the cores
    that have the pipe (`pipes.MTE2.busy_cycles`; percentages are dropped: busy / total_cycles
    gives them); `stalls.flag_waits` becomes `stalls.flag_waits.SRC->DST#ID`; other lists of
    objects are numbered (`races.0.kind`), lists of scalars are joined with ' '."""
    out = {}

    def walk(prefix, v):
        if isinstance(v, dict):
            for k, x in v.items():
                walk(f"{prefix}.{k}" if prefix else k, x)
        elif isinstance(v, list):
            if prefix == "per_core":
                pipes(v)
            elif prefix == "stalls.flag_waits":
                for w in v:
                    out[f"{prefix}.{w['src']}->{w['dst']}#{w['id']}"] = _text(w["cycles"])
            elif all(not isinstance(x, (dict, list)) for x in v):
                out[prefix] = " ".join(_text(x) for x in v)
            else:
                for i, x in enumerate(v):
                    walk(f"{prefix}.{i}", x)
        else:
            out[prefix] = _text(v)

    def pipes(cores):
        sums = {}
        for c in cores:
            for lane, st in c.get("pipes", {}).items():
                for k, x in st.items():
                    if k.endswith("_pct") or not isinstance(x, str) or not x.isdigit():
                        continue
                    key = f"pipes.{lane}.{k}"
                    sums[key] = sums.get(key, 0) + int(x)
        for k, x in sums.items():
            out[k] = str(x)

    walk("", rep)
    return out
