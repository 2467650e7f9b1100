"""The compile cache's key (runtime/jit.py JITFunction._key): a changed kernel source, ConstExpr
value, argument dtype, target profile or option is another kernel, so a disk cache written by
an earlier process must never serve it (test_fidelity.py covers helper files and imported
module constants; test_ir_records.py and test_import_cost.py the cheaper cache-hit path)."""
import importlib
import os
import sys

import numpy as np
import pytest

SRC = '''
import asc


@asc.jit
def k(z: asc.GlobalAddress, v: asc.ConstExpr[int]):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    t = asc.LocalTensor(z.dtype, asc.TPosition.VECOUT, 0, 64)
    asc.duplicate(t, v + {add}, 64)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, t, 64)
'''


def _module(tmp_path, add, name="cachekey_kernel"):
    (tmp_path / f"{name}.py").write_text(SRC.format(add=add))
    sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(name)


@pytest.mark.libasc
def test_every_key_input_is_another_kernel(tmp_path, monkeypatch):
    from pyasc.compiler import driver
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    z32, z16 = np.zeros(64, np.int32), np.zeros(64, np.int16)
    m = _module(tmp_path, 0)
    k = m.k
    base = k._options()
    cases = {   # what changes -> (specs, options)
        "base": (k.specs((z32, 3))[0], base),
        "ConstExpr value": (k.specs((z32, 4))[0], base),
        "argument dtype": (k.specs((z16, 3))[0], base),
        "target": (k.specs((z32, 3))[0], dict(base, target="ascend910")),
        "opt_level": (k.specs((z32, 3))[0], dict(base, opt_level=1)),
        "option": (k.specs((z32, 3))[0], dict(base, insert_sync=False)),
    }
    keys = {what: k._key(s, o) for what, (s, o) in cases.items()}
    assert len(set(keys.values())) == len(keys), keys
    assert k._key(*cases["base"]) == keys["base"]          # and the same inputs give the same key
    m2 = _module(tmp_path, 5)                              # the kernel's own source changed
    assert m2.k._key(k.specs((z32, 3))[0], base) not in keys.values()

    # through the disk cache, as a later process sees it: each variant compiles once, its
    # entry is served afterwards, and the changed source is compiled, not served
    m = _module(tmp_path, 0)
    a3, a4 = m.k.asm(z32, 3), m.k.asm(z32, 4)
    assert a3 != a4
    m = _module(tmp_path, 0)                               # a new JITFunction: empty memory cache
    real = driver.compile_kernel

    def no_compile(*a, **kw):
        raise AssertionError("a cache hit recompiled")
    monkeypatch.setattr(driver, "compile_kernel", no_compile)
    assert m.k.asm(z32, 3) == a3 and m.k.asm(z32, 4) == a4
    monkeypatch.setattr(driver, "compile_kernel", real)
    m = _module(tmp_path, 5)
    z = np.zeros(64, np.int32)
    m.k[1](z, 3)
    assert (z == 8).all()                                  # 3 + 5: the new source ran
    assert len([f for f in os.listdir(tmp_path / "cache") if f.endswith(".json")]) == 3
