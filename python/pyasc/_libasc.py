"""ctypes bindings of libasc.so: the assembler, kernel images, target profiles, the simulator.

Users: runtime.launch (assemble, run, read back), the CLI (write kernel binaries).
Each Structure below mirrors one C struct; the header it comes from is named next to it, and a
change there must be repeated here.  AscConfig is kept opaque (a generous byte buffer) because
only libasc reads its fields.

The library is found at $ASC_LIB, else the newest ../../build*/libasc.so next to this package
(the CMake build puts it at build/libasc.so); otherwise LibascMissing says how to build it.
"""
from __future__ import annotations

import ctypes as C
import glob
import os

ASC_MAX_ARGS = 16           # include/asc/isa.h
ASC_NAME_MAX = 64           # include/asc/image.h
ASC_TARGET_NAME_MAX = 32    # include/asc/config.h
ASC_SIM_MAX_BLOCKED = 64    # include/asc/sim.h


class LibascMissing(RuntimeError):
    pass


# ---- include/asc/alloc.h -----------------------------------------------------------------------
class AscAlloc(C.Structure):
    _fields_ = [("alloc", C.c_void_p), ("free", C.c_void_p), ("ud", C.c_void_p)]


# ---- include/asc/diag.h ------------------------------------------------------------------------
class AscLoc(C.Structure):
    _fields_ = [("file", C.c_char_p), ("line", C.c_uint32), ("col", C.c_uint32), ("len", C.c_uint32)]


class AscDiag(C.Structure):
    _fields_ = [("id", C.c_int), ("sev", C.c_int), ("loc", AscLoc), ("msg", C.c_char_p)]


class AscDiags(C.Structure):
    _fields_ = [("alloc", AscAlloc), ("items", C.POINTER(AscDiag)), ("count", C.c_uint32), ("cap", C.c_uint32),
                ("nerrors", C.c_uint32), ("nwarnings", C.c_uint32), ("max_errors", C.c_uint32),
                ("werror", C.c_bool), ("oom", C.c_bool)]


# ---- include/asc/asm.h -------------------------------------------------------------------------
class AscAsmDesc(C.Structure):
    _fields_ = [("target", C.c_char_p), ("read_file", C.c_void_p), ("read_ud", C.c_void_p),
                ("alloc", C.POINTER(AscAlloc)), ("werror", C.c_bool), ("max_errors", C.c_uint32)]


# ---- include/asc/image.h -----------------------------------------------------------------------
class AscArgInfo(C.Structure):
    _fields_ = [("name", C.c_char * ASC_NAME_MAX), ("kind", C.c_uint8), ("dtype", C.c_uint8)]


class AscKernelInfo(C.Structure):
    _fields_ = [("name", C.c_char * ASC_NAME_MAX), ("kind", C.c_uint8), ("entry", C.c_uint32 * 2),
                ("size", C.c_uint32 * 2), ("nargs", C.c_uint32), ("args", AscArgInfo * ASC_MAX_ARGS),
                ("ub_bytes", C.c_uint32), ("l1_bytes", C.c_uint32)]


class AscLineEntry(C.Structure):
    _fields_ = [("pc", C.c_uint32), ("file", C.c_uint32), ("line", C.c_uint32), ("col", C.c_uint32)]


class AscImage(C.Structure):
    _fields_ = [("alloc", AscAlloc), ("target", C.c_char * ASC_TARGET_NAME_MAX), ("text", C.POINTER(C.c_uint32)),
                ("text_words", C.c_uint32), ("rodata", C.POINTER(C.c_uint8)), ("rodata_size", C.c_uint32),
                ("kernels", C.POINTER(AscKernelInfo)), ("nkernels", C.c_uint32),
                ("files", C.POINTER(C.c_char_p)), ("nfiles", C.c_uint32),
                ("lines", C.POINTER(AscLineEntry)), ("nlines", C.c_uint32)]


# ---- include/asc/config.h (opaque) ---------------------------------------------------------------
ConfigBuf = C.c_uint8 * (32 + 128 + 8 * 512)


# ---- include/asc/sim.h -------------------------------------------------------------------------
class AscSimObserver(C.Structure):
    _fields_ = [("ud", C.c_void_p), ("on_insn", C.c_void_p), ("on_flag", C.c_void_p), ("on_counter", C.c_void_p)]


class AscSimDesc(C.Structure):
    _fields_ = [("cfg", C.c_void_p), ("image", C.POINTER(AscImage)), ("kernel", C.c_char_p),
                ("blocks", C.c_uint32), ("functional", C.c_bool), ("check_races", C.c_bool),
                ("sanitize", C.c_uint8), ("alloc", AscAlloc),
                ("observer", AscSimObserver)]


class AscSimBlocked(C.Structure):
    _fields_ = [("core", C.c_uint32), ("pipe", C.c_uint8), ("pc", C.c_uint32), ("what", C.c_char * 96)]


class AscSimFault(C.Structure):
    _fields_ = [("kind", C.c_int), ("cycle", C.c_uint64), ("core", C.c_uint32), ("pipe", C.c_uint8),
                ("pc", C.c_uint32), ("op", C.c_uint16), ("msg", C.c_char * 320), ("nblocked", C.c_uint32),
                ("blocked", AscSimBlocked * ASC_SIM_MAX_BLOCKED)]


class AscSimRace(C.Structure):
    _fields_ = [("kind", C.c_uint8), ("buf", C.c_uint8), ("core", C.c_uint32), ("lo", C.c_uint64), ("hi", C.c_uint64),
                ("pipe", C.c_uint8), ("op", C.c_uint16), ("pc", C.c_uint32), ("start_cycle", C.c_uint64),
                ("done_cycle", C.c_uint64), ("prev_pipe", C.c_uint8), ("prev_op", C.c_uint16), ("prev_pc", C.c_uint32),
                ("prev_start_cycle", C.c_uint64), ("prev_done_cycle", C.c_uint64), ("count", C.c_uint64)]


ASC_SIM_DONE, ASC_SIM_LIMIT, ASC_SIM_FAULT = 0, 1, 2
ASC_RACE_KINDS = ("RAW", "WAR", "WAW")      # AscRaceKind
ASC_BUF_NAMES = ("GM", "UB", "L1", "L0A", "L0B", "L0C")   # AscBuf (target/asc_buf.def)


def _candidates():
    env = os.environ.get("ASC_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, "..", ".."))
    found = glob.glob(os.path.join(root, "build*", "libasc.so")) + \
        glob.glob(os.path.join(root, "build*", "*", "libasc.so"))
    return sorted(found, key=lambda p: -os.path.getmtime(p))


_lib = None


def lib():
    """The loaded libasc (cached); LibascMissing with build instructions when absent."""
    global _lib
    if _lib is not None:
        return _lib
    cands = _candidates()
    for p in cands:
        if os.path.exists(p):
            _lib = _declare(C.CDLL(p))
            _lib._path = p
            return _lib
    raise LibascMissing(
        "libasc.so not found" + (f" at $ASC_LIB={os.environ['ASC_LIB']}" if os.environ.get("ASC_LIB") else "") +
        ": build it with `cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build "
        "--target asc_shared` in the repository root, or set ASC_LIB=/path/to/libasc.so")


def available() -> bool:
    try:
        lib()
        return True
    except (LibascMissing, OSError):
        return False


def _declare(L):
    P, V = C.c_void_p, None
    sig = {
        "asc_diags_init": (V, [C.POINTER(AscDiags), P]),
        "asc_diags_free": (V, [C.POINTER(AscDiags)]),
        "asc_asm_new": (P, [C.POINTER(AscAsmDesc)]),
        "asc_asm_free": (V, [P]),
        "asc_asm_string": (C.c_bool, [P, C.c_char_p, C.c_char_p, C.c_size_t, C.POINTER(AscImage)]),
        "asc_asm_diags": (C.POINTER(AscDiags), [P]),
        "asc_image_init": (V, [C.POINTER(AscImage), P]),
        "asc_image_free": (V, [C.POINTER(AscImage)]),
        "asc_image_write": (C.c_bool, [C.POINTER(AscImage), C.POINTER(C.POINTER(C.c_uint8)), C.POINTER(C.c_size_t),
                                       C.POINTER(AscDiags)]),
        "asc_image_write_file": (C.c_bool, [C.POINTER(AscImage), C.c_char_p, C.POINTER(AscDiags)]),
        "asc_image_read": (C.c_bool, [C.POINTER(AscImage), C.c_char_p, C.c_size_t, C.POINTER(AscDiags)]),
        "asc_image_line_at": (C.POINTER(AscLineEntry), [C.POINTER(AscImage), C.c_uint32]),
        "asc_config_builtin": (C.c_bool, [P, C.c_char_p, C.POINTER(AscDiags)]),
        "asc_config_set": (C.c_bool, [P, C.c_char_p, C.POINTER(AscDiags)]),
        "asc_sim_new": (P, [C.POINTER(AscSimDesc), C.POINTER(AscDiags)]),
        "asc_sim_free": (V, [P]),
        "asc_sim_gm_place": (C.c_bool, [P, C.c_uint64, C.POINTER(C.c_uint64)]),
        "asc_sim_gm_write": (C.c_bool, [P, C.c_uint64, P, C.c_size_t]),
        "asc_sim_gm_read": (C.c_bool, [P, C.c_uint64, P, C.c_size_t]),
        "asc_sim_set_arg": (V, [P, C.c_uint32, C.c_uint64]),
        "asc_sim_run": (C.c_int, [P, C.c_uint64]),
        "asc_sim_status_format": (C.c_int, [P, C.c_int, C.c_uint64, C.c_char_p, C.c_size_t]),
        "asc_sim_sanitize_parse": (C.c_bool, [C.c_char_p, C.POINTER(C.c_uint8), C.c_char_p, C.c_size_t]),
        "asc_sim_san_diag": (C.c_uint64, [P, C.POINTER(AscDiags)]),
        "asc_sim_checks_races": (C.c_bool, [P]),
        "asc_config_get": (C.c_bool, [P, C.c_char_p, C.POINTER(C.c_int64), C.POINTER(AscDiags)]),
        "asc_sim_cycles": (C.c_uint64, [P]),
        "asc_sim_insns": (C.c_uint64, [P]),
        "asc_sim_fault": (C.POINTER(AscSimFault), [P]),
        "asc_sim_fault_format": (C.c_int, [P, C.c_char_p, C.c_size_t]),
        "asc_sim_races": (C.c_uint64, [P, C.POINTER(C.POINTER(AscSimRace)), C.POINTER(C.c_uint32)]),
        "asc_sim_race_format": (C.c_int, [P, C.POINTER(AscSimRace), C.c_char_p, C.c_size_t]),
        "asc_sim_report_text": (P, [P]),
        "asc_sim_report_json": (P, [P]),
        "asc_sim_report_dir": (C.c_bool, [P, C.c_char_p, C.POINTER(AscDiags)]),
        "asc_trace_open": (P, [C.c_char_p, P, C.POINTER(AscSimObserver), C.POINTER(AscDiags)]),
        "asc_trace_bind": (V, [P, P]),
        "asc_trace_close": (C.c_bool, [P, C.c_bool, C.POINTER(AscDiags)]),
    }
    for name, (res, args) in sig.items():
        f = getattr(L, name, None)
        if f is None:
            continue
        f.restype, f.argtypes = res, args
    libc = C.CDLL(None)
    L._free = libc.free
    L._free.argtypes = [C.c_void_p]
    return L


def diag_messages(d: AscDiags) -> list[tuple]:
    out = []
    for i in range(d.count):
        it = d.items[i]
        f = it.loc.file.decode() if it.loc.file else None
        out.append((f, it.loc.line, it.loc.col, ("note", "warning", "error")[it.sev] if it.sev in (0, 1, 2)
                    else "error", (it.msg or b"").decode(errors="replace")))
    return out


def take_string(ptr) -> str:
    if not ptr:
        return ""
    s = C.string_at(ptr).decode(errors="replace")
    lib()._free(ptr)
    return s
