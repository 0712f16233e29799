; Format conversion on load and store: unorm8 -> f32 -> snorm16.
;   out[i] = snorm16(2 * unorm8(in[i]) - 1)
; uniforms: u0_u1 = in (bytes), u2_u3 = out (16-bit).
get_sr           r1, sr80 (thread_position_in_grid.x)
device_load      0, u8norm, x, r2, u0_u1, r1, unsigned
wait             0
fmadd32          r3, r2, 2.0, -1.0
device_store     0, s16norm, x, r3, u2_u3, r1, unsigned, 0
stop
