"""Adversarial review (silent wrong answers, bad input), session 5: each test failed before its fix.

  * AscendTensor indexing with an integer for every axis (t[3] of a 1-d tensor, t[1, 2] of a 2-d
    one) made a 0-d view at a wrong address: numpy gives a scalar copy for such a key, and the view's
    offset was taken from that copy's address (t[3].numpy() read 0.0, or bytes before the
    allocation); host/tensor.py now indexes with an Ellipsis added, which numpy answers with a view.
    A bool index (t[1, True]: numpy's boolean index, a copy) gave the view of other rows: refused as
    the other advanced indexes are.
  * host operators on overlapping views of one tensor (x[1:] - x[:-1], fused or not) failed: the
    launch refused gm arguments whose arrays overlap in part (and an argument containing an
    earlier one, k(x[64:], x)); runtime/launch.py now places the span of all the arrays sharing
    memory as one GM buffer, each argument a pointer into it, as on the device.
  * a kernel's element-wise vector op whose destination overlaps a source in part (asc.adds(x[8:],
    x, ...)) compiled without a word and computed what the repeat-by-repeat order gives, not the
    element-wise result: language/ops.py _overlap_check now warns at the kernel line (in place,
    the same start, stays silent; so do disjoint or interleaved operands).
  * a big-endian numpy array ('>f4', '>f2', '>i4') given to pyasc.from_numpy (or a dtype given to
    zeros/full/empty) made a tensor holding big-endian bytes in the little-endian device memory:
    every kernel read other numbers (or the operator refused "float32" as not float32); the host
    tensor now holds the little-endian twin, the values converted.  A kernel launch refused the
    array with "cannot be passed to a kernel"; it now says it is big-endian and what to pass.
  * `pyasc compile -a tile=0128` (a ConstExpr) took the value as the float 128.0 (int(v, 0) refuses
    a leading 0, float() does not); now an error, as asc-sim's --arg n=010 and --set key=010 (which
    strtoll read as octal 8) are.
  * a float kernel argument past the f32 range raised struct's "float too large to pack", and a
    nonzero one below the smallest f32 (1e-50) reached the kernel as 0 silently: both are now a
    LaunchError naming the argument; a subnormal f32 (1e-40) is kept, as the vector unit keeps
    subnormals, and warned (asc-sim's --arg alpha= gets the same rule, docs/errors.md rows).
  * host tensor shapes were int()-ed: pyasc.zeros((2.5, 3)) made a (2, 3) tensor, zeros(-1) a tensor
    of shape (-1,), reshape(3, 8.0) went through; now a ShapeError, as numpy's TypeError/ValueError.
  * kernel[n](..., max_cycles=2.5) failed in ctypes ("argument 2: wrong type"), max_cycles="100" with
    a TypeError from '<': both now the LaunchError naming max_cycles and the rule.
  * a read-only numpy array given as a kernel's output was silently left unchanged (read-only arrays
    are not copied back): when the kernel changed its bytes, the launch now warns naming it."""
import warnings

import numpy as np
import pytest

import asc
import pyasc
from pyasc.compiler.errors import LaunchError
from pyasc.host.errors import ShapeError

pytestmark = pytest.mark.libasc


_KEYS = [0, 3, -1, -4, np.int64(2), (1, 2), (-1, -2, 1), (1, 2, 3, 4), (-1, -1, -1, -1), (0, 0, 0, 1),
         (np.int32(-1), 2, np.int64(0), -3), (slice(None, None, -1), 0, 0, 0), (Ellipsis, 2), (1, Ellipsis, -1),
         (None, 1, 2, 3, 4), (slice(1, None), slice(None, None, 2))]


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.int32])
@pytest.mark.parametrize("key", _KEYS, ids=repr)
def test_host_tensor_integer_index_views_the_right_element(dt, key):
    a = (np.arange(4 * 3 * 4 * 5) % 97).astype(dt).reshape(4, 3, 4, 5)
    t = pyasc.from_numpy(a)
    v = t[key]
    exp = a[key]
    assert v.shape == np.shape(exp)
    np.testing.assert_array_equal(v.numpy(), exp)
    # the view's address is that of numpy's view of the same key (an Ellipsis added: a view, not a copy)
    keys = key if isinstance(key, tuple) else (key,)
    ref = a[keys if Ellipsis in keys else keys + (Ellipsis,)]
    if ref.size:
        assert v.data_ptr - t.data_ptr == ref.__array_interface__["data"][0] - a.__array_interface__["data"][0]

def test_host_tensor_scalar_element_item_and_chain():
    a = np.arange(5, dtype=np.float32) * 3 + 1
    t = pyasc.from_numpy(a)
    for i in range(-5, 5):
        assert t[i].item() == a[i]
        assert t[i].data_ptr == t.data_ptr + (i % 5) * 4
    m = pyasc.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert m[2][1].item() == 9.0 and m[-1, -1].item() == 11.0 and m[1:][1][2].item() == 10.0


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("n", [9, 300, 4099])
def test_host_ops_on_overlapping_views(dt, n):
    a = ((np.arange(n) % 37) * 0.5).astype(dt)
    x = pyasc.from_numpy(a)
    np.testing.assert_array_equal((x[1:] - x[:-1]).numpy(), a[1:] - a[:-1])
    np.testing.assert_array_equal((x[1:] + x[:-1]).numpy(), a[1:] + a[:-1])
    np.testing.assert_array_equal((x[:-2] * x[2:]).numpy(), a[:-2] * a[2:])
    with pyasc.fuse():
        z = (x[1:] - x[:-1]) * 2.0 + x[:-1]
    np.testing.assert_array_equal(z.numpy(), ((a[1:] - a[:-1]) * dt(2)) + a[:-1])


@asc.jit
def _copy_into(z: asc.GlobalAddress, x: asc.GlobalAddress, n: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(xl, xg, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.adds(xl, xl, 1.0, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, xl, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("zs,xs", [((8, 72), (0, 64)), ((0, 64), (8, 72)), ((64, 128), (0, 128)),
                                   ((0, 64), (0, 64)), ((0, 64), (64, 128))])
def test_kernel_arguments_sharing_memory_are_one_buffer(zs, xs):
    x = np.arange(128, dtype=np.float32)
    y = x.copy()
    _copy_into[1](y[zs[0]:zs[1]], y[xs[0]:xs[1]], 64)
    ref = x.copy()
    ref[zs[0]:zs[1]] = x[xs[0]:xs[0] + 64] + 1     # the whole tile is read before any byte is written
    np.testing.assert_array_equal(y, ref)


@asc.jit
def _shifted(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], d: asc.ConstExpr[int],
             s: asc.ConstExpr[int], level0: asc.ConstExpr[int]):
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    xl = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 2 * n + 128)
    asc.data_copy(xl, xg, n + 128)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    if level0 == 2:     # interleaved blocks: dst even blocks, src odd ones
        asc.add(xl[d:], xl[s:], xl[s:], 64, n // 128, asc.BinaryRepeatParams(2, 2, 2, 16, 16, 16))
    elif level0 == 1:
        asc.add(xl[d:], xl[s:], xl[s:], 64, n // 64, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    else:
        asc.adds(xl[d:], xl[s:], 1.0, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, xl, n + 128)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def _run_shifted(d, s, level0):
    x = np.arange(1024 + 128, dtype=np.float32)
    z = np.zeros_like(x)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        r = _shifted[1](x, z, 1024, d, s, level0)
    return [str(w.message) for w in ws] + list(r.warnings)


@pytest.mark.parametrize("d,s,level0", [(8, 0, 0), (0, 8, 0), (64, 0, 0), (8, 0, 1), (0, 72, 1), (64, 0, 1)])
def test_vector_op_dst_overlapping_a_source_in_part_is_warned(d, s, level0):
    ws = _run_shifted(d, s, level0)
    hits = [w for w in ws if "overlaps" in w]
    assert hits, ws
    assert "test_review_s5.py:" in hits[0] and "in part" in hits[0] and "the same one (in place)" in hits[0]


@pytest.mark.parametrize("d,s,level0", [(0, 0, 0), (0, 0, 1), (1024, 0, 0), (0, 1024, 1), (8, 0, 2), (0, 8, 2)])
def test_vector_op_in_place_or_disjoint_is_not_warned(d, s, level0):
    ws = _run_shifted(d, s, level0)
    assert not [w for w in ws if "overlaps" in w], ws


@pytest.mark.parametrize("d", [">f4", ">f2", ">i4", ">i2", ">u2"])
def test_host_tensor_from_big_endian_array_holds_little_endian_values(d):
    a = (np.arange(40) % 11 - 3).astype(np.dtype(d).newbyteorder("<")).astype(d)
    t = pyasc.from_numpy(a)
    assert t.dtype.byteorder != ">" and t.dtype == a.dtype.newbyteorder("<")
    np.testing.assert_array_equal(t.numpy(), a)
    raw = t._flat().view(np.uint8)
    np.testing.assert_array_equal(raw, a.astype(t.dtype).view(np.uint8))   # the device's bytes
    if d in (">f4", ">f2"):
        np.testing.assert_array_equal((t + t).numpy(), a + a)
        np.testing.assert_array_equal(pyasc.full((3,), 2.5, dtype=d).numpy(), np.full(3, 2.5, d))


def test_kernel_launch_big_endian_array_is_refused_naming_it():
    x = np.zeros(64, ">f4")
    with pytest.raises(LaunchError, match=r"argument 'z': arrays of dtype >f4 are big-endian .*astype\('<f4'\)"):
        _copy_into[1](x, np.zeros(64, np.float32), 64)


@pytest.mark.parametrize("v", ["0128", "010", "-07", "00"])
def test_pyasc_cli_constexpr_leading_zero_is_refused(tmp_path, v):
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    r = subprocess.run([sys.executable, "-m", "pyasc", "compile", os.path.join(root, "kernels", "pyasc", "vadd_tque.py"),
                        "-o", str(tmp_path / "k.bin"), "-a", f"tile={v}", "-a", "x=f32", "-a", "y=f32", "-a", "z=f32"],
                       env=env, capture_output=True, text=True)
    assert r.returncode != 0 and not (tmp_path / "k.bin").exists()
    assert f"-a tile={v}: a leading 0 would make the number octal" in r.stderr, r.stderr
    r = subprocess.run([sys.executable, "-m", "pyasc", "compile", os.path.join(root, "kernels", "pyasc", "vadd_tque.py"),
                        "-o", str(tmp_path / "k.bin"), "-a", "tile=0x80", "-a", "x=f32", "-a", "y=f32", "-a", "z=f32"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@asc.jit
def _fill(z: asc.GlobalAddress, a: float, n: asc.ConstExpr[int]):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    zl = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, n)
    asc.duplicate(zl, a, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    asc.data_copy(zg, zl, n)
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)


@pytest.mark.parametrize("v", [1e39, -3.5e38, 1e-50, -1e-46])
def test_float_argument_not_representable_in_f32_is_refused(v):
    z = np.full(64, 7, np.float32)
    with pytest.raises(LaunchError, match=r"argument 'a' = .* (beyond the f32 range|below the smallest f32)"):
        _fill[1](z, v, 64)
    assert (z == 7).all()


@pytest.mark.parametrize("v", [1e-40, -2.5e-42, 1.4e-45])
def test_float_argument_subnormal_in_f32_is_kept_and_warned(v):
    z = np.zeros(64, np.float32)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        _fill[1](z, v, 64)
    np.testing.assert_array_equal(z, np.full(64, np.float32(v)))
    assert any("argument 'a'" in str(w.message) and "subnormal in f32" in str(w.message) for w in ws)


@pytest.mark.parametrize("v", [0.0, -0.0, 1e-30, 3.4e38, float("inf")])
def test_float_argument_in_range_is_not_warned(v):
    z = np.zeros(64, np.float32)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        _fill[1](z, v, 64)
    np.testing.assert_array_equal(z, np.full(64, np.float32(v)))
    assert not [w for w in ws if "f32" in str(w.message)]


@pytest.mark.parametrize("shape", [(2.5, 3), 2.0, ("3",), -1, (2, -3), (4, None)])
def test_host_tensor_bad_shape_is_refused(shape):
    with pytest.raises(ShapeError, match="a shape is an integer|negative dimensions are not allowed"):
        pyasc.zeros(shape)


def test_host_tensor_shape_takes_integers_as_numpy():
    assert pyasc.zeros((np.int64(2), 3)).shape == (2, 3) and pyasc.zeros(np.int32(4)).shape == (4,)
    assert pyasc.zeros((0, 3)).shape == (0, 3)
    t = pyasc.zeros((4, 6))
    assert t.reshape(3, -1).shape == (3, 8) and t.reshape((np.int64(8), 3)).shape == (8, 3)
    with pytest.raises(ShapeError, match="a shape is an integer"):
        t.reshape(3, 8.0)


@pytest.mark.parametrize("m", [2.5, "100", None, True])
def test_launch_max_cycles_not_an_integer_is_refused(m):
    with pytest.raises(LaunchError, match=r"max_cycles=.*: an integer in \[0, 2\*\*64\)"):
        _fill[1](np.zeros(64, np.float32), 1.0, 64, max_cycles=m)
    z = np.zeros(64, np.float32)
    _fill[1](z, 1.0, 64, max_cycles=np.int64(10 ** 6))
    assert (z == 1).all()


@pytest.mark.parametrize("value", ["99999999999999999999", 18446744073709551616, 1e30])
def test_bundle_int_argument_past_64_bits_is_refused(tmp_path, value):
    import json
    import os
    import subprocess
    from pyasc.script import compile_script
    here = os.path.dirname(os.path.abspath(__file__))
    sim = os.path.join(os.path.dirname(os.environ.get("ASC_LIB", "build/libasc.so")), "sim", "asc-sim")
    om = str(tmp_path / "mm.om")
    compile_script(os.path.join(here, "scripts", "mm_ew.py"), om, opt_level=2)
    d = json.load(open(om))
    where = None
    for si, st in enumerate(d["native"]["steps"]):
        for li, la in enumerate(st.get("launches", [])):
            for ai, a in enumerate(la["args"]):
                if a.get("kind") == "int" and where is None:
                    where = (si, li, ai)
                    a["value"] = value
    assert where is not None
    p = str(tmp_path / "v.om")
    with open(p, "w") as f:
        json.dump(d, f)
    ins = []
    for name, shape in (("a", (256, 256)), ("b", (256, 256))):
        np.save(tmp_path / f"{name}.npy", np.ones(shape, np.float16))
        ins += ["--arg", f"{name}={tmp_path / name}.npy"]
    r = subprocess.run([sim, "run", om, *ins], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr          # the bundle as written runs
    r = subprocess.run([sim, "run", p, *ins], capture_output=True, text=True)
    assert r.returncode == 1
    si, li, ai = where
    assert (f"native.steps[{si}].launches[{li}].args[{ai}].value: needs an integer in [0, 18446744073709551615]"
            in r.stderr), r.stderr


def test_read_only_array_written_by_the_kernel_is_warned():
    z = np.zeros(64, np.float32)
    z.flags.writeable = False
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        r = _fill[1](z, 3.0, 64)
    msg = "argument 'z': the kernel changed 128 of its 256 bytes, but its array is read-only"
    assert any(msg in str(w.message) for w in ws) and any(msg in w for w in r.warnings)
    assert (z == 0).all()
    x = np.full(64, 3.0, np.float32)       # read-only and unchanged (an input): nothing to say
    x.flags.writeable = False
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        r = _fill[1](x, 3.0, 64)
    assert not [w for w in ws if "read-only" in str(w.message)] and not r.warnings


@pytest.mark.parametrize("key", [True, False, (1, True), (Ellipsis, False)], ids=repr)
def test_host_tensor_bool_index_is_refused(key):
    t = pyasc.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    with pytest.raises(pyasc.AscendError, match="indexing takes ints, slices, None and ...; got bool"):
        t[key]
