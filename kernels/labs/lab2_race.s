; lab2_race.s -- LAB 2: races and the happens-before rule (lab2_races.md).
;
; This is kernels/asm/vadd_double.s with ONE wait_flag removed: the pong
; half's "x, y landed" wait (wait_flag mte2, v, 1), together with the
; set_flag that fed it (a flag set twice with no wait in between would stop
; the run with a "flag already set" fault instead).  Nothing else differs:
; the ping half (event id 0) keeps all its flags.
;
; The flags of vadd_double.s, per half (id 0 = ping, id 1 = pong):
;   MTE2 -> V   "x, y landed"          V -> MTE2  "x, y free again"
;   V -> MTE3   "z computed"           MTE3 -> V  "z free again"
;
; The tasks are in lab2_races.md; run them all with
;   /usr/bin/python3 kernels/labs/lab2_races.py
; or one by one:
;   build/asm/asc-as kernels/labs/lab2_race.s -o lab2.bin
;   build/sim/asc-sim run lab2.bin --arg x=x.npy --arg y=y.npy \
;       --arg z=@z.npy:65536:f16 --arg n=65536
;   build/sim/asc-sim run lab2.bin ... --check-races --trace lab2.json
;
; UB layout (bank-conflict free, see kernels/asm/vadd_single.s):
;   ping: x 0x0000, y 0x2100, z 0x10000     pong: x 0x4200, y 0x6300, z 0x12000
;
; Requires: n a multiple of 2 * TILE * block_num (the lab uses 65536 on
; one core: 8 ping-pong pairs).
;
; The line numbers of the pong loads (88, 89) and of the pong vadd (91) are
; quoted by docs/timing.md and tests/cli/test_asc_sim.sh: this header keeps
; its length.
;
; --check-races (docs/timing.md) reports two pipes that touch the same 32 B
; block of UB, at least one of them writing, when no chain of set_flag /
; wait_flag pairs (or a bar all) orders the two accesses.
;

.kernel lab2_race, aiv
.arg x, gm, f16
.arg y, gm, f16
.arg z, gm, f16
.arg n, int

.equ TILE, 4096
.equ TILE_BYTES, TILE * 2
.equ LEN, TILE_BYTES / 32       ; burst length in 32 B blocks
.equ REP, TILE / 128            ; vector repeats per tile (128 f16 per repeat)

        mfspr   x4, block_idx
        mfspr   x5, block_num
        div     x6, x3, x5              ; elements of this core
        mul     x7, x6, x4
        shli    x7, x7, 1
        add     x0, x0, x7
        add     x1, x1, x7
        add     x2, x2, x7
        li      x8, 2 * TILE
        div     x9, x6, x8              ; x9 = tile pairs left
        li      x13, TILE_BYTES
        li      x20, 0x0000             ; ping x
        li      x21, 0x2100             ; ping y
        li      x22, 0x10000            ; ping z
        li      x23, 0x4200             ; pong x
        li      x24, 0x6300             ; pong y
        li      x25, 0x12000            ; pong z
        set_flag v, mte2, 0             ; all buffers start free
        set_flag v, mte2, 1
        set_flag mte3, v, 0
        set_flag mte3, v, 1
loop:
        beqz    x9, done
        ; ---- ping ----
        wait_flag v, mte2, 0
        mov_out_to_ub x20, x0, nburst=1, len=LEN
        mov_out_to_ub x21, x1, nburst=1, len=LEN
        set_flag mte2, v, 0
        wait_flag mte2, v, 0
        wait_flag mte3, v, 0
        vadd.f16 x22, x20, x21, repeat=REP
        set_flag v, mte2, 0
        set_flag v, mte3, 0
        wait_flag v, mte3, 0
        mov_ub_to_out x2, x22, nburst=1, len=LEN
        set_flag mte3, v, 0
        add     x0, x0, x13
        add     x1, x1, x13
        add     x2, x2, x13
        ; ---- pong ----
        wait_flag v, mte2, 1
        mov_out_to_ub x23, x0, nburst=1, len=LEN
        mov_out_to_ub x24, x1, nburst=1, len=LEN
        wait_flag mte3, v, 1
        vadd.f16 x25, x23, x24, repeat=REP
        set_flag v, mte2, 1
        set_flag v, mte3, 1
        wait_flag v, mte3, 1
        mov_ub_to_out x2, x25, nburst=1, len=LEN
        set_flag mte3, v, 1
        add     x0, x0, x13
        add     x1, x1, x13
        add     x2, x2, x13
        addi    x9, x9, -1
        j       loop
done:
        wait_flag v, mte2, 0            ; consume the "free" flags: every stage done
        wait_flag v, mte2, 1
        wait_flag mte3, v, 0
        wait_flag mte3, v, 1
        end
