"""Per-element kernels of test_simt.py that the SIMT lowering must refuse, each at its line."""
import pyasc


@pyasc.jit
def k_gather(x, y, out, size):
    idx = pyasc.get_global_id()
    if idx < size:
        out[idx] = x[y[idx]]  # line 9


@pyasc.jit
def k_shift(x, out, size):
    idx = pyasc.get_global_id()
    if idx < size:
        out[idx] = x[idx + 1]  # line 16


@pyasc.jit
def k_rotate(x, out, size):
    sh = pyasc.shared(16)
    tid = pyasc.get_local_id()
    idx = pyasc.get_global_id()
    if idx < size:
        sh[tid] = x[idx]
        pyasc.syncthreads()
        out[idx] = sh[(tid + 1) % 16]  # line 27


@pyasc.jit
def k_loop(x, out, size):
    idx = pyasc.get_global_id()
    if idx < size:
        s = 0
        for i in range(16):  # line 35
            s += x[idx]
        out[idx] = s


@pyasc.jit
def k_branch(x, out, size):
    idx = pyasc.get_global_id()
    if idx < size:
        if x[idx] < 0:  # line 44
            out[idx] = x[idx]


@pyasc.jit
def k_nowait(x, out, size):
    idx = pyasc.get_global_id()
    if idx < size:
        a = pyasc.load_async(x, idx)
        out[idx] = a * 2  # line 53
        pyasc.wait()


@pyasc.jit
def k_f64(x, out, size):
    idx = pyasc.get_global_id()
    if idx < size:
        out[idx] = x[idx] * 2.5  # line 61


@pyasc.jit
def k_gemm_epilogue(C, A, B, M, N, K):
    row = pyasc.get_row()
    col = pyasc.get_col()
    if row < M and col < N:
        s = 0
        for k in range(K):
            s += A[row, k] * B[col, k]  # line 71
        C[row, col] = s


@pyasc.jit
def k_mixed(x, y, out, size):
    """float16 and float32 operands: numpy promotes to float32, the store rounds to out's type."""
    idx = pyasc.get_global_id()
    if idx < size:
        out[idx] = x[idx] + y[idx] * 3 - 2.0 / y[idx]
