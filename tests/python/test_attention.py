"""The attention block of the kernel library (kernels/pyasc/attention.py: on ascend910b one
MIX_AIC_1_2 kernel, QK^T on the cube, online softmax on the vector cores, PV on the cube; on the
coupled teach one kernel per core doing all three, L0C -> UB -> L1) against a float64 numpy
attention of the same float16 inputs: sequence lengths that are not multiples of the blocks
(BQ = 128 query rows, BKV = 128 key rows), 1-row queries and 1-key sequences, head dims 64 and
128, one and several heads, one and several AI cores, and a fixed-seed random shape sweep.

Tolerance: the kernel rounds P = exp(S - m) to float16 once (relative error <= 2^-11) before
the PV matmul and divides by the float32 sum of the unrounded P, so
|O - ref| <= 2^-11 * (P/l) @ |V| per element; the float32 softmax (scale, exp, sums) adds far
less than 2e-5 of the same quantity, plus 1e-6 absolute."""
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.libasc
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "kernels", "pyasc"))

import attention as at  # noqa: E402


def _bound(q, k, v):
    d = q.shape[-1]
    s = np.einsum("hqd,hkd->hqk", q.astype(np.float64), k.astype(np.float64)) / np.sqrt(d)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return (2.0 ** -11 + 2e-5) * (p @ np.abs(v.astype(np.float64))) + 1e-6


def _run(h, sq, sk, d, cores, rng, spread=1.5, target="ascend910b", **kw):
    q = (rng.standard_normal((h, sq, d)) * spread).astype(np.float16)
    k = (rng.standard_normal((h, sk, d)) * spread).astype(np.float16)
    v = rng.standard_normal((h, sk, d)).astype(np.float16)
    o = at.attention(q, k, v, target=target, cores=cores, **kw)
    assert o.dtype == np.float32 and o.shape == (h, sq, d)
    err = np.abs(o - at.reference(q, k, v))
    b = _bound(q, k, v)
    assert (err <= b).all(), f"attention {target} h={h} sq={sq} sk={sk} d={d} cores={cores}: max err {err.max():.3g}"
    return o


SHAPES = [
    (1, 1, 1, 64, 1),          # one query, one key
    (1, 17, 5, 64, None),      # both shorter than a fractal
    (2, 100, 150, 64, None),   # key tail (150 = 128 + 22), two heads on two cores
    (3, 33, 129, 128, 2),      # 3 tasks on 2 cores, a 1-row key tail, D = 128
    (1, 200, 300, 128, None),  # two query blocks (72-row tail: AIV 1 gets 8 rows), three key blocks
    (4, 64, 64, 64, 1),        # four heads on one core
    (1, 40, 256, 64, None),    # keys an exact multiple of the block
    (1, 1, 200, 128, None),    # AIV 1 of the core has no rows (still takes part in the hand-offs)
]


@pytest.mark.parametrize("h,sq,sk,d,cores", SHAPES)
def test_attention_shapes(h, sq, sk, d, cores):
    _run(h, sq, sk, d, cores, np.random.default_rng(sq * 1000 + sk))


@pytest.mark.parametrize("h,sq,sk,d,cores", SHAPES + [
    (1, 130, 20, 128, 1),      # teach, D = 128: BQ = 64 (L0C and UB), three query blocks, 2-row tail
    (3, 65, 17, 64, None),     # 6 tasks on teach's 2 cores, 1-row query and key tails
])
def test_attention_shapes_teach(h, sq, sk, d, cores):
    _run(h, sq, sk, d, cores, np.random.default_rng(sq * 1000 + sk + 7), target="teach")


def test_attention_coupled_block():
    """teach's BQ is the largest that fits its L0C and UB (attention.coupled_block)."""
    from pyasc.compiler import targets
    t = targets.load("teach")
    assert at.coupled_block(300, 128, 128, t) == 64
    assert at.coupled_block(300, 128, 64, t) == 80
    assert at.coupled_block(5, 16, 64, t) == 16


def test_attention_sweep():
    """Fixed-seed random shapes (heads 1..3, lengths 1..300, D 64/128, 1..4 cores or all)."""
    rng = np.random.default_rng(13)
    for _ in range(6):
        h = int(rng.integers(1, 4))
        sq, sk = (int(x) for x in rng.integers(1, 301, 2))
        d = int(rng.choice([64, 128]))
        cores = [None, 1, 2, 4][int(rng.integers(0, 4))]
        _run(h, sq, sk, d, cores, rng, spread=float(rng.uniform(0.5, 2.5)))


def test_attention_sweep_teach():
    """The same kind of sweep on teach (2 coupled cores; `cores` 1, 2 or all)."""
    rng = np.random.default_rng(14)
    for _ in range(4):
        h = int(rng.integers(1, 3))
        sq, sk = (int(x) for x in rng.integers(1, 201, 2))
        d = int(rng.choice([64, 128]))
        cores = [None, 1, 2][int(rng.integers(0, 3))]
        _run(h, sq, sk, d, cores, rng, spread=float(rng.uniform(0.5, 2.5)), target="teach")


def test_attention_peaky_and_races():
    """Large scores (softmax close to one-hot, the running max moves between blocks) and the
    race checker on the cross-core hand-offs (a race raises pyasc.runtime.launch.KernelRace)."""
    rng = np.random.default_rng(5)
    _run(2, 70, 270, 64, None, rng, spread=4.0, check_races=True)
    _run(2, 70, 270, 64, None, rng, spread=4.0, check_races=True, target="teach")


def test_attention_2d_and_errors():
    rng = np.random.default_rng(2)
    q = rng.standard_normal((9, 64)).astype(np.float16)
    k = rng.standard_normal((20, 64)).astype(np.float16)
    o = at.attention(q, k, k, target="ascend910b")
    assert o.shape == (9, 64)
    assert np.allclose(o, at.reference(q, k, k), rtol=0, atol=2e-3)
    o = at.attention(q, k, k, target="teach")
    assert o.shape == (9, 64)
    assert np.allclose(o, at.reference(q, k, k), rtol=0, atol=2e-3)
    with pytest.raises(ValueError, match="head_dim"):
        at.attention(q[:, :32], k[:, :32], k[:, :32], target="ascend910b")
    with pytest.raises(ValueError, match="float16"):
        at.attention(q.astype(np.float32), k, k, target="ascend910b")
