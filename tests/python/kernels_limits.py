"""Kernels for tests/python/test_limits.py: compiler limits (run-time loops in AIC kernels,
register spilling) and the integer semantics of // and % (issues 12 and 9)."""
import asc

MT = 128          # rows of A and C per core
N = 256           # columns of B and C
KT = 64           # K per chunk
F = 16            # fractal edge


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def matmul_runtime_k(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, k: int):
    """C[256, 256] = A[256, k] x B[k, 256], f16 -> f32, k a run-time multiple of KT: two AIC
    cores of 128 rows; a run-time loop over K chunks accumulates in L0C."""
    row0 = asc.get_block_idx() * MT
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + row0 * k)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c + row0 * N)
    h = asc.float16
    a1 = asc.LocalTensor(h, asc.TPosition.A1, 0, MT * KT)
    b1 = asc.LocalTensor(h, asc.TPosition.B1, MT * KT * 2, KT * N)
    a2 = asc.LocalTensor(h, asc.TPosition.A2, 0, MT * KT)
    b2 = asc.LocalTensor(h, asc.TPosition.B2, 0, KT * N)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, MT * N)
    asc.set_flag(asc.HardEvent.MTE1_MTE2, 0)
    asc.set_flag(asc.HardEvent.M_MTE1, 0)
    for phase in asc.static_range(2):              # chunk 0 initialises C, the rest accumulate
        for kc in range(0 if phase == 0 else 1, 1 if phase == 0 else k // KT):
            k0 = kc * KT
            asc.wait_flag(asc.HardEvent.MTE1_MTE2, 0)       # previous load_data done with L1
            for j in asc.static_range(KT // F):              # A[:, k0:k0+KT] ND -> NZ
                asc.data_copy(a1[j * MT * F:], ag[k0 + j * F:], asc.DataCopyParams(MT, 1, (k * 2 - 32) // 32, 0))
            for j in asc.static_range(N // F):               # B[k0:k0+KT, :] ND -> NZ
                asc.data_copy(b1[j * KT * F:], bg[k0 * N + j * F:], asc.DataCopyParams(KT, 1, (N * 2 - 32) // 32, 0))
            asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
            asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
            asc.wait_flag(asc.HardEvent.M_MTE1, 0)          # previous mmad done with L0A/L0B
            for i in asc.static_range(MT // F):
                asc.load_data(a2[i * (KT // F) * 256:], a1, asc.LoadData2DParams(i, KT // F, MT // F, 0, 0, False))
            for kb in asc.static_range(KT // F):
                asc.load_data(b2[kb * (N // F) * 256:], b1, asc.LoadData2DParams(kb, N // F, KT // F, 0, 0, True))
            asc.set_flag(asc.HardEvent.MTE1_MTE2, 0)
            asc.set_flag(asc.HardEvent.MTE1_M, 0)
            asc.wait_flag(asc.HardEvent.MTE1_M, 0)
            asc.mmad(c1, a2, b2, asc.MmadParams(MT, N, KT, 0, 0, 0, phase == 0))
            asc.set_flag(asc.HardEvent.M_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE1_MTE2, 0)
    asc.wait_flag(asc.HardEvent.M_MTE1, 0)
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(N, MT, 0, N))


@asc.jit(kernel_type=asc.KernelType.AIC_ONLY)
def matmul_static_k(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, k: asc.ConstExpr[int]):
    """matmul_runtime_k with k a compile-time constant: the K loop is fully unrolled."""
    row0 = asc.get_block_idx() * MT
    ag = asc.GlobalTensor()
    bg = asc.GlobalTensor()
    cg = asc.GlobalTensor()
    ag.set_global_buffer(a + row0 * k)
    bg.set_global_buffer(b)
    cg.set_global_buffer(c + row0 * N)
    h = asc.float16
    a1 = asc.LocalTensor(h, asc.TPosition.A1, 0, MT * KT)
    b1 = asc.LocalTensor(h, asc.TPosition.B1, MT * KT * 2, KT * N)
    a2 = asc.LocalTensor(h, asc.TPosition.A2, 0, MT * KT)
    b2 = asc.LocalTensor(h, asc.TPosition.B2, 0, KT * N)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, MT * N)
    asc.set_flag(asc.HardEvent.MTE1_MTE2, 0)
    asc.set_flag(asc.HardEvent.M_MTE1, 0)
    for kc in asc.static_range(k // KT):
        k0 = kc * KT
        asc.wait_flag(asc.HardEvent.MTE1_MTE2, 0)
        for j in asc.static_range(KT // F):
            asc.data_copy(a1[j * MT * F:], ag[k0 + j * F:], asc.DataCopyParams(MT, 1, (k * 2 - 32) // 32, 0))
        for j in asc.static_range(N // F):
            asc.data_copy(b1[j * KT * F:], bg[k0 * N + j * F:], asc.DataCopyParams(KT, 1, (N * 2 - 32) // 32, 0))
        asc.set_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE1, 0)
        asc.wait_flag(asc.HardEvent.M_MTE1, 0)
        for i in asc.static_range(MT // F):
            asc.load_data(a2[i * (KT // F) * 256:], a1, asc.LoadData2DParams(i, KT // F, MT // F, 0, 0, False))
        for kb in asc.static_range(KT // F):
            asc.load_data(b2[kb * (N // F) * 256:], b1, asc.LoadData2DParams(kb, N // F, KT // F, 0, 0, True))
        asc.set_flag(asc.HardEvent.MTE1_MTE2, 0)
        asc.set_flag(asc.HardEvent.MTE1_M, 0)
        asc.wait_flag(asc.HardEvent.MTE1_M, 0)
        asc.mmad(c1, a2, b2, asc.MmadParams(MT, N, KT, 0, 0, 0, kc == 0))
        asc.set_flag(asc.HardEvent.M_MTE1, 0)
    asc.wait_flag(asc.HardEvent.MTE1_MTE2, 0)
    asc.wait_flag(asc.HardEvent.M_MTE1, 0)
    asc.set_flag(asc.HardEvent.M_FIX, 0)
    asc.wait_flag(asc.HardEvent.M_FIX, 0)
    asc.fixpipe(cg, c1, asc.FixpipeParamsV220(N, MT, 0, N))


NLIVE = 40


@asc.jit
def many_live(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    """NLIVE values loaded from GM, all live at once, then combined in reverse order:
    out[i] = x[NLIVE-1-i] * (i + 1) + x[i] + n."""
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(out)
    vs = []
    for i in asc.static_range(NLIVE):
        vs.append(xg.get_value(i) + n)
    for i in asc.static_range(NLIVE):
        og.set_value(i, vs[NLIVE - 1 - i] * (i + 1) + vs[i] - n)


@asc.jit
def many_live_loop(x: asc.GlobalAddress, out: asc.GlobalAddress, n: int):
    """NLIVE values loaded before a run-time loop of n iterations and live through it (used in
    every iteration and after it): out[NLIVE] = sum over j < n, i < NLIVE of v[i] * (j + i),
    out[i] = 2 * v[i], where v[i] = x[i] + n."""
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(out)
    vs = []
    for i in asc.static_range(NLIVE):
        vs.append(xg.get_value(i) + n)
    s = 0
    for j in range(n):
        for i in asc.static_range(NLIVE):
            s = s + vs[i] * (j + i)
    og.set_value(NLIVE, s)
    for i in asc.static_range(NLIVE):
        og.set_value(i, vs[i] * 2)


STRIDE = 4096     # elements between the NLIVE columns: byte offsets beyond the 14-bit immediates


@asc.jit
def unrolled_columns(x: asc.GlobalAddress, out: asc.GlobalAddress):
    """A fully unrolled loop of 3 x NLIVE read-modify-writes: out[i * STRIDE] += r * x[i * STRIDE]
    for r in 1..3; every big offset is one `li` reused by all three rounds (NLIVE live values)."""
    xg = asc.GlobalTensor()
    og = asc.GlobalTensor()
    xg.set_global_buffer(x)
    og.set_global_buffer(out)
    for r in asc.static_range(1, 4):
        for i in asc.static_range(NLIVE):
            og.set_value(i * STRIDE, og.get_value(i * STRIDE) + xg.get_value(i * STRIDE) * r)


DIVISORS = (2, 3, 4, 8, 1 << 40, -4, -3, 1)


@asc.jit
def int_div_rem(out: asc.GlobalAddress, x: int, y: int):
    """x // d and x % d for every d of DIVISORS (compile-time divisors: strength reduction of the
    powers of two), then x // y and x % y (both at run time)."""
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    for i in asc.static_range(len(DIVISORS)):
        og.set_value(2 * i, x // DIVISORS[i])
        og.set_value(2 * i + 1, x % DIVISORS[i])
    og.set_value(2 * len(DIVISORS), x // y)
    og.set_value(2 * len(DIVISORS) + 1, x % y)


@asc.jit
def int_div_rem_const(out: asc.GlobalAddress, x: asc.ConstExpr[int], y: asc.ConstExpr[int]):
    """int_div_rem with x and y compile-time constants (Python ints: folded as Python does)."""
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    for i in asc.static_range(len(DIVISORS)):
        og.set_value(2 * i, x // DIVISORS[i])
        og.set_value(2 * i + 1, x % DIVISORS[i])
    og.set_value(2 * len(DIVISORS), x // y)
    og.set_value(2 * len(DIVISORS) + 1, x % y)


@asc.jit
def loop_index_div_rem(out: asc.GlobalAddress, lo: asc.ConstExpr[int], n: int):
    """out[3 (i - lo) + 0..2] = i // 4, i % 4, i % 2 for lo <= i < n (a run-time loop)."""
    og = asc.GlobalTensor()
    og.set_global_buffer(out)
    for i in range(lo, n):
        og.set_value(3 * (i - lo), i // 4)
        og.set_value(3 * (i - lo) + 1, i % 4)
        og.set_value(3 * (i - lo) + 2, i % 2)
