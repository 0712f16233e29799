; imageblock.s with Mesa's compute-blit store: st_tile writes all four
; components (mask xyzw) of i32 values into a sample whose stride holds
; fewer (agx_blit.c stores xyzw in the destination's renderable format
; with a per-thread block of that format's size). The imageblock clips the
; components past the sample; z and w here would land in the next pixel.
get_sr           r1, sr48 (thread_position_in_threadgroup.x)
get_sr           r2, sr49 (thread_position_in_threadgroup.y)
get_sr           r3, sr80 (thread_position_in_grid.x)
get_sr           r4, sr81 (thread_position_in_grid.y)
imadd            r5, r4, 100, r3
mov_imm          r6, 4000000000, 0b0
mov_imm          r7, 4000000001, 0b0
mov_imm          r8, 4000000002, 0b0
mov              r9l, r1l
mov              r9h, r2l
st_tile.coords   r5_r6_r7_r8, i32, 1, xyzw, 0, 1, 18
threadgroup_barrier
icmpsel          ugt, r0h, r2l, r1l, r2l, r1l
mov_imm          r0l, 0
if_icmp          r0l, ueq, r0h, 0, 1
mov_imm          r7l, 0
image_write_block r7l, r3_r4, 0, ts0, tex_2d, rte, i32, 1, 9, 1
pop_exec         r0l, 1
stop
