; lab4_conflict.s -- LAB 4: UB bank conflicts (lab4_banks.md), the conflict layout.
;
; z = x + y for a 64 x 256 f16 matrix (row-major in GM), computed column
; block by column block: the kernel walks UB down the columns, as a
; transpose, a column slice or a column reduction does.  One vadd per block
; column j (16 columns of f16 = one 32 B block per row); each repeat takes
; block j of 8 consecutive rows (blk stride = the row pitch), the next
; repeat the next 8 rows (rep stride = 8 pitches): 8 repeats per vadd.
;
; UB layout: rows packed: a row is 512 B = 16 blocks, so block j of every row falls in bank group j.
; MTE2 loads the rows with dstgap = 0 block(s) between them and MTE3 stores
; them back with srcgap = 0, so GM stays packed.
;   x at UB_X, y at UB_Y, z at UB_Z (the third 64 KB layer)
;
; Run it with /usr/bin/python3 kernels/labs/lab4_banks.py (the tasks are in
; lab4_banks.md), or:
;   build/asm/asc-as kernels/labs/lab4_conflict.s -o lab4.bin
;   build/sim/asc-sim run lab4.bin --arg x=x.npy --arg y=y.npy \
;       --arg z=@z.npy:64,256:f16 | grep bank

.kernel lab4_conflict, aiv
.arg x, gm, f16
.arg y, gm, f16
.arg z, gm, f16

.equ ROWS, 64
.equ ROW_BLOCKS, 16             ; 256 f16 = 512 B = 16 blocks of 32 B per row
.equ GAP, 0                   ; UB padding after each row, in 32 B blocks
.equ PITCH, ROW_BLOCKS + GAP    ; UB row pitch in blocks
.equ UB_X, 0x0000
.equ UB_Y, 0x8000                ; ROWS * PITCH * 32 bytes after x
.equ UB_Z, 0x20000

        li      x10, UB_X
        li      x11, UB_Y
        li      x12, UB_Z
        mov_out_to_ub x10, x0, nburst=ROWS, len=ROW_BLOCKS, dstgap=GAP
        mov_out_to_ub x11, x1, nburst=ROWS, len=ROW_BLOCKS, dstgap=GAP
        set_flag mte2, v, 0
        wait_flag mte2, v, 0            ; x, y have landed
        li      x9, ROW_BLOCKS          ; block columns left
col:
        vadd.f16 x12, x10, x11, repeat=ROWS / 8, blk=PITCH,PITCH,PITCH, rep=8*PITCH,8*PITCH,8*PITCH
        addi    x10, x10, 32            ; next block column
        addi    x11, x11, 32
        addi    x12, x12, 32
        addi    x9, x9, -1
        bnez    x9, col
        set_flag v, mte3, 0
        wait_flag v, mte3, 0            ; z computed
        li      x12, UB_Z
        mov_ub_to_out x2, x12, nburst=ROWS, len=ROW_BLOCKS, srcgap=GAP
        end
