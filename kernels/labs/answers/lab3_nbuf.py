#!/usr/bin/python3
"""The answer to lab 3's task 3 (../lab3_buffering.md), and the kernels of its task 4.

Prints an N-buffered z = x + y kernel (f16) in asc assembly: kernels/asm/vadd_double.s
generalised to N sets of UB buffers, event ids 0..N-1.  N = 3 is the triple-buffered kernel
task 3 asks for:

    /usr/bin/python3 kernels/labs/answers/lab3_nbuf.py 3 > vadd_triple.s

The loop body has one stage per buffer set and every stage starts with `beqz x9, done`, so the
kernel handles any number of tiles, not only multiples of N (65536 elements are 16 tiles).
"""

import sys

# three address registers per set from x10..x30 without x13 (the tile size): six sets; UB
# holds them too (x/y below 0x20000, z in 0x20000..0x2c000 of ascend910b's 0x2e000 usable)
FREE_REGS = [10, 11, 12] + list(range(14, 31))
MAX_BUFFERS = len(FREE_REGS) // 3


def kernel(nbuf):
    if not 1 <= nbuf <= MAX_BUFFERS:
        raise ValueError(f"buffers must be 1..{MAX_BUFFERS}, not {nbuf}")
    ids = range(nbuf)
    # x of set i at i * 0x4200, its y 0x2100 further (256 B off x modulo 512: the other 8 bank
    # groups), every z in the third 64 KB layer: no bank conflict (docs/semantics.md, 3)
    ub = [(i * 0x4200, i * 0x4200 + 0x2100, 0x20000 + i * 0x2000) for i in ids]
    reg = [tuple(FREE_REGS[3 * i:3 * i + 3]) for i in ids]
    out = [f"""; vadd_nbuf{nbuf}.s -- z = x + y over n f16 elements, {nbuf} sets of UB buffers
; (made by kernels/labs/answers/lab3_nbuf.py {nbuf}).
;
; Set i uses event id i for its four flags, as in kernels/asm/vadd_double.s:
;   MTE2 -> V   "x, y landed"          V -> MTE2  "x, y free again"
;   V -> MTE3   "z computed"           MTE3 -> V  "z free again"
; The "free" flags are set once before the loop and consumed after it.
;
; Requires: n a multiple of TILE * block_num.
;
; UB layout:""",
           *[f";   set {i}: x 0x{x:05x}, y 0x{y:05x}, z 0x{z:05x}" for i, (x, y, z) in enumerate(ub)],
           f"""
.kernel vadd_nbuf{nbuf}, aiv
.arg x, gm, f16
.arg y, gm, f16
.arg z, gm, f16
.arg n, int

.equ TILE, 4096
.equ TILE_BYTES, TILE * 2
.equ LEN, TILE_BYTES / 32       ; burst length in 32 B blocks
.equ REP, TILE / 128            ; vector repeats per tile (128 f16 per repeat)

        mfspr   x4, block_idx
        mfspr   x5, block_num
        div     x6, x3, x5              ; elements of this core
        mul     x7, x6, x4
        shli    x7, x7, 1               ; byte offset of this core's slice
        add     x0, x0, x7
        add     x1, x1, x7
        add     x2, x2, x7
        li      x8, TILE
        div     x9, x6, x8              ; x9 = tiles left
        li      x13, TILE_BYTES"""]
    for i in ids:
        (x, y, z), (rx, ry, rz) = ub[i], reg[i]
        out += [f"        li      x{rx}, 0x{x:05x}            ; set {i}: x",
                f"        li      x{ry}, 0x{y:05x}            ;        y",
                f"        li      x{rz}, 0x{z:05x}            ;        z"]
    for i in ids:
        out += [f"        set_flag v, mte2, {i}             ; set {i}: x, y free",
                f"        set_flag mte3, v, {i}             ;        z free"]
    out.append("loop:")
    for i in ids:
        rx, ry, rz = reg[i]
        out.append(f"""        ; ---- set {i} ----
        beqz    x9, done                ; no tile left
        wait_flag v, mte2, {i}            ; x, y of set {i} free
        mov_out_to_ub x{rx}, x0, nburst=1, len=LEN
        mov_out_to_ub x{ry}, x1, nburst=1, len=LEN
        set_flag mte2, v, {i}             ; x, y landed
        wait_flag mte2, v, {i}
        wait_flag mte3, v, {i}            ; z of set {i} free
        vadd.f16 x{rz}, x{rx}, x{ry}, repeat=REP
        set_flag v, mte2, {i}             ; x, y free again
        set_flag v, mte3, {i}             ; z computed
        wait_flag v, mte3, {i}
        mov_ub_to_out x2, x{rz}, nburst=1, len=LEN
        set_flag mte3, v, {i}             ; z stored: free again
        add     x0, x0, x13             ; next tile
        add     x1, x1, x13
        add     x2, x2, x13
        addi    x9, x9, -1""")
    out.append("        j       loop\ndone:                                   ; consume the \"free\" flags")
    for i in ids:
        out += [f"        wait_flag v, mte2, {i}", f"        wait_flag mte3, v, {i}"]
    out.append("        end")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit(f"usage: /usr/bin/python3 kernels/labs/answers/lab3_nbuf.py N (1..{MAX_BUFFERS})")
    try:
        sys.stdout.write(kernel(int(sys.argv[1])))
    except ValueError as e:
        sys.exit(f"error: {e}")
