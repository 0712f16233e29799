; Divergent loop with nested if/else and break (see tests/unit/test_hw_usc.c,
; test_control_flow_loops): each lane runs `lane` iterations, odd iterations
; add 100, even ones 1, and lanes leave at i == 9.  r3 = result.
get_sr           r1, sr52 (thread_index_in_simdgroup)
mov_imm          r2, 0, 0b0
mov_imm          r3, 0, 0b0
if_icmp          r0l, ult, r2, r1, 1
jmp_exec_none    pc+done
top:
and              r5, r2, 1
if_icmp          r0l, ueq, r5, 1, 1
iadd             r3, r3, 100
else_icmp        r0l, ueq, r5, r5, 1
iadd             r3, r3, 1
pop_exec         r0l, 1
icmpsel          ueq, r0l, r2, 9, 1, 0
pop_exec         r0l, 0
iadd             r2, r2, 1
while_icmp       r0l, ult, r2, r1, 1
jmp_exec_any     pc+top
done:
pop_exec         r0l, 1
stop
