; vadd_bank_conflict.s -- z = x + y over n f16 elements, computed three ways
; per tile so the timeline and the report show what UB bank conflicts cost.
;
; Single-buffered like vadd_single.s.  Per tile of TILE elements, MTE2 loads
; x and y into a conflict-free layout and a second copy of y 512 B-aligned
; with x; then the vector pipe runs, back to back (docs/semantics.md §3;
; base_beats 1, f16 add: lat.vec_add + beats cycles):
;   (a) conflict-free   z(0x10000) = x(0x0000) + y(0x2100)
;       x in bank groups 0-7, y in 8-15, z in another 64 KB layer:
;       1 beat per repeat, 0 extra beats.
;   (b) all at multiples of 512 B, one layer:
;       z2(0x6200) = x(0x0000) + y2(0x4200)
;       every repeat reads 2 blocks from each of groups 0-7 (R = 2) and
;       writes the same 8 banks (RW = 3): 3 beats per repeat.
;   (c) strided: z(0x10000) = x + y with blk stride 16 (blocks 512 B apart),
;       repeat stride 1 block: 16 repeats cover 4 KB in a permuted order; the
;       8 blocks of one operand in a repeat all fall in one bank group
;       (R = W = 8): 8 beats per repeat.
; (a) and (c) write the same values to z, which MTE3 stores; (b)'s z2 is
; scratch, there only to be slow.  Extra beats show as the red stripe on
; the VECTOR lane (args.bank_conflict_beats) and in the report's
; bank-conflict line.
;
; Requires: n a multiple of TILE * block_num.

.kernel vadd_bank_conflict, aiv
.arg x, gm, f16
.arg y, gm, f16
.arg z, gm, f16
.arg n, int

.equ TILE, 4096                 ; elements per tile
.equ TILE_BYTES, TILE * 2
.equ LEN, TILE_BYTES / 32       ; burst length in 32 B blocks
.equ REP, TILE / 128            ; repeats per tile, contiguous (128 f16 per repeat)
.equ UB_X, 0x0000
.equ UB_Y, 0x2100               ; 256 B past 8 KB: the other 8 bank groups
.equ UB_Y2, 0x4200              ; 512 B-aligned like x (the same 8 groups), past y's end 0x4100
.equ UB_Z2, 0x6200              ; 512 B-aligned too, same layer
.equ UB_Z, 0x10000              ; layer 1

        mfspr   x4, block_idx           ; x4 = index of this core
        mfspr   x5, block_num           ; x5 = number of cores
        div     x6, x3, x5              ; x6 = elements of this core
        mul     x7, x6, x4              ; x7 = first element of this core
        shli    x7, x7, 1               ; byte offset of this core's slice
        add     x0, x0, x7              ; x0 = this core's part of x (x0 = &x, .arg order)
        add     x1, x1, x7              ; x1 = ... of y
        add     x2, x2, x7              ; x2 = ... of z
        li      x8, TILE                ; divisor for the tile count
        div     x9, x6, x8              ; x9 = tiles left
        li      x10, UB_X               ; x10 = UB x (all UB addresses are bytes)
        li      x11, UB_Y               ; x11 = UB y, conflict-free with x
        li      x12, UB_Z               ; x12 = UB z, layer 1
        li      x13, TILE_BYTES         ; x13 = GM step per tile
        li      x14, UB_Y2              ; x14 = UB y2, same bank groups as x
        li      x15, UB_Z2              ; x15 = UB z2 (scratch for (b))
        li      x16, UB_X + TILE_BYTES / 2      ; second halves for (c): x + 4 KB
        li      x17, UB_Y + TILE_BYTES / 2      ; y + 4 KB
        li      x18, UB_Z + TILE_BYTES / 2      ; z + 4 KB
        set_flag mte3, mte2, 0          ; "z written back": true before the first tile
loop:
        beqz    x9, done                ; no tiles left: leave the loop
        wait_flag mte3, mte2, 0         ; previous tile stored: buffers are free
        mov_out_to_ub x10, x0, nburst=1, len=LEN ; MTE2: x <- GM[x0], one 8 KB burst
        mov_out_to_ub x11, x1, nburst=1, len=LEN ; MTE2: y <- GM[x1]
        mov_out_to_ub x14, x1, nburst=1, len=LEN ; MTE2: y2, a second copy of y
        set_flag mte2, v, 0             ; after the 3 loads complete: tell V
        wait_flag mte2, v, 0            ; x, y and y2 have landed in UB
        ; (a) conflict-free: 1 beat per repeat
        vadd.f16 x12, x10, x11, repeat=REP ; V: z = x + y, 32 contiguous repeats
        ; (b) x, y2, z2 all 512 B-aligned in one layer: 3 beats per repeat
        vadd.f16 x15, x10, x14, repeat=REP ; V: z2 = x + y2 (same sum, slow)
        ; (c) block stride 16: 8 blocks of a repeat in one bank group, 8 beats per repeat
        vadd.f16 x12, x10, x11, repeat=16, blk=16,16,16, rep=1,1,1 ; V: z[0..4 KB) again, same values
        vadd.f16 x18, x16, x17, repeat=16, blk=16,16,16, rep=1,1,1 ; V: z[4..8 KB)
        set_flag v, mte3, 0             ; after all 4 adds: tell MTE3
        wait_flag v, mte3, 0            ; z computed
        mov_ub_to_out x2, x12, nburst=1, len=LEN ; MTE3: GM[x2] <- z (8 KB)
        set_flag mte3, mte2, 0          ; after the store: MTE2 may reload x, y, y2
        add     x0, x0, x13             ; next tile of x
        add     x1, x1, x13             ; next tile of y
        add     x2, x2, x13             ; next tile of z
        addi    x9, x9, -1              ; one tile fewer left
        j       loop                    ; back to the loop test
done:
        wait_flag mte3, mte2, 0         ; last store completed
        end                             ; wait until every pipe is idle, then stop
