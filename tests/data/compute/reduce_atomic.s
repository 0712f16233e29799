; 2-D grid reduction with device atomics.
; uniforms: u0_u1 = in (u32, row pitch u6 elements), u2_u3 = out[3]:
;   out[0] += in[y * W + x], out[1] = max(out[1], y * W + x), out[2] += 1
get_sr           r1, sr80 (thread_position_in_grid.x)
get_sr           r2, sr81 (thread_position_in_grid.y)
imadd            r3, r2, u6, r1
device_load      0, i32, x, r4, u0_u1, r3, unsigned
wait             0
mov_imm          r5, 1, 0b0
atomic           add, 0, None, u2_u3, 0, unsigned, r4, 1, 0, 1, 4, 2
atomic           umax, 0, None, u2_u3, 1, unsigned, r3, 1, 0, 1, 4, 2
atomic           add, 0, None, u2_u3, 2, unsigned, r5, 1, 0, 1, 4, 2
stop
