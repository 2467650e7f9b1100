; err_range.s -- operand values outside their field's range.
.kernel range, aiv
        addi x1, x2, 9000               ; error: IMM_RANGE
        addi x1, x2, -8193              ; error: IMM_RANGE
        movz x1, 0x10000, 0             ; error: IMM_RANGE
        movz x1, -1, 0                  ; error: IMM_RANGE
        movk x1, 1, 8                   ; error: IMM_ALIGN
        movk x1, 1, 64                  ; error: IMM_RANGE
        beq x1, x2, .+32768             ; error: BRANCH_RANGE
        beq x1, x2, .-32772             ; error: BRANCH_RANGE
        j .+0x2000000                   ; error: BRANCH_RANGE
        beq x1, x2, .+6                 ; error: IMM_ALIGN
        set_flag v, mte2, 16            ; error: IMM_RANGE
        set_cross_core mte3, 3, 1       ; error: IMM_RANGE
        set_cross_core mte3, 0, 16      ; error: IMM_RANGE
        wait_flag_dev 16                ; error: IMM_RANGE
        mtspr block_idx, x1             ; error: SPR_READONLY
        beq x1, x2, -0x7fffffffffffffff - 1 ; error: BRANCH_RANGE
        end
