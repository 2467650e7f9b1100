; err_named.s -- named config fields: unknown, duplicate, too many values,
; out of range, missing trailing operand, and x31 clobbered.
.kernel named, aiv
        vadd.f16 x1, x2, x3, repeats=8                  ; error: CFG_KEY
        vadd.f16 x1, x2, x3, repeat=8, repeat=4         ; error: CFG_DUP
        vadd.f16 x1, x2, x3, blk=1,1,1,1                ; error: CFG_COUNT
        vadd.f16 x1, x2, x3, repeat=256                 ; error: IMM_RANGE
        vadd.f16 x1, x2, x3, repeat=-1                  ; error: IMM_RANGE
        mov_out_to_ub x1, x2, nburst=4096               ; error: IMM_RANGE
        mov_out_to_ub x1, x2, len=1, repeat=1           ; error: CFG_KEY
        vcmp.f16 x1, x2, x3, repeat=2                   ; error: EXPECTED
        vconv.f32.f16 x1, x2, repeat=2, rep=4,8         ; error: BAD_OPERAND
        vadd.f16 x31, x2, x3, repeat=2                  ; warning: AT_CLOBBER
        vexp.f16 x1, at, repeat=2                       ; warning: AT_CLOBBER
        add x1, x2, repeat=2                            ; error: BAD_REG
        end
.kernel named_c, aic
        mmad.f16f32 x1, x2, x3, m=4096                  ; error: IMM_RANGE
        load_l1_to_l0a_2d x1, x2, transpose=2           ; error: IMM_RANGE
        fix_l0c_to_out.f16 x1, x2, relu=1, m=1, n=1, bogus=1 ; error: CFG_KEY
        end
