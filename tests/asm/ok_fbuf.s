; ok_fbuf.s -- the fixpipe buffer: mov_l1_to_fb (opcode 0xf9, config layout FBC) in its
; named-field and register forms, and the FPC write of a vector-quantising readout.
.kernel fbuf_c, aic
        mov_l1_to_fb x1, x2, len=2              ; = 0x2cf80001 0x2ef90002 0xf908be00
        mov_l1_to_fb x1, x2, nburst=3, len=1, srcstride=4, dststride=1 ; = 0x2cf80003 0x2ef90001 0x2efa0004 0x2efb0001 0xf908be00
        mov_l1_to_fb x1, x2, x3                 ; = 0xf9088600
        li x4, 0x8000000000000100               ; = 0x2c200100 0x2e238000
        mtspr fpc, x4                           ; = 0x31d90000
        fix_l0c_to_out.q x1, x2, m=16, n=32, quant=2 ; = 0x2cf82020 0x2ef90010 0x6808be00
        end                                     ; = 0x02000000
