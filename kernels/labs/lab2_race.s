; lab2_race.s -- LAB 2: a race the numbers do not show.
;
; This is kernels/asm/vadd_double.s with ONE wait_flag removed: the pong
; half's "x, y landed" wait (wait_flag mte2, v, 1), together with the
; set_flag that fed it (a flag set twice with no wait in between would stop
; the run with a "flag already set" fault instead).  Run it twice:
;
;   build/asm/asc-as kernels/labs/lab2_race.s -o lab2.bin
;   build/sim/asc-sim run lab2.bin --arg x=x.npy --arg y=y.npy \
;       --arg z=@z.npy:65536:f16 --arg n=65536
;   build/sim/asc-sim run lab2.bin ... --check-races --trace lab2.json
;
; The first run finishes and writes z.npy: the simulator applies an
; instruction's data when its pipe starts it, and here each pong load starts
; before the vadd that reads it, so the numbers look right.  On hardware the
; vadd would read whatever the pong buffers held before.  The second run
; reports the race (exit 1, no z.npy): the vadd, its line, the mov_out_to_ub
; it is not ordered after, its line, the UB range, and for information the
; cycles of this run.  The check does not compare cycles: it asks whether a
; chain of set_flag/wait_flag pairs (or a bar all) orders the load before the
; vadd, so the answer is the same whatever the latencies (try --set
; dma.setup_cycles=1 or --functional).  Questions:
;   1. Which cycles does the report give for the vadd and for the loads?
;      Find them in the trace (asc-viz lab2.json): do they overlap?  Would
;      the race be a bug if they did not?
;   2. Why does the ping half report nothing?  Which flags order its loads
;      before its vadd?
;   3. Put the two lines back and check that --check-races is silent.  How
;      many cycles did the missing wait "save", and why is that not a win?
;   4. Now remove the pong "buffer free" wait instead (wait_flag v, mte2, 1
;      before the pong loads, and its set_flag after the pong vadd).  The
;      report says WAR: which instruction overwrites what which one reads?
;      With the default timing the vadd is long over when the load writes:
;      why is it reported all the same?

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
