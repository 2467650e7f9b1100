; err_mix.s -- mix kernels need .aic and .aiv, each once, each non-empty.
.aic                                    ; error: MIX_PART
.kernel m1, mix                         ; error: MIX_PART
        nop                             ; error: MIX_PART
.aic
        end
.aic                                    ; error: MIX_PART
.kernel m2, mix                         ; error: MIX_PART
.aiv
        end
.kernel m3, mix
.aiv                                    ; error: MIX_PART
.aic
        end
.kernel v1, aiv
.aiv                                    ; error: MIX_PART
        end
