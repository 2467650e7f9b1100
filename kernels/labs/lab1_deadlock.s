; lab1_deadlock.s -- LAB 1: pipes, queues and deadlocks (lab1_pipes.md).
;
; This is kernels/asm/vadd_single.s with ONE line removed: the set_flag that
; primes the loop ("z written back: true before the first tile").  The
; scalar unit runs the loop and dispatches each MTE2, VECTOR and MTE3
; instruction into its pipe's queue; the pipes run on their own and meet
; only at set_flag / wait_flag pairs.
;
; The tasks and the commands are in lab1_pipes.md; run them all with
;   /usr/bin/python3 kernels/labs/lab1_pipes.py
; or one by one:
;   build/asm/asc-as kernels/labs/lab1_deadlock.s -o lab1.bin
;   build/sim/asc-sim run lab1.bin --arg x=x.npy --arg y=y.npy \
;       --arg z=@z.npy:65536:f16 --arg n=65536
; (This header keeps its length: docs quote the line numbers below.)

.kernel lab1_deadlock, aiv
.arg x, gm, f16
.arg y, gm, f16
.arg z, gm, f16
.arg n, int

.equ TILE, 4096
.equ TILE_BYTES, TILE * 2

        mfspr   x4, block_idx
        mfspr   x5, block_num
        div     x6, x3, x5
        mul     x7, x6, x4
        shli    x7, x7, 1
        add     x0, x0, x7
        add     x1, x1, x7
        add     x2, x2, x7
        li      x8, TILE
        div     x9, x6, x8
        li      x10, 0x0000
        li      x11, 0x2100
        li      x12, 0x10000
        li      x13, TILE_BYTES
                                        ; <- the priming set_flag was here
loop:
        beqz    x9, done
        wait_flag mte3, mte2, 0
        mov_out_to_ub x10, x0, nburst=1, len=TILE_BYTES / 32
        mov_out_to_ub x11, x1, nburst=1, len=TILE_BYTES / 32
        set_flag mte2, v, 0
        wait_flag mte2, v, 0
        vadd.f16 x12, x10, x11, repeat=TILE / 128
        set_flag v, mte3, 0
        wait_flag v, mte3, 0
        mov_ub_to_out x2, x12, nburst=1, len=TILE_BYTES / 32
        set_flag mte3, mte2, 0
        add     x0, x0, x13
        add     x1, x1, x13
        add     x2, x2, x13
        addi    x9, x9, -1
        j       loop
done:
        wait_flag mte3, mte2, 0
        end
