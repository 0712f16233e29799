; Benchmark: copies 8 words per thread (strided by the grid width u4).
; uniforms: u0_u1 = in, u2_u3 = out, u4 = grid width.
get_sr           r1, sr80 (thread_position_in_grid.x)
mov_imm          r4, 0, 0b0
top:
device_load      0, i32, x, r2, u0_u1, r1, unsigned
wait             0
device_store     0, i32, x, r2, u2_u3, r1, unsigned, 0
iadd             r1, r1, u4
iadd             r4, r4, 1
while_icmp       r0l, ult, r4, 8, 1
jmp_exec_any     pc+top
pop_exec         r0l, 1
stop
