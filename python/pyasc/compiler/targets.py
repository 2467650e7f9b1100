"""Target profiles for the compiler: buffer sizes, alignment, event ids, read through libasc.

Users: driver (capacity checks, placement), language ops (event id range and legality rules),
runtime.launch (clock).  A profile is loaded by libasc (asc_config_load -> asc_config_named: the built-in profile, or
$ASC_CONFIG_DIR/<name>.json, with libasc's version and range checks) and read key by key with
asc_config_get, so keys, defaults and ranges are target/asc_config.def's alone.  Which config keys
size and align each buffer comes from abi.json (abi.BUFFERS).
"""
from __future__ import annotations

import ctypes as C
import functools
import os

from .. import _libasc as L
from .. import abi

DEFAULT_TARGET = abi.DEFAULT_TARGET


def _errors(d) -> str:
    return "; ".join(m[4] for m in L.diag_messages(d))


@functools.lru_cache(maxsize=None)
def config(name: str, sets: tuple = ()):
    """The loaded AscConfig buffer of profile `name` with the `key=value` overrides `sets`
    (cached); ValueError with libasc's message."""
    lib = L.lib()
    cfg = L.config_buf()
    d = L.AscDiags()
    lib.asc_diags_init(C.byref(d), None)
    arr = (C.c_char_p * max(1, len(sets)))(*[x.encode() for x in sets])
    try:
        # the built-in profile or $ASC_CONFIG_DIR/<name>.json: libasc's asc_config_named, the one
        # resolution asc-as, asc-sim and the sweep share
        if not lib.asc_config_load(C.cast(cfg, C.c_void_p), None, name.encode(), arr if sets else None, len(sets),
                                   C.byref(d)):
            raise ValueError(_errors(d) or f"cannot load target '{name}'")
    finally:
        lib.asc_diags_free(C.byref(d))
    return cfg


@functools.lru_cache(maxsize=None)
def load(name: str | None) -> dict:
    """Every config key of profile `name` (default: abi.json's default target) -> its value, plus
    "name"."""
    name = name or DEFAULT_TARGET
    lib = L.lib()
    cfg = C.cast(config(name), C.c_void_p)
    out = {}
    v = C.c_int64()
    for i in range(lib.asc_config_key_count()):
        key = lib.asc_config_key_name(i)
        if not lib.asc_config_get(cfg, key, C.byref(v), None):
            # unreachable: `key` is the library's own i-th key name (asc_config_key_name)
            raise ValueError(f"internal: target '{name}': libasc cannot read its own config key '{key.decode()}'")
        out[key.decode()] = v.value
    out["name"] = name
    return out


def names() -> list[str]:
    """The built-in profiles, then those of $ASC_CONFIG_DIR."""
    out = list(abi.BUILTIN_PROFILES)
    env = os.environ.get("ASC_CONFIG_DIR")
    if env and os.path.isdir(env):
        out += sorted(f[:-5] for f in os.listdir(env) if f.endswith(".json") and f[:-5] not in out)
    return out


def capacity(target: dict, buf: str) -> int:
    """Usable bytes of local buffer `buf` ("UB", "L1", ...): its size key minus its reserved key."""
    b = abi.BUFFERS[buf]
    return target[b["size_key"]] - (target[b["reserved_key"]] if b["reserved_key"] else 0)


def align(target: dict, buf: str) -> int:
    """The address alignment of local buffer `buf`, from its align key."""
    return target[abi.BUFFERS[buf]["align_key"]]


def check_op(target: str, mnemonic: str, pipe: str = "s") -> str | None:
    """libasc's legality rules (asc_target_check_op, texts of isa/asc_diag.def) for instruction
    `mnemonic` with pipe operand `pipe` on profile `target`, for a rule broken on every core kind
    (while tracing, the kernel's kind is not known yet; the assembler checks the rest per kernel
    part): that rule's text, or None."""
    # the core kinds the profile has: AIC and AIV on a split profile, one coupled kind otherwise
    kinds = [n.lower() for n in L.ASC_CORE_KINDS if (n == "coupled") != bool(load(target)["split"])]
    texts = [check_sync(target, kind, mnemonic, pipe) for kind in kinds]
    return texts[0] if all(texts) else None


@functools.lru_cache(maxsize=None)
def check_sync(target: str, kind: str, mnemonic: str, pipe: str = "s", src: str = "s", dst: str = "s") -> str | None:
    """libasc's rule (asc_target_check_op: asc_config_sync_legal / asc_config_core_has_pipe in
    target/config.c) for a set_flag/wait_flag joining ISA pipes `src` -> `dst`, or a `bar` of
    `pipe`, on core kind `kind` ("aic", "aiv" or "coupled") of profile `target`: the rule's text
    (isa/asc_diag.def), or None."""
    lib = L.lib()
    cfg = C.cast(config(target), C.c_void_p)
    buf = C.create_string_buffer(512)
    core = L.ASC_CORE_KINDS["coupled" if kind == "coupled" else kind.upper()]
    n = lib.asc_target_check_op(cfg, core, mnemonic.encode(), abi.PIPES[pipe], abi.PIPES[src], abi.PIPES[dst], 0,
                                buf, len(buf))
    if n < 0:
        # unreachable from user code: callers pass the compiler's own mnemonics (isa.json's)
        raise ValueError(f"internal: libasc knows no instruction '{mnemonic}'")
    return buf.value.decode() if n else None
