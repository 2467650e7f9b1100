"""Fidelity with real pyasc's API (names, keyword names, defaults, forms a real kernel uses) and
the compile cache's correctness (what its key and its re-validation cover)."""
import importlib
import os
import sys

import numpy as np
import pytest

import asc
import asc.runtime.config as config
import kernels_fidelity as kf

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_platform_enum_and_set_platform_signature():
    names = {p.name: p.value for p in config.Platform}
    assert names["Ascend910B4_1"] == "Ascend910B4-1" and "Ascend910_9392" in names and len(names) == 12
    config.set_platform(config.Backend.Model, soc_version=config.Platform.Ascend910_9391, device_id=0, check=True)
    assert config.get_target() == "ascend910b"
    config.set_platform("Model", config.Platform.Ascend910B1)
    assert config.get_backend() is config.Backend.Model


def test_param_defaults_as_real_pyasc():
    c = asc.CopyRepeatParams()
    assert (c.dst_stride, c.src_stride, c.dst_repeat_size, c.src_repeat_size) == (0, 0, 0, 0)
    assert asc.BrcbRepeatParams().dst_rep_stride == 8
    assert asc.LoadData2DParams().repeat_times == 1


@pytest.mark.libasc
def test_keyword_api_tque_pipeline():
    rng = np.random.default_rng(3)
    x = rng.random(8192, dtype=np.float32)
    y = rng.random(8192, dtype=np.float32)
    z = np.zeros_like(x)
    kf.f_keywords[16](x, y, z, 512, 64, 8)
    np.testing.assert_array_equal(z, x + y)


@pytest.mark.libasc
def test_subtensor_index_tbuf_and_is_set_mask():
    x = np.arange(256, dtype=np.float32)
    z = np.zeros(136, np.float32)
    kf.f_index_tbuf[1](x, z)
    src = x[64:192]
    want = np.concatenate([src[:64] * 2, src[64:] + 1])
    np.testing.assert_array_equal(z[:128], want)
    np.testing.assert_allclose(z[128:130], [want[:64].sum(), want[64:].sum()], rtol=1e-6)


def test_local_get_value_is_a_clear_error():
    x = np.zeros(64, np.float32)
    with pytest.raises(asc.CompileError, match=r"kernels_fidelity.py:\d+:\d+: error: LocalTensor.get_value "
                                               r"of float16 is not supported: the asc scalar unit has no FPU"):
        kf.f_local_get_value.compile(x)


@pytest.mark.libasc
def test_same_kernel_same_assembly():
    x = np.zeros(8192, np.float32)
    a = kf.f_keywords.__class__(kf.f_keywords.fn, always_compile=True).asm(x, x, x, 512, 64, 8)
    b = kf.f_keywords.__class__(kf.f_keywords.fn, always_compile=True).asm(x, x, x, 512, 64, 8)
    assert a == b and ".loc" in a


KERNEL_SRC = '''
import asc
import fid_cfg
from fid_helper import fill


@asc.jit
def k(z: asc.GlobalAddress):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, fid_cfg.N)
    fill(t)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, t, fid_cfg.N)
'''
HELPER_SRC = '''
import asc


@asc.jit
def fill(t: asc.LocalTensor):
    asc.duplicate(t, {value}, 64)
'''


def _load(tmp_path, monkeypatch, value, n):
    (tmp_path / "fid_kernel.py").write_text(KERNEL_SRC)
    (tmp_path / "fid_helper.py").write_text(HELPER_SRC.format(value=value))
    (tmp_path / "fid_cfg.py").write_text(f"N = {n}\n")
    for m in ("fid_kernel", "fid_helper", "fid_cfg"):
        sys.modules.pop(m, None)
    importlib.invalidate_caches()
    return importlib.import_module("fid_kernel")


def test_cache_revalidates_helper_files_and_module_constants(tmp_path, monkeypatch):
    """The kernel's own module never changes here: a stale disk entry would be served if the
    cache keyed on it alone.  A changed helper file or imported constant must recompile."""
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    z = np.zeros(64, np.int32)
    m = _load(tmp_path, monkeypatch, 5, 64)
    first = m.k.asm(z)
    assert len(os.listdir(tmp_path / "cache")) == 1
    m = _load(tmp_path, monkeypatch, 5, 64)
    assert m.k.asm(z) == first                     # nothing changed: served from disk
    m = _load(tmp_path, monkeypatch, 9, 64)        # helper file changed
    second = m.k.asm(z)
    assert second != first and " 9" in second
    m = _load(tmp_path, monkeypatch, 9, 32)        # an imported module constant changed
    assert m.k.asm(z) != second


def test_compiler_digest_covers_isa_table_and_sources():
    from pyasc.runtime import jit
    src = open(jit.__file__).read()
    assert '"isa.json"' in src and "fh.read()" in src  # content, not mtimes
    d1 = jit._compiler_digest()
    assert d1 == jit._compiler_digest() and len(d1) == 16


def test_compiler_digest_memo_follows_file_stats(tmp_path, monkeypatch):
    """The memo of the content digest is used only while every file's stats are unchanged (and
    none was written in the last _DIGEST_RACY_NS); any other time the files are hashed."""
    from pyasc.runtime import jit
    cache = tmp_path / "cache"
    monkeypatch.setenv("PYASC_CACHE_DIR", str(cache))
    real = jit._compiler_digest()
    assert jit._compiler_digest() == real                  # memo or not, the same digest
    before = set(cache.glob("compiler-digest-*"))          # (the memo of the real tree, if any)
    src = tmp_path / "src"
    src.mkdir()
    a, b = src / "a.py", src / "isa.json"
    a.write_text("x = 1\n")
    b.write_text("{}")
    monkeypatch.setattr(jit, "_digest_files", lambda: [("a.py", str(a)), ("isa.json", str(b))])
    d1 = jit._compiler_digest()                            # just written: hashed, no memo
    assert d1 != real and set(cache.glob("compiler-digest-*")) == before
    monkeypatch.setattr(jit, "_DIGEST_RACY_NS", 0)
    assert jit._compiler_digest() == d1                    # hashed, and the memo written
    (memo,) = set(cache.glob("compiler-digest-*")) - before
    memo.write_text("0123456789abcdef")
    assert jit._compiler_digest() == "0123456789abcdef"    # unchanged stats: the memo is used
    a.write_text("x = 22\n")                               # another size: hashed again
    d2 = jit._compiler_digest()
    assert d2 not in (d1, "0123456789abcdef")
    a.write_text("x = 1\n")                                # the old content: the old digest
    monkeypatch.setattr(jit, "_DIGEST_RACY_NS", 2_000_000_000)
    assert jit._compiler_digest() == d1


@pytest.mark.libasc
def test_local_tensor_auto_turns_insert_sync_on():
    x = np.random.default_rng(5).random(1024, dtype=np.float32)
    z = np.zeros_like(x)
    kf.f_auto[1](x, z, 128, 8)
    np.testing.assert_array_equal(z, x + np.tile(x[:128], 8))
    lowered = kf.f_auto.compile(x, z, 128, 8).lowered_text
    assert "LocalTensorAuto" in lowered and "auto" in lowered


@pytest.mark.libasc
def test_insert_sync_orders_work_around_an_if():
    x = np.arange(64, dtype=np.float32)
    for flag, want in ((1, x * 3), (0, np.full(64, 3.0, np.float32))):
        z = np.zeros_like(x)
        kf.f_sync_around_if[1](x, z, flag)
        np.testing.assert_array_equal(z, want)
    ops = kf.f_sync_around_if.compile(x, x, 1).lowered_text
    # the duplicate (V) is ordered before the branch's copy-in (MTE2) by a wait in front of the
    # if, and whatever the branch did reaches the muls by a set right after the if
    head, rest = ops.split("  if ", 1)
    branch, after = rest.split("\n  }\n", 1)
    assert "wait_flag [mte2]  src=v dst=mte2" in head
    assert after.index("set_flag [mte2]  src=mte2 dst=v") < after.index("vmuls")
    assert "bar" not in ops


def test_cache_hit_never_recompiles_a_path_loaded_module(tmp_path, monkeypatch):
    """kernels/pyasc modules are loaded from a path (not in sys.modules): their constants must
    still validate, or every 'hit' silently recompiles (it did: 14 ms instead of 0.5 ms)."""
    import importlib.util
    from pyasc.compiler import driver
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    spec = importlib.util.spec_from_file_location("vadd_tque_pathload", os.path.join(ROOT, "kernels/pyasc/vadd_tque.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    x = np.zeros(16384, np.float32)
    m.vadd_tque.compile(x, x, x, 2048, 128)
    m.vadd_tque._mem.clear()

    def boom(*a, **k):
        raise AssertionError("cache hit recompiled")
    monkeypatch.setattr(driver, "compile_kernel", boom)
    m.vadd_tque.compile(x, x, x, 2048, 128)      # disk hit
    m.vadd_tque.compile(x, x, x, 2048, 128)      # memory hit
