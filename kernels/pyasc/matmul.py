"""Matmul C = A x B for any M, N, K >= 1: float16 or bfloat16 in, float32 out, hand-tiled on the
cube (an AIC kernel: load_data / mmad / fixpipe), on one or many cube cores of a split profile
(ascend910b) or of a coupled one (teach, ascend910; the result path differs, see below).

numpy has no bfloat16: bf16 operands travel as uint16 arrays of bf16 bits (`to_bf16`,
`from_bf16`); `matmul(a, b)` takes float16 arrays, or uint16 arrays as bf16.

Tiling: C is cut into BM x BN tiles (compile-time, at most 128 x 128, multiples of 16); core k
does a contiguous range of tiles.  For a tile, K runs in chunks of BK (<= 128):
  GM -(MTE2)-> L1 NZ: one DMA per matrix row of the chunk (nburst = ceil(cols/16) blocks of 16
    elements, L1 gap = one column block), so the row start is byte-granular and M, N, K need
    not be fractal multiples;
  L1 -(load_data)-> L0A ZZ / L0B ZN (transposed fractals), Mf x Kf and Kf x Nf fractals;
  the padding rows of the last fractal row (A: rows mc.., B: K rows kc..) are DMAed from a GM
    zero array: load_data moves whole fractals and the cube on the card multiplies them whole,
    so B's K padding must be 0 (A's K-padding lanes hold the next row's elements or stale
    workspace ones: times 0 they give 0 unless they are inf or NaN, which this kernel does not
    zero); the simulator's mmad reads only the exact extent (docs/semantics.md §5.2);
  mmad (m, n, k) = the tile's exact extent (accumulating over chunks);
  split profiles: fixpipe L0C NZ -> GM ND, exactly mc x nc elements with row stride N (no other
    byte written); coupled profiles have no L0C -> GM path (fix_l0c_to_out is AIC-only): the
    tile goes L0C -> UB (`asc.fixpipe` to a UB tensor: mov_l0c_to_ub on the vector pipe, ND
    rows padded to whole 32 B blocks; Ascend C's DataCopy CO1 -> CO2 on dav_m200), then
    UB -> GM by `data_copy_pad` (mov_ub_to_out.pad), mc bursts of exactly nc*4 bytes with a GM
    gap of (N - nc)*4 bytes: again no other byte written.
A row DMA reads whole 32 B blocks: past a row's end it reads the next row's first elements
(padding, never used), but for the last row of A or B that would be past the end of the array,
so that row's last partial block goes through the scalar unit instead: its elements are copied
into a per-core 32 B GM workspace (ld.h/st.h) and the block is DMAed from there.  No GM byte
outside A, B and the workspace is read, none outside C's tile is written.  The stages are
serialised by pipe barriers and an MTE2 -> MTE1 flag (a barrier there would order nothing when
the last row went through the workspace, whose copy ends with one; a teaching kernel:
kernels/labs cover double buffering).
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/matmul.py"""
import numpy as np

import asc
from pyasc.compiler import targets

try:
    from . import _common as cm
except ImportError:            # run as a script or loaded by path
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm

F = 16             # fractal edge (f16/bf16: 16 x 16 elements, 512 B)
BMAX = 128         # largest tile edge (M, N) and K chunk


def to_bf16(x):
    """float32 -> bf16 bits (uint16), round to nearest even (NaN stays NaN)."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), r)


def from_bf16(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


@asc.jit
def load_rows_nz(l1: asc.LocalTensor, g: asc.GlobalTensor, ws: asc.GlobalTensor, row0: int, nrows: int,
                 ld: int, col0: int, ncols: int, total: int, stride: asc.ConstExpr[int]):
    """L1 NZ tile (column blocks `stride` rows apart) <- rows row0.. of the row-major GM matrix
    g (ld elements a row, total elements), columns col0..col0+ncols-1.  A row whose last block
    would end past the matrix gets that block from the workspace (module docstring)."""
    nb = (ncols + F - 1) // F
    for r in range(nrows):
        src = (row0 + r) * ld + col0
        if src + nb * F > total:
            full = ncols // F
            if full > 0:
                asc.data_copy(l1[r * F:], g[src:], asc.DataCopyParams(full, 1, 0, stride - 1))
            for i in range(ncols - full * F):
                ws.set_value(i, g.get_value(src + full * F + i))
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)     # (S <-> MTE2 flags are not legal on AIC)
            asc.data_copy(l1[(full * stride + r) * F:], ws, asc.DataCopyParams(1, 1, 0, 0))
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        else:
            asc.data_copy(l1[r * F:], g[src:], asc.DataCopyParams(nb, 1, 0, stride - 1))


@asc.jit
def zero_pad_rows(l1: asc.LocalTensor, zg: asc.GlobalTensor, used: int, nblk: int, stride: asc.ConstExpr[int]):
    """Rows used..ceil(used/16)*16 - 1 of each of the nblk column blocks of an L1 NZ tile (column
    blocks `stride` rows apart) <- zeros (DMA from the GM zero array zg): the padding rows of the
    last fractal row, which load_data moves and the cube multiplies as whole fractals."""
    pad = (used + F - 1) // F * F - used
    if pad > 0:
        for cb in range(nblk):
            asc.data_copy(l1[(cb * stride + used) * F:], zg, asc.DataCopyParams(1, pad, 0, 0))


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def matmul_kernel(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ws: asc.GlobalAddress,
                  z: asc.GlobalAddress,
                  m: int, n: int, k: int, per_core: int, coff: int, bm: asc.ConstExpr[int],
                  bn: asc.ConstExpr[int], bk: asc.ConstExpr[int], bf16: asc.ConstExpr[bool], relu: asc.ConstExpr[bool],
                  coupled: asc.ConstExpr[bool]):
    """c[coff + i*n + j] = sum_p a[i*k + p] * b[p*n + j] (a, b: int16 views of the f16/bf16
    bits, so the scalar unit can move them; the cube reads them as `dt`); core q does tiles [q*per_core, ...) of
    the ceil(m/bm) x ceil(n/bn) tiles (row major)."""
    q = asc.get_block_idx()
    ntn = (n + bn - 1) // bn
    ntiles = (m + bm - 1) // bm * ntn
    t0 = q * per_core
    nt = min(per_core, ntiles - t0)
    if bf16:
        dt = asc.bfloat16
    else:
        dt = asc.float16
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c + coff)
    wg.set_global_buffer(ws + q * F)
    a1 = asc.LocalTensor(a.dtype, asc.TPosition.A1, 0, bm * bk)
    b1 = asc.LocalTensor(b.dtype, asc.TPosition.B1, bm * bk * 2, bk * bn)
    a2 = asc.LocalTensor(dt, asc.TPosition.A2, 0, bm * bk)
    b2 = asc.LocalTensor(dt, asc.TPosition.B2, 0, bk * bn)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, bm * bn)
    cu = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, bm * bn)   # coupled: L0C -> UB -> GM
    a1d = a1.reinterpret_cast(dt)
    b1d = b1.reinterpret_cast(dt)
    for t in range(nt):
        ti = t0 + t
        m0 = ti // ntn * bm
        n0 = ti % ntn * bn
        mc = min(bm, m - m0)
        nc = min(bn, n - n0)
        mf = (mc + F - 1) // F
        nf = (nc + F - 1) // F
        for k0 in range(0, k, bk):
            kc = min(bk, k - k0)
            kf = (kc + F - 1) // F
            load_rows_nz(a1, ag, wg, m0, mc, k, k0, kc, m * k, bm)
            load_rows_nz(b1, bg, wg, k0, kc, n, n0, nc, k * n, bk)
            zero_pad_rows(a1, zg, mc, kf, bm)     # M padding rows of A
            zero_pad_rows(b1, zg, kc, nf, bk)     # K padding rows of B: their products are 0
            asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
            for i in range(mf):      # L1 NZ -> L0A ZZ: row block i gathers its kf fractals
                asc.load_data(a2[i * kf * 256:], a1d, asc.LoadData2DParams(i, kf, bm // F, 0, 0, False))
            for kk in range(kf):     # L1 NZ -> L0B ZN: k block kk gathers nf fractals, transposed
                asc.load_data(b2[kk * nf * 256:], b1d, asc.LoadData2DParams(kk, nf, bk // F, 0, 0, True))
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
            if k0 == 0:              # (cmatrix_init_val must be static)
                asc.mmad(c1, a2, b2, asc.MmadParams(mc, nc, kc, 0, 0, 0, True))
            else:
                asc.mmad(c1, a2, b2, asc.MmadParams(mc, nc, kc, 0, 0, 0, False))
            asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        if coupled:
            # L0C -> UB (ND rows of ceil(nc/8)*8 f32, whole 32 B blocks) on the vector pipe, then
            # exactly nc*4 bytes a row to GM with a byte-granular DataCopyPad burst per row
            asc.fixpipe(cu, c1, asc.FixpipeParamsV220(nc, mc, 0, (nc + 7) // 8 * 8, 0, relu))
            asc.set_flag(asc.HardEvent.V_MTE3, 0)
            asc.wait_flag(asc.HardEvent.V_MTE3, 0)
            asc.data_copy_pad(cg[m0 * n + n0:], cu, asc.DataCopyExtParams(mc, nc * 4, 0, (n - nc) * 4))
        else:
            asc.fixpipe(cg[m0 * n + n0:], c1, asc.FixpipeParamsV220(nc, mc, 0, n, 0, relu))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def _edge(v):
    return min(BMAX, -(-v // F) * F)


def _check(name, a, b):
    for x, what in ((a, "a"), (b, "b")):
        if x.dtype not in (np.float16, np.uint16):
            raise ValueError(f"{name}: {what} must be float16, or uint16 holding bf16 bits, got {x.dtype}")
        if x.ndim != 2 or 0 in x.shape:
            raise ValueError(f"{name}: {what} must be a non-empty 2-D array, got shape {x.shape}")
    if a.dtype != b.dtype:
        raise ValueError(f"{name}: a and b must have the same dtype, got {a.dtype} and {b.dtype}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"{name}: inner dimensions differ: {a.shape} x {b.shape}")


def matmul(a, b, target=None, cores=None, relu=False, out=None, out_offset=0, **launch):
    """a (M x K) @ b (K x N) -> float32 M x N; a, b float16, or uint16 arrays of bf16 bits.
    relu=True applies max(., 0) in the fixpipe.  out: a flat float32 array written from
    element out_offset (the tests guard its neighbours)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    _check("matmul", a, b)
    m, k = a.shape
    n = b.shape[1]
    if out is None:
        out, out_offset = np.zeros((m, n), np.float32), 0
    bm, bn, bk = _edge(m), _edge(n), _edge(k)
    ntiles = -(-m // bm) * -(-n // bn)
    with cm.on_target(target) as tgt:
        ncores, per = cm.core_split(ntiles, 1, cores, tgt, kind="aic")
        matmul_kernel[ncores](a.reshape(-1).view(np.int16), b.reshape(-1).view(np.int16), out.reshape(-1),
                              np.zeros(ncores * F, np.int16), np.zeros(F * (F - 1), np.int16),
                              m, n, k, per, out_offset, bm, bn, bk, a.dtype == np.uint16, bool(relu),
                              not targets.load(tgt)["split"], **launch)
    return out


def reference(a, b, bf16=False):
    f = from_bf16 if bf16 else (lambda x: x)
    return f(a).astype(np.float64) @ f(b).astype(np.float64)


def run(m=100, n=70, k=45, **kw):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = matmul(a, b, cores=3, **kw)
    return a, b, c, matmul_kernel.last_result


if __name__ == "__main__":
    a, b, c, res = run()
    err = np.abs(c - reference(a, b)).max()
    assert err < 1e-4, err
    print(f"matmul OK (max abs error {err:.2e}):", res)
