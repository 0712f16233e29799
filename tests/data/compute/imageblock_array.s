; imageblock.s for a 2D array image, as Mesa's compute blit writes every
; layer of an array (or slice of a 3D image) in one launch: grid z is the
; layer. Thread (lx, ly) of workgroup (gx, gy, z) stores
; z * 1000 + grid_y * 100 + grid_x as i32 into its imageblock pixel, and
; thread (0, 0) writes the block into layer z of the R32 uint 2D array
; ts0 (image_write_block, explicit coordinates x, y and the 16-bit layer
; r5l after them).
get_sr           r1, sr48 (thread_position_in_threadgroup.x)
get_sr           r2, sr49 (thread_position_in_threadgroup.y)
get_sr           r3, sr80 (thread_position_in_grid.x)
get_sr           r4, sr81 (thread_position_in_grid.y)
get_sr           r5, sr82 (thread_position_in_grid.z)
imadd            r8, r4, 100, r3
mov_imm          r6, 1000, 0b0
imadd            r8, r5, r6, r8
mov              r9l, r1l
mov              r9h, r2l
st_tile.coords   r8, i32, 1, x, 0, 1, 18
threadgroup_barrier
icmpsel          ugt, r0h, r2l, r1l, r2l, r1l
mov_imm          r0l, 0
if_icmp          r0l, ueq, r0h, 0, 1
mov_imm          r7l, 0
image_write_block r7l, r3_r4_r5, 0, ts0, tex_2d_array, rte, i32, 1, 9, 1
pop_exec         r0l, 1
stop
