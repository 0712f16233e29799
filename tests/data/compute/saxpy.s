; y[i] = a * x[i] + y[i] for i = thread_position_in_grid.x
; uniforms: u0_u1 = x, u2_u3 = y, u4 = a (f32).  Edge workgroups are
; partial, so no bounds check is needed.
get_sr           r1, sr80 (thread_position_in_grid.x)
device_load      0, i32, x, r2, u0_u1, r1, unsigned
device_load      0, i32, x, r3, u2_u3, r1, unsigned
wait             0
fmadd32          r4, u4, r2, r3
device_store     0, i32, x, r4, u2_u3, r1, unsigned, 0
stop
