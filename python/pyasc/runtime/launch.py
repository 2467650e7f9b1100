"""Run a compiled kernel on the simulator through libasc (ctypes).

Users: runtime.jit (kernel[n](...)), the CLI (`pyasc compile` uses `assemble`).
Steps: assemble the text into an AscImage (kept per assembly text), resolve the target profile,
create the simulator for `blocks` cores, place each array in GM and set the argument registers,
run, map a fault's pc to the Python line through the image's .asc.lines table, copy back in place
every array whose GM the kernel wrote (asc_sim_gm_written, by 64 KiB page; an array it never wrote
still holds its bytes), and return a LaunchResult with cycles, microseconds and the summary report.
With check_races=True the simulator checks that every two accesses of a local buffer by different
pipes are ordered by synchronisation (docs/timing.md "Races"); races raise KernelRace naming both
Python lines, and the arrays are not copied back (their numbers cannot be trusted on hardware).
"""
from __future__ import annotations

import ctypes as C
import struct
import sys
import warnings

import numpy as np

from .. import _libasc as L
from .. import abi
from ..compiler.errors import CompileError, KernelFault, LaunchError, _excerpt
from ..compiler import targets
from . import tensor_list
from ..compiler.ir import Loc


# Launch recorders (pyasc.script.native): each gets (compiled, image, blocks, plan) before the run,
# plan being one (kind, value) per argument: ("stack", bytes), ("gm", array), ("float", bits), ("int", v).
RECORDERS: list = []



def _python_loc(lines, ln):
    """The Python file:line:col of assembly line `ln` (1-based): the last `.loc` before it."""
    import re as _re
    for k in range(min(ln, len(lines)) - 1, -1, -1):
        m = _re.match(r'\s*\.loc\s+"((?:[^"\\]|\\.)*)",\s*(\d+)(?:,\s*(\d+))?', lines[k])
        if m:
            return Loc(m[1], int(m[2]), int(m[3] or 1))
    return None


class KernelRace(KernelFault):
    """check_races=True found accesses to a local buffer by two pipes that no set_flag/wait_flag
    pair or barrier orders.  `races` lists each distinct race (at most 16) as a dict: kind (RAW,
    WAR, WAW), buf, lo, hi, pipe, prev_pipe, pc, prev_pc, where and prev_where ((file, line, col)
    of the later and the earlier access, or None), count, text (the simulator's message, with the
    cycles of this run); `total` counts every occurrence.  str() reads like a compiler error:

        k.py:31:9: error: race (RAW): VECTOR reads UB [0x0, 0x400) written by MTE2 at k.py:27: ...
            asc.add(zs, xs, ys, n)
            ^
          k.py:27:9: note: the earlier access, in another pipe
            asc.data_copy(xs, xg, n)
            ^
    """

    def __init__(self, races, total, report=None):
        self.races, self.total = races, total
        first = races[0] if races else None
        w = first["where"] if first else None
        super().__init__(_headline(first) if first else f"{total} races", *(w or (None, 0, 0)), report=report)
        extra = _notes(first) if first else []
        for r in races[1:]:
            w = r["where"]
            extra.append((f"{w[0]}:{w[1]}:{w[2]}: error: " if w else "error: ") + _headline(r) +
                         (_excerpt(*w) if w else ""))
            extra += _notes(r)
        more = total - sum(r["count"] for r in races)
        if more > 0:
            extra.append(f"... and {more} more occurrences of other races (the first 16 distinct are listed)")
        self.args = (self.args[0] + "".join("\n" + x for x in extra),)


def _sys_workspace_bytes(target):
    from ..language import sys_workspace   # not at start-up: it needs the kernel language (lazy imports)
    return sys_workspace.sys_workspace_bytes(targets.load(target))


def _spill_frame_bytes():
    from ..compiler import regalloc   # not at start-up: a cache hit needs only this constant
    return regalloc.SPILL_FRAME_BYTES


def _headline(r):
    verb = "reads" if r["kind"] == "RAW" else "writes"
    pverb = "read" if r["kind"] == "WAR" else "written"
    pw = r["prev_where"]
    at = f" at {pw[0]}:{pw[1]}" if pw else f" (pc {r['prev_pc']:#06x})"
    times = f" ({r['count']} times)" if r["count"] > 1 else ""
    return (f"race ({r['kind']}): {r['pipe']} {verb} {r['buf']} [{r['lo']:#x}, {r['hi']:#x}) {pverb} by "
            f"{r['prev_pipe']}{at}: no flag or barrier orders them{times}")


def _notes(r):
    pw = r["prev_where"]
    out = []
    if pw:
        out.append(f"  {pw[0]}:{pw[1]}:{pw[2]}: note: the earlier access, in another pipe" +
                   _excerpt(*pw).replace("\n", "\n  "))
    out.append(f"  simulator: {r['text']}")
    return out


_LANES = abi.LANES     # AscPipe -> lane name (abi.json "lanes")


def _races(lib, sim, img):
    """(races, total) of a finished run, each race a dict (see KernelRace)."""
    ptr = C.POINTER(L.AscSimRace)()
    n = C.c_uint32()
    total = lib.asc_sim_races(sim, C.byref(ptr), C.byref(n))
    out = []
    buf = C.create_string_buffer(2048)
    for i in range(n.value):
        r = ptr[i]
        lib.asc_sim_race_format(sim, C.byref(r), buf, len(buf))
        out.append({"kind": L.ASC_RACE_KINDS[r.kind] if r.kind < 3 else "?",
                    "buf": L.ASC_BUF_NAMES[r.buf] if r.buf < len(L.ASC_BUF_NAMES) else "?",
                    "lo": r.lo, "hi": r.hi, "pipe": _LANES.get(r.pipe, "?"), "prev_pipe": _LANES.get(r.prev_pipe, "?"),
                    "pc": r.pc, "prev_pc": r.prev_pc, "where": img.line_at(r.pc), "prev_where": img.line_at(r.prev_pc),
                    "count": r.count, "text": buf.value.decode(errors="replace")})
    return out, total


_NOTE_TEXT = {   # AscNoteKind enumerator (include/asc/isa.h, via abi.json) -> what the card did
    "TRUNC": "data_copy moved {b} of {a} bytes per burst: Ascend C DataCopy rounds count * sizeof down to "
             "32 bytes and drops the rest without an error on the card (use asc.data_copy_pad for the tail)",
    "PAD": "data_copy_pad padded a burst of {a} bytes to {b} bytes in UB (dummy bytes after the data)",
    "CMPMASK": "compare ignored a mask of {a} of {b} lanes: Ascend C Compare / CompareScalar on dav_c220 takes no "
               "mask and compares every lane of each repeat",
    "RDOWN": "data_copy moved {b} bytes: its run-time count * sizeof was not a multiple of 32, and Ascend C "
             "DataCopy rounds it down to 32 bytes and drops the last 1..31 bytes without an error on the card",
    "CMPCOUNT": "compare compared {b} of {a} elements: Ascend C Compare / CompareScalar with a count runs "
                "count * sizeof / 256 whole repeats on dav_c220; the tail's bits are left as they were",
    "GMREAD": "GM read of {a} bytes at {b:#x} runs outside the argument it starts in (or lies in none): the card "
              "reads whatever is there; an argument shorter than the kernel's count? (sanitize='memcheck' names "
              "the argument and the byte range)",
}
_NOTE_NAME = {v: k for k, v in abi.ENUMS["AscNoteKind"].items()}   # value -> enumerator name


_NOTE_LOSSY = ("TRUNC", "RDOWN", "CMPMASK", "CMPCOUNT", "GMREAD")   # the card drops data or lanes: a RuntimeWarning too


def _notes_of(lib, sim, img, lossy=None):
    """The run's notes (sim asc_sim_note_get) as 'file:line:col: warning: ...' lines; those of a
    kind that loses data are also appended to `lossy` (a PAD note is data_copy_pad doing its job)."""
    out = []
    buf = (C.c_uint64 * 6)()
    i = 0
    while lib.asc_sim_note_get(sim, i, buf):
        core, pc, kind, count, a, b = list(buf)
        w = img.line_at(pc)
        where = f"{w[0]}:{w[1]}:{w[2]}: " if w else f"pc {pc:#06x}: "
        text = _NOTE_TEXT.get(_NOTE_NAME.get(kind, ""), "note {kind}: {a} {b}").format(a=a, b=b, kind=kind)
        times = f", {count} times" if count > 1 else ""
        out.append(f"{where}warning: {text} (first on core {core}{times})")
        if lossy is not None and _NOTE_NAME.get(kind) in _NOTE_LOSSY:
            lossy.append(out[-1])
        i += 1
    return out


def _prints_of(lib, sim, img):
    """What the kernel printed (asc.printf, asc.dump_tensor; sim asc_sim_print_get): a list of
    (core, 'file:line', text) in program order per core, and the number of records the print log
    could not keep.  pyasc writes them to stdout as '[core N] file:line: text', as asc-sim does."""
    out = []
    dropped = C.c_uint64(0)
    n = lib.asc_sim_prints(sim, C.byref(dropped))
    core, pc, text = C.c_uint32(), C.c_uint32(), C.c_char_p()
    for i in range(n):
        if not lib.asc_sim_print_get(sim, i, C.byref(core), C.byref(pc), C.byref(text)):
            break
        w = img.line_at(pc.value)
        where = f"{w[0]}:{w[1]}" if w else f"pc {pc.value:#06x}"
        out.append((core.value, where, text.value.decode(errors="replace")))
    return out, dropped.value


def _show_prints(prints, dropped):
    for core, where, text in prints:
        sys.stdout.write(f"[core {core}] {where}: {text}\n")
    if dropped:
        sys.stdout.write(f"pyasc: {dropped} device print record(s) did not fit in the print log\n")
    sys.stdout.flush()


class Image:
    """An assembled kernel image (owns the C AscImage)."""

    def __init__(self, asm_text: str, name: str, target: str):
        lib = L.lib()
        self.img = L.AscImage()
        lib.asc_image_init(C.byref(self.img), None)
        desc = L.AscAsmDesc()
        desc.target = target.encode()
        asm = lib.asc_asm_new(C.byref(desc))
        if not asm:
            raise MemoryError("asc_asm_new failed")
        try:
            text = asm_text.encode()
            ok = lib.asc_asm_string(asm, (name + ".s").encode(), text, len(text), C.byref(self.img))
            if not ok:
                msgs = L.diag_messages(lib.asc_asm_diags(asm).contents)
                lines = asm_text.splitlines()
                detail = []
                where = None
                for f, ln, col, sev, msg in msgs[:10]:
                    src = lines[ln - 1].strip() if 0 < ln <= len(lines) else ""
                    detail.append(f"{f}:{ln}:{col}: {sev}: {msg}\n    {src}")
                    if where is None and sev == "error":
                        where = _python_loc(lines, ln)
                # the first error at the Python line that generated it (the .loc before it): a value
                # the frontend let through (an enum of the wrong kind, say) fails the ISA's rules
                raise CompileError("internal compiler error: the assembler rejected the code generated here (the compiler should have "
                                   "refused it: please report it):\n" + "\n".join(detail), where)
        finally:
            lib.asc_asm_free(asm)
        self._alive = True

    def write_bytes(self) -> bytes:
        lib = L.lib()
        buf = C.POINTER(C.c_uint8)()
        n = C.c_size_t()
        d = L.AscDiags()
        lib.asc_diags_init(C.byref(d), None)
        try:
            if not lib.asc_image_write(C.byref(self.img), C.byref(buf), C.byref(n), C.byref(d)):
                # the image is the assembler's, validated there: only a compiler bug (or libasc out of
                # memory) fails here
                raise CompileError("internal: could not serialise the kernel binary: " +
                                   "; ".join(m[4] for m in L.diag_messages(d)))
            data = C.string_at(buf, n.value)
            lib._free(buf)
            return data
        finally:
            lib.asc_diags_free(C.byref(d))

    def write_file(self, path: str):
        from .. import _outfile
        _outfile.write(path, self.write_bytes())

    def line_at(self, pc):
        e = L.lib().asc_image_line_at(C.byref(self.img), pc)
        if not e:
            return None
        e = e.contents
        f = self.img.files[e.file].decode() if e.file < self.img.nfiles else None
        return f, e.line, e.col

    def __del__(self):
        if getattr(self, "_alive", False):
            try:
                L.lib().asc_image_free(C.byref(self.img))
            except Exception:
                pass


_IMAGES = {}


def assemble(c) -> Image:
    key = (c.asm, c.target)
    img = _IMAGES.get(key)
    if img is None:
        img = _IMAGES[key] = Image(c.asm, c.name, c.target)
    return img


def _to_numpy(v):
    if isinstance(v, np.ndarray):
        return v, None
    if type(v).__module__.startswith("torch"):
        t = v.detach()
        if t.device.type != "cpu":
            raise LaunchError(f"only CPU torch tensors can be passed to the simulator, got one on "
                              f"'{t.device.type}': pass t.cpu()")
        return t.numpy(), v
    return None, None


# Cycles per asc_sim_run call: the library runs a slice, returns, and Python gets a chance to
# deliver a pending SIGINT as KeyboardInterrupt (the library installs no signal handler).  Slicing
# changes nothing in the result (asc_sim_run resumes exactly where it stopped; sim.h).
SLICE_CYCLES = 1 << 22


def _run_sliced(lib, sim, cfg, max_cycles, d):
    """asc_sim_run in slices up to max_cycles (0: the profile's max_cycles key)."""
    if (isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or max_cycles < 0
            or max_cycles >= 1 << 64):   # a float or str reached ctypes (ArgumentError) or '<' (TypeError)
        raise LaunchError(f"max_cycles={max_cycles!r}: an integer in [0, 2**64) (0 = the profile's limit)")
    max_cycles = int(max_cycles)
    limit = max_cycles
    if not limit:
        v = C.c_int64()
        if not lib.asc_config_get(C.cast(cfg, C.c_void_p), b"max_cycles", C.byref(v), C.byref(d)):
            # unreachable: max_cycles is a key of target/asc_config.def, so every profile has it
            raise LaunchError("internal: the profile has no max_cycles key")
        limit = v.value
    t = 0
    while True:
        t = min(limit, t + SLICE_CYCLES)
        st = lib.asc_sim_run(sim, t)
        if st != L.ASC_SIM_LIMIT or t >= limit:
            return st


class KernelSanitizerError(KernelFault):
    """sanitize="memcheck,initcheck,..." found errors (docs/timing.md "Sanitizers"): `findings` lists
    the simulator's messages (per check a count line, then the first occurrences in full, each
    naming unit, instruction, source line, byte range and argument); `warnings` the synccheck ones.
    The arrays are not copied back."""

    def __init__(self, findings, warnings=(), report=None):
        self.findings, self.warnings = list(findings), list(warnings)
        super().__init__("\n".join(self.findings), report=report)


def _sanitize_bits(lib, sanitize):
    if not sanitize:
        return 0
    if not isinstance(sanitize, str):
        sanitize = ",".join(sanitize)
    bits, err = C.c_uint8(), C.create_string_buffer(256)
    if not lib.asc_sim_sanitize_parse(sanitize.encode(), C.byref(bits), err, len(err)):
        raise LaunchError(err.value.decode(errors="replace").replace("--sanitize", "sanitize"))
    return bits.value


def _san_findings(lib, sim):
    """(errors, warnings): the simulator's sanitizer messages."""
    d = L.AscDiags()
    lib.asc_diags_init(C.byref(d), None)
    try:
        lib.asc_sim_san_diag(sim, C.byref(d))
        msgs = L.diag_messages(d)
    finally:
        lib.asc_diags_free(C.byref(d))
    return [m[4] for m in msgs if m[3] == "error"], [m[4] for m in msgs if m[3] == "warning"]


def _mix_sets(c) -> tuple:
    return ("aiv_per_core=1",) if c.kernel_kind == "mix" and getattr(c, "aivs", 0) == 1 else ()


def _aivs(c) -> int:
    return 1 if _mix_sets(c) else targets.load(c.target)["aiv_per_core"]


def _record(c, img, blocks, values):
    plan, vals = [], iter(values)
    for name, kind, dtype in c.args:
        if kind == "stack":
            frames = blocks * (1 + _aivs(c)) if c.kernel_kind == "mix" else blocks
            plan.append(("stack", _spill_frame_bytes() * frames))
            continue
        if kind == "sysws":     # a zero-filled scratch area, as the spill area
            plan.append(("stack", _sys_workspace_bytes(c.target)))
            continue
        v = next(vals)
        if kind == "gm" and isinstance(v, (list, tuple)):
            raise LaunchError(f"argument '{name}': a tensor list cannot be recorded into a script bundle's native "
                              f"launch plan (asc-sim runs the bundle without Python and places GM arrays one by "
                              f"one): give the kernel its arrays as separate GlobalAddress arguments")
        if kind == "gm":
            plan.append(("gm", _to_numpy(v)[0]))
        elif kind == "float":
            plan.append(("float", _f32_bits(name, v, warn=False)))
        else:
            plan.append(("int", int(v) & ((1 << 64) - 1)))
    for r in RECORDERS:
        r.launch(c, img, blocks, plan)


def _f32_bits(name, v, warn=True):
    """The f32 bits a float argument reaches the kernel as (its x register): v rounded to the
    nearest f32, as asc-sim's --arg.  A finite v past the f32 range (it would be inf) or a nonzero
    one rounding to 0 is refused; a subnormal f32 is kept (the vector unit keeps subnormals,
    docs/semantics.md) and warned: it has fewer significant bits than v."""
    f = float(v)
    try:
        b = struct.pack("<f", f)
    except OverflowError:
        raise LaunchError(f"argument '{name}' = {f!r} is beyond the f32 range (largest 3.40282347e+38): it "
                          f"would reach the kernel as inf") from None
    g = struct.unpack("<f", b)[0]
    if f != 0 and g == 0:
        raise LaunchError(f"argument '{name}' = {f!r} is below the smallest f32 magnitude (1.40129846e-45): it "
                          f"would reach the kernel as 0")
    if warn and g != 0 and abs(g) < 2.0 ** -126:
        warnings.warn(f"argument '{name}' = {f!r} is subnormal in f32 (below 1.17549435e-38): it reaches the "
                      f"kernel as {g!r}, with fewer significant bits", RuntimeWarning, stacklevel=4)
    return struct.unpack("<I", b)[0]


def _alias_of(name, a, placed):
    """The GM address of array `a` (a tensor list's) when its bytes lie inside an array placed
    earlier (placed: (array, GM address, _) of this launch), None when it shares no memory with
    one; one that overlaps an earlier one only in part, or contains it, is refused (a tensor
    list's arrays are placed one by one, so one GM buffer could not give both views the same bytes)."""
    if not a.nbytes:
        return None
    lo = a.ctypes.data
    for p, addr, _ in placed:
        if not p.nbytes or not np.shares_memory(a, p):
            continue
        plo = p.ctypes.data
        if plo <= lo and lo + a.nbytes <= plo + p.nbytes:
            return addr + (lo - plo)
        raise LaunchError(f"argument '{name}': a tensor list's array overlaps an earlier array's without lying "
                          f"inside it (a list's arrays are placed one by one): pass the larger array first, or "
                          f"separate arrays")
    return None


def _spans(c, values):
    """The host byte spans [lo, hi) the launch's gm arguments are placed as, sorted: each array's
    own bytes, merged with those of every other gm argument it overlaps (transitively).  Views of
    one buffer (k(x, x), k(x[1:], x[:-1]), k(x[64:], x)) are one GM buffer at the same relative
    offsets, as device pointers into one allocation, whatever their order; two buffers that only
    touch stay two."""
    rng, vals = [], iter(values)
    for name, kind, dtype in c.args:
        if kind in ("stack", "sysws"):
            continue
        v = next(vals)
        if kind != "gm" or isinstance(v, (list, tuple)):
            continue
        a = _to_numpy(v)[0]
        if a is not None and a.nbytes and a.flags.c_contiguous:
            rng.append((a.ctypes.data, a.ctypes.data + a.nbytes))
    out = []
    for lo, hi in sorted(rng):
        if out and lo < out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def _all_zero(addr, nb):
    """Are the nb bytes at host address addr all zero?  A freshly placed GM buffer already reads
    as zeros (GM never written is zero, sim/gm.c), so such an argument (an output array from
    np.zeros) needs no copy into GM: the launch skips the write, unless a sanitizer runs (its
    initcheck counts the host's write as initialising the bytes).  The first 4 KB decide for
    most inputs; a whole scan costs about a tenth of the copy it saves."""
    b = np.frombuffer((C.c_uint8 * nb).from_address(addr), np.uint8)
    if b[:4096].any():
        return False
    n8 = nb // 8 * 8
    return not (np.count_nonzero(b[:n8].view(np.uint64)) or b[n8:].any())


def _span_of(spans, a):
    """The span of _spans holding array a's bytes (a is one of the arguments it was built from)."""
    lo = a.ctypes.data
    for s in spans:
        if s[0] <= lo < s[1]:
            return s
    raise LaunchError("internal: a gm argument's array is in no span of the launch")


def run(c, values, blocks, trace=None, report_dir=None, functional=False, max_cycles=0, check_races=False,
        sanitize=None):
    from .jit import LaunchResult
    lib = L.lib()
    img = assemble(c)
    try:
        # MIX_AIC_1_1 launches one AIV per AI core, as the hardware does: the mode-2 join of the
        # AIVs' cross-core sets is then the join of one (docs/timing.md)
        cfg = targets.config(c.target, _mix_sets(c))
    except ValueError as e:
        raise LaunchError(str(e)) from None
    d = L.AscDiags()
    lib.asc_diags_init(C.byref(d), None)
    sim = None
    tr = None
    ex = None
    try:
        desc = L.AscSimDesc()
        desc.cfg = C.cast(cfg, C.c_void_p)
        desc.image = C.pointer(img.img)
        desc.kernel = c.name.encode()
        desc.blocks = blocks
        desc.functional = functional
        desc.check_races = bool(check_races)
        desc.sanitize = _sanitize_bits(lib, sanitize)
        if trace:
            obs = L.AscSimObserver()
            tr = lib.asc_trace_open(str(trace).encode(), None, C.byref(obs), C.byref(d))
            if not tr:
                raise LaunchError("cannot open the trace: " + "; ".join(m[4] for m in L.diag_messages(d)))
            desc.observer = obs
        # the critical-path recorder, as asc-sim run has it: the report's bound and path
        ex = None if functional else L.explain_attach(lib, desc)
        sim = lib.asc_sim_new(C.byref(desc), C.byref(d))
        if not sim:
            raise LaunchError("; ".join(m[4] for m in L.diag_messages(d)) or "asc_sim_new failed")
        if tr:
            lib.asc_trace_bind(tr, sim)
        arrays = []
        spans, span_addr = _spans(c, values), {}
        vals = iter(values)
        for i, (name, kind, dtype) in enumerate(c.args):
            if kind == "stack":   # the compiler's spill area (compiler.regalloc, docs/pyasc.md)
                addr = C.c_uint64()
                # one frame per block; a mix kernel's programs index theirs by core_id (AIC + AIVs)
                frames = blocks * (1 + _aivs(c)) if c.kernel_kind == "mix" else blocks
                if not lib.asc_sim_gm_place(sim, _spill_frame_bytes() * frames, C.byref(addr)):
                    raise LaunchError("the kernel's register spill area does not fit in simulated GM "
                                      "(GM is full, or the launch places more arrays than the simulator tracks: ASC_SIM_MAX_ALLOCS, sim/sim_internal.h; a tensor list's arrays count one each)")
                lib.asc_sim_set_arg(sim, i, addr.value)
                continue
            if kind == "sysws":   # asc.get_sys_workspace (language/sys_workspace.py): one per launch
                addr = C.c_uint64()
                nb = _sys_workspace_bytes(c.target)
                if not lib.asc_sim_gm_place(sim, nb, C.byref(addr)):
                    raise LaunchError(f"the system workspace ({nb} bytes, asc.get_sys_workspace) does not fit in "
                                      f"simulated GM (GM is full, or the launch places more arrays than the simulator tracks: ASC_SIM_MAX_ALLOCS, sim/sim_internal.h; a tensor list's arrays count one each)")
                lib.asc_sim_set_arg(sim, i, addr.value)
                continue
            v = next(vals)
            if kind == "gm" and isinstance(v, (list, tuple)):
                # a tensor list: each array in GM, then the descriptor (runtime/tensor_list.py)
                lst = tensor_list.check(name, v)
                addrs = []
                for a in lst:
                    inside = _alias_of(name, a, arrays)
                    if inside is not None:      # the same memory as an earlier array: one GM buffer
                        addrs.append(inside)
                        continue
                    addr = C.c_uint64()
                    if not lib.asc_sim_gm_place(sim, max(a.nbytes, 1), C.byref(addr)):
                        raise LaunchError(f"argument '{name}': {a.nbytes} bytes do not fit in simulated GM "
                                      f"(GM is full, or the launch places more arrays than the simulator tracks: ASC_SIM_MAX_ALLOCS, sim/sim_internal.h; a tensor list's arrays count one each)")
                    if a.nbytes:
                        lib.asc_sim_gm_write(sim, addr.value, a.ctypes.data, a.nbytes)
                    addrs.append(addr.value)
                    arrays.append((a, addr.value, name))
                words = tensor_list.descriptor([a.shape for a in lst], addrs)
                addr = C.c_uint64()
                if not lib.asc_sim_gm_place(sim, words.nbytes, C.byref(addr)):
                    raise LaunchError(f"argument '{name}': the tensor-list descriptor does not fit in simulated GM "
                                      f"(GM is full, or the launch places more arrays than the simulator tracks: ASC_SIM_MAX_ALLOCS, sim/sim_internal.h; a tensor list's arrays count one each)")
                lib.asc_sim_gm_write(sim, addr.value, words.ctypes.data, words.nbytes)
                lib.asc_sim_set_arg(sim, i, addr.value)
                continue
            if kind == "gm":
                a, _ = _to_numpy(v)
                if a is None:
                    # unreachable: runtime/jit.py binds a GlobalAddress only to an array (its
                    # LaunchError "is a GlobalAddress and needs a numpy array" comes first)
                    raise LaunchError(f"internal: argument '{name}': a gm argument takes a numpy array (or a CPU "
                                      f"torch tensor), not {type(v).__name__}")
                if not a.flags.c_contiguous:
                    raise LaunchError(f"argument '{name}': arrays must be C-contiguous")
                if not a.nbytes:
                    addr = C.c_uint64()
                    if not lib.asc_sim_gm_place(sim, 1, C.byref(addr)):
                        raise LaunchError(f"argument '{name}': {a.nbytes} bytes do not fit in simulated GM "
                                          f"(GM is full, or the launch places more arrays than the simulator tracks: ASC_SIM_MAX_ALLOCS, sim/sim_internal.h; a tensor list's arrays count one each)")
                    lib.asc_sim_set_arg(sim, i, addr.value)
                    arrays.append((a, addr.value, name))
                    continue
                # the GM buffer of the array's span (_spans): placed and written whole by the
                # first argument in it; an array sharing memory with an earlier one is then the
                # same bytes, as a device pointer into one allocation (not a second copy whose
                # read-back would overwrite what the kernel wrote through the first)
                span = _span_of(spans, a)
                if span[0] not in span_addr:
                    addr = C.c_uint64()
                    nb = span[1] - span[0]
                    if not lib.asc_sim_gm_place(sim, nb, C.byref(addr)):
                        raise LaunchError(f"argument '{name}': {nb} bytes do not fit in simulated GM "
                                          f"(GM is full, or the launch places more arrays than the simulator tracks: ASC_SIM_MAX_ALLOCS, sim/sim_internal.h; a tensor list's arrays count one each)")
                    if desc.sanitize or not _all_zero(span[0], nb):
                        lib.asc_sim_gm_write(sim, addr.value, span[0], nb)
                    span_addr[span[0]] = addr.value
                addr = span_addr[span[0]] + (a.ctypes.data - span[0])
                lib.asc_sim_set_arg(sim, i, addr)
                lo = a.ctypes.data
                if not any(p.nbytes and p.ctypes.data <= lo and lo + a.nbytes <= p.ctypes.data + p.nbytes
                           for p, _, _ in arrays):   # bytes an earlier argument reads back anyway
                    arrays.append((a, addr, name))
            elif kind == "float":
                bits = _f32_bits(name, v)
                lib.asc_sim_set_arg(sim, i, bits)
            else:
                lib.asc_sim_set_arg(sim, i, int(v) & ((1 << 64) - 1))
        if RECORDERS:
            _record(c, img, blocks, values)
        st = _run_sliced(lib, sim, cfg, max_cycles, d)
        prints, dropped = _prints_of(lib, sim, img)
        _show_prints(prints, dropped)
        if st == L.ASC_SIM_FAULT:
            f = lib.asc_sim_fault(sim).contents
            buf = C.create_string_buffer(8192)
            lib.asc_sim_fault_format(sim, buf, len(buf))
            where = img.line_at(f.pc)
            if f.nblocked and not where:
                where = img.line_at(f.blocked[0].pc)
            msg = buf.value.decode(errors="replace").strip()
            report = L.take_string(lib.asc_sim_report_text(sim))
            if where:
                raise KernelFault(msg, where[0], where[1], where[2], report)
            raise KernelFault(msg, report=report)
        if st == L.ASC_SIM_LIMIT:
            buf = C.create_string_buffer(1 << 14)
            lib.asc_sim_status_format(sim, st, max_cycles, buf, len(buf))
            # the library words the limit as asc-sim's options; a launch sets it with max_cycles=
            msg = buf.value.decode(errors="replace").strip()
            msg = msg.replace("--max-cycles N or --set max_cycles=N", "kernel[n](..., max_cycles=N)")
            raise KernelFault(msg.replace("--max-cycles ", "max_cycles="))
        if desc.sanitize:
            errors, warns = _san_findings(lib, sim)
            for w in warns:
                warnings.warn(w, RuntimeWarning, stacklevel=3)
            if errors:
                raise KernelSanitizerError(errors, warns, L.take_string(lib.asc_sim_report_text(sim)))
        if lib.asc_sim_checks_races(sim):  # check_races, or sanitize with racecheck
            races, total = _races(lib, sim, img)
            if total:
                raise KernelRace(races, total, L.take_string(lib.asc_sim_report_text(sim)))
        lost = []
        for a, addr, name in arrays:
            # GM the kernel never wrote still holds the host array's own bytes (written before the
            # run, or all zero and left unbacked): nothing to copy back, nothing lost (sim.h)
            if a.nbytes and lib.asc_sim_gm_written(sim, addr, a.nbytes):
                if not a.flags.writeable:
                    # not copied back; but when the kernel wrote it, the results would vanish silently
                    back = np.empty(a.nbytes, np.uint8)
                    lib.asc_sim_gm_read(sim, addr, back.ctypes.data, a.nbytes)
                    n = int(np.count_nonzero(back != a.reshape(-1).view(np.uint8)))
                    if n:
                        lost.append(f"argument '{name}': the kernel changed {n} of its {a.nbytes} bytes, but its array "
                                    f"is read-only, so they are not copied back (pass a writeable array)")
                    continue
                lib.asc_sim_gm_read(sim, addr, a.ctypes.data, a.nbytes)
        for w in lost:
            warnings.warn(w, RuntimeWarning, stacklevel=3)
        cycles = lib.asc_sim_cycles(sim)
        if ex:
            L.explain_analyse(lib, ex, sim)
        report = L.take_string(lib.asc_report_text(sim, ex))
        lossy = []
        run_notes = _notes_of(lib, sim, img, lossy)
        for w in lossy:   # what the card drops silently: said, not only kept in the result
            warnings.warn(w, RuntimeWarning, stacklevel=3)
        notes = list(c.warnings or []) + run_notes + lost
        if notes:
            report = (report or "").rstrip("\n") + "\n\nwarnings:\n" + "".join(f"  {w}\n" for w in notes)
        rjson = L.take_string(lib.asc_report_json(sim, ex))
        if report_dir:
            lib.asc_report_dir(sim, ex, str(report_dir).encode(), C.byref(d))
        mhz = targets.load(c.target)["clock_mhz"]
        res = LaunchResult(c.name, cycles, mhz, report, trace, lib.asc_sim_insns(sim), rjson)
        res.warnings = notes
        res.prints = prints   # (core, 'file:line', text) of asc.printf / asc.dump_tensor
        return res
    finally:
        if tr:
            lib.asc_trace_close(tr, True, C.byref(d))
        if sim:
            lib.asc_sim_free(sim)
        if ex:
            lib.asc_explain_free(ex)
        lib.asc_diags_free(C.byref(d))
