; matmul_64.s -- c (64x64 f32) = a (64x64 f16) x b (64x64 f16), one cube core.
;
; The path of the data (docs/semantics.md has the layouts):
;   GM (ND, row-major)  --MTE2-->  L1 (NZ: 16-column blocks, rows contiguous)
;   L1  --MTE1 load_l1_to_l0a_2d-->  L0A (ZZ)      A as 4x4 fractals of 16x16
;   L1  --MTE1 load_l1_to_l0b_2d, transposed-->  L0B (ZN)
;   mmad (M)  ->  L0C (NZ, f32)  --FIX fix_l0c_to_out-->  GM (ND, f32)
;
; ND -> NZ on the way into L1: one copy per 16-column block j moves 64 rows of
; 32 B (16 f16), skipping the other 96 B of each 128 B GM row (srcgap = 3).
;
; For split targets (ascend910b): the fixpipe (FIX pipe) exists on cube cores
; only; a coupled core (ascend910, teach) reads L0C out through the vector
; unit with mov_l0c_to_ub instead.

.target ascend910b
.kernel matmul_64, aic
.arg a, gm, f16
.arg b, gm, f16
.arg c, gm, f32

.equ N, 64
.equ ROW_BYTES, N * 2           ; one GM row of a or b
.equ NZ_BLOCK, N * 32           ; one 16-column block in L1: 64 rows x 32 B
.equ L1_A, 0x0000
.equ L1_B, 0x2000               ; 8 KB after A

        ; ---- GM -> L1, ND -> NZ: 4 column blocks of a, then of b ----
        li      x10, L1_A
        li      x11, L1_B
        li      x12, 4                  ; column blocks left
        mov     x13, x0
        mov     x14, x1
nz_loop:
        mov_out_to_l1 x10, x13, nburst=N, len=1, srcgap=(ROW_BYTES - 32) / 32
        mov_out_to_l1 x11, x14, nburst=N, len=1, srcgap=(ROW_BYTES - 32) / 32
        addi    x10, x10, NZ_BLOCK
        addi    x11, x11, NZ_BLOCK
        addi    x13, x13, 32            ; next 16 columns of a
        addi    x14, x14, 32
        addi    x12, x12, -1
        bnez    x12, nz_loop
        set_flag mte2, mte1, 0
        wait_flag mte2, mte1, 0

        ; ---- L1 -> L0A (ZZ): row block i takes fractals i, i+4, i+8, i+12 ----
        li      x10, L1_A
        li      x15, 0                  ; L0A address
        load_l1_to_l0a_2d x15, x10, start=0, repeat=4, srcstride=4
        addi    x15, x15, 4 * 512
        load_l1_to_l0a_2d x15, x10, start=1, repeat=4, srcstride=4
        addi    x15, x15, 4 * 512
        load_l1_to_l0a_2d x15, x10, start=2, repeat=4, srcstride=4
        addi    x15, x15, 4 * 512
        load_l1_to_l0a_2d x15, x10, start=3, repeat=4, srcstride=4
        ; ---- L1 -> L0B (ZN): k block kb takes fractals kb, kb+4, ..., transposed ----
        li      x11, L1_B
        li      x16, 0                  ; L0B address
        load_l1_to_l0b_2d x16, x11, start=0, repeat=4, srcstride=4, transpose=1
        addi    x16, x16, 4 * 512
        load_l1_to_l0b_2d x16, x11, start=1, repeat=4, srcstride=4, transpose=1
        addi    x16, x16, 4 * 512
        load_l1_to_l0b_2d x16, x11, start=2, repeat=4, srcstride=4, transpose=1
        addi    x16, x16, 4 * 512
        load_l1_to_l0b_2d x16, x11, start=3, repeat=4, srcstride=4, transpose=1
        set_flag mte1, m, 0
        wait_flag mte1, m, 0

        ; ---- cube: L0C = L0A x L0B ----
        li      x15, 0
        li      x16, 0
        li      x17, 0                  ; L0C address
        mmad.f16f32 x17, x15, x16, m=N, n=N, k=N, init=1
        set_flag m, fix, 0
        wait_flag m, fix, 0

        ; ---- L0C (NZ, f32) -> GM (ND, f32) ----
        fix_l0c_to_out.f32 x2, x17, m=N, n=N
        end
