; ok_coupled.s -- a coupled target: cube and vector in one core, the coupled
; data paths, event ids 0..3.
.target ascend910
.kernel coupled, aiv
        mov_l1_to_ub x1, x2, x3                 ; = 0x53088600
        mov_ub_to_l1 x1, x2, nburst=1, len=2    ; = 0x2cf80001 0x2ef90002 0x5508be00
        mov_l0c_to_ub.f16 x1, x2, x3            ; = 0x5c088600
        mmad.f16f32 x1, x2, x3, x4              ; = 0x60088640
        vadd.f16 x1, x2, x3, x4                 ; = 0x70088640
        set_flag m, v, 3                        ; = 0x48213000
        wait_flag m, v, 3                       ; = 0x49213000
        end                                     ; = 0x02000000
