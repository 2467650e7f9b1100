; tiny_flags.s -- a fuzz seed: scalar, vector, DMA and a flag pair, no inputs.
.target teach
.kernel tiny, aiv
.arg out, gm, f16
        li      x1, 0x0000
        li      x2, 0x1000
        vadd.f16 x2, x1, x1, repeat=2
        set_flag v, mte3, 0
        wait_flag v, mte3, 0
        mov_ub_to_out x0, x2, nburst=1, len=16
        addi    x3, x3, 1
        end
