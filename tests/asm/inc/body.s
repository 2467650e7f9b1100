; instructions included into a kernel of ok_include.s
        addi x2, x2, INC_B
.include "nested.s"
