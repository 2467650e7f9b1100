; ok_named.s -- named config fields for every layout: li x31, PACKED then
; the instruction with x31.  Keys not given keep their defaults.
.equ REP, 8
.kernel named_v, aiv
        vadd.f16 x1, x2, x3, repeat=8, blk=1,1,1, rep=8,8,8 ; = 0x2cf80101 0x2ef90801 0x2efa0808 0x2efb0800 0x700887f0
        vadd.f16 x1, x2, x3, repeat=REP         ; = 0x2cf80101 0x2ef90801 0x2efa0808 0x2efb0800 0x700887f0
        vmul.f32 x1, x2, x3, rep=16,8           ; = 0x2cf80101 0x2ef91001 0x2efa0808 0x2efb0100 0x790887f0
        vexp.f32 x1, x2, repeat=4               ; = 0x2cf80101 0x2ef90801 0x2efa0808 0x2efb0400 0x8908be00
        vadds.f16 x1, x2, x3, repeat=255, blk=2 ; = 0x2cf80102 0x2ef90801 0x2efa0808 0x2efbff00 0x980887f0
        vcmp.f16 x1, x2, x3, repeat=2, lt       ; = 0x2cf80101 0x2ef90801 0x2efa0808 0x2efb0200 0xae0887f4
        vcmp.s32 x1, x2, x3, blk=1,2,3, ne      ; = 0x2cf80201 0x2ef90803 0x2efa0808 0x2efb0100 0xb00887f2
        vconv.f32.f16 x1, x2, repeat=2, rep=4,8, rint ; = 0x2cf80101 0x2ef90401 0x2efa0808 0x2efb0200 0xc108be40
        vconv.f16.f32 x1, x2, repeat=1, none    ; = 0x2cf80101 0x2ef90801 0x2efa0808 0x2efb0100 0xc008be00
        vdup.f32 x1, x2, repeat=3               ; = 0x2cf80101 0x2ef90801 0x2efa0808 0x2efb0300 0xab08be00
        mov_out_to_ub x1, x2, nburst=1, len=64  ; = 0x2cf80001 0x2ef90040 0x5008be00
        mov_ub_to_out x1, x2, nburst=4095, len=65535, srcgap=1, dstgap=2 ; = 0x2df8f000 0x2efa0001 0x2efb0002 0x5108be00
        mov_ub_to_ub x1, x2, len=1              ; = 0x2cf80001 0x2ef90001 0x5408be00
        end                                     ; = 0x02000000
.kernel named_c, aic
        mov_out_to_l1 x1, x2, nburst=2, len=32, dstgap=0 ; = 0x2cf80002 0x2ef90020 0x5208be00
        load_l1_to_l0a_2d x1, x2, start=0, repeat=4, srcstride=1 ; = 0x2cf90104 0x5608be00
        load_l1_to_l0b_2d x1, x2, repeat=4, srcstride=4, transpose=1 ; = 0x2cf90404 0x2efb0100 0x5708be00
        mmad.f16f32 x3, x1, x2, m=64, n=64, k=64, init=1 ; = 0x2cf80040 0x2ef94004 0x2efb8000 0x601845f0
        mmad.f16f32 x3, x1, x2, m=64, n=64, k=64, init=0 ; = 0x2cf80040 0x2ef94004 0x601845f0
        fix_l0c_to_out.f16 x1, x2, m=64, n=64, relu=1 ; = 0x2cf88040 0x2ef90040 0x5908be00
        fix_l0c_to_out.f32 x1, x2, n=16, m=16, srcstride=16, dststride=64 ; = 0x2cf80010 0x2ef90010 0x2efa0010 0x2efb0040 0x5808be00
        end                                     ; = 0x02000000
