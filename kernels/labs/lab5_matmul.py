#!/usr/bin/python3
"""Lab 5's cube kernel (kernels/labs/lab5_cores.md): prints an asc assembly matmul with base block
BM x BN for the cube core of a split target (ascend910b), like kernels/asm/matmul_64.s.

    /usr/bin/python3 kernels/labs/lab5_matmul.py BM BN [M N K] > mm.s

c (M x N, f32) = a (M x K, f16) x b (K x N, f16), all row-major (ND) in GM; defaults
M = N = K = 256.  The kernel copies a and b once into L1 (ND -> NZ, as matmul_64.s does), then
for every BM x BN block of c: MTE1 loads the BM x K panel of a into L0A and the K x BN panel of
b into L0B, the cube computes the block into L0C with one mmad, and the fixpipe writes it to GM.
One set of L0 buffers: the loads of block b+1 wait for the mmad of block b (flag M -> MTE1), the
mmad of b+1 waits for the fixpipe to have read block b out of L0C (flag FIX -> M).
"""

import sys

L0AB_BYTES = 65536  # ascend910b l0a_bytes / l0b_bytes (asc-sim config --target ascend910b)
L0C_BYTES = 131072
L1_BYTES = 524288


def kernel(bm, bn, m=256, n=256, k=256):
    for name, v in (("BM", bm), ("BN", bn), ("M", m), ("N", n), ("K", k)):
        if v <= 0 or v % 16:
            raise ValueError(f"{name} = {v} must be a positive multiple of 16")
    if m % bm or n % bn:
        raise ValueError(f"BM = {bm} must divide M = {m} and BN = {bn} must divide N = {n}")
    if bm * k * 2 > L0AB_BYTES or k * bn * 2 > L0AB_BYTES:
        raise ValueError(f"a panel of {bm} x {k} or {k} x {bn} f16 does not fit L0A/L0B (64 KB)")
    if bm * bn * 4 > L0C_BYTES:
        raise ValueError(f"a {bm} x {bn} f32 block does not fit L0C (128 KB)")
    if (m + n) * k * 2 > L1_BYTES:
        raise ValueError("a and b together do not fit L1 (512 KB)")
    mf, kf = m // 16, k // 16
    lines = [f"""; lab5 matmul, base block {bm} x {bn}: c ({m}x{n} f32) = a ({m}x{k} f16) x b ({k}x{n} f16)
; made by kernels/labs/lab5_matmul.py {bm} {bn} {m} {n} {k} (its docstring explains the kernel)

.target ascend910b
.kernel mm_{bm}x{bn}, aic
.arg a, gm, f16
.arg b, gm, f16
.arg c, gm, f32

.equ M, {m}
.equ N, {n}
.equ K, {k}
.equ BM, {bm}
.equ BN, {bn}
.equ MF, M / 16                 ; fractal rows of a
.equ KF, K / 16                 ; fractal columns of a = fractal rows of b
.equ L1_A, 0x0000               ; a in NZ: KF column blocks of M rows x 32 B
.equ L1_B, M * K * 2            ; b in NZ: N/16 column blocks of K rows x 32 B

        ; addi takes 14-bit immediates: the larger steps live in registers
        li      x25, M * 32             ; one NZ column block of a in L1
        li      x26, K * 32             ; one NZ column block of b in L1
        li      x27, KF * 512           ; one fractal row of a panel in L0A
        li      x28, BN / 16 * KF * 512 ; BN columns of b in L1
        li      x24, BM * N * 4         ; BM rows of c in GM
        ; ---- GM -> L1, ND -> NZ: one copy per 16-column block ----
        li      x10, L1_A
        mov     x11, x0
        li      x12, KF
a_nz:
        mov_out_to_l1 x10, x11, nburst=M, len=1, srcgap=(K * 2 - 32) / 32
        add     x10, x10, x25
        addi    x11, x11, 32
        addi    x12, x12, -1
        bnez    x12, a_nz
        li      x10, L1_B
        mov     x11, x1
        li      x12, N / 16
b_nz:
        mov_out_to_l1 x10, x11, nburst=K, len=1, srcgap=(N * 2 - 32) / 32
        add     x10, x10, x26
        addi    x11, x11, 32
        addi    x12, x12, -1
        bnez    x12, b_nz
        set_flag mte2, mte1, 0
        wait_flag mte2, mte1, 0         ; a and b are in L1

        set_flag m, mte1, 0             ; L0A / L0B free
        set_flag fix, m, 0              ; L0C free
        li      x20, L1_A               ; x20: L1 address of this row block of a
        mov     x22, x2                 ; x22: GM address of this row block of c
        li      x8, M / BM              ; row blocks left
rows:
        li      x21, L1_B               ; x21: L1 address of this column block of b
        mov     x23, x22                ; x23: GM address of block (i, j) of c
        li      x9, N / BN              ; column blocks left
cols:
        wait_flag m, mte1, 0
        ; a panel -> L0A (ZZ): fractal row ii of the block takes fractals ii, ii+MF, ...
        li      x15, 0
        mov     x16, x20"""]
    for ii in range(bm // 16):
        lines.append(f"        load_l1_to_l0a_2d x15, x16, start=0, repeat=KF, srcstride=MF")
        if ii + 1 < bm // 16:
            lines += ["        add     x15, x15, x27", "        addi    x16, x16, 512"]
    lines += ["        ; b panel -> L0B (ZN): fractal row kk takes the BN/16 fractals of its column blocks, transposed",
              "        li      x15, 0", "        mov     x16, x21"]
    for kk in range(kf):
        lines.append("        load_l1_to_l0b_2d x15, x16, start=0, repeat=BN / 16, srcstride=KF, transpose=1")
        if kk + 1 < kf:
            lines += ["        addi    x15, x15, BN / 16 * 512", "        addi    x16, x16, 512"]
    lines.append("""        set_flag mte1, m, 0
        wait_flag mte1, m, 0            ; panels in L0A / L0B
        wait_flag fix, m, 0             ; L0C read out
        li      x15, 0
        li      x16, 0
        li      x17, 0
        mmad.f16f32 x17, x15, x16, m=BM, n=BN, k=K, init=1
        set_flag m, mte1, 0             ; L0A / L0B free again
        set_flag m, fix, 0
        wait_flag m, fix, 0             ; block computed
        fix_l0c_to_out.f32 x23, x17, m=BM, n=BN, dststride=N
        set_flag fix, m, 0
        add     x21, x21, x28       ; next column block of b
        addi    x23, x23, BN * 4
        addi    x9, x9, -1
        bnez    x9, cols
        addi    x20, x20, BM / 16 * 512          ; next row block of a
        add     x22, x22, x24
        addi    x8, x8, -1
        bnez    x8, rows
        wait_flag m, mte1, 0            ; consume the "free" flags
        wait_flag fix, m, 0
        end
""")
    return "\n".join(lines)


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) not in (2, 5) or not all(s.isdigit() for s in a):
        sys.exit("usage: /usr/bin/python3 kernels/labs/lab5_matmul.py BM BN [M N K]")
    try:
        sys.stdout.write(kernel(*map(int, a)))
    except ValueError as e:
        sys.exit(f"error: {e}")
