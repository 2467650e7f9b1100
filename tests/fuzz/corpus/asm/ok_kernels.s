; ok_kernels.s -- kernels of every kind, arguments, buffer use, sections,
; .align, and a mix kernel with both programs.
.target ascend910b
.kernel first, aiv
.arg x, gm, f16
.arg y, gm, bf16
.arg n, int
.arg alpha, float
.uses ub, 196608
        addi x4, x3, 0                          ; = 0x2020c000
        end                                     ; = 0x02000000
.kernel cube, aic
.arg a, gm, f32
.uses l1, 524288
        nop                                     ; = 0x01000000
        .align 16                               ; = 0x01000000
        end                                     ; = 0x02000000
.kernel both, mix
.aic
        set_cross_core fix, 2, 1                ; = 0x4ba84000
        end                                     ; = 0x02000000
.aiv
        wait_flag_dev 1                         ; = 0x4c100000
        j .+0                                   ; = 0x46000000
.rodata
        .byte 1
        .align 8
blob:   .dword 0x1122334455667788
.text
.kernel after_data, aiv
        la x1, blob                             ; = 0x2c080008 0x2e090001
        end                                     ; = 0x02000000
