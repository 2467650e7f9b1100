"""ctypes bindings of libasc.so: the assembler, kernel images, target profiles, the simulator.

Users: runtime.launch (assemble, run, read back), the CLI (write kernel binaries).
Each Structure below mirrors one C struct: its field order, array lengths, offsets and size come
from abi.json (tools/gen_abi.c, kept current by the CTest abi_json_current) and are checked at
import, so a C change that _libasc.py does not follow is an AbiMismatch, never a silent misread;
only the ctypes type of each field is written here.  AscConfig is opaque: a buffer of
asc_config_size() bytes that only libasc reads (profiles are read through asc_config_get).

Which library: $ASC_LIB if set; else the one scripts/install.sh recorded in LIBRARY_RECORD
(libasc.path next to this file; demo.sh runs it); else this checkout's build/libasc.so, the
README's build.  Never a build picked by modification time, and never a sanitizer build (whose
libasc.so cannot be loaded into an uninstrumented python): LibascMissing says why and what to do.
The library's asc_abi_hash() must be the SHA-256 of this package's abi.json (AbiMismatch
otherwise: a library built from other headers would misread every struct).
"""
from __future__ import annotations

import ctypes as C
import hashlib
import os

from . import abi

ASC_MAX_ARGS = abi.CONSTANTS["ASC_MAX_ARGS"]
ASC_NAME_MAX = abi.CONSTANTS["ASC_NAME_MAX"]
ASC_TARGET_NAME_MAX = abi.CONSTANTS["ASC_TARGET_NAME_MAX"]
ASC_SIM_MAX_BLOCKED = abi.CONSTANTS["ASC_SIM_MAX_BLOCKED"]


class LibascMissing(RuntimeError):
    pass


class AbiMismatch(ImportError):
    """A ctypes mirror below, or the loaded libasc, does not match abi.json."""


CHARS = object()     # in a mirror's type list: a char array, its length from abi.json


def _mirror(cname: str, **types):
    """The ctypes Structure of C struct `cname`: its fields in abi.json's order, each of the
    ctypes type given here (CHARS: a char array; (T,): an array of T; both sized from abi.json),
    checked against abi.json's offsetof, sizeof and alignment; AbiMismatch when C changed."""
    lay = abi.STRUCTS[cname]
    names = [f["name"] for f in lay["fields"]]
    if sorted(names) != sorted(types):
        raise AbiMismatch(f"{cname} ({lay['header']}): abi.json has fields {names}, "
                          f"_libasc.py mirrors {list(types)}")
    fields = []
    for f in lay["fields"]:
        t = types[f["name"]]
        if t is CHARS:
            t = C.c_char * f["size"]
        elif isinstance(t, tuple):
            t = t[0] * (f["size"] // C.sizeof(t[0]))
        fields.append((f["name"], t))
    cls = type(cname, (C.Structure,), {"_fields_": fields})
    for f in lay["fields"]:
        got = getattr(cls, f["name"])
        if (got.offset, got.size) != (f["offset"], f["size"]):
            raise AbiMismatch(f"{cname}.{f['name']} ({lay['header']}): C has offset {f['offset']} size "
                              f"{f['size']}, the ctypes mirror offset {got.offset} size {got.size}")
    if (C.sizeof(cls), C.alignment(cls)) != (lay["size"], lay["align"]):
        raise AbiMismatch(f"{cname} ({lay['header']}): C has sizeof {lay['size']} align {lay['align']}, "
                          f"the ctypes mirror {C.sizeof(cls)} and {C.alignment(cls)}")
    return cls


P = C.c_void_p
# ---- include/asc/alloc.h -----------------------------------------------------------------------
AscAlloc = _mirror("AscAlloc", alloc=P, free=P, ud=P)

# ---- include/asc/diag.h ------------------------------------------------------------------------
AscLoc = _mirror("AscLoc", file=C.c_char_p, line=C.c_uint32, col=C.c_uint32, len=C.c_uint32)
AscDiag = _mirror("AscDiag", id=C.c_int, sev=C.c_int, loc=AscLoc, msg=C.c_char_p)
AscDiags = _mirror("AscDiags", alloc=AscAlloc, items=C.POINTER(AscDiag), count=C.c_uint32, cap=C.c_uint32,
                   nerrors=C.c_uint32, nwarnings=C.c_uint32, max_errors=C.c_uint32, werror=C.c_bool,
                   oom=C.c_bool)

# ---- include/asc/asm.h -------------------------------------------------------------------------
AscAsmDesc = _mirror("AscAsmDesc", target=C.c_char_p, read_file=P, read_ud=P, alloc=C.POINTER(AscAlloc),
                     werror=C.c_bool, max_errors=C.c_uint32)

# ---- include/asc/image.h -----------------------------------------------------------------------
AscArgInfo = _mirror("AscArgInfo", name=CHARS, kind=C.c_uint8, dtype=C.c_uint8)
AscKernelInfo = _mirror("AscKernelInfo", name=CHARS, kind=C.c_uint8, entry=(C.c_uint32,), size=(C.c_uint32,),
                        nargs=C.c_uint32, args=(AscArgInfo,), ub_bytes=C.c_uint32, l1_bytes=C.c_uint32)
AscLineEntry = _mirror("AscLineEntry", pc=C.c_uint32, file=C.c_uint32, line=C.c_uint32, col=C.c_uint32)
AscImage = _mirror("AscImage", alloc=AscAlloc, target=CHARS, text=C.POINTER(C.c_uint32), text_words=C.c_uint32,
                   rodata=C.POINTER(C.c_uint8), rodata_size=C.c_uint32, kernels=C.POINTER(AscKernelInfo),
                   nkernels=C.c_uint32, files=C.POINTER(C.c_char_p), nfiles=C.c_uint32,
                   lines=C.POINTER(AscLineEntry), nlines=C.c_uint32)


# ---- include/asc/config.h (opaque: only libasc reads its fields) --------------------------------
def config_buf():
    """A zeroed buffer for one AscConfig, of asc_config_size() bytes (the loaded library's)."""
    return (C.c_uint8 * lib().asc_config_size())()


# ---- include/asc/sim.h -------------------------------------------------------------------------
AscSimObserver = _mirror("AscSimObserver", ud=P, on_insn=P, on_flag=P, on_counter=P)
AscSimDesc = _mirror("AscSimDesc", cfg=P, image=C.POINTER(AscImage), kernel=C.c_char_p, blocks=C.c_uint32,
                     functional=C.c_bool, check_races=C.c_bool, sanitize=C.c_uint8, alloc=AscAlloc,
                     observer=AscSimObserver, threads=C.c_uint32)
AscSimBlocked = _mirror("AscSimBlocked", core=C.c_uint32, pipe=C.c_uint8, pc=C.c_uint32, what=CHARS)
AscSimFault = _mirror("AscSimFault", kind=C.c_int, cycle=C.c_uint64, core=C.c_uint32, pipe=C.c_uint8,
                      pc=C.c_uint32, op=C.c_uint16, msg=CHARS, nblocked=C.c_uint32, blocked=(AscSimBlocked,))
AscSimRace = _mirror("AscSimRace", kind=C.c_uint8, buf=C.c_uint8, core=C.c_uint32, lo=C.c_uint64, hi=C.c_uint64,
                     pipe=C.c_uint8, op=C.c_uint16, pc=C.c_uint32, start_cycle=C.c_uint64, done_cycle=C.c_uint64,
                     prev_pipe=C.c_uint8, prev_op=C.c_uint16, prev_pc=C.c_uint32, prev_start_cycle=C.c_uint64,
                     prev_done_cycle=C.c_uint64, count=C.c_uint64)
del P

MIRRORED = ("AscAlloc", "AscLoc", "AscDiag", "AscDiags", "AscAsmDesc", "AscArgInfo", "AscKernelInfo", "AscLineEntry",
            "AscImage", "AscSimObserver", "AscSimDesc", "AscSimBlocked", "AscSimFault", "AscSimRace")

_status = abi.ENUMS["AscSimStatus"]
ASC_SIM_DONE, ASC_SIM_LIMIT, ASC_SIM_FAULT = _status["DONE"], _status["LIMIT"], _status["FAULT"]
ASC_RACE_KINDS = abi.enum_names("AscRaceKind")      # ("RAW", "WAR", "WAW")
ASC_BUF_NAMES = abi.enum_names("AscBuf")            # ("GM", "UB", ...): target/asc_buf.def
ASC_CORE_KINDS = abi.ENUMS["AscCoreKind"]           # "AIV" -> 0, ...


ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIBRARY_RECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libasc.path")
_BUILD_HINT = ("build it with `bash scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo` in the "
               "repository root (then `bash scripts/install.sh build` records it), or set "
               "ASC_LIB=/path/to/libasc.so")


def _sanitizer_build(path: str) -> bool:
    """True when `path` is in a CMake build tree configured with ASC_SANITIZE=ON."""
    cache = os.path.join(os.path.dirname(path), "CMakeCache.txt")
    try:
        with open(cache, encoding="utf-8", errors="replace") as f:
            return any(ln.strip() == "ASC_SANITIZE:BOOL=ON" for ln in f)
    except OSError:
        return False


def library_path() -> tuple[str, str]:
    """(path, how it was chosen) of the libasc to load; LibascMissing when there is none."""
    env = os.environ.get("ASC_LIB")
    if env:
        if not os.path.exists(env):
            raise LibascMissing(f"libasc.so not found at $ASC_LIB={env}: {_BUILD_HINT}")
        return env, "$ASC_LIB"
    if os.path.exists(LIBRARY_RECORD):
        with open(LIBRARY_RECORD, encoding="utf-8") as f:
            rec = f.read().strip()
        if not os.path.exists(rec):
            raise LibascMissing(f"libasc.so not found at {rec}, which {LIBRARY_RECORD} records (written by "
                                f"scripts/install.sh): rebuild it, or rerun scripts/install.sh, or set ASC_LIB")
        how = f"recorded in {LIBRARY_RECORD}"
        path = rec
    else:
        path = os.path.join(ROOT, "build", "libasc.so")
        if not os.path.exists(path):
            raise LibascMissing(f"libasc.so not found at {path}: {_BUILD_HINT}")
        how = "this checkout's build/"
    if _sanitizer_build(path):
        raise LibascMissing(f"{path} ({how}) is a sanitizer build (ASC_SANITIZE=ON), which cannot be loaded "
                            f"into an uninstrumented python: point ASC_LIB at a release build's libasc.so")
    return path, how


_lib = None


def lib():
    """The loaded libasc (cached); LibascMissing with build instructions when absent,
    AbiMismatch when it was built from other headers than this package's abi.json."""
    global _lib
    if _lib is not None:
        return _lib
    path, how = library_path()
    L = C.CDLL(path)
    want = hashlib.sha256(abi.RAW).hexdigest()
    f = getattr(L, "asc_abi_hash", None)
    got = None
    if f is not None:
        f.restype, f.argtypes = C.c_char_p, []
        got = f().decode()
    if got != want:
        raise AbiMismatch(f"{path} ({how}) does not match this pyasc: it was built from headers whose abi.json "
                          f"hashes to {got or '(no asc_abi_hash: an older libasc)'}, {abi.PATH} hashes to {want}; "
                          f"rebuild the library from this checkout (or run scripts/regen.sh if abi.json is stale)")
    L = _declare(L)
    L._path = path
    cs = L.asc_config_size()
    if cs != abi.STRUCTS["AscConfig"]["size"]:
        # unreachable: the hash just checked is of the abi.json that tools/gen_abi.c wrote from the
        # library's own headers (CMakeLists.txt, abi_hash.c), and that abi.json holds this size
        raise AbiMismatch(f"internal: {path}: asc_config_size() is {cs}, abi.json (whose hash the library "
                          f"carries) says {abi.STRUCTS['AscConfig']['size']}")
    _lib = L
    return _lib


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
        "asc_config_named": (C.c_bool, [P, C.c_char_p, C.POINTER(AscDiags)]),
        "asc_config_set": (C.c_bool, [P, C.c_char_p, C.POINTER(AscDiags)]),
        "asc_config_load": (C.c_bool, [P, C.c_char_p, C.c_char_p, C.POINTER(C.c_char_p), C.c_uint,
                                       C.POINTER(AscDiags)]),
        "asc_config_size": (C.c_size_t, []),
        "asc_abi_hash": (C.c_char_p, []),
        "asc_config_key_count": (C.c_uint, []),
        "asc_config_key_name": (C.c_char_p, [C.c_uint]),
        "asc_config_key_index": (C.c_int, [C.c_char_p]),
        "asc_config_get": (C.c_bool, [P, C.c_char_p, C.POINTER(C.c_int64), C.POINTER(AscDiags)]),
        "asc_config_name": (C.c_char_p, [P]),
        "asc_config_builtin_list": (C.c_char_p, []),
        "asc_target_check_op": (C.c_int, [P, C.c_int, C.c_char_p, C.c_uint, C.c_uint, C.c_uint, C.c_uint,
                                          C.c_char_p, C.c_size_t]),
        "asc_sim_new": (P, [C.POINTER(AscSimDesc), C.POINTER(AscDiags)]),
        "asc_sim_free": (V, [P]),
        "asc_sim_gm_place": (C.c_bool, [P, C.c_uint64, C.POINTER(C.c_uint64)]),
        "asc_sim_gm_write": (C.c_bool, [P, C.c_uint64, P, C.c_size_t]),
        "asc_sim_gm_read": (C.c_bool, [P, C.c_uint64, P, C.c_size_t]),
        "asc_sim_gm_written": (C.c_bool, [P, C.c_uint64, C.c_uint64]),
        "asc_sim_set_arg": (V, [P, C.c_uint32, C.c_uint64]),
        "asc_sim_run": (C.c_int, [P, C.c_uint64]),
        "asc_sim_status_format": (C.c_int, [P, C.c_int, C.c_uint64, C.c_char_p, C.c_size_t]),
        "asc_sim_sanitize_parse": (C.c_bool, [C.c_char_p, C.POINTER(C.c_uint8), C.c_char_p, C.c_size_t]),
        "asc_sim_san_diag": (C.c_uint64, [P, C.POINTER(AscDiags)]),
        "asc_sim_checks_races": (C.c_bool, [P]),
        "asc_sim_cycles": (C.c_uint64, [P]),
        "asc_sim_insns": (C.c_uint64, [P]),
        "asc_sim_note_get": (C.c_bool, [P, C.c_uint32, C.POINTER(C.c_uint64)]),
        "asc_sim_notes": (C.c_uint64, [P]),
        "asc_sim_prints": (C.c_uint32, [P, C.POINTER(C.c_uint64)]),
        "asc_sim_print_get": (C.c_bool, [P, C.c_uint32, C.POINTER(C.c_uint32), C.POINTER(C.c_uint32),
                                         C.POINTER(C.c_char_p)]),
        "asc_sim_fault": (C.POINTER(AscSimFault), [P]),
        "asc_sim_fault_format": (C.c_int, [P, C.c_char_p, C.c_size_t]),
        "asc_sim_races": (C.c_uint64, [P, C.POINTER(C.POINTER(AscSimRace)), C.POINTER(C.c_uint32)]),
        "asc_sim_race_format": (C.c_int, [P, C.POINTER(AscSimRace), C.c_char_p, C.c_size_t]),
        "asc_sim_report_text": (P, [P]),
        "asc_sim_report_json": (P, [P]),
        "asc_sim_report_dir": (C.c_bool, [P, C.c_char_p, C.POINTER(AscDiags)]),
        "asc_explain_new": (P, [P, C.POINTER(AscSimObserver)]),
        "asc_explain_analyse": (C.c_bool, [P, P]),
        "asc_explain_free": (V, [P]),
        "asc_report_text": (P, [P, P]),
        "asc_report_json": (P, [P, P]),
        "asc_report_dir": (C.c_bool, [P, P, C.c_char_p, C.POINTER(AscDiags)]),
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


def explain_attach(L, desc) -> int:
    """The critical-path recorder (asc_explain_new) chained in front of desc's
    observer, as asc-sim run has it (the report's bound and critical path
    come from it, docs/timing.md §Explain): attach after any trace observer,
    free with L.asc_explain_free."""
    ex = L.asc_explain_new(None, C.byref(desc.observer))
    if not ex:
        raise MemoryError("asc_explain_new: out of memory")
    return ex


def explain_analyse(L, ex, sim) -> None:
    """Walk the critical path of a finished run (before asc_report_*)."""
    if not L.asc_explain_analyse(ex, sim):
        raise MemoryError("asc_explain_analyse: out of memory")


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
