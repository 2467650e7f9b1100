; ok_include.s -- .include, relative to this file's directory.
.include "inc/consts.inc"
.kernel inc, aiv
        addi x1, x1, INC_A                      ; = 0x20084005
.include "inc/body.inc"
        addi x1, x1, INC_B                      ; = 0x2008400f
        end                                     ; = 0x02000000
