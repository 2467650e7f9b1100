; constants shared by ok_include.s
.equ INC_A, 5
.equ INC_B, INC_A * 3
