"""What the C side knows, read from abi.json: the one place pyasc learns it.

abi.json is written by tools/gen_abi.c from the C headers and tables (schema: docs/internals.md
§abi.json), checked in next to this file, and kept current by the CTest abi_json_current.  Python
never repeats a config key, default, buffer, lane, register count or struct layout: it reads them
here.  Users: _libasc (struct layouts, constants, enum names), compiler.targets (buffers -> config
keys), compiler.abi (the register ABI), runtime.launch (lane and buffer names).

This module only reads a file: it imports nothing of pyasc and needs no libasc.
"""
from __future__ import annotations

import json
import os

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "abi.json")
with open(PATH, "rb") as _f:
    RAW = _f.read()
DATA = json.loads(RAW)

CONSTANTS: dict = DATA["constants"]
CONFIG_KEYS: dict = {k["key"]: k for k in DATA["config"]["keys"]}   # key -> {index, default, min, max, what}
DEFAULT_TARGET: str = DATA["config"]["default_target"]
BUILTIN_PROFILES: tuple = tuple(DATA["config"]["builtin_profiles"])
BUFFERS: dict = {b["name"]: b for b in DATA["buffers"]}        # "UB" -> {id, size_key, reserved_key, align_key}
REGISTERS: dict = DATA["registers"]
ENUMS: dict = DATA["enums"]
STRUCTS: dict = DATA["structs"]


def enum_names(enum: str) -> tuple:
    """The names of C enum `enum` indexed by value: enum_names("AscRaceKind") -> ("RAW", "WAR", "WAW").
    Values without a name (gaps) are None."""
    vals = ENUMS[enum]
    out = [None] * (max(vals.values()) + 1)
    for name, v in vals.items():
        out[v] = name
    return tuple(out)


LANES: dict = {ln["value"]: ln["lane"] for ln in DATA["lanes"]}   # AscPipe value -> trace lane name
PIPES: dict = dict(ENUMS["AscPipe"])                               # ISA pipe name -> AscPipe value


def fnv1a64(data: bytes) -> int:
    """FNV-1a, 64 bits: the hash of abi.json that libasc compiles in (asc_abi_hash)."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
