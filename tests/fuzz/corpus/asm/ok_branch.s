; ok_branch.s -- branch targets: labels back and forward, .+N / .-N,
; expressions, and the branch pseudo-instructions.
.kernel branch, aiv
top:    beq x1, x2, top                 ; offset 0 ; = 0x40088000
        bne x1, x2, fwd                         ; = 0x4108800d
        blt x1, x2, .+12                        ; = 0x42088003
        bge x1, x2, .-12                        ; = 0x4308bffd
back:   bltu x1, x2, back - 4                   ; = 0x4408bfff
        j fwd                                   ; = 0x46000009
        bgt x1, x2, top                 ; blt x2, x1 ; = 0x42107ffa
        ble x1, x2, top                 ; bge x2, x1 ; = 0x43107ff9
        bgtu x3, x4, fwd                ; bltu x4, x3 ; = 0x4420c006
        bleu x3, x4, fwd                ; bgeu x4, x3 ; = 0x4520c005
        beqz x5, top                    ; = 0x3f2ffff6
        bnez x5, .+8                    ; target = this statement's pc + 8 ; = 0x47280002
        j .+32764                               ; = 0x46001fff
        beq x1, x2, .-32768                     ; = 0x4008a000
fwd:    j top                                   ; = 0x46fffff2
        end                                     ; = 0x02000000
