l: jmp_exec_any pc+l
.word 0x1234
iadd r0, r1, r2, lsl 3
