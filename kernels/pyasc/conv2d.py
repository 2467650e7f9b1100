"""2-D convolution y = conv2d(x, w, stride, padding) + bias: x NCHW float16, w OIHW float16,
bias an optional float32 O-vector, y NCHW float32 (N, O, OH, OW), OH = (H + 2p - KH) // s + 1.

Three steps, all on the device (the host only reshapes and launches):
  1. img2col (`img2col_gather_kernel`, a vector-core (AIV) kernel): builds, in a GM workspace,
     the column matrix col[n] (K x P, K = C*KH*KW rows ordered (c, kh, kw), P = OH*OW columns
     ordered (oh, ow)): col[n][(c,kh,kw), (oh,ow)] = x[n, c, oh*s - p + kh, ow*s - p + kw], 0
     where that falls in the padding.  The N*C input planes are split over the vector cores;
     per plane one DataCopyPad DMA brings the plane into UB with its zero padding (left/right
     padding of each burst, zero rows above and below), one vector gather (vgather.b16) per
     window offset (kh, kw) picks the P elements through a table of byte offsets (a function
     of the shape only, built by the host: `_gather_plan`), and one DataCopyPad DMA writes the
     KH*KW rows of exactly P*2 bytes.  x 1x16x32x32, w 16x16x3x3, padding 1 on ascend910b:
     img2col 3305 cycles against 13211 for the matmul (the scalar element-by-element version,
     `img2col_kernel`, took 419106); the column matrix is bit for bit the scalar version's
     (tests/python/test_conv2d.py).  Shapes whose padded plane, table and rows do not fit in
     UB (or padding > 16) fall back to `img2col_kernel`: the scalar unit's GM loads/stores
     (ld.h/st.h on int16 views), byte-exact, a few instructions per element.
  2. matmul (`matmul.matmul`, the cube kernel of the library): y[n] (O x P) = W (O x K) @ col[n]
     (K x P), one launch per image, written straight into y at offset n*O*P (NCHW needs no
     transposition in this orientation; W's OIHW layout is already O x K row-major).
  3. bias (`bias_rows_kernel`, AIV): row r of the N*O rows of y gets + bias[r % O] (float32; the
     bias is DMAed to UB once per core, from a copy padded to whole 32 B blocks, and read as a
     scalar with LocalTensor.get_value), written back with `_common.store_tail`; the last row
     of y reads its partial last block through a workspace (no read past y).  The stages of a
     row are serialised by pipe barriers (simple, not fast).
Profiles: ascend910b and the coupled teach (the matmul's result path differs: matmul.py).
Run: PYTHONPATH=python /usr/bin/python3 kernels/pyasc/conv2d.py"""
import numpy as np

import asc
from pyasc.compiler import targets

try:
    from . import _common as cm
    from . import matmul as mm
except ImportError:            # run as a script or loaded by path
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common as cm
    import matmul as mm

MAX_P = 8192       # bias kernel: one output row (OH*OW float32) in UB
MAX_O = 4096       # bias kernel: the bias vector in UB


@asc.jit
def img2col_kernel(x: asc.GlobalAddress, col: asc.GlobalAddress, rows: int, per_core: int,
                   c: int, h: int, w: int, kh: int, kw: int, oh: int, ow: int, s: int, p: int):
    """col[r*oh*ow + i*ow + j] = x[n, ci, i*s - p + ki, j*s - p + kj] (0 in the padding) for the
    rows r = ((n*c + ci)*kh + ki)*kw + kj of this core: [q*per_core, min(rows, (q+1)*per_core)).
    x, col: int16 views of float16 bits."""
    q = asc.get_block_idx()
    r0 = q * per_core
    nr = min(per_core, rows - r0)
    xg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    cg.set_global_buffer(col)
    kk = kh * kw
    npix = oh * ow
    for t in range(nr):
        r = r0 + t
        rem = r % kk
        ki = rem // kw
        kj = rem % kw
        plane = (r // kk) * h * w    # r // kk = n*c + ci: the input plane
        dst = r * npix
        for i in range(oh):
            ih = i * s + ki - p
            if ih >= 0:
                if ih < h:
                    for j in range(ow):
                        iw = j * s + kj - p
                        if iw >= 0:
                            if iw < w:
                                cg.set_value(dst + i * ow + j, xg.get_value(plane + ih * w + iw))
                            else:
                                cg.set_value(dst + i * ow + j, 0)
                        else:
                            cg.set_value(dst + i * ow + j, 0)
                else:
                    for j in range(ow):
                        cg.set_value(dst + i * ow + j, 0)
            else:
                for j in range(ow):
                    cg.set_value(dst + i * ow + j, 0)


@asc.jit
def img2col_gather_kernel(x: asc.GlobalAddress, col: asc.GlobalAddress, tab: asc.GlobalAddress, planes: int,
                          per_core: int, h: int, w: int, kh: int, kw: int, npix: int, p: asc.ConstExpr[int],
                          wq: asc.ConstExpr[int], npl: asc.ConstExpr[int], ntab: asc.ConstExpr[int],
                          pq: asc.ConstExpr[int], ncol: asc.ConstExpr[int]):
    """The column rows of this core's input planes [q*per_core, ...) of the N*C planes (x, col
    float16): per plane
      1. one DMA (data_copy_pad, GM -> UB) brings the h rows into a zero-padded plane in UB
         (rows wq elements apart, wq = ceil16(w + 2p)): each burst of w*2 bytes gets p zero
         elements on its left and right; the p zero rows above and below are set once;
      2. per window offset (ki, kj) one vector gather (vgather.b16) picks the npix = OH*OW
         elements: element (i, j) is at byte (ki*wq + kj)*2 + tab[i*OW + j] of the padded plane,
         tab[i*OW + j] = ((i*s)*wq + j*s)*2 (a function of the shape only, made by the host);
      3. one DMA (data_copy_pad, UB -> GM) writes the kh*kw rows, exactly npix*2 bytes each.
    No GM byte outside x and the table is read, none outside this plane's rows of col written."""
    q = asc.get_block_idx()
    r0 = q * per_core
    nr = min(per_core, planes - r0)
    f16 = asc.float16
    xg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    tg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    cg.set_global_buffer(col)
    tg.set_global_buffer(tab)
    kk = kh * kw
    pl = asc.LocalTensor(f16, asc.TPosition.VECIN, 0, npl)
    tb = asc.LocalTensor(asc.uint32, asc.TPosition.VECCALC, npl * 2, ntab)
    cl = asc.LocalTensor(f16, asc.TPosition.VECOUT, npl * 2 + ntab * 4, ncol)
    asc.data_copy(tb, tg, asc.DataCopyParams(1, ntab * 4 // 32, 0, 0))
    if p > 0:
        asc.duplicate(pl, 0.0, p * wq)
        asc.duplicate(pl[(h + p) * wq:], 0.0, p * wq)
    pad = asc.DataCopyPadExtParams(f16, True, p, p, 0)
    for t in range(nr):
        r = r0 + t
        asc.data_copy_pad(pl[p * wq:], xg[r * h * w:], asc.DataCopyExtParams(h, w * 2, 0, 0), pad)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        for ki in range(kh):
            for kj in range(kw):
                asc.gather(cl[(ki * kw + kj) * pq:], pl, tb, (ki * wq + kj) * 2, npix)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy_pad(cg[r * kk * npix:], cl, asc.DataCopyExtParams(kk, npix * 2, 0, 0))
        asc.set_flag(asc.HardEvent.V_MTE2, 0)      # the next plane's DMA overwrites pl
        asc.wait_flag(asc.HardEvent.V_MTE2, 0)
        asc.set_flag(asc.HardEvent.MTE3_V, 0)      # the next gathers overwrite cl
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)


@asc.jit
def bias_rows_kernel(y: asc.GlobalAddress, bias: asc.GlobalAddress, ws: asc.GlobalAddress, rows: int,
                     per_core: int, yoff: int, total: int, o: int, nbias: asc.ConstExpr[int],
                     w: asc.ConstExpr[int]):
    """y[yoff + r*w + j] += bias[r % o] (float32 in place; y an int32 view of the total float32
    elements, so the scalar unit can move them) for this core's rows; bias holds nbias (a
    multiple of 8) elements.  A row whose block read would end past y (the last row of the
    array) gets its last partial block through this core's 32 B workspace by scalar ld.w/st.w,
    as matmul.load_rows_nz does: no byte outside y is read."""
    q = asc.get_block_idx()
    r0 = q * per_core
    nr = min(per_core, rows - r0)
    yg = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    wg = asc.GlobalTensor()
    yg.set_global_buffer(y)
    bg.set_global_buffer(bias)
    wg.set_global_buffer(ws + q * 8)
    f32 = asc.float32
    i32 = asc.int32
    wp = (w + 63) // 64 * 64
    slot = wp * 4 + 256
    row = asc.LocalTensor(i32, asc.TPosition.VECIN, 0, wp)
    out = asc.LocalTensor(f32, asc.TPosition.VECOUT, slot, wp)
    bl = asc.LocalTensor(f32, asc.TPosition.VECCALC, 2 * slot, nbias)
    rowf = row.reinterpret_cast(f32)
    outi = out.reinterpret_cast(i32)
    blocks = (w + 7) // 8
    asc.data_copy(bl, bg, asc.DataCopyParams(1, nbias // 8, 0, 0))
    asc.pipe_barrier(asc.PipeID.PIPE_ALL)
    for t in range(nr):
        r = r0 + t
        src = yoff + r * w
        bv = bl.get_value(r % o)
        if blocks * 8 > w:  # no whole block past the row: the next row may be another core's (racecheck)
            full = w // 8
            if full > 0:
                asc.data_copy(row, yg[src:], asc.DataCopyParams(1, full, 0, 0))
            for i in range(w - full * 8):
                wg.set_value(i, yg.get_value(src + full * 8 + i))
            asc.set_flag(asc.HardEvent.S_MTE2, 0)     # the scalar stores before the DMA reads ws
            asc.wait_flag(asc.HardEvent.S_MTE2, 0)
            asc.data_copy(row[full * 8:], wg, asc.DataCopyParams(1, 1, 0, 0))
        else:
            asc.data_copy(row, yg[src:], asc.DataCopyParams(1, blocks, 0, 0))
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.adds(out, rowf, bv, w)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        cm.store_tail(yg[src:], outi, w, wg, 8)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)


def _gather_plan(h, w, kh, kw, oh, ow, s, p, ub_bytes):
    """(wq, plane elements, offset table, npix rounded to 16, column elements) of
    img2col_gather_kernel, or None when its UB buffers would not fit (or p > 16: DataCopyPad
    pads at most 32 bytes a side); the table holds the byte offsets ((i*s)*wq + j*s)*2 of
    output pixel (i, j) in the padded plane, padded with zeros to whole 32 B blocks."""
    wq = -(-(w + 2 * p) // 16) * 16
    npl = (h + 2 * p) * wq
    npix = oh * ow
    ntab = -(-npix // 8) * 8
    pq = -(-npix // 16) * 16
    ncol = kh * kw * pq
    if p > 16 or npl * 2 + ntab * 4 + ncol * 2 > ub_bytes:
        return None
    i, j = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    tab = np.zeros(ntab, np.uint32)
    tab[:npix] = (((i * s) * wq + j * s) * 2).reshape(-1)
    return wq, npl, tab, pq, ncol


def out_shape(x_shape, w_shape, stride, padding):
    n, _, h, wd = x_shape
    o, _, kh, kw = w_shape
    return n, o, (h + 2 * padding - kh) // stride + 1, (wd + 2 * padding - kw) // stride + 1


def _check(x, w, stride, padding, bias):
    for a, what, shape in ((x, "x", "NCHW"), (w, "w", "OIHW")):
        if a.dtype != np.float16:
            raise ValueError(f"conv2d: {what} must be float16, got {a.dtype}")
        if a.ndim != 4 or 0 in a.shape:
            raise ValueError(f"conv2d: {what} must be a non-empty 4-D {shape} array, got shape {a.shape}")
    if x.shape[1] != w.shape[1]:
        raise ValueError(f"conv2d: input channels differ: x {x.shape} (C={x.shape[1]}), w {w.shape} (I={w.shape[1]})")
    if not (isinstance(stride, int) and stride >= 1 and isinstance(padding, int) and padding >= 0):
        raise ValueError(f"conv2d: stride must be an int >= 1 and padding an int >= 0, got {stride!r}, {padding!r}")
    _, o, oh, ow = out_shape(x.shape, w.shape, stride, padding)
    if oh < 1 or ow < 1:
        raise ValueError(f"conv2d: kernel {w.shape[2]}x{w.shape[3]} is larger than the padded input "
                         f"{x.shape[2] + 2 * padding}x{x.shape[3] + 2 * padding}")
    if bias is not None:
        if bias.dtype != np.float32 or bias.shape != (o,):
            raise ValueError(f"conv2d: bias must be a ({o},) float32 vector, got {bias.shape} {bias.dtype}")
        if oh * ow > MAX_P or o > MAX_O:
            raise ValueError(f"conv2d: with bias, OH*OW must be <= {MAX_P} and O <= {MAX_O}, "
                             f"got {oh * ow} and {o}")


def img2col_kernel_for(x_shape, kh, kw, stride, padding, target=None):
    """The img2col kernel a shape uses: the vector gather when the padded plane, its offset table
    and the rows fit in UB, else the scalar one."""
    _, _, h, wd = x_shape
    oh, ow = (h + 2 * padding - kh) // stride + 1, (wd + 2 * padding - kw) // stride + 1
    with cm.on_target(target) as tgt:
        g = _gather_plan(h, wd, kh, kw, oh, ow, stride, padding, targets.load(tgt)["ub_bytes"])
    return img2col_kernel if g is None else img2col_gather_kernel


def img2col(x, col, kh, kw, stride, padding, target=None, cores=None, **launch):
    """col (n*c*kh*kw*oh*ow 2-byte elements, C-contiguous) <- the img2col matrix of NCHW float16 x,
    on the device; returns the kernel that ran (its last_result is the launch's)."""
    n, c, h, wd = x.shape
    oh, ow = (h + 2 * padding - kh) // stride + 1, (wd + 2 * padding - kw) // stride + 1
    k, npix = c * kh * kw, oh * ow
    col = col.reshape(-1)
    with cm.on_target(target) as tgt:
        g = _gather_plan(h, wd, kh, kw, oh, ow, stride, padding, targets.load(tgt)["ub_bytes"])
        if g is None:       # the padded plane, the table and the rows do not fit in UB: scalar img2col
            ncores, per = cm.core_split(n * k, 1, cores, tgt)
            img2col_kernel[ncores](x.reshape(-1).view(np.int16), col.view(np.int16), n * k, per, c, h, wd, kh, kw,
                                   oh, ow, stride, padding, **launch)
            return img2col_kernel
        wq, npl, tab, pq, ncol = g
        ncores, per = cm.core_split(n * c, 1, cores, tgt)
        img2col_gather_kernel[ncores](x.reshape(-1).view(np.float16), col.view(np.float16), tab, n * c, per, h, wd,
                                      kh, kw, npix, padding, wq, npl, tab.size, pq, ncol, **launch)
        return img2col_gather_kernel


def conv2d(x, w, stride=1, padding=0, bias=None, target=None, cores=None, out=None, out_offset=0, **launch):
    """NCHW float16 x, OIHW float16 w -> float32 NCHW y (see the module docstring).  out: a flat
    float32 array written from element out_offset (the tests guard its neighbours)."""
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    if bias is not None:
        bias = np.ascontiguousarray(bias)
    _check(x, w, stride, padding, bias)
    n, c, h, wd = x.shape
    _, o, oh, ow = out_shape(x.shape, w.shape, stride, padding)
    kh, kw = w.shape[2], w.shape[3]
    k, npix = c * kh * kw, oh * ow
    if out is None:
        out, out_offset = np.zeros((n, o, oh, ow), np.float32), 0
    col = np.zeros(n * k * npix, np.int16)          # GM workspace, every element written by img2col
    img2col(x, col, kh, kw, stride, padding, target=target, cores=cores, **launch)
    w2 = w.reshape(o, k)
    colf = col.view(np.float16).reshape(n, k, npix)
    for b in range(n):
        mm.matmul(w2, colf[b], target=target, cores=cores, out=out, out_offset=out_offset + b * o * npix, **launch)
    if bias is not None:
        nb = -(-o // 8) * 8
        bpad = np.zeros(nb, np.float32)
        bpad[:o] = bias
        with cm.on_target(target) as tgt:
            ncores, per = cm.core_split(n * o, 1, cores, tgt)
            flat = out.reshape(-1).view(np.int32)
            bias_rows_kernel[ncores](flat, bpad, cm.workspace(np.float32, ncores), n * o, per,
                                     out_offset, flat.size, o, nb, npix, **launch)
    return out


def reference(x, w, stride=1, padding=0, bias=None):
    """float64 numpy conv: einsum over the KH x KW windows of the zero-padded input."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    _, _, oh, ow = out_shape(x.shape, w.shape, stride, padding)
    xp = np.zeros((n, c, h + 2 * padding, wd + 2 * padding))
    xp[:, :, padding:padding + h, padding:padding + wd] = x
    win = np.empty((n, c, kh, kw, oh, ow))
    for i in range(kh):
        for j in range(kw):
            win[:, :, i, j] = xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
    y = np.einsum("ncijyx,ocij->noyx", win, w.astype(np.float64))
    if bias is not None:
        y = y + bias.astype(np.float64)[None, :, None, None]
    return y


def run(n=2, c=3, h=7, wd=6, o=5, k=3, stride=1, padding=1, **kw):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, wd)).astype(np.float16)
    w = rng.standard_normal((o, c, k, k)).astype(np.float16)
    bias = rng.standard_normal(o).astype(np.float32)
    y = conv2d(x, w, stride, padding, bias, cores=3, **kw)
    return x, w, bias, y, img2col_gather_kernel.last_result


if __name__ == "__main__":
    x, w, bias, y, res = run()
    err = np.abs(y - reference(x, w, 1, 1, bias)).max()
    assert err < 1e-4, err
    print(f"conv2d OK (max abs error {err:.2e}):", res)
