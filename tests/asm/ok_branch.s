; ok_branch.s -- branch targets: labels back and forward, .+N / .-N,
; expressions, and the branch pseudo-instructions.
.kernel branch, aiv
top:    beq x1, x2, top                 ; offset 0 ; = 0x40088000
        bne x1, x2, fwd                         ; = 0x4108800f
        blt x1, x2, .+12                        ; = 0x42088003
        bge x1, x2, .-12                        ; = 0x4308bffd
back:   bltu x1, x2, back - 4                   ; = 0x4408bfff
        j fwd                                   ; = 0x4600000b
        bgt x1, x2, top                 ; blt x2, x1 ; = 0x42107ffa
        ble x1, x2, top                 ; bge x2, x1 ; = 0x43107ff9
        bgtu x3, x4, fwd                ; bltu x4, x3 ; = 0x4420c008
        bleu x3, x4, fwd                ; bgeu x4, x3 ; = 0x4520c007
        beqz x5, top                    ; movz x31, 0, 0 ; beq x5, x31 ; = 0x2cf80000 0x402ffff5
        bnez x5, .+8                    ; target = this statement's pc + 8 ; = 0x2cf80000 0x412fc001
        j .+32764                               ; = 0x46001fff
        beq x1, x2, .-32768                     ; = 0x4008a000
fwd:    j top                                   ; = 0x46fffff0
        end                                     ; = 0x02000000
