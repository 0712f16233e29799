; texture_load from a multisampled 2D array: thread (x, y, z) of the grid
; loads sample 1 of texel (x, y) of layer z of the R32 uint ts0 and writes
; it to (x, y + 4z) of the linear R32 uint image ts1. The 16-bit slots
; after x and y hold the sample index, then the layer (r6l, r6h), the one
; 32-bit word Mesa packs (agx_nir_lower_texture.c: sample in the low half).
get_sr           r4, sr80 (thread_position_in_grid.x)
get_sr           r5, sr81 (thread_position_in_grid.y)
get_sr           r7, sr82 (thread_position_in_grid.z)
mov_imm          r6l, 1
mov              r6h, r7l
texture_load     0, 0b0000, 0b0, none, xyzw, 0b00, r0_r1_r2_r3, None, ts0, ss0, tex_2d_ms_array, r4_r5_r6, auto_lod, 0
wait             0
mov              r10, r4
imadd            r11, r7, 4, r5
image_write      r0_r1_r2_r3, r10_r11, 0, None, ts1, tex_2d, rte, 1, 0, 9, 0
stop
