"""The instruction set as data, read from isa.json (generated from isa/asc_isa.def).

Users: language ops (which mnemonics exist for which dtype), the lower pass and codegen (config
register layouts: field bits and defaults), the runtime (max_args).  Python never parses C:
isa.json is the only source.  Invariant: loaded once per process.
"""
from __future__ import annotations

import functools
import json
import os

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@functools.lru_cache(maxsize=None)
def table() -> dict:
    with open(os.path.join(_HERE, "isa.json"), encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def mnemonics() -> dict:
    return {i["mnemonic"]: i for i in table()["instructions"]}


def has(mnem: str) -> bool:
    return mnem in mnemonics()


def variants(base: str) -> list[str]:
    """Suffixes available for a mnemonic family: variants('vadd') -> ['f16', 'f32', 's16', 's32']."""
    return [m.split(".", 1)[1] for m in mnemonics() if m.split(".", 1)[0] == base and "." in m]


def rnds(mnem: str) -> list[str]:
    """Rounding modes an instruction with a rounding field takes (its F_RND* flags in asc_isa.def,
    Ascend C Cast's RoundMode cases on dav_c220); [] when it has no rounding field."""
    return list(mnemonics()[mnem].get("rnds", []))


def cvps() -> dict:
    """vconv.x's type pairs: "src.dst" -> {"value", "src", "dst", "rnds"} (ASC_CVP of asc_enums.def)."""
    return table().get("cvps", {})


def pipe_of(mnem: str) -> str:
    return mnemonics()[mnem]["pipe"]


def layout(name: str) -> list[dict]:
    return table()["config_layouts"][name]


def field_slots(name: str) -> dict:
    """key -> list of (lo, width, default) for each value of the key."""
    out = {}
    for f in layout(name):
        out[f["key"]] = [(f["lo"] + i * f["step"], f["width"], f["default"]) for i in range(f["count"])]
    return out


def pack(name: str, fields: dict) -> int:
    """Pack a config register from static field values; a list value fills the key's slots."""
    slots = field_slots(name)
    word = 0
    for key, sl in slots.items():
        vals = fields.get(key)
        if not isinstance(vals, (list, tuple)):
            vals = [vals]
        for i, (lo, width, default) in enumerate(sl):
            v = vals[i] if i < len(vals) and vals[i] is not None else default
            if v < 0 or v >= (1 << width):
                raise ValueError(f"{name} config field '{key}' value {v} does not fit in {width} bits "
                                 f"(range 0..{(1 << width) - 1})")
            word |= v << lo
    return word
