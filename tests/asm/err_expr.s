; err_expr.s -- constant expression errors and symbols.
.equ BIG, 0x7fffffffffffffff
.equ ZERO, 0
.kernel expr, aiv
        addi x1, x2, 1 / ZERO           ; error: DIV_ZERO
        addi x1, x2, 1 % 0              ; error: DIV_ZERO
        li x1, BIG + 1                  ; error: EXPR_OVERFLOW
        li x1, BIG * 2                  ; error: EXPR_OVERFLOW
        li x1, -BIG - 2                 ; error: EXPR_OVERFLOW
        li x1, 1 << 64                  ; error: BAD_OPERAND
        addi x1, x2, nowhere            ; error: UNDEFINED_SYMBOL
        j nowhere                       ; error: UNDEFINED_SYMBOL
twice:  nop
twice:  nop                             ; error: REDEFINED_SYMBOL
.equ ZERO, 1                            ; error: REDEFINED_SYMBOL
.equ SELF, SELF + 1                     ; error: UNDEFINED_SYMBOL
.equ EARLY, LATE                        ; error: NOT_CONSTANT
.align LATE                             ; error: NOT_CONSTANT
        end
.equ LATE, 4
