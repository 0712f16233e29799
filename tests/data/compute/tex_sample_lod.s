; texture_sample with an explicit LOD, in both encodings: thread i samples
; ts0 with sampler ss0 at the centre of texel (i & 7, i >> 3) of an 8x8
; grid, at the LOD in r7l (lod_min with a register, 1.0) and at the LOD in
; u8l (lod_min with a uniform), storing both results.
; uniforms: u0 = 0.125 (f32), u2_u3 = out A, u4_u5 = out B, u8l = LOD
get_sr           r1, sr80 (thread_position_in_grid.x)
and              r2, r1, 7
bfeil            r3, 0, r1, 3, mask 0x7
convert          u32_to_f, r4, r2, rte
convert          u32_to_f, r5, r3, rte
fadd32           r4, r4, 0.5
fadd32           r5, r5, 0.5
fmul32           r4, r4, u0
fmul32           r5, r5, u0
mov_imm          r7l, 15360
texture_sample   0, 0b0000, 0b0, none, x, 0b00, r6, None, ts0, ss0, tex_2d, r4_r5, lod_min, r7l
texture_sample   0, 0b0000, 0b0, none, x, 0b00, r8, None, ts0, ss0, tex_2d, r4_r5, lod_min, u8l
wait             0
device_store     0, i32, x, r6, u2_u3, r1, unsigned, 0
device_store     0, i32, x, r8, u4_u5, r1, unsigned, 0
stop
