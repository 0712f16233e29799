; Benchmark: 64 iterations of a dependent fma chain per thread.
; uniforms: u0_u1 = out.
get_sr           r1, sr80 (thread_position_in_grid.x)
convert          u32_to_f, r2, r1, rte
mov_imm          r4, 0, 0b0
top:
fmadd32          r2, r2, 0.5, 1.0
fmadd32          r2, r2, 0.5, 1.0
fmadd32          r2, r2, 0.5, 1.0
fmadd32          r2, r2, 0.5, 1.0
fmul32           r2, r2, 1.0
fadd32           r2, r2, 0.0
iadd             r4, r4, 1
while_icmp       r0l, ult, r4, 64, 1
jmp_exec_any     pc+top
pop_exec         r0l, 1
device_store     0, i32, x, r2, u0_u1, r1, unsigned, 0
stop
