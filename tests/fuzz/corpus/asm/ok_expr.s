; ok_expr.s -- integer literals and constant expressions (C precedence).
.equ A, 10
.equ B, A * 2 + 1               ; 21
.equ HEX, 0x1f_ff               ; 8191
.equ BIN, 0b1010_1010           ; 170
.equ NEG, -(A << 2)             ; -40
.kernel expr, aiv
        addi x1, x1, 1 + 2 * 3                  ; = 0x20084007
        addi x1, x1, (1 + 2) * 3                ; = 0x20084009
        addi x1, x1, B                          ; = 0x20084015
        addi x1, x1, HEX                        ; = 0x20085fff
        addi x1, x1, -HEX - 1                   ; = 0x20086000
        addi x1, x1, BIN                        ; = 0x200840aa
        addi x1, x1, NEG                        ; = 0x20087fd8
        addi x1, x1, 'A'                        ; = 0x20084041
        addi x1, x1, '\n'                       ; = 0x2008400a
        addi x1, x1, 100 / 7                    ; = 0x2008400e
        addi x1, x1, -100 / 7                   ; = 0x20087ff2
        addi x1, x1, -100 % 7                   ; = 0x20087ffe
        addi x1, x1, 1 << 12                    ; = 0x20085000
        addi x1, x1, -64 >> 3                   ; = 0x20087ff8
        addi x1, x1, ~0                         ; = 0x20087fff
        addi x1, x1, !0 + !5                    ; = 0x20084001
        addi x1, x1, 0xf0 & 0x3c | 1 ^ 3        ; = 0x20084032
        addi x1, x1, (3 < 4) + (4 <= 4) + (5 > 6) + (6 >= 7) + (1 == 1) + (1 != 1) ; = 0x20084003
        addi x1, x1, 1 && 0 || 2                ; = 0x20084001
        addi x1, x1, 1 + 2 << 1                 ; = 0x20084006
        addi x1, x1, end - start        ; labels: forward reference, pc difference ; = 0x20084008
start:  addi x1, x1, .                  ; '.' is this instruction's pc ; = 0x20084054
        addi x1, x1, start                      ; = 0x20084054
end:    end                                     ; = 0x02000000
