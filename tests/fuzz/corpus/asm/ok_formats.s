; ok_formats.s -- one or more instructions of every format, with flexible
; spacing and the `at` alias of x31.
.kernel formats, aiv
        nop                             ; NONE  ; = 0x01000000
        vtranspose.b16 x1, x2           ; R2    ; = 0xbd088000
        add x1, x2, x3                  ; R3    ; = 0x08088600
        sub     x31,x0 ,  x30           ; R3, odd spacing ; = 0x09f83c00
        vadd.f16 x4, x5, x6, x7         ; R4    ; = 0x70214c70
        vcmp.f32 x1, x2, x3, x4, ge     ; R4C   ; = 0xaf088648
        vconv.f32.f16 x1, x2, x3, rint  ; R3R   ; = 0xc1088640
        vconv.f16.f32 x1, x2, at, none          ; = 0xc008be00
        addi x1, x2, -8192              ; RI    ; = 0x2008a000
        addi x1, x2, 8191                       ; = 0x20089fff
        slti x1, x2, -1                         ; = 0x2808bfff
        ld.d x1, 8(x2)                  ; MEM   ; = 0x3a088008
        st.b x3, -16 (x4)                       ; = 0x3b193ff0
        ld.w x1, (4*2)(x2)                      ; = 0x38088008
        ld.hu x9, 0(at)                         ; = 0x374fc000
        beq x1, x2, .+8                 ; BR    ; = 0x40088002
        bgeu x1, x2, .-4                        ; = 0x4508bfff
        j .+0                           ; J     ; = 0x46000000
        movz x1, 0xffff, 48             ; MOVW  ; = 0x2c0bffff
        movk x1, 0x1234, 16                     ; = 0x2e091234
        movn x2, 0, 0                           ; = 0x2d100000
        mfspr x1, block_idx             ; MFSPR ; = 0x30080000
        mfspr x2, cmpmask                       ; = 0x30124000
        mtspr mask0, x3                 ; MTSPR ; = 0x3138c000
        mtspr ctrl, x4                          ; = 0x31310000
        set_flag mte2, v, 0             ; FLAG  ; = 0x48410000
        wait_flag v, mte3, 7                    ; = 0x49157000
        bar v                           ; BAR   ; = 0x4a100000
        bar all                                 ; = 0x4a600000
        set_cross_core mte3, 2, 10      ; XSET  ; = 0x4b5a8000
        wait_flag_dev 3                 ; XWAIT ; = 0x4c300000
        sync_all                                ; = 0x4d000000
        set_mask_norm                           ; = 0x4e000000
        set_mask_count                          ; = 0x4f000000
        end                                     ; = 0x02000000
