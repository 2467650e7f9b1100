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

.kernel vadd_single, aiv                ; a vector-core (AIV) kernel: UB, V, MTE2, MTE3
.arg x, gm, f16                         ; x0 = GM address of x
.arg y, gm, f16                         ; x1 = GM address of y
.arg z, gm, f16                         ; x2 = GM address of z (the result)
.arg n, int                             ; x3 = total element count

.equ TILE, 4096                 ; elements per tile
.equ TILE_BYTES, TILE * 2       ; 8 KB per tile (f16 = 2 B)
.equ UB_X, 0x0000               ; UB byte address of the x tile
.equ UB_Y, 0x2100               ; UB byte address of the y tile (other 8 bank groups)
.equ UB_Z, 0x10000              ; UB byte address of the z tile (another bank layer)

        mfspr   x4, block_idx           ; x4 = index of this core, 0 .. block_num-1
        mfspr   x5, block_num           ; x5 = number of cores running the kernel
        div     x6, x3, x5              ; x6 = elements of this core
        mul     x7, x6, x4              ; x7 = index of this core's first element
        shli    x7, x7, 1               ; byte offset of this core's slice
        add     x0, x0, x7              ; x0 = start of this core's part of x
        add     x1, x1, x7              ; x1 = ... of y
        add     x2, x2, x7              ; x2 = ... of z
        li      x8, TILE                ; x8 = TILE, the divisor below
        div     x9, x6, x8              ; x9 = tiles left
        li      x10, UB_X               ; x10 = UB address of x (fixed: one buffer)
        li      x11, UB_Y               ; x11 = UB address of y
        li      x12, UB_Z               ; x12 = UB address of z
        li      x13, TILE_BYTES         ; x13 = GM step from one tile to the next
        set_flag mte3, mte2, 0          ; "z written back": true before the first tile
loop:
        beqz    x9, done                ; no tiles left: leave the loop
        wait_flag mte3, mte2, 0         ; previous tile stored: buffers are free
        mov_out_to_ub x10, x0, nburst=1, len=TILE_BYTES / 32 ; MTE2: UB[x10] <- GM[x0], 1 burst of 8 KB
        mov_out_to_ub x11, x1, nburst=1, len=TILE_BYTES / 32 ; MTE2: UB[x11] <- GM[x1] (len in 32 B)
        set_flag mte2, v, 0             ; after both loads complete: tell V
        wait_flag mte2, v, 0            ; x and y have landed in UB
        vadd.f16 x12, x10, x11, repeat=TILE / 128 ; V: z = x + y, 32 repeats x 128 f16, contiguous
        set_flag v, mte3, 0             ; after the add completes: tell MTE3
        wait_flag v, mte3, 0            ; z computed
        mov_ub_to_out x2, x12, nburst=1, len=TILE_BYTES / 32 ; MTE3: GM[x2] <- UB[x12], 8 KB
        set_flag mte3, mte2, 0          ; after the store: MTE2 may reload x, y
        add     x0, x0, x13             ; next tile of x in GM
        add     x1, x1, x13             ; next tile of y
        add     x2, x2, x13             ; next tile of z
        addi    x9, x9, -1              ; one tile fewer left
        j       loop                    ; back to the loop test
done:
        wait_flag mte3, mte2, 0         ; last store completed
        end                             ; wait until every pipe is idle, then stop the core
