; ub_overflow.s -- a kernel fault for the asc-sim CLI test: the vadd writes
; 8 KB at UB 0x2e000, past the 184 KB of usable UB on ascend910b (and past
; 64 KB on teach).  z is an output argument so the test can check that no
; .npy is written after a fault.
.kernel ub_overflow, aiv
.arg z, gm, f16
        li      x1, 0x0000
        li      x2, 0x2e000
        vadd.f16 x2, x1, x1, repeat=32
        mov_ub_to_out x0, x2, nburst=1, len=256
        end
