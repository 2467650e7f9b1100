; err_target_910.s -- a coupled target (ascend910): 4 event ids, no fixpipe,
; every pipe pair of the core.
.target ascend910
.kernel k, aiv
        set_flag mte2, v, 3
        set_flag mte2, v, 4             ; error: EVENT_RANGE
        fix_l0c_to_out.f16 x1, x2, x3   ; error: INSN_CORE
        bar fix                         ; error: BAR_PIPE
        set_flag m, m, 0                ; error: SYNC_PAIR
        mov_l1_to_ub x1, x2, x3
        end
