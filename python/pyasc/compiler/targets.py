"""Target profiles for the compiler: buffer sizes, alignment, event ids.

Users: driver (capacity checks, placement), language ops (event id range).  Profiles are read
from the repository's configs/*.json (the same files libasc compiles in); keys a profile omits
take the defaults of target/asc_config.def, repeated here for the handful the compiler needs.
"""
from __future__ import annotations

import functools
import json
import os

_CONFIG_DIRS = [os.path.join(os.path.dirname(__file__), "..", "..", "..", "configs")]
DEFAULTS = {"split": 1, "ai_cores": 24, "aiv_per_core": 2, "clock_mhz": 1850, "ub_bytes": 196608,
            "ub_reserved_bytes": 8192, "l1_bytes": 524288, "l0a_bytes": 65536, "l0b_bytes": 65536,
            "l0c_bytes": 131072, "ub_align": 32, "l1_align": 32, "l0ab_align": 512, "l0c_align": 64,
            "ub_bank_groups": 16, "ub_bank_group_lo": 5, "event_ids": 8}
DEFAULT_TARGET = "ascend910b"


def _dirs():
    env = os.environ.get("ASC_CONFIG_DIR")
    return ([env] if env else []) + [os.path.abspath(d) for d in _CONFIG_DIRS]


@functools.lru_cache(maxsize=None)
def load(name: str | None) -> dict:
    name = name or DEFAULT_TARGET
    for d in _dirs():
        p = os.path.join(d, name + ".json")
        if os.path.exists(p):
            with open(p, encoding="utf-8") as f:
                prof = json.load(f)
            out = dict(DEFAULTS)
            out.update(prof)
            out["name"] = name
            return out
    if name == DEFAULT_TARGET:
        return dict(DEFAULTS, name=name)
    raise ValueError(f"unknown target '{name}' (known: {', '.join(names())})")


def names() -> list[str]:
    out = []
    for d in _dirs():
        if os.path.isdir(d):
            out += sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    return out or [DEFAULT_TARGET]
