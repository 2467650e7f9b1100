; err_syntax.s -- lexical and syntax errors; each line is reported and
; assembly goes on with the next line.
.kernel syntax, aiv
        addi x1, x2, 3 $                ; error: BAD_CHAR
        addi x1, x2, 0x                 ; error: BAD_NUMBER
        addi x1, x2, 12ab               ; error: BAD_NUMBER
        addi x1, x2, 0b102              ; error: BAD_NUMBER
        addi x1, x2, 99999999999999999999 ; error: BAD_NUMBER
        .loc "unterminated, 3           ; error: BAD_STRING
        add x1, x2                      ; error: EXPECTED
        add x1, x2, x3, x4              ; error: TRAILING
        frobnicate x1                   ; error: UNKNOWN_MNEMONIC
        .frob 1                         ; error: UNKNOWN_DIRECTIVE
        add x1, x32, x3                 ; error: BAD_REG
        add x1, r2, x3                  ; error: BAD_REG
        add x1, x01, x3                 ; error: BAD_REG
        mfspr x1, flags                 ; error: BAD_OPERAND
        bar q                           ; error: BAD_OPERAND
        vcmp.f16 x1, x2, x3, x4, less   ; error: BAD_OPERAND
        vconv.f32.f16 x1, x2, x3, up    ; error: BAD_OPERAND
        vconv.f16.f32 x1, x2, x3, rint  ; error: BAD_OPERAND
        cvt x1, x2, x3, f32.s32, trunc  ; error: BAD_OPERAND
        cvt x1, x2, x3, s64.f32, rint   ; error: BAD_OPERAND
        vconv.x x1, x2, x3, s32.s16, rint ; error: BAD_OPERAND
        vconv.x x1, x2, x3, f16.f16, none ; error: BAD_OPERAND
        ld.d x1, 8 x2                   ; error: EXPECTED
        addi x1, x2, (1 + 2             ; error: EXPECTED
        addi x1, x2,                    ; error: EXPECTED
        , x1                            ; error: EXPECTED
x1:     nop                             ; error: BAD_OPERAND
        addi x1, x2, 'ab'               ; error: BAD_NUMBER
        nop
        end
