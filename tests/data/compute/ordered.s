; y[i] = y[i] * 10 + u4: tells in which order launches ran.
; uniforms: u0_u1 = y, u4 = digit.
get_sr           r1, sr80 (thread_position_in_grid.x)
device_load      0, i32, x, r2, u0_u1, r1, unsigned
wait             0
imadd            r3, r2, 10, u4
device_store     0, i32, x, r3, u0_u1, r1, unsigned, 0
stop
