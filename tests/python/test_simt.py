"""Per-element (SIMT-style) kernels (docs/pyasc.md "Per-element (SIMT) kernels"): the documents'
x * 2 kernel, GEMM and row softmax (kernels/pyasc/simt/examples.py) on all cores of ascend910b
against numpy over shapes with tails and several dtypes; the element-wise kernel's MTE2, V and
MTE3 overlap, read from its trace; what cannot be vectorised is a CompileError at its line."""
import json
import os
import sys

import numpy as np
import pytest

import pyasc
import pyasc.runtime.config as config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc", "simt"))
import examples as ex  # noqa: E402
import kernels_simt as ks  # noqa: E402

CORES = 48      # ascend910b: 24 AI cores x 2 vector cores


@pytest.fixture(autouse=True)
def _target():
    old = dict(config._state)
    config.set_platform(config.Backend.Model, "ascend910b")
    yield
    config._state.clear()
    config._state.update(old)


def _data(n, dt, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "i":
        return rng.integers(-1000, 1000, n).astype(dt)
    return rng.standard_normal(n).astype(dt)


# 1 element; fewer than a 32 B block; not a multiple of 32 B, of the 16-element core share, of
# the tile (4096) or of the core count; several tiles per core with a short last one
SIZES = [1, 7, 17, 1003, CORES * 16 + 5, 4096 * CORES * 2 + 4097]


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.int32, np.int16])
@pytest.mark.parametrize("n", SIZES)
def test_double_equals_numpy(n, dt):
    x = _data(n, dt, n)
    y = np.full(n + 8, 77, dt)               # guarded: nothing past size is written
    r = ex.double_kernel(x, y, n)
    np.testing.assert_array_equal(y[:n], x * 2)
    assert (y[n:] == 77).all()
    assert ex.double_kernel.cores == CORES and r.cycles > 0
    assert ex.double_kernel.tile % 16 == 0


def test_guard_below_array_length():
    x = _data(5000, np.float32, 1)
    y = np.zeros(5000, np.float32)
    ex.double_kernel(x, y, 1234)
    np.testing.assert_array_equal(y[:1234], x[:1234] * 2)
    assert (y[1234:] == 0).all()


def test_cores_cap_and_empty():
    x = _data(3000, np.float32, 2)
    y = np.zeros_like(x)
    ex.double_kernel[3](x, y, 3000)
    np.testing.assert_array_equal(y, x * 2)
    assert ex.double_kernel.cores == 3
    assert ex.double_kernel(x, y, 0) is None


@pytest.mark.parametrize("dt,tol", [(np.float32, 2e-6), (np.float16, 2e-3)])
@pytest.mark.parametrize("n", [1, 1003, 70001])
def test_chain_with_scalars(n, dt, tol):
    x, y = _data(n, dt, 3), _data(n, dt, 4)
    out = np.zeros(n, dt)
    ex.axpby_kernel(x, y, out, 1.5, -0.25, n)
    with np.errstate(over="ignore"):
        ref = np.maximum(1.5 * x + -0.25 * y, 0.0) - 1.0 / (1.0 + np.exp(-x))
    np.testing.assert_allclose(out.astype(np.float64), ref.astype(np.float64), rtol=tol, atol=tol)
    assert "asc.exp(" in ex.axpby_kernel.last_source and "asc.maxs(" in ex.axpby_kernel.last_source


@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32])
def test_shared_async_vector(dt):
    n = 5003
    x, y = _data(n, dt, 5), _data(n, dt, 6)
    out = np.zeros(n, dt)
    ex.shared_kernel(x, out, n)
    np.testing.assert_array_equal(out, x * 3 + 1)
    assert "asc.pipe_barrier(asc.PipeID.PIPE_V)" in ex.shared_kernel.last_source
    assert ex.shared_kernel.tile <= 1024           # pyasc.shared(1024) holds one tile
    ex.pipelined_kernel(x, y, out, n)
    np.testing.assert_array_equal(out, x * y + x)
    nv = n // 4
    out[:] = 0
    ex.vector_kernel(x, out, nv)
    np.testing.assert_array_equal(out[:nv * 4], x[:nv * 4] * 2 - x[:nv * 4])
    assert (out[nv * 4:] == 0).all()


def _intervals(trace, pid, pipe):
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace if e.get("name") == "thread_name"}
    return sorted((e["args"]["start_cycle"], e["args"]["end_cycle"]) for e in trace
                  if e.get("ph") == "X" and names.get((e["pid"], e["tid"])) == pipe and e["pid"] == pid
                  and (e["name"].startswith("mov") if pipe != "VECTOR" else e["name"].startswith("v")))


def _overlap(a, b):
    return sum(max(0, min(x1, y1) - max(x0, y0)) for x0, x1 in a for y0, y1 in b)


def test_double_overlaps_mte2_v_mte3(tmp_path):
    n = 4096 * CORES * 4 + 1000                   # 4-5 tiles per core
    x = _data(n, np.float32, 7)
    y = np.zeros_like(x)
    path = str(tmp_path / "double.json")
    ex.double_kernel(x, y, n, trace=path)
    np.testing.assert_array_equal(y, x * 2)
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)["traceEvents"]
    pids = {e["pid"] for e in trace if e.get("ph") == "X" and e["name"].startswith("vmuls")}
    assert len(pids) == CORES                     # every vector core computed
    for pid in sorted(pids):
        m2, v, m3 = (_intervals(trace, pid, p) for p in ("MTE2", "VECTOR", "MTE3"))
        assert len(m2) >= 4 and len(v) >= 4 and len(m3) >= 4
        # the next tile's load runs while this one is computed, and this one's store while the
        # next is computed: the pipes are busy at the same time, not one after the other
        assert _overlap(m2, v) > 0, pid
        assert _overlap(v, m3) > 0, pid
        assert _overlap(m2, m3) > 0, pid


@pytest.mark.parametrize("dt", [np.float16, np.uint16])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (100, 70, 45), (17, 33, 130), (131, 81, 200)])
def test_gemm_on_cube(m, n, k, dt):
    rng = np.random.default_rng(m * n * k)
    a32 = rng.standard_normal((m + 2, k + 3)).astype(np.float32)   # larger arrays: the bounds decide
    b32 = rng.standard_normal((k, n)).astype(np.float32)
    if dt == np.uint16:
        from pyasc.host import kernels as lib
        mat = lib.library("matmul")            # its bf16 <-> float32 helpers
        a, b = mat.to_bf16(a32), mat.to_bf16(b32)
        ref = mat.from_bf16(a)[:m, :k].astype(np.float64) @ mat.from_bf16(b).astype(np.float64)
    else:
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        ref = a[:m, :k].astype(np.float64) @ b.astype(np.float64)
    c = np.zeros((m, n), np.float32)
    r = ex.gemm_kernel(c, a, b, m, n, k)
    assert r.kernel == "matmul_kernel"               # the cube kernel of the library
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5 * k)


@pytest.mark.parametrize("dt,tol", [(np.float32, 1e-6), (np.float16, 1e-3)])
@pytest.mark.parametrize("rows,cols", [(1, 1), (37, 1000), (50, 13), (97, 257)])
def test_row_softmax(rows, cols, dt, tol):
    x = (np.random.default_rng(rows * cols).standard_normal((rows + 1, cols + 2)) * 3).astype(dt)
    y = np.zeros((rows, cols), dt)
    r = ex.softmax_kernel(x, y, rows, cols)
    xs = x[:rows, :cols].astype(np.float64)
    e = np.exp(xs - xs.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.astype(np.float64), e / e.sum(axis=1, keepdims=True), atol=tol, rtol=tol)
    assert r.kernel == "softmax_kernel_off"


@pytest.mark.parametrize("kernel,args,line,words", [
    (ks.k_gather, "xyo", 9, "gather/scatter"),
    (ks.k_shift, "xo", 16, "not the element's own index"),
    (ks.k_rotate, "xo", 27, "cross-element gather"),
    (ks.k_loop, "xo", 35, "cannot prove its iterations independent"),
    (ks.k_branch, "xo", 44, "data-dependent branch"),
    (ks.k_nowait, "xo", 53, "used before pyasc.wait()"),
    (ks.k_f64, "io", 61, "float64"),
])
def test_not_vectorisable_is_an_error_at_the_line(kernel, args, line, words):
    n = 64
    vals = {"x": np.zeros(n, np.float32), "y": np.zeros(n, np.int32), "o": np.zeros(n, np.float32),
            "i": np.zeros(n, np.int32)}
    argv = [vals[a] for a in args]
    if args == "io":
        argv[1] = np.zeros(n, np.float64)
    with pytest.raises(pyasc.CompileError) as ei:
        kernel(*argv, n)
    msg = str(ei.value)
    assert f"kernels_simt.py:{line}:" in msg and words in msg, msg


def test_gemm_shape_error():
    with pytest.raises(pyasc.CompileError, match=r"kernels_simt.py:71:.*A\[row, k\] \* B\[k, col\]"):
        ks.k_gemm_epilogue(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float16),
                           np.zeros((2, 2), np.float16), 2, 2, 2)


def test_names_outside_a_kernel():
    with pytest.raises(pyasc.LaunchError, match="per-element kernel style"):
        pyasc.get_global_id()
    assert isinstance(ex.double_kernel, pyasc.SimtKernel)
    assert not isinstance(ex.double_kernel, pyasc.JITFunction)


def test_gemm_wrong_dtype_is_a_launch_error():
    with pytest.raises(pyasc.LaunchError, match="float16"):
        ex.gemm_kernel(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32),
                       np.zeros((2, 2), np.float32), 2, 2, 2)


@pytest.mark.parametrize("odt", [np.float16, np.float32])
@pytest.mark.parametrize("n", [1, 1001, 9000])
def test_mixed_dtypes_follow_numpy(n, odt):
    x = _data(n, np.float16, 8)
    y = (np.abs(_data(n, np.float32, 9)) + 1).astype(np.float32)
    out = np.zeros(n, odt)
    ks.k_mixed(x, y, out, n)
    np.testing.assert_array_equal(out, (x + y * 3 - 2.0 / y).astype(odt))
    assert "asc.cast(" in ks.k_mixed.last_source


def _many_exp_kernel(tmp_path, n_terms, name, live=False):
    """A per-element kernel of `n_terms` exp temporaries summed in groups of 32 (not one deep
    chain: that is the recursion-limit error)."""
    L = [f"        a{j} = pyasc.exp(x[i] * {(j % 7 + 1) / 8})" for j in range(n_terms)]
    groups = (n_terms + 31) // 32
    L += [f"        s{g} = " + " + ".join(f"a{j}" for j in range(g * 32, min(n_terms, g * 32 + 32)))
          for g in range(groups)]
    if live:     # a second sum of the same terms: every a_j stays live until it
        L += [f"        q{g} = " + " - ".join(f"a{j}" for j in range(g * 32, min(n_terms, g * 32 + 32)))
              for g in range(groups)]
        L += ["        out[i] = (" + " + ".join(f"s{g}" for g in range(groups)) + ") * (" +
              " + ".join(f"q{g}" for g in range(groups)) + ")"]
    else:
        L += ["        out[i] = " + " + ".join(f"s{g}" for g in range(groups))]
    p = tmp_path / f"{name}.py"
    p.write_text("\n".join(["import pyasc", "@pyasc.jit", "def k(x, out, n):", "    i = pyasc.get_global_id()",
                            "    if i < n:"] + L) + "\n")
    import importlib.util
    sp = importlib.util.spec_from_file_location(name, p)
    m = importlib.util.module_from_spec(sp)
    sp.loader.exec_module(m)
    return m.k, str(p)


def test_many_temporaries_analysed_in_linear_time(tmp_path):
    """2048 exp temporaries (the reviewer's kernel shape): numpy's answer, the temporaries sharing
    UB buffers; 2100 all live at once: the UB error at the kernel's line.  Both without the
    quadratic analysis that took 49 s of CPU (an unmemoised is_scalar on each node of a chain, a
    regex search per temporary and line; 512 terms: 26 s before, 4 s after, measured)."""
    import time
    x = np.linspace(-1, 1, 1003).astype(np.float32)
    out = np.zeros(1003, np.float32)
    k, _ = _many_exp_kernel(tmp_path, 2048, "simt_many2048")
    t = time.process_time()
    k(x, out, 1003)
    assert time.process_time() - t < 60
    ref = sum(np.exp(x.astype(np.float64) * ((j % 7 + 1) / 8)) for j in range(2048))
    np.testing.assert_allclose(out, ref, rtol=1e-4)
    k, path = _many_exp_kernel(tmp_path, 2100, "simt_live2100", live=True)
    t = time.process_time()
    with pytest.raises(pyasc.CompileError) as ei:
        k(x, out, 1003)
    assert time.process_time() - t < 30
    msg = str(ei.value)
    assert f"{path}:3:1:" in msg and "needs more UB than the target has even with 16-element tiles" in msg, msg
