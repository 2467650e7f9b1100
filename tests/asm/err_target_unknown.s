; err_target_unknown.s -- an unknown target names the built-in ones.
.target ascend999                       ; error: UNKNOWN_TARGET
.kernel k, aiv
        end
