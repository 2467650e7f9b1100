"""asc.select with a sel_mask tensor against a numpy model of the documented behaviour of Ascend C
Select (cannmirror/asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/Select.md,
impl/basic_api/dav_c220/kernel_operator_vec_cmpsel_impl.h):
- mode 0 (VSEL_CMPMASK_SPR): only the first 256/sizeof(T) bits of sel_mask count, the same bits
  in every repeat (set_cmpmask once, then vsel);
- modes 1 (VSEL_TENSOR_SCALAR_MODE, src1 a scalar) and 2 (VSEL_TENSOR_TENSOR_MODE): each repeat
  consumes the next 256/sizeof(T) bits of sel_mask.
Bit i set picks src0, clear picks src1; lanes outside the mask (or past count) keep dst."""
import numpy as np
import pytest

from kernels_select import k_select, k_select_clobber


def model(x, y, m, z, mode, lanes, spans, scalar):
    """spans: (repeat, active lanes of that repeat) in order."""
    bits = np.unpackbits(m, bitorder="little").astype(bool)
    want = z.copy()
    src1 = np.full_like(x, scalar) if mode == 1 else y
    for r, act in spans:
        rb = bits[:lanes] if mode == 0 else bits[r * lanes:(r + 1) * lanes]
        s = slice(r * lanes, r * lanes + act)
        want[s] = np.where(rb[:act], x[s], src1[s])
    return want


@pytest.mark.libasc
@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("form,n,repeats,mask", [("count", 1000, 0, 0), ("count", 37, 0, 0), ("count", 300, 0, 0),
                                                 ("mask", 0, 3, 0), ("mask", 0, 4, 37), ("mask", 0, 1, 0)])
def test_select_modes(dt, mode, form, n, repeats, mask):
    lanes = 256 // np.dtype(dt).itemsize
    if form == "mask":
        mask = mask or lanes
        n = repeats * lanes
        spans = [(r, mask) for r in range(repeats)]
    else:
        r_n = -(-n // lanes)
        spans = [(r, min(lanes, n - r * lanes)) for r in range(r_n)]
    total = -(-n * np.dtype(dt).itemsize // 256) * 256 // np.dtype(dt).itemsize
    rng = np.random.default_rng(n * 3 + mode * 7 + repeats + mask)
    x = rng.standard_normal(total).astype(dt)
    y = rng.standard_normal(total).astype(dt)
    z = np.full(total, 9, dt)
    m = rng.integers(0, 256, 512).astype(np.uint8)
    scalar = -2.5
    want = model(x, y, m, z, mode, lanes, spans, scalar)
    k_select[1](x, y, m, z, n, mode, form, repeats, mask, scalar)
    np.testing.assert_array_equal(z, want)
    if mode == 0 and len(spans) > 1:   # the per-repeat reading differs here: the test can tell
        assert not np.array_equal(want, model(x, y, m, np.full(total, 9, dt), 2, lanes, spans, scalar))


@pytest.mark.libasc
@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("n,scalar,sel_at", [(1, -2.5, 0), (37, 0.1, 32), (1001, 3.0, 96)])
def test_select_mode_1_2_overwrite_cmpmask(dt, mode, n, scalar, sel_at):
    """Select modes 1 and 2 leave CMPMASK overwritten, as Ascend C does on dav_c220
    (kernel_operator_vec_cmpsel_impl.h VselIntrinsicsImplPre / VselImpl: Duplicate a value over a
    temporary, set_cmpmask(temp), vsel): mode 1 the scalar src1 (its T bits, repeated), mode 2 the
    sel mask's UB address (uint32, repeated).  get_cmp_mask then returns that pattern and a select
    by the register (mode 0 without sel_mask) selects by its bits, not by the set_cmp_mask before"""
    sz = np.dtype(dt).itemsize
    lanes = 256 // sz
    nb = -(-n * sz // 256) * 256 + 256
    total = nb // sz
    tail = -(-n * sz // 256) * 256 // sz
    rng = np.random.default_rng(n + 11 * mode)
    x = rng.standard_normal(total).astype(dt)
    y = rng.standard_normal(total).astype(dt)
    z = np.full(total, 9, dt)
    m = rng.integers(0, 256, 512).astype(np.uint8)
    r = np.full(32, 0x5a, np.uint8)
    k_select_clobber[1](x, y, m, z, r, n, mode, scalar, sel_at)
    if mode == 1:
        reg = np.tile(np.array([scalar], dt).view(np.uint8), 16 // sz)
    else:
        reg = np.tile(np.array([3 * nb + sel_at], np.uint32).view(np.uint8), 4)
    np.testing.assert_array_equal(r[:16], reg)
    np.testing.assert_array_equal(r[16:], np.full(16, 0x5a, np.uint8))
    spans = [(k, min(lanes, n - k * lanes)) for k in range(-(-n // lanes))]
    want = model(x, y, m, z, mode, lanes, spans, scalar)
    bits = np.unpackbits(reg, bitorder="little").astype(bool)[:lanes]
    want[tail:tail + lanes] = np.where(bits, x[tail:tail + lanes], y[tail:tail + lanes])
    np.testing.assert_array_equal(z, want)
    kept = np.unpackbits(m[:16], bitorder="little").astype(bool)[:lanes]   # the broken model: no overwrite
    old = want.copy()
    old[tail:tail + lanes] = np.where(kept, x[tail:tail + lanes], y[tail:tail + lanes])
    assert not np.array_equal(z, old)
