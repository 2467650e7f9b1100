; ok_loc.s -- .loc maps the following instructions to another source.
.kernel loc, aiv
        nop                                     ; = 0x01000000
.loc "kernel.py", 42, 5
        nop
        li x1, 0x123456
.loc "kernel.py", 43
        end
