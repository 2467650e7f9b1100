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

.target ascend910b                      ; split target: fixpipe on cube cores
.kernel matmul_tiled, aic               ; cube-core (AIC) kernel
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

        mfspr   x3, block_idx           ; x3 = index of this core (x0..x2 = a, b, c)
        mfspr   x4, block_num           ; x4 = number of cores: the tile step
        li      x6, TILES               ; x6 = number of C tiles
        mov     x5, x3                  ; tile t: start at tile block_idx
tile_loop:
        bgeu    x5, x6, done            ; tile t >= TILES: this core is finished
        li      x20, TILES_N            ; x20 = scratch: tiles per row of C
        divu    x7, x5, x20             ; ti = t / TILES_N, the tile row
        remu    x8, x5, x20             ; tj = t % TILES_N, the tile column
        ; A row panel: a + ti*T*K*2; B column panel: b + tj*T*2
        li      x20, T * K * 2          ; bytes of T rows of a
        mul     x21, x7, x20            ; x21 = ti * T*K*2
        add     x21, x21, x0            ; A tile (kt = 0)
        li      x20, T * 2              ; bytes of T columns of b (f16)
        mul     x22, x8, x20            ; x22 = tj * T*2
        add     x22, x22, x1            ; B tile (kt = 0)
        li      x9, K / T               ; k steps left
        li      x23, 1                  ; first step: mmad with init=1
k_loop:
        ; ---- GM -> L1 (ND -> NZ): F column blocks of A, then of B ----
        li      x10, L1_A               ; x10 = L1 address of A's next NZ block
        li      x11, L1_B               ; x11 = L1 address of B's next NZ block
        mov     x13, x21                ; x13 = GM A tile, next column block
        mov     x14, x22                ; x14 = GM B tile, next column block
        li      x12, F                  ; x12 = column blocks left (F = 8)
nz_loop:
        mov_out_to_l1 x10, x13, nburst=T, len=1, srcgap=(K * 2 - 32) / 32 ; MTE2: 128 rows x 32 B
        mov_out_to_l1 x11, x14, nburst=T, len=1, srcgap=(N * 2 - 32) / 32 ; MTE2: same for B
        addi    x10, x10, T * 32        ; next NZ block in L1 (+4 KB)
        addi    x11, x11, T * 32        ; same for B
        addi    x13, x13, 32            ; next 16 columns of A in GM
        addi    x14, x14, 32            ; next 16 columns of B
        addi    x12, x12, -1            ; one block fewer left
        bnez    x12, nz_loop            ; more blocks: go again
        set_flag mte2, mte1, 0          ; after all 16 copies complete: tell MTE1
        wait_flag mte2, mte1, 0         ; MTE1 waits until both tiles are in L1
        ; ---- L1 -> L0A (ZZ) and L0B (ZN) ----
        li      x10, L1_A               ; x10 = L1 A tile (NZ), the source
        li      x11, L1_B               ; x11 = L1 B tile (NZ), the source
        li      x15, 0                  ; x15 = L0A address of row block 0
        load_l1_to_l0a_2d x15, x10, start=0, repeat=F, srcstride=F ; MTE1: row block 0
        addi    x15, x15, F * 512       ; next row block in L0A: F fractals
        load_l1_to_l0a_2d x15, x10, start=1, repeat=F, srcstride=F ; MTE1: row block 1
        addi    x15, x15, F * 512       ; next row block in L0A: F fractals
        load_l1_to_l0a_2d x15, x10, start=2, repeat=F, srcstride=F ; MTE1: row block 2
        addi    x15, x15, F * 512       ; next row block in L0A: F fractals
        load_l1_to_l0a_2d x15, x10, start=3, repeat=F, srcstride=F ; MTE1: row block 3
        addi    x15, x15, F * 512       ; next row block in L0A: F fractals
        load_l1_to_l0a_2d x15, x10, start=4, repeat=F, srcstride=F ; MTE1: row block 4
        addi    x15, x15, F * 512       ; next row block in L0A: F fractals
        load_l1_to_l0a_2d x15, x10, start=5, repeat=F, srcstride=F ; MTE1: row block 5
        addi    x15, x15, F * 512       ; next row block in L0A: F fractals
        load_l1_to_l0a_2d x15, x10, start=6, repeat=F, srcstride=F ; MTE1: row block 6
        addi    x15, x15, F * 512       ; next row block in L0A: F fractals
        load_l1_to_l0a_2d x15, x10, start=7, repeat=F, srcstride=F ; MTE1: row block 7
        li      x16, 0                  ; x16 = L0B address of k block 0
        load_l1_to_l0b_2d x16, x11, start=0, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 0
        addi    x16, x16, F * 512       ; next k block in L0B: F fractals
        load_l1_to_l0b_2d x16, x11, start=1, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 1
        addi    x16, x16, F * 512       ; next k block in L0B: F fractals
        load_l1_to_l0b_2d x16, x11, start=2, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 2
        addi    x16, x16, F * 512       ; next k block in L0B: F fractals
        load_l1_to_l0b_2d x16, x11, start=3, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 3
        addi    x16, x16, F * 512       ; next k block in L0B: F fractals
        load_l1_to_l0b_2d x16, x11, start=4, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 4
        addi    x16, x16, F * 512       ; next k block in L0B: F fractals
        load_l1_to_l0b_2d x16, x11, start=5, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 5
        addi    x16, x16, F * 512       ; next k block in L0B: F fractals
        load_l1_to_l0b_2d x16, x11, start=6, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 6
        addi    x16, x16, F * 512       ; next k block in L0B: F fractals
        load_l1_to_l0b_2d x16, x11, start=7, repeat=F, srcstride=F, transpose=1 ; MTE1: k block 7
        set_flag mte1, mte2, 1          ; after the 16 loads: L1 may be refilled
        wait_flag mte1, mte2, 1         ; MTE2 (next k step) waits for it
        set_flag mte1, m, 0             ; and tell the cube L0A/L0B are full
        wait_flag mte1, m, 0            ; M waits for L0A and L0B
        ; ---- cube ----
        li      x15, 0                  ; x15 = L0A address of A
        li      x16, 0                  ; x16 = L0B address of B
        li      x17, 0                  ; x17 = L0C address of C
        beqz    x23, acc_step           ; not the first k step: accumulate
        mmad.f16f32 x17, x15, x16, m=T, n=T, k=T, init=1 ; M: L0C = A x B
        j       mmad_done               ; skip the accumulating form
acc_step:
        mmad.f16f32 x17, x15, x16, m=T, n=T, k=T, init=0 ; M: L0C += A x B
mmad_done:
        set_flag m, mte1, 1             ; after the mmad: L0A/L0B may be refilled
        wait_flag m, mte1, 1            ; MTE1 (next k step) waits for it
        li      x23, 0                  ; later steps are not the first
        li      x20, T * 2              ; GM step: T columns of a
        add     x21, x21, x20           ; A: next T columns
        li      x20, T * N * 2          ; GM step: T rows of b
        add     x22, x22, x20           ; B: next T rows
        addi    x9, x9, -1              ; one k step fewer left
        bnez    x9, k_loop              ; more k steps: go again
        ; ---- L0C -> GM: c + (ti*T*N + tj*T)*4 ----
        set_flag m, fix, 0              ; after the last mmad: tell FIX
        wait_flag m, fix, 0             ; FIX waits until C is complete in L0C
        li      x20, T * N * 4          ; bytes of T rows of c (f32)
        mul     x24, x7, x20            ; x24 = ti * T*N*4
        li      x20, T * 4              ; bytes of T columns of c
        mul     x25, x8, x20            ; x25 = tj * T*4
        add     x24, x24, x25           ; x24 = byte offset of the C tile
        add     x24, x24, x2            ; x24 = GM address of the C tile
        li      x17, 0                  ; x17 = L0C address of C
        fix_l0c_to_out.f32 x24, x17, m=T, n=T, dststride=N ; FIX: GM <- L0C
        set_flag fix, m, 0              ; after the copy-out: L0C may be overwritten
        wait_flag fix, m, 0             ; M (next tile's init=1) waits for it
        add     x5, x5, x4              ; t += block_num
        j       tile_loop               ; next tile of this core
done:
        end                             ; wait until every pipe is idle, then stop
