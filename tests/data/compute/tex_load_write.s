; Texture unit from a compute kernel: thread (x, y) of a 2-D grid loads
; texel (x, y) of the twiddled R32 uint texture ts0, adds x, and writes it
; to (x, y) of the linear R32 uint image ts1 (test_hw_compute).
get_sr           r4, sr80 (thread_position_in_grid.x)
get_sr           r5, sr81 (thread_position_in_grid.y)
texture_load     0, 0b0000, 0b0, none, xyzw, 0b00, r0_r1_r2_r3, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0
wait             0
iadd             r0, r0, r4
image_write      r0_r1_r2_r3, r4_r5, 0, None, ts1, tex_2d, rte, 1, 0, 9, 0
stop
