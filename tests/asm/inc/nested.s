; a second level of .include (relative to inc/)
        addi x3, x3, 1
