; 16x8 threadgroup: each thread stores id*3 to threadgroup memory, waits at
; the barrier, then writes the transposed element to u4_u5[id]
; (test_threadgroup_transpose).
get_sr           r1, sr51 (thread_index_in_threadgroup)
imadd            r2, r1, 3, 0
threadgroup_store i32, x, r2, 0, r1l
threadgroup_barrier
and              r3, r1, 7
bfeil            r4, 0, r1, 3, mask 0xFFFF
imadd            r5, r3, 16, r4
threadgroup_load i32, x, r6, 0, r5l
device_store     0, i32, x, r6, u4_u5, r1, unsigned, 0
stop
