; 8x4 image copy through the texture unit (test_hw_tex_exec): thread i
; loads texel (i & 7, i >> 3) of ts0 with texture_load and writes it to
; the same position of the PBE image ts1 with image_write.
get_sr           r1, sr80 (thread_position_in_grid.x)
and              r4, r1, 7
bfeil            r5, 0, r1, 3, mask 0x3
texture_load     0, 0b0000, 0b0, none, xyzw, 0b00, r0_r1_r2_r3, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0
wait             0
image_write      r0_r1_r2_r3, r4_r5, 0, None, ts1, tex_2d, rte, 1, 0, 9, 0
stop
