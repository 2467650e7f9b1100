; matmul_tiled.s -- c (M x N f32) = a (M x K f16) x b (K x N f16), ND in GM,
; on any number of cube cores (--blocks B), with run-time loops.
;
; M, N and K are the .equ values below (multiples of 128); bench/run makes
; other sizes by rewriting these three lines.  C is cut into 128 x 128 tiles;
; core block_idx takes tiles block_idx, block_idx + block_num, ...  For one
; tile, K is walked in steps of 128:
;   GM (ND) --MTE2 mov_out_to_l1, 16-column blocks--> L1 (NZ)     A and B tiles
;   L1 --MTE1 load_l1_to_l0a_2d / load_l1_to_l0b_2d (transposed)--> L0A (ZZ), L0B (ZN)
;   mmad m=n=k=128 into L0C (init=1 on the first step, then accumulate)
; and the tile goes out with fix_l0c_to_out.f32 (row stride N).  Every stage
; waits for the one before it and for the previous user of its buffers
; (flags below): simple and correct, not double-buffered.  The layouts and
; the load sequence are those of docs/semantics.md section 5 and matmul_64.s.

.target ascend910b
.kernel matmul_tiled, aic
.arg a, gm, f16
.arg b, gm, f16
.arg c, gm, f32

.equ M, 1024
.equ N, 1024
.equ K, 1024

.equ T, 128                     ; tile edge (rows, columns and k step)
.equ F, T / 16                  ; fractals per tile edge
.equ TILES_N, N / T
.equ TILES, (M / T) * TILES_N
.equ L1_A, 0
.equ L1_B, T * T * 2            ; 32 KB after A

        mfspr   x3, block_idx
        mfspr   x4, block_num
        li      x6, TILES
        mov     x5, x3                  ; tile t
tile_loop:
        bgeu    x5, x6, done
        li      x20, TILES_N
        divu    x7, x5, x20             ; ti
        remu    x8, x5, x20             ; tj
        ; A row panel: a + ti*T*K*2; B column panel: b + tj*T*2
        li      x20, T * K * 2
        mul     x21, x7, x20
        add     x21, x21, x0            ; A tile (kt = 0)
        li      x20, T * 2
        mul     x22, x8, x20
        add     x22, x22, x1            ; B tile (kt = 0)
        li      x9, K / T               ; k steps left
        li      x23, 1                  ; first step
k_loop:
        ; ---- GM -> L1 (ND -> NZ): F column blocks of A, then of B ----
        li      x10, L1_A
        li      x11, L1_B
        mov     x13, x21
        mov     x14, x22
        li      x12, F
nz_loop:
        mov_out_to_l1 x10, x13, nburst=T, len=1, srcgap=(K * 2 - 32) / 32
        mov_out_to_l1 x11, x14, nburst=T, len=1, srcgap=(N * 2 - 32) / 32
        addi    x10, x10, T * 32
        addi    x11, x11, T * 32
        addi    x13, x13, 32
        addi    x14, x14, 32
        addi    x12, x12, -1
        bnez    x12, nz_loop
        set_flag mte2, mte1, 0
        wait_flag mte2, mte1, 0
        ; ---- L1 -> L0A (ZZ) and L0B (ZN) ----
        li      x10, L1_A
        li      x11, L1_B
        li      x15, 0
        load_l1_to_l0a_2d x15, x10, start=0, repeat=F, srcstride=F
        addi    x15, x15, F * 512
        load_l1_to_l0a_2d x15, x10, start=1, repeat=F, srcstride=F
        addi    x15, x15, F * 512
        load_l1_to_l0a_2d x15, x10, start=2, repeat=F, srcstride=F
        addi    x15, x15, F * 512
        load_l1_to_l0a_2d x15, x10, start=3, repeat=F, srcstride=F
        addi    x15, x15, F * 512
        load_l1_to_l0a_2d x15, x10, start=4, repeat=F, srcstride=F
        addi    x15, x15, F * 512
        load_l1_to_l0a_2d x15, x10, start=5, repeat=F, srcstride=F
        addi    x15, x15, F * 512
        load_l1_to_l0a_2d x15, x10, start=6, repeat=F, srcstride=F
        addi    x15, x15, F * 512
        load_l1_to_l0a_2d x15, x10, start=7, repeat=F, srcstride=F
        li      x16, 0
        load_l1_to_l0b_2d x16, x11, start=0, repeat=F, srcstride=F, transpose=1
        addi    x16, x16, F * 512
        load_l1_to_l0b_2d x16, x11, start=1, repeat=F, srcstride=F, transpose=1
        addi    x16, x16, F * 512
        load_l1_to_l0b_2d x16, x11, start=2, repeat=F, srcstride=F, transpose=1
        addi    x16, x16, F * 512
        load_l1_to_l0b_2d x16, x11, start=3, repeat=F, srcstride=F, transpose=1
        addi    x16, x16, F * 512
        load_l1_to_l0b_2d x16, x11, start=4, repeat=F, srcstride=F, transpose=1
        addi    x16, x16, F * 512
        load_l1_to_l0b_2d x16, x11, start=5, repeat=F, srcstride=F, transpose=1
        addi    x16, x16, F * 512
        load_l1_to_l0b_2d x16, x11, start=6, repeat=F, srcstride=F, transpose=1
        addi    x16, x16, F * 512
        load_l1_to_l0b_2d x16, x11, start=7, repeat=F, srcstride=F, transpose=1
        set_flag mte1, mte2, 1          ; L1 may be refilled
        wait_flag mte1, mte2, 1
        set_flag mte1, m, 0
        wait_flag mte1, m, 0
        ; ---- cube ----
        li      x15, 0
        li      x16, 0
        li      x17, 0
        beqz    x23, acc_step
        mmad.f16f32 x17, x15, x16, m=T, n=T, k=T, init=1
        j       mmad_done
acc_step:
        mmad.f16f32 x17, x15, x16, m=T, n=T, k=T, init=0
mmad_done:
        set_flag m, mte1, 1             ; L0A/L0B may be refilled
        wait_flag m, mte1, 1
        li      x23, 0
        li      x20, T * 2
        add     x21, x21, x20           ; A: next T columns
        li      x20, T * N * 2
        add     x22, x22, x20           ; B: next T rows
        addi    x9, x9, -1
        bnez    x9, k_loop
        ; ---- L0C -> GM: c + (ti*T*N + tj*T)*4 ----
        set_flag m, fix, 0
        wait_flag m, fix, 0
        li      x20, T * N * 4
        mul     x24, x7, x20
        li      x20, T * 4
        mul     x25, x8, x20
        add     x24, x24, x25
        add     x24, x24, x2
        li      x17, 0
        fix_l0c_to_out.f32 x24, x17, m=T, n=T, dststride=N
        set_flag fix, m, 0              ; L0C may be overwritten
        wait_flag fix, m, 0
        add     x5, x5, x4
        j       tile_loop
done:
        end
