; vadd_single.s -- z = x + y over n f16 elements, single-buffered.
;
; Each core (block) takes n / block_num elements and walks them in tiles of
; TILE elements: load x and y (MTE2), add (V), store z (MTE3), strictly one
; stage after the other.  Compare with vadd_double.s, which overlaps them.
;
; Requires: n a multiple of TILE * block_num.
;
; UB layout, chosen to be free of bank conflicts (docs/semantics.md):
;   x at 0x0000, y at 0x2100 (256 B past 8 KB: y's blocks fall in the other
;   8 bank groups, so src0 and src1 reads never share a group), z at 0x10000
;   (another bank layer, so writes never share a bank with reads).

.kernel vadd_single, aiv
.arg x, gm, f16
.arg y, gm, f16
.arg z, gm, f16
.arg n, int

.equ TILE, 4096                 ; elements per tile
.equ TILE_BYTES, TILE * 2
.equ UB_X, 0x0000
.equ UB_Y, 0x2100
.equ UB_Z, 0x10000

        mfspr   x4, block_idx
        mfspr   x5, block_num
        div     x6, x3, x5              ; x6 = elements of this core
        mul     x7, x6, x4
        shli    x7, x7, 1               ; byte offset of this core's slice
        add     x0, x0, x7
        add     x1, x1, x7
        add     x2, x2, x7
        li      x8, TILE
        div     x9, x6, x8              ; x9 = tiles left
        li      x10, UB_X
        li      x11, UB_Y
        li      x12, UB_Z
        li      x13, TILE_BYTES
        set_flag mte3, mte2, 0          ; "z written back": true before the first tile
loop:
        beqz    x9, done
        wait_flag mte3, mte2, 0         ; previous tile stored: buffers are free
        mov_out_to_ub x10, x0, nburst=1, len=TILE_BYTES / 32
        mov_out_to_ub x11, x1, nburst=1, len=TILE_BYTES / 32
        set_flag mte2, v, 0
        wait_flag mte2, v, 0            ; x and y have landed in UB
        vadd.f16 x12, x10, x11, repeat=TILE / 128
        set_flag v, mte3, 0
        wait_flag v, mte3, 0            ; z computed
        mov_ub_to_out x2, x12, nburst=1, len=TILE_BYTES / 32
        set_flag mte3, mte2, 0
        add     x0, x0, x13
        add     x1, x1, x13
        add     x2, x2, x13
        addi    x9, x9, -1
        j       loop
done:
        wait_flag mte3, mte2, 0         ; last store completed
        end
