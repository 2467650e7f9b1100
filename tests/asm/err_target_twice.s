; err_target_twice.s -- one file, one target.
.target ascend910b
.target ascend910                       ; error: TARGET_MISMATCH
.kernel k, aiv
        end
