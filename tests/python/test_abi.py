"""Python derives what C knows: the ctypes mirrors follow abi.json, profiles
come from libasc with its checks, legality rules are libasc's, and no config default, lane name,
buffer table, register count or rule text is written in python/pyasc/**/*.py."""
import ctypes as C
import json
import os
import re

import pytest

from pyasc import _libasc as L
from pyasc import abi
from pyasc.compiler import targets

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG = os.path.join(ROOT, "python", "pyasc")


def _sources():
    out = []
    for d, subdirs, files in os.walk(PKG):
        subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    assert len(out) > 30
    return out


SOURCES = {os.path.relpath(p, ROOT): open(p, encoding="utf-8").read() for p in _sources()}


def _hits(pattern, skip=()):
    rx = re.compile(pattern)
    return [f"{p}:{i}: {ln.strip()}" for p, text in SOURCES.items() if p not in skip
            for i, ln in enumerate(text.splitlines(), 1) if rx.search(ln)]


# ---- the ctypes mirrors -------------------------------------------------------------------------
@pytest.mark.parametrize("name", L.MIRRORED)
def test_mirror_matches_abi_json(name):
    lay = abi.STRUCTS[name]
    cls = getattr(L, name)
    assert (C.sizeof(cls), C.alignment(cls)) == (lay["size"], lay["align"])
    assert [f[0] for f in cls._fields_] == [f["name"] for f in lay["fields"]]
    for f in lay["fields"]:
        d = getattr(cls, f["name"])
        assert (d.offset, d.size) == (f["offset"], f["size"]), f["name"]


def test_a_c_change_is_an_abi_mismatch(monkeypatch):
    lay = json.loads(json.dumps(abi.STRUCTS["AscSimRace"]))
    lay["fields"][-1]["offset"] += 8          # C grew a field before `count`
    lay["size"] += 8
    monkeypatch.setitem(abi.STRUCTS, "AscSimRace", lay)
    with pytest.raises(L.AbiMismatch, match=r"AscSimRace\.count"):
        L._mirror("AscSimRace", **{f[0]: f[1] for f in L.AscSimRace._fields_})
    lay2 = json.loads(json.dumps(abi.STRUCTS["AscLoc"]))
    lay2["fields"].append({"name": "extra", "offset": 24, "size": 4})
    monkeypatch.setitem(abi.STRUCTS, "AscLoc", lay2)
    with pytest.raises(L.AbiMismatch, match="abi.json has fields"):
        L._mirror("AscLoc", file=C.c_char_p, line=C.c_uint32, col=C.c_uint32, len=C.c_uint32)


def test_config_buffer_is_sized_by_libasc():
    size = L.lib().asc_config_size()
    assert size == abi.STRUCTS["AscConfig"]["size"]
    assert C.sizeof(L.config_buf()) == size


def test_constants_and_enums_come_from_abi_json():
    assert L.ASC_MAX_ARGS == abi.CONSTANTS["ASC_MAX_ARGS"]
    assert L.ASC_BUF_NAMES == tuple(sorted(abi.ENUMS["AscBuf"], key=abi.ENUMS["AscBuf"].get))
    assert L.ASC_RACE_KINDS[abi.ENUMS["AscRaceKind"]["WAW"]] == "WAW"
    from pyasc.compiler import abi as cabi
    assert cabi.ARG_REGS == abi.CONSTANTS["ASC_MAX_ARGS"]
    assert cabi.ASSEMBLER_TEMPORARY not in cabi.ALLOCATABLE
    assert len(cabi.ALLOCATABLE) == abi.CONSTANTS["ASC_NUM_REGS"] - 1


# ---- profiles through libasc --------------------------------------------------------------------
@pytest.mark.parametrize("name", abi.BUILTIN_PROFILES)
def test_profiles_are_libasc_s(name):
    t = targets.load(name)
    assert set(t) == set(abi.CONFIG_KEYS) | {"name"}
    with open(os.path.join(ROOT, "configs", name + ".json"), encoding="utf-8") as f:
        given = json.load(f)
    for k, info in abi.CONFIG_KEYS.items():
        assert t[k] == given.get(k, info["default"]), k


def test_profile_files_get_libasc_s_checks(tmp_path, monkeypatch):
    monkeypatch.setenv("ASC_CONFIG_DIR", str(tmp_path))
    (tmp_path / "big.json").write_text('{"version": 1, "name": "big", "ub_bytes": 131072}')
    (tmp_path / "badrange.json").write_text('{"version": 1, "name": "badrange", "event_ids": 0}')
    (tmp_path / "badver.json").write_text('{"version": 99, "name": "badver"}')
    targets.load.cache_clear()
    targets.config.cache_clear()
    try:
        assert targets.load("big")["ub_bytes"] == 131072
        assert targets.capacity(targets.load("big"), "UB") == 131072 - abi.CONFIG_KEYS["ub_reserved_bytes"]["default"]
        assert "big" in targets.names()
        with pytest.raises(ValueError, match="config key 'event_ids' must be an integer in the range"):
            targets.load("badrange")
        with pytest.raises(ValueError, match="config version 99 is not supported"):
            targets.load("badver")
        with pytest.raises(ValueError, match="unknown target 'nosuch'"):
            targets.load("nosuch")
    finally:
        targets.load.cache_clear()
        targets.config.cache_clear()


def test_buffer_keys_come_from_abi_json():
    t = targets.load("ascend910b")
    for name, b in abi.BUFFERS.items():
        if name == "GM":
            continue
        assert targets.align(t, name) == t[b["align_key"]]
        assert targets.capacity(t, name) == t[b["size_key"]] - (t[b["reserved_key"]] if b["reserved_key"] else 0)


def test_legality_rules_are_libasc_s():
    text = targets.check_op("ascend910b", "bar", "s")
    assert text and text.startswith("bar s is illegal on every core")
    assert targets.check_op("ascend910b", "bar", "m") is None     # legal on AIC: the assembler decides
    assert targets.check_op("ascend910b", "bar", "all") is None


# ---- nothing C knows is written in Python -------------------------------------------------------
def test_no_config_default_in_python():
    keys = "|".join(re.escape(k) for k in abi.CONFIG_KEYS)
    # a key next to a number: a dict of defaults ("ub_bytes": 196608) or .get("event_ids", 8)
    assert _hits(rf"[\"']({keys})[\"']\s*[:,]\s*-?\d") == []


def test_no_lane_names_in_python():
    lanes = set(abi.LANES.values())
    # names that are only lanes (MTE1.. are also HardEvent prefixes of real pyasc's API)
    only = sorted(n for n in lanes if not re.fullmatch(r"MTE\d|ALL", n))
    assert only
    assert _hits(r"[\"'](" + "|".join(only) + r")[\"']") == []
    assert _hits(r"(\d+\s*:\s*[\"'](" + "|".join(sorted(lanes)) + r")[\"'].*){3}") == []   # {0: "SCALAR", ...}


def test_no_buffer_tables_in_python():
    bufs = "|".join(abi.BUFFERS)
    keys = "|".join(re.escape(k) for k in abi.CONFIG_KEYS)
    assert _hits(rf"[\"']({bufs})[\"']\s*:\s*[\"']({keys})[\"']") == []       # buffer -> config key
    every = r"\s*,\s*".join(rf"[\"']{b}[\"']" for b in abi.enum_names("AscBuf"))
    assert _hits(every) == []                                                  # the AscBuf list


def test_no_register_abi_in_python():
    # the register ABI is compiler/abi.py's (from abi.json): no register count, argument window
    # or frame register written as a number
    assert _hits(r"x0\.\.x(1[56]|30)\b|at most 16 run-time|_NREGS\s*=\s*\d|_FP\s*=\s*\d|r\s*>=\s*16\b|"
                 r"args\)\s*\+\s*1\s*>\s*\d") == []


def _rule_fragments():
    with open(os.path.join(ROOT, "isa", "asc_diag.def"), encoding="utf-8") as f:
        text = f.read()
    sect = text[text.index("---- target-aware checks"):text.index("---- kernel binary")]
    out = []
    for fmt in re.findall(r'ASC_DIAG\(\w+,\s*\w+,\s*"((?:[^"\\]|\\.)*)"\)', sect):
        out += [p.strip() for p in re.split(r"%[a-z]+|'", fmt) if len(p.strip()) >= 16]
    assert len(out) >= 7   # the section's rules (XID_RANGE left it: the 4-bit field bounds ids 0..15)
    return out


def test_no_legality_rule_worded_in_python():
    frags = _rule_fragments()
    bad = [f"{p}: {fr!r}" for p, text in SOURCES.items() for fr in frags if fr in text]
    bad += _hits(r"hardware error|is illegal")
    assert bad == []
