mov_imm r0l, 1
jmp_exec_any 0x0
jmp_exec_none 0x-4EB0E777
call 0x52B958CC
call 0x7FFFFFFF
stop
