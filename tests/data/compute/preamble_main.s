; out[i] = i * u5 + u6, where the preshader computed u5 and u6 was
; preloaded from memory.  uniforms: u0_u1 = out.
get_sr           r1, sr80 (thread_position_in_grid.x)
imadd            r2, r1, u5, u6
device_store     0, i32, x, r2, u0_u1, r1, unsigned, 0
stop
