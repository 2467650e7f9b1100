"""Compiler limits and one integer semantics for // and %,
end to end on the simulator against numpy / Python references."""
import numpy as np
import pytest

import asc
import asc.runtime.config as config
import kernels_limits as kl

pytestmark = pytest.mark.libasc


@pytest.fixture(autouse=True)
def _model():
    config.set_platform(config.Backend.Model)


def _matmul_inputs(k):
    rng = np.random.default_rng(k)
    a = (rng.random((256, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, 256)) - 0.5).astype(np.float16)
    return a, b, np.zeros((256, 256), np.float32), a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("k", [64, 192, 320])
def test_aic_matmul_with_a_runtime_k_loop(k):
    a, b, c, ref = _matmul_inputs(k)
    asm = kl.matmul_runtime_k.asm(a, b, c, k)
    assert "set_mask" not in asm and "L1_for:" in asm      # a real run-time loop, no vector-mask setup
    kl.matmul_runtime_k[2](a, b, c, k)
    assert np.abs(c - ref).max() <= 1e-3 * np.abs(ref).max()


def test_fully_unrolled_matmul_compiles_and_is_right():
    a, b, c, ref = _matmul_inputs(512)
    assert "_for" not in kl.matmul_static_k.asm(a, b, c, 512)
    kl.matmul_static_k[2](a, b, c, 512)
    assert np.abs(c - ref).max() <= 1e-3 * np.abs(ref).max()


def test_fully_unrolled_loop_over_many_big_offsets_spills_and_is_right():
    n = kl.NLIVE * kl.STRIDE
    x = np.arange(n, dtype=np.int64) - n // 2
    o = np.arange(n, dtype=np.int64) * 3
    ref = o.copy()
    ref[::kl.STRIDE] += 6 * x[::kl.STRIDE]
    asm = kl.unrolled_columns.asm(x, o)
    assert "_for" not in asm and ".arg __pyasc_stack, gm, u8" in asm   # unrolled, and it spills
    kl.unrolled_columns[1](x, o)
    assert (o == ref).all()


def test_more_than_31_live_scalars_spill_and_compute_right():
    x = np.arange(-20, 20, dtype=np.int64) * 1000003 + (1 << 40)
    o = np.zeros(kl.NLIVE, np.int64)
    asm = kl.many_live.asm(x, o, 7)
    assert "st.d" in asm and "(x30)" in asm
    kl.many_live[3](x, o, 7)                 # 3 blocks: each has its own frame (same values)
    assert (o == (x[::-1] + 7) * np.arange(1, kl.NLIVE + 1) + x).all()


@pytest.mark.parametrize("n", [0, 1, 5])
def test_values_live_through_a_runtime_loop_spill_and_compute_right(n):
    x = np.arange(-20, 20, dtype=np.int64) * 1000003
    o = np.zeros(kl.NLIVE + 1, np.int64)
    kl.many_live_loop[2](x, o, n)
    v = [int(e) + n for e in x]
    ref = [2 * e for e in v] + [sum(v[i] * (j + i) for j in range(n) for i in range(kl.NLIVE))]
    assert o.tolist() == ref


# ---- integer semantics ------------------------------------------------------
# Real pyasc (hicann/pyasc python/asc/language/core/ir_value.py) lowers `//` and `%` on run-time
# integers to arith.divsi / arith.remsi, printed as C's `/` and `%`
# (include/ascir/Target/Asc/External/Arith.h): truncation toward zero, remainder with the sign of
# the dividend, as the ISA's div/rem rows.  Python ints (ConstExpr included) are Python's own.

def _c_div(a, b):
    a, b = _s64(a), _s64(b)
    q = abs(a) // abs(b)
    return _s64(q if (a < 0) == (b < 0) else -q)


def _c_rem(a, b):
    return _s64(_s64(a) - _s64(b) * _c_div(a, b))


def _s64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


_XS = [-7, 7, -1, 0, -8, -9, 2 ** 62 + 1, -(2 ** 62 + 1), -2 ** 63, 2 ** 63 - 1]


def _expected(x, y, div, rem):
    out = []
    for d in kl.DIVISORS:
        out += [div(x, d), rem(x, d)]
    return out + [div(x, y), rem(x, y)]


@pytest.mark.parametrize("x", _XS)
@pytest.mark.parametrize("y", [2, -2, 3, 4, -1, 7])
def test_runtime_div_rem_are_the_isa_and_real_pyasc_divsi_remsi(x, y):
    o = np.zeros(2 * len(kl.DIVISORS) + 2, np.int64)
    kl.int_div_rem[1](o, x, y)
    assert o.tolist() == _expected(x, y, _c_div, _c_rem)


def test_the_acceptance_values_at_run_time():
    o = np.zeros(2 * len(kl.DIVISORS) + 2, np.int64)
    kl.int_div_rem[1](o, 2 ** 62 + 1, 3)
    assert o[-2] == 1537228672809129301 == (2 ** 62 + 1) // 3      # exact: no float on the way
    kl.int_div_rem[1](o, -7, 2)
    assert (o[-2], o[-1]) == (-3, -1)                               # C / and %: arith.divsi/remsi
    assert (o[4], o[5]) == (-1, -3)                                 # -7 // 4, -7 % 4 (strength-reduced)


@pytest.mark.parametrize("x,y", [(-7, 2), (2 ** 62 + 1, 3), (-9, 4), (-(2 ** 62 + 1), -4)])
def test_compile_time_python_ints_fold_as_python(x, y):
    o = np.zeros(2 * len(kl.DIVISORS) + 2, np.int64)
    kl.int_div_rem_const[1](o, x, y)
    assert o.tolist() == _expected(x, y, lambda a, b: _s64(a // b), lambda a, b: _s64(a % b))


@pytest.mark.parametrize("lo", [0, -5])
def test_loop_index_div_rem_respect_the_sign(lo):
    n = 9
    o = np.zeros(3 * (n - lo), np.int64)
    asm = kl.loop_index_div_rem.asm(o, lo, n)
    if lo >= 0:   # the index is known >= 0: sra/and, no div and no sign fix-up
        assert "div " not in asm and "srai          x" in asm and "andi" in asm
    kl.loop_index_div_rem[1](o, lo, n)
    assert o.tolist() == [f(i) for i in range(lo, n) for f in (lambda i: _c_div(i, 4), lambda i: _c_rem(i, 4),
                                                               lambda i: _c_rem(i, 2))]


def _fold_or_run(fold, pairs):
    """A hand-built IR kernel storing div/rem of literal operands, compiled with or without the
    const_fold pass, run on the simulator: folding must give what the instructions compute."""
    from pyasc.compiler import codegen, driver, ir, passes
    from pyasc.runtime import launch
    vid = iter(range(1, 10000))
    out = ir.Value(next(vid), "i64", "out")
    fn = ir.Function("folds", "folds.py", [ir.Arg("out", "gm", asc.int64, out)], ir.Block())
    for i, (name, a, b) in enumerate(pairs):
        va, vb, r, addr = (ir.Value(next(vid)) for _ in range(4))
        fn.body.ops += [ir.Op("li", va, [ir.Const(a)]), ir.Op("li", vb, [ir.Const(b)]),
                        ir.Op(name, r, [va, vb]), ir.Op("add", addr, [out, ir.Const(8 * i)]),
                        ir.Op("st", None, [r, addr], {"mnem": "st.d"})]
    if fold:
        passes.const_fold(fn)
    passes.lower(fn)
    asm = codegen.emit_asm(fn)
    assert (" div " in asm or " rem " in asm) != fold
    c = driver.Compiled("folds", asm, "", "", "aiv", "ascend910b", [(a.name, a.kind, a.dtype) for a in fn.args])
    o = np.zeros(len(pairs), np.int64)
    launch.run(c, [o], 1)
    return o.tolist()


def test_constant_folding_agrees_with_the_isa_div_rem():
    pairs = [(op, a, b) for op in ("div", "rem") for a, b in
             [(2 ** 62 + 1, 3), (-7, 2), (7, -2), (-7, -2), (-7, 4), (-2 ** 63, -1), (-2 ** 63, 3),
              (2 ** 63 - 1, -(2 ** 40)), (-1, 2 ** 62)]]
    folded = _fold_or_run(True, pairs)
    assert folded == _fold_or_run(False, pairs)
    assert folded == [(_c_div if op == "div" else _c_rem)(a, b) for op, a, b in pairs]
    assert folded[0] == 1537228672809129301 and folded[1:3] == [-3, -3]
