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

.target ascend910b                      ; split-core target: cube and vector cores apart
.kernel matmul_64, aic                  ; cube-core (AIC) kernel: L1, L0A/B/C, MTE1/2, M, FIX
.arg a, gm, f16
.arg b, gm, f16
.arg c, gm, f32

.equ N, 64
.equ ROW_BYTES, N * 2           ; one GM row of a or b
.equ NZ_BLOCK, N * 32           ; one 16-column block in L1: 64 rows x 32 B
.equ L1_A, 0x0000
.equ L1_B, 0x2000               ; 8 KB after A

        ; ---- GM -> L1, ND -> NZ: 4 column blocks of a, then of b ----
        li      x10, L1_A               ; x10 = L1 byte address of A's next NZ block
        li      x11, L1_B               ; x11 = L1 address of B's next NZ block
        li      x12, 4                  ; column blocks left
        mov     x13, x0                 ; x13 = GM address of a's column block (x0 = a)
        mov     x14, x1                 ; x14 = same for b (x1 = b)
nz_loop:
        mov_out_to_l1 x10, x13, nburst=N, len=1, srcgap=(ROW_BYTES - 32) / 32 ; MTE2: 64 x 32 B of a
        mov_out_to_l1 x11, x14, nburst=N, len=1, srcgap=(ROW_BYTES - 32) / 32 ; MTE2: same for b
        addi    x10, x10, NZ_BLOCK      ; next NZ block in L1 (+2 KB)
        addi    x11, x11, NZ_BLOCK      ; same for b
        addi    x13, x13, 32            ; next 16 columns of a
        addi    x14, x14, 32            ; next 16 columns of b
        addi    x12, x12, -1            ; one block fewer left
        bnez    x12, nz_loop            ; more blocks: go again
        set_flag mte2, mte1, 0          ; after all 8 copies complete: tell MTE1
        wait_flag mte2, mte1, 0         ; MTE1 waits until A and B are in L1

        ; ---- L1 -> L0A (ZZ): row block i takes fractals i, i+4, i+8, i+12 ----
        li      x10, L1_A               ; x10 = L1 A (NZ), the source
        li      x15, 0                  ; L0A address
        load_l1_to_l0a_2d x15, x10, start=0, repeat=4, srcstride=4 ; MTE1: L1 fractals 0,4,8,12 -> L0A
        addi    x15, x15, 4 * 512       ; next row block in L0A: 4 fractals of 512 B
        load_l1_to_l0a_2d x15, x10, start=1, repeat=4, srcstride=4 ; MTE1: L1 fractals 1,5,9,13 -> L0A
        addi    x15, x15, 4 * 512       ; next row block in L0A: 4 fractals of 512 B
        load_l1_to_l0a_2d x15, x10, start=2, repeat=4, srcstride=4 ; MTE1: L1 fractals 2,6,10,14 -> L0A
        addi    x15, x15, 4 * 512       ; next row block in L0A: 4 fractals of 512 B
        load_l1_to_l0a_2d x15, x10, start=3, repeat=4, srcstride=4 ; MTE1: L1 fractals 3,7,11,15 -> L0A
        ; ---- L1 -> L0B (ZN): k block kb takes fractals kb, kb+4, ..., transposed ----
        li      x11, L1_B               ; x11 = L1 B (NZ), the source
        li      x16, 0                  ; L0B address
        load_l1_to_l0b_2d x16, x11, start=0, repeat=4, srcstride=4, transpose=1 ; MTE1: 0,4,.. -> L0B
        addi    x16, x16, 4 * 512       ; next k block in L0B: 4 fractals
        load_l1_to_l0b_2d x16, x11, start=1, repeat=4, srcstride=4, transpose=1 ; MTE1: 1,5,.. -> L0B
        addi    x16, x16, 4 * 512       ; next k block in L0B: 4 fractals
        load_l1_to_l0b_2d x16, x11, start=2, repeat=4, srcstride=4, transpose=1 ; MTE1: 2,6,.. -> L0B
        addi    x16, x16, 4 * 512       ; next k block in L0B: 4 fractals
        load_l1_to_l0b_2d x16, x11, start=3, repeat=4, srcstride=4, transpose=1 ; MTE1: 3,7,.. -> L0B
        set_flag mte1, m, 0             ; after the 8 loads complete: tell the cube
        wait_flag mte1, m, 0            ; M waits until L0A and L0B are filled

        ; ---- cube: L0C = L0A x L0B ----
        li      x15, 0                  ; x15 = L0A address of A (back to 0)
        li      x16, 0                  ; x16 = L0B address of B (back to 0)
        li      x17, 0                  ; L0C address
        mmad.f16f32 x17, x15, x16, m=N, n=N, k=N, init=1 ; M: L0C = A x B (init=1: no accumulate)
        set_flag m, fix, 0              ; after the mmad completes: tell FIX
        wait_flag m, fix, 0             ; FIX waits until C is in L0C

        ; ---- L0C (NZ, f32) -> GM (ND, f32) ----
        fix_l0c_to_out.f32 x2, x17, m=N, n=N ; FIX: GM[x2] (c, ND) <- L0C
        end                             ; wait until every pipe is idle, then stop
