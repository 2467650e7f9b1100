"""Mix kernel through asc.adv.Matmul: C = leaky_relu(A x B [+ bias]), float16 in, float32 out.
The Matmul is created and called on the AIVs (as real pyasc's tutorial 05_matmul_leakyrelu does):
each AIV's `with mm.iterate() as count:` / `get_tensor_c` asks its AI core's AIC, which runs the
server loop (python/pyasc/adv/matmul_kfc.py), for one base_m x base_n tile at a time; the AIC
writes the tile into the GM workspace and sets a cross-core flag, the AIV copies it into UB,
applies the leaky ReLU and writes it to C.  The tiling is asc.lib.host.MultiCoreMatmulTiling over
the launch's AIVs (2 per AI core); the shape must split into whole tiles.
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/matmul_adv_mix.py [M N K [cores]]
"""
import sys

import numpy as np

import asc
import asc.lib.host as host
import asc.runtime.config as config


@asc.jit
def matmul_adv_mix(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, bias: asc.GlobalAddress,
                   alpha: float, tiling: asc.adv.TCubeTiling, workspace: asc.GlobalAddress,
                   with_bias: asc.ConstExpr[bool]):
    idx = asc.get_block_idx()           # the AIV's: 2 x AI core + sub-block
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    mi = idx % m_blocks
    ni = idx // m_blocks
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    biasg = asc.GlobalTensor()
    ag.set_global_buffer(a + mi * tiling.single_core_m * tiling.k_a)
    bg.set_global_buffer(b + ni * tiling.single_core_n)
    cg.set_global_buffer(c + mi * tiling.single_core_m * tiling.n + ni * tiling.single_core_n)
    biasg.set_global_buffer(bias + ni * tiling.single_core_n)
    pipe = asc.TPipe()
    out_q = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que=out_q, num=1, len=tiling.base_m * tiling.base_n * 4)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ag.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, bg.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.VECCALC, asc.CubeFormat.ND, cg.dtype),
                        bias=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, biasg.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    mm.set_tensor_a(ag)
    mm.set_tensor_b(bg)
    if with_bias:
        mm.set_bias(biasg)
    round_m = tiling.single_core_m // tiling.base_m
    with mm.iterate() as count:
        x = out_q.alloc_tensor(asc.float32)
        mm.get_tensor_c(x, en_sequential_write=True)
        asc.leaky_relu(x, x, alpha, count=tiling.base_m * tiling.base_n)
        out_q.enque(x)
        x = out_q.deque(asc.float32)
        at = count % round_m * tiling.base_m * tiling.n + count // round_m * tiling.base_n
        asc.data_copy(cg[at:], x, repeat_params=asc.DataCopyParams(
            tiling.base_m, tiling.base_n * 4 // 32, 0, (tiling.n - tiling.base_n) * 4 // 32))
        out_q.free_tensor(x)
    mm.end()


def tiling_for(m, n, k, aivs, base=(128, 128)):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.VECCALC, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(aivs)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_fix_split(base[0], base[1], -1)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    assert t.get_tiling(tiling) == 0
    return tiling


def run(m=512, n=512, k=512, cores=4, alpha=0.1, with_bias=False, seed=0, **kw):
    config.set_platform(config.Backend.Model)
    rng = np.random.default_rng(seed)
    a = (rng.random((m, k)) - 0.5).astype(np.float16)
    b = (rng.random((k, n)) - 0.5).astype(np.float16)
    bias = (rng.random((1, n)) - 0.5).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    ws = np.zeros(16 * 1024 * 1024, np.uint8)
    tiling = tiling_for(m, n, k, 2 * cores)
    sm, sn, bm, bn = tiling.single_core_m, tiling.single_core_n, tiling.base_m, tiling.base_n
    if m % sm or n % sn or sm % bm or sn % bn or -(-m // sm) * -(-n // sn) != 2 * cores:
        raise ValueError(f"{m} x {n} on {2 * cores} AIVs does not split into whole tiles: {tiling}")
    res = matmul_adv_mix[cores](a, b, c, bias, alpha, tiling, ws, with_bias, **kw)
    return a, b, bias if with_bias else None, c, tiling, res


def reference(a, b, bias=None, alpha=0.1):
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if bias is not None:
        ref = ref + bias.astype(np.float64)
    return np.where(ref >= 0, ref, ref * alpha)


if __name__ == "__main__":
    dims = [int(x) for x in sys.argv[1:5]] or [512, 512, 512, 4]
    a, b, bias, c, tiling, res = run(*dims)
    err = np.abs(c - reference(a, b, bias)).max()
    assert err < 1e-3, err
    print(f"adv Matmul (AIV client, AIC server) + leaky_relu OK (max abs error {err:.2e}):", res)
