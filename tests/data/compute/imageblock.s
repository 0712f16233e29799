; Compute imageblock, as Mesa's asahi blits use it: each 16x16 workgroup
; stores thread (lx, ly)'s value grid_y * 100 + grid_x as i32 into pixel
; (lx, ly) of its imageblock (st_tile with explicit coordinates r9l/r9h),
; waits at the barrier, and thread (0, 0) writes the whole block into the
; R32 uint image ts0 at its grid position (image_write_block, explicit).
; Needs a 16x16 imageblock with a 4-byte sample stride in the Shared word.
get_sr           r1, sr48 (thread_position_in_threadgroup.x)
get_sr           r2, sr49 (thread_position_in_threadgroup.y)
get_sr           r3, sr80 (thread_position_in_grid.x)
get_sr           r4, sr81 (thread_position_in_grid.y)
imadd            r5, r4, 100, r3
mov              r9l, r1l
mov              r9h, r2l
st_tile.coords   r5, i32, 1, x, 0, 1, 18
threadgroup_barrier
icmpsel          ugt, r0h, r2l, r1l, r2l, r1l
mov_imm          r0l, 0
if_icmp          r0l, ueq, r0h, 0, 1
mov_imm          r7l, 0
image_write_block r7l, r3_r4, 0, ts0, tex_2d, rte, i32, 1, 9, 1
pop_exec         r0l, 1
stop
