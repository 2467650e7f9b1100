"""Per-element (SIMT-style) kernels in the style of the founding documents (docs/pyasc.md
"Per-element (SIMT) kernels"): each function says what ONE element (or one row, or one C
element) does; `@pyasc.jit` turns it into a tiled, double-buffered vector kernel over all vector
cores, or a cube matmul, or per-row vector reductions.

Run: /usr/bin/python3 kernels/pyasc/simt/examples.py  (checks each against numpy)"""
import numpy as np

import pyasc


@pyasc.jit
def double_kernel(input_data, output_data, size):
    """output = input * 2, element by element."""
    idx = pyasc.get_global_id()
    if idx < size:
        output_data[idx] = input_data[idx] * 2


@pyasc.jit
def axpby_kernel(x, y, out, alpha, beta, size):
    """out = max(alpha * x + beta * y, 0) - 1 / (1 + exp(-x)): a chain of vector instructions."""
    idx = pyasc.get_global_id()
    if idx < size:
        v = alpha * x[idx] + beta * y[idx]
        out[idx] = pyasc.max(v, 0.0) - 1.0 / (1.0 + pyasc.exp(-x[idx]))


@pyasc.jit
def shared_kernel(x, out, size):
    """Scratch memory: each element writes its slot, the tile synchronises, each reads its slot."""
    shared = pyasc.shared(1024)
    tid = pyasc.get_local_id()
    idx = pyasc.get_global_id()
    if idx < size:
        shared[tid] = pyasc.load_global(x, idx) * 3
        pyasc.syncthreads()
        result = shared[tid] + 1
        pyasc.store_global(out, idx, result)


@pyasc.jit
def pipelined_kernel(x, y, out, size):
    """load_async / wait / store_async: the loads are the pipeline's MTE2 copies."""
    idx = pyasc.get_global_id()
    if idx < size:
        pyasc.prefetch(y, idx)
        a = pyasc.load_async(x, idx)
        b = pyasc.load_async(y, idx)
        pyasc.wait()
        pyasc.store_async(out, idx, a * b + a)


@pyasc.jit
def vector_kernel(x, out, nvec):
    """load_vector / store_vector: 4 elements per index; pack / unpack name the lanes' values."""
    idx = pyasc.get_global_id()
    if idx < nvec:
        vec = pyasc.load_vector(x, idx)
        a, b = pyasc.unpack(pyasc.pack(vec * 2, vec))
        pyasc.store_vector(out, idx, a - b)


@pyasc.jit
def gemm_kernel(C, A, B, M, N, K):
    """C = A @ B, one C element per (row, col): lowered to the cube."""
    row = pyasc.get_row()
    col = pyasc.get_col()
    if row < M and col < N:
        sum_val = 0
        for k in range(K):
            sum_val += A[row, k] * B[k, col]
        C[row, col] = sum_val


@pyasc.jit
def softmax_kernel(input, output, rows, cols):  # noqa: A002  (the documents' name)
    """Row softmax, one row per index: max and sum become vector reductions."""
    row = pyasc.get_row()
    if row < rows:
        max_val = input[row, 0]
        for j in range(cols):
            max_val = pyasc.max(max_val, input[row, j])
        exp_sum = 0
        for j in range(cols):
            exp_sum += pyasc.exp(input[row, j] - max_val)
        for j in range(cols):
            output[row, j] = pyasc.exp(input[row, j] - max_val) / exp_sum


def main():
    rng = np.random.default_rng(0)
    n = 100003
    x = rng.standard_normal(n).astype(np.float16)
    y = np.zeros_like(x)
    r = double_kernel(x, y, n)
    assert np.array_equal(y, x * 2)
    print("double_kernel OK:", r)
    a = rng.standard_normal((100, 45)).astype(np.float16)
    b = rng.standard_normal((45, 70)).astype(np.float16)
    c = np.zeros((100, 70), np.float32)
    r = gemm_kernel(c, a, b, 100, 70, 45)
    err = np.abs(c - a.astype(np.float64) @ b.astype(np.float64)).max()
    assert err < 1e-4, err
    print(f"gemm_kernel OK (max abs error {err:.1e}):", r)
    s = (rng.standard_normal((37, 1000)) * 3).astype(np.float32)
    o = np.zeros_like(s)
    r = softmax_kernel(s, o, 37, 1000)
    e = np.exp(s.astype(np.float64) - s.max(axis=1, keepdims=True))
    err = np.abs(o - e / e.sum(axis=1, keepdims=True)).max()
    assert err < 1e-6, err
    print(f"softmax_kernel OK (max abs error {err:.1e}):", r)


if __name__ == "__main__":
    main()
