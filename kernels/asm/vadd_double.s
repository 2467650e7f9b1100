; vadd_double.s -- z = x + y over n f16 elements, double-buffered.
;
; Same work as vadd_single.s, with two sets of UB buffers (ping = event id 0,
; pong = event id 1) so that MTE2 loads tile i+1 while V adds tile i and
; MTE3 stores tile i-1.  The flags follow the Ascend C manual-sync pattern:
;   MTE2 -> V   "x, y landed"          V -> MTE2  "x, y free again"
;   V -> MTE3   "z computed"           MTE3 -> V  "z free again"
; The "free" flags are set once before the loop and consumed after it.
;
; Requires: n a multiple of 2 * TILE * block_num.
;
; UB layout (bank-conflict free, see vadd_single.s):
;   ping: x 0x0000, y 0x2100, z 0x10000     pong: x 0x4200, y 0x6300, z 0x12000
; (each y ends 256 B past its 8 KB slot, so pong starts at 0x4200, not 0x4000)

.kernel vadd_double, aiv                ; vector-core (AIV) kernel
.arg x, gm, f16                         ; x0 = GM address of x
.arg y, gm, f16                         ; x1 = GM address of y
.arg z, gm, f16                         ; x2 = GM address of z
.arg n, int                             ; x3 = total element count

.equ TILE, 4096
.equ TILE_BYTES, TILE * 2
.equ LEN, TILE_BYTES / 32       ; burst length in 32 B blocks
.equ REP, TILE / 128            ; vector repeats per tile (128 f16 per repeat)

        mfspr   x4, block_idx           ; x4 = index of this core
        mfspr   x5, block_num           ; x5 = number of cores
        div     x6, x3, x5              ; elements of this core
        mul     x7, x6, x4              ; x7 = first element of this core
        shli    x7, x7, 1               ; x7 = its byte offset (f16 = 2 B)
        add     x0, x0, x7              ; x0 = this core's part of x
        add     x1, x1, x7              ; x1 = ... of y
        add     x2, x2, x7              ; x2 = ... of z
        li      x8, 2 * TILE            ; elements per ping + pong round
        div     x9, x6, x8              ; x9 = tile pairs left
        li      x13, TILE_BYTES         ; x13 = GM step per tile
        li      x20, 0x0000             ; ping x
        li      x21, 0x2100             ; ping y
        li      x22, 0x10000            ; ping z
        li      x23, 0x4200             ; pong x
        li      x24, 0x6300             ; pong y
        li      x25, 0x12000            ; pong z
        set_flag v, mte2, 0             ; all buffers start free
        set_flag v, mte2, 1             ; pong x, y free (V has nothing earlier: set at once)
        set_flag mte3, v, 0             ; ping z free
        set_flag mte3, v, 1             ; pong z free
loop:
        beqz    x9, done                ; no pairs left: leave the loop
        ; ---- ping ----
        wait_flag v, mte2, 0            ; MTE2 waits: V has finished reading ping x, y
        mov_out_to_ub x20, x0, nburst=1, len=LEN ; MTE2: ping x <- GM[x0], one 8 KB burst
        mov_out_to_ub x21, x1, nburst=1, len=LEN ; MTE2: ping y <- GM[x1]
        set_flag mte2, v, 0             ; after both loads: "ping x, y landed"
        wait_flag mte2, v, 0            ; V waits for ping x, y in UB
        wait_flag mte3, v, 0            ; V waits: MTE3 has finished storing the old ping z
        vadd.f16 x22, x20, x21, repeat=REP ; V: ping z = x + y, 32 repeats of 128 f16
        set_flag v, mte2, 0             ; after the add: "ping x, y free again"
        set_flag v, mte3, 0             ; after the add: "ping z computed"
        wait_flag v, mte3, 0            ; MTE3 waits for ping z
        mov_ub_to_out x2, x22, nburst=1, len=LEN ; MTE3: GM[x2] <- ping z
        set_flag mte3, v, 0             ; after the store: "ping z free again"
        add     x0, x0, x13             ; next tile of x
        add     x1, x1, x13             ; next tile of y
        add     x2, x2, x13             ; next tile of z
        ; ---- pong ----
        wait_flag v, mte2, 1            ; same sequence with the pong buffers, event id 1
        mov_out_to_ub x23, x0, nburst=1, len=LEN ; MTE2: pong x <- GM[x0]
        mov_out_to_ub x24, x1, nburst=1, len=LEN ; MTE2: pong y <- GM[x1]
        set_flag mte2, v, 1             ; "pong x, y landed"
        wait_flag mte2, v, 1            ; V waits for pong x, y
        wait_flag mte3, v, 1            ; V waits until the old pong z is stored
        vadd.f16 x25, x23, x24, repeat=REP ; V: pong z = x + y
        set_flag v, mte2, 1             ; "pong x, y free again"
        set_flag v, mte3, 1             ; "pong z computed"
        wait_flag v, mte3, 1            ; MTE3 waits for pong z
        mov_ub_to_out x2, x25, nburst=1, len=LEN ; MTE3: GM[x2] <- pong z
        set_flag mte3, v, 1             ; "pong z free again"
        add     x0, x0, x13             ; next tile of x
        add     x1, x1, x13             ; next tile of y
        add     x2, x2, x13             ; next tile of z
        addi    x9, x9, -1              ; one pair fewer left
        j       loop                    ; back to the loop test
done:
        wait_flag v, mte2, 0            ; consume the "free" flags: every stage done
        wait_flag v, mte2, 1            ; (each was set once more than it was waited for)
        wait_flag mte3, v, 0            ; V waits for the last ping store
        wait_flag mte3, v, 1            ; V waits for the last pong store
        end                             ; wait until every pipe is idle, then stop
