; err_target_910b.s -- target checks on the default target (ascend910b,
; split: AIV and AIC cores, event ids 0..7).
.kernel vec, aiv
        set_flag v, mte2, 8             ; error: EVENT_RANGE
        wait_flag mte2, v, 15           ; error: EVENT_RANGE
        set_flag m, v, 0                ; error: SYNC_PAIR
        wait_flag mte1, mte2, 0         ; error: SYNC_PAIR
        set_flag v, v, 0                ; error: SYNC_PAIR
        mmad.f16f32 x1, x2, x3, x4      ; error: INSN_CORE
        mov_l1_to_ub x1, x2, x3         ; error: INSN_CORE
        mov_out_to_l1 x1, x2, x3        ; error: INSN_CORE
        fix_l0c_to_out.f16 x1, x2, x3   ; error: INSN_CORE
        bar s                           ; error: BAR_SCALAR
        bar m                           ; error: BAR_PIPE
        bar fix                         ; error: BAR_PIPE
        set_cross_core m, 2, 1          ; error: PIPE_CORE
        set_flag s, v, 7
        bar mte3
        end
.kernel cube, aic
        vadd.f16 x1, x2, x3, x4         ; error: INSN_CORE
        vexp.f16 x1, x2, repeat=1       ; error: INSN_CORE
        set_mask_count                  ; error: INSN_CORE
        mov_out_to_ub x1, x2, x3        ; error: INSN_CORE
        set_flag v, mte2, 0             ; error: SYNC_PAIR
        bar v                           ; error: BAR_PIPE
        set_flag m, fix, 7
        bar fix
        end
.kernel both, mix
.aic
        vadd.f16 x1, x2, x3, x4         ; error: INSN_CORE
        mmad.f16f32 x1, x2, x3, x4
        end
.aiv
        mmad.f16f32 x1, x2, x3, x4      ; error: INSN_CORE
        vadd.f16 x1, x2, x3, x4
        end
