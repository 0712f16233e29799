; Each 8x8 workgroup transposes its tile through threadgroup memory:
;   tile[ly][lx] = in[gy * W + gx]; barrier; out[gy * W + gx] = tile[lx][ly]
; uniforms: u0_u1 = in, u2_u3 = out, u4 = W.  Needs 256 bytes of
; threadgroup memory.
get_sr           r1, sr48 (thread_position_in_threadgroup.x)
get_sr           r2, sr49 (thread_position_in_threadgroup.y)
get_sr           r3, sr80 (thread_position_in_grid.x)
get_sr           r4, sr81 (thread_position_in_grid.y)
imadd            r5, r4, u4, r3
device_load      0, i32, x, r6, u0_u1, r5, unsigned
wait             0
imadd            r7, r2, 8, r1
threadgroup_store i32, x, r6, 0, r7l
threadgroup_barrier
imadd            r8, r1, 8, r2
threadgroup_load i32, x, r9, 0, r8l
wait             0
device_store     0, i32, x, r9, u2_u3, r5, unsigned, 0
stop
