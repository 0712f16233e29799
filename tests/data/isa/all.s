; Every instruction form the ISA library covers, in applegpu syntax.
; Used by tests/unit/test_isa.c and tests/integration/isa_roundtrip.sh.
mov_imm          r0l, 4660
mov_imm          r1, 305419896, 0b0
get_sr           r2, sr80 (thread_position_in_grid.x)
iadd             r3, r1, 7, lsl 2
isub.sat         r3l, r1l.sx, u4l
iadd             r4_r5, r6_r7.cache, r8.discard
imadd            r4, r1.sx, r2, u3
imsub            r4_r5, r1, 3, r6_r7, lsl 1
bitop_mov_a      0011, r5, r1, r2
and              r5, r1, r2
or               r5, r1, 255
xor              r5, r1, r2
not              r5, r1
mov              r5, r1
bfi              r6, r1, r2, 4, mask 0xFF
bfeil            r6, r1, r2, 8, mask 0xFFFF
extr             r6, r1, r2, r3, mask 0x1
shlhi            r6, r1, r2, 3, mask 0x7
asr              r6, r1, 5
bitrev           r7, r1
popcount         r7, r1
ffs              r7, r1
convert          f_to_u32, r8, r1, rtz
convert          s16_to_f, r8l, r1l, rte
fadd32           r9, r1.abs, r2.neg
fadd32.sat       r9, r1, 0.5
fadd16           r9l, r1h, 1.0
fmul32           r9, u2, -2.0
fmul16.sat       r9h, r1l.neg, r2l
fmadd32          r9, r1, r2, r3
fmadd16          r9l, r1l, r2h, 0.25
floor            r10, r1
ceil             r10, r1
trunc            r10, r1
rint             r10, r1
rcp              r10, r1
rsqrt            r10, r1
rsqrt_special    r10, r1
sin_pt_1         r10, r1
sin_pt_2         r10, r1
log2             r10, r1
exp2             r10, r1
dfdx             r10, r1
dfdy             r10, r1
icmpsel          ult, r11, r1, r2, r3, 1
fcmpsel          gt, r11l, r1l, 0.0, r3l, u5l
icmpsel          seq, r10l, r13l, r15.cache, u128h, u8h
fcmpsel          gtn, r10, r13, r15, u64, u255
icmp_ballot      r67, ugt, u66h, u13
icmp_quad_ballot r94h, ulte, r22h, r110h
fcmp_ballot      r90, neq, r67.cache, r39l.cache.abs
fcmp_quad_ballot r60, nlte, r86.discard, r96h.cache
simd_shuffle     r12, r1, r2l
simd_shuffle_down r12, r1, 1
simd_shuffle_up  r12, r1, 1
simd_shuffle_xor r12, r1, r2l
quad_shuffle     r12, r1, r2
quad_shuffle_xor r12, r1, 2
simd_fadd        r13, r1
simd_prefix_iadd r13, r1
simd_min.s       r13, r1
quad_max.f       r13, r1
quad_and         r13, r1
device_load      0, i32, xy, r14_r15, u0_u1, r2, unsigned
device_load      1, i16, x, r16l, r0_r1, 16, signed, lsl 1
device_store     0, i32, xyzw, r14_r15_r16_r17, r0_r1, -4, signed, 0
threadgroup_load i32, x, r18, r1l, 0
threadgroup_store i16, xy, r18l_r18h, 0, 8
uniform_store    0, i16, x, 0, r19l, 4, lsl 1
stack_store      i32, 0, 0, x, 0, r20, 8, 0
stack_load       r20, i32, 0, 0, x, 0, 8, 0
stack_adjust     12
atomic           add, 0, r21, r0_r1, 0, signed, r22, 1, 0, 1, 4, 2
atomic           cmpxchg, 0, None, r0_r1, r2, unsigned, r22_r23, 1, 0, 1, 4, 2
wait             0
wait             1
threadgroup_barrier
memory_barrier   1, 2, 9
wait_pix         1, 0
signal_pix       1, 0
if_icmp          r0l, seq, r1, 0, 1
if_fcmp          r0l, lt, r1, 1.0, 1
else_icmp        r0l, ueq, r1l, r2l, 1
else_fcmp        r0l, eq, r1, r2, 1
while_icmp       r0l, slt, r1, r2, 2
while_fcmp       r0l, gte, r1, r2, 2
update_exec      r0l
push_exec        r0l, 1
pop_exec         r0l, 1
top:
jmp_exec_any     pc+top
jmp_exec_none    pc+skip
call             pc+18
skip:
call             r1
ret              r1
trap
texture_sample   0, 0b0000, 0b0, none, xyzw, 0b00, r0_r1_r2_r3, None, ts1, ss2, tex_2d, r4_r5, auto_lod, 0
texture_load     0, 0b0000, 0b0, none, x, 0b00, r6, None, ts0, ss0, tex_2d, r4_r5, auto_lod, 0
texture_sample   0, 0b0000, 0b0, none, x, 0b00, r6l, None, ts0, ss0, tex_2d, r4_r5, lod_min, u7l
texture_sample   0, 0b0000, 0b0, none, x, 0b00, r6l, None, ts0, ss0, tex_2d, r4_r5, lod_min, r7l
texture_sample   0, 0b0000, 0b0, none, xy, 0b00, r8_r9, None, ts2, ss1, tex_2d, r4_r5, auto_lod_bias, u9h
texture_sample   0, 0b0000, 0b0, none, xy, 0b00, r8_r9, None, ts2, ss1, tex_2d, r4_r5, auto_lod_bias, r10h
image_write      r0_r1_r2_r3, r4_r5, 0, None, ts3, tex_2d, rte, 1, 0, 9, 0
image_write_block r0l, r4_r5, 0, ts3, tex_2d, rte, i8, 0, 0, 0
ld_tile          r0_r1_r2_r3, i32, 0, xyzw, 0, 1, 0
st_tile          r0l_r0h, f16, 0, xy, 0, 1, 0
iter             r0_r1, cf1, center, 0b0, 0, 0, 0, 0, 0
iter             r0_r1, cf1, 3, sample, 0b0, 0, 0, 0, 0, 0
iter             r0_r1, cf1, r5l, sample, 0b0, 0, 0, 0, 0, 0
iterproj         r2_r3_r4, cf2, cf0, center, 0b0, 0, 0, 0, 0, 0
ldcf             r0_r1_r2, cf3
st_var           0, r2, 1
st_var_final     1, r3, 2
zs_emit          1, r2l_r2h_r3l, 0
sample_mask      1, r1l
bitop            0010, r5, r1, r2
asrh             r6, r1, 5
shrhi            r6, r1, r2, 3, mask 0x3
intl             r7, r1l, r2l
fmul16           r9l, r1l, r2h
quad_shuffle_down r12, r1, 1
quad_shuffle_up  r12, r1, 1
quad_shuffle_rotate_up r12, r1, 1
simd_shuffle_rotate_up r12, r1, 1
quad_fadd        r13, r1_r2
quad_fmul        r13l, r1l.discard
quad_iadd        r13, u4
quad_max.s       r13, r1_r2
quad_max.u       r13l, r1l.discard
quad_min.f       r13, u4
quad_min.s       r13, r1_r2
quad_min.u       r13l, r1l.discard
quad_or          r13, u4
quad_prefix_fadd r13, r1_r2
quad_prefix_fmul r13l, r1l.discard
quad_prefix_iadd r13, u4
quad_xor         r13, r1_r2
simd_and         r13l, r1l.discard
simd_fmul        r13, u4
simd_iadd        r13, r1_r2
simd_max.f       r13l, r1l.discard
simd_max.s       r13, u4
simd_max.u       r13, r1_r2
simd_min.f       r13l, r1l.discard
simd_min.u       r13, u4
simd_or          r13, r1_r2
simd_prefix_and  r13l, r1l.discard
simd_prefix_fadd r13, u4
simd_prefix_fmul r13, r1_r2
simd_prefix_max.s r13l, r1l.discard
simd_prefix_max.u r13, u4
simd_prefix_min.s r13, r1_r2
simd_prefix_min.u r13l, r1l.discard
simd_prefix_or   r13, u4
simd_prefix_xor  r13, r1_r2
simd_xor         r13l, r1l.discard
stop
