; Divergent loop with a nested if/else: out[i] = number of Collatz steps
; from i + 1 down to 1.  Every lane leaves the loop at a different
; iteration.  uniforms: u0_u1 = out.
get_sr           r1, sr80 (thread_position_in_grid.x)
iadd             r2, r1, 1
mov_imm          r3, 0, 0b0
if_icmp          r0l, nueq, r2, 1, 1
jmp_exec_none    pc+done
top:
and              r5, r2, 1
if_icmp          r0l, ueq, r5, 1, 1
imadd            r2, r2, 3, 1
else_icmp        r0l, ueq, r5, r5, 1
asr              r2, r2, 1
pop_exec         r0l, 1
iadd             r3, r3, 1
while_icmp       r0l, nueq, r2, 1, 1
jmp_exec_any     pc+top
done:
pop_exec         r0l, 1
device_store     0, i32, x, r3, u0_u1, r1, unsigned, 0
stop
