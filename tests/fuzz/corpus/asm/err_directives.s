; err_directives.s -- directive arguments, sections, kernels and arguments.
        nop                             ; error: NO_KERNEL
.arg x, gm, f16                         ; error: NO_KERNEL
.kernel                                 ; error: DIRECTIVE_ARGS
.kernel k1                              ; error: DIRECTIVE_ARGS
.kernel k1, gpu                         ; error: KERNEL_KIND
.kernel .k1, aiv                        ; error: DIRECTIVE_ARGS
.kernel k1, aiv
.arg a, gm                              ; error: DIRECTIVE_ARGS
.arg b, pointer                         ; error: ARG_KIND
.arg c, gm, f64                         ; error: ARG_DTYPE
.arg d, int, f16                        ; error: TRAILING
.arg e, int
.arg e, float                           ; error: ARG_DUP
.arg .f, int                            ; error: DIRECTIVE_ARGS
.uses ub, 1 << 30                       ; error: IMM_RANGE
.uses gm, 4                             ; error: DIRECTIVE_ARGS
.align 3                                ; error: ALIGN_VALUE
.align 8192                             ; error: ALIGN_VALUE
.byte 1                                 ; error: WRONG_SECTION
.loc kernel.py, 3                       ; error: LOC_FORMAT
.loc "kernel.py", 0                     ; error: LOC_FORMAT
.loc "kernel.py"                        ; error: LOC_FORMAT
        nop                             ; warning: KERNEL_NO_END
.rodata
        nop                             ; error: WRONG_SECTION
        .byte 256                       ; error: DATA_RANGE
        .byte -129                      ; error: DATA_RANGE
        .half 0x10000                   ; error: DATA_RANGE
        .word -0x80000001               ; error: DATA_RANGE
        .float16 x                      ; error: EXPECTED
.text
.kernel k1, aic                         ; error: KERNEL_DUP
.kernel empty, aiv                      ; error: KERNEL_EMPTY
.kernel many, aiv
.arg a0, int
.arg a1, int
.arg a2, int
.arg a3, int
.arg a4, int
.arg a5, int
.arg a6, int
.arg a7, int
.arg a8, int
.arg a9, int
.arg a10, int
.arg a11, int
.arg a12, int
.arg a13, int
.arg a14, int
.arg a15, int
.arg a16, int                           ; error: ARG_COUNT
        end
.include nofile                         ; error: DIRECTIVE_ARGS
.include "inc/missing.s"                ; error: IO
.include "err_directives.s"             ; error: INCLUDE_CYCLE
