; ok_pseudo.s -- li (shortest movz/movn + movk), la, mov.
.kernel pseudo, aiv
        li x1, 0                                ; = 0x2c080000
        li x1, 1                                ; = 0x2c080001
        li x1, -1                               ; = 0x2d080000
        li x1, 0xffff                           ; = 0x2c08ffff
        li x1, 0x10000                          ; = 0x2c090001
        li x1, 0x12345678                       ; = 0x2c085678 0x2e091234
        li x1, 0xffff0000ffff                   ; = 0x2c08ffff 0x2e0affff
        li x1, -2                               ; = 0x2d080001
        li x1, 0x7fffffffffffffff               ; = 0x2d0b8000
        li x1, -0x7fffffffffffffff - 1          ; = 0x2c0b8000
        li x1, 0x123456789abcdef0               ; = 0x2c08def0 0x2e099abc 0x2e0a5678 0x2e0b1234
        li x2, later                    ; forward reference: fixed 4 words ; = 0x2c100042 0x2e110000 0x2e120000 0x2e130000
        li at, 7                                ; = 0x2cf80007
        la x3, table                            ; = 0x2c180000 0x2e190001 0x2e1a0000 0x2e1b0000
        la x4, table + 4                        ; = 0x2c200004 0x2e210001 0x2e220000 0x2e230000
        mov x5, x6                              ; = 0x20298000
        mov at, x0                              ; = 0x20f80000
        end                                     ; = 0x02000000
.equ later, 0x42
.rodata
table:  .word 1, 2
