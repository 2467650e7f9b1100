; ok_data.s -- read-only data of every size, with range edges and float
; rounding; la loads the GM addresses.
.rodata
bytes:  .byte 0, 255, -128, 'z'
halves: .half 65535, -32768
words:  .word 0xffffffff, -0x80000000
dwords: .dword 0xffffffffffffffff, -0x7fffffffffffffff - 1
        .align 2
f16:    .float16 1.5, -2e-3, 65504, 65520, 1e-8, 6e-8, inf, -inf, nan, 0, -0.0
bf16:   .bfloat16 1.0, 3.0e38, -1.5
f32:    .float 1.5, 1e-45, 3.5e38, 1
.text
.kernel data, aiv
        la x1, bytes                            ; = 0x2c090001
        la x2, f32                              ; = 0x2c10003c 0x2e110001
        end                                     ; = 0x02000000
