/* SPDX-License-Identifier: MIT */
/*
 * Asahi (Apple AGX) DRM uAPI, as merged upstream in Linux.
 *
 * Written for tessera from the upstream interface's documented layout; it
 * must stay byte-for-byte ABI compatible with include/uapi/drm/asahi_drm.h,
 * because tessera's capture and replay talk to real Asahi kernels with it.
 * tests/unit/test_uapi_layout.c pins every size, offset and ioctl number.
 *
 * Rules the upstream interface follows, which any extension here must keep:
 *  - every struct is a multiple of 8 bytes, every field naturally aligned,
 *    explicit `pad` fields where needed, and the kernel rejects non-zero pad;
 *  - fields are only ever appended or carved out of padding, and a zero value
 *    keeps the old behaviour, so old userspace keeps working;
 *  - no unions and no CPU pointers inside command buffers (the command
 *    buffer must cross a virtio-gpu wire unchanged).
 */
#ifndef ASAHI_DRM_H
#define ASAHI_DRM_H

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Ioctl numbers, relative to DRM_COMMAND_BASE. Append-only. */
enum drm_asahi_ioctl_id {
   DRM_ASAHI_GET_PARAMS = 0,
   DRM_ASAHI_GET_TIME,
   DRM_ASAHI_VM_CREATE,
   DRM_ASAHI_VM_DESTROY,
   DRM_ASAHI_VM_BIND,
   DRM_ASAHI_GEM_CREATE,
   DRM_ASAHI_GEM_MMAP_OFFSET,
   DRM_ASAHI_GEM_BIND_OBJECT,
   DRM_ASAHI_QUEUE_CREATE,
   DRM_ASAHI_QUEUE_DESTROY,
   DRM_ASAHI_SUBMIT,
};

#define DRM_ASAHI_MAX_CLUSTERS 64

/*
 * Device description (parameter group 0). The kernel copies at most
 * drm_asahi_get_params::size bytes, so older userspace with a shorter copy
 * of this struct keeps working when fields are appended.
 */
struct drm_asahi_params_global {
   /* Bitmask of enum drm_asahi_feature. */
   __u64 features;
   /* 13 for G13 (M1), 14 for G14 (M2), ... */
   __u32 gpu_generation;
   /* The variant letter as a character: 'G', 'S', 'C' or 'D'. */
   __u32 gpu_variant;
   /* Silicon revision in BCD: 0x00 is A0, 0x21 is C1. */
   __u32 gpu_revision;
   /* SoC id in BCD, 0x8103 for the M1 (T8103). */
   __u32 chip_id;
   __u32 num_dies;
   __u32 num_clusters_total;
   /* Logical core slots per cluster, present or not (see core_masks). */
   __u32 num_cores_per_cluster;
   __u32 max_frequency_khz;
   /* Per cluster: bit N set when core N exists and is enabled. */
   __u64 core_masks[DRM_ASAHI_MAX_CLUSTERS];
   /* The window of GPU VAs userspace may use: [vm_start, vm_end). */
   __u64 vm_start;
   __u64 vm_end;
   /* Smallest kernel range userspace must hand to VM_CREATE. */
   __u64 vm_kernel_min_size;
   /* Firmware limit on hardware commands in one SUBMIT. */
   __u32 max_commands_per_submission;
   /* Limit on drm_asahi_attachment entries per command. */
   __u32 max_attachments;
   /* Rate of the timestamps the firmware writes; divide by it for seconds. */
   __u64 command_timestamp_frequency_hz;
};

enum drm_asahi_feature {
   /*
    * Shader loads from unmapped GPU VAs return zero and stores are dropped
    * instead of faulting. Fixed at GPU initialisation, hence a feature bit
    * rather than a per-VM flag. Texture sampling still faults.
    */
   DRM_ASAHI_FEATURE_SOFT_FAULTS = (1UL) << 0,
};

struct drm_asahi_get_params {
   /* Must be 0: the only group is drm_asahi_params_global. */
   __u32 param_group;
   __u32 pad;
   /* User pointer the parameters are written to. */
   __u64 pointer;
   /* Bytes available at pointer; the kernel writes no more than this. */
   __u64 size;
};

/*
 * Userspace owns the GPU VA layout. It reserves [kernel_start, kernel_end)
 * inside [vm_start, vm_end) for the kernel's own objects, at least
 * vm_kernel_min_size bytes, and never binds there. Letting userspace choose
 * keeps the rest of the VA space free for SVM-style layouts.
 */
struct drm_asahi_vm_create {
   __u64 kernel_start;
   __u64 kernel_end;
   /* Out: the new VM. */
   __u32 vm_id;
   __u32 pad;
};

struct drm_asahi_vm_destroy {
   __u32 vm_id;
   __u32 pad;
};

enum drm_asahi_gem_flags {
   /* CPU mapping is write-back cached rather than write-combined. */
   DRM_ASAHI_GEM_WRITEBACK = (1L << 0),
   /* The object can only be bound in vm_id and cannot be exported. */
   DRM_ASAHI_GEM_VM_PRIVATE = (1L << 1),
};

struct drm_asahi_gem_create {
   __u64 size;
   /* enum drm_asahi_gem_flags */
   __u32 flags;
   /* The owning VM when DRM_ASAHI_GEM_VM_PRIVATE is set. */
   __u32 vm_id;
   /* Out: the GEM handle. */
   __u32 handle;
   __u32 pad;
};

struct drm_asahi_gem_mmap_offset {
   __u32 handle;
   /* Must be 0. */
   __u32 flags;
   /* Out: the offset to pass to mmap() on the DRM fd. */
   __u64 offset;
};

enum drm_asahi_bind_flags {
   /* Remove whatever is mapped in the range instead of binding. */
   DRM_ASAHI_BIND_UNBIND = (1L << 0),
   DRM_ASAHI_BIND_READ = (1L << 1),
   DRM_ASAHI_BIND_WRITE = (1L << 2),
   /*
    * Map the one page at `offset` over the whole range, e.g. a zero or
    * scratch page under sparse resources.
    */
   DRM_ASAHI_BIND_SINGLE_PAGE = (1L << 3),
};

/* One element of the VM_BIND array. offset, range and addr are page aligned. */
struct drm_asahi_gem_bind_op {
   /* enum drm_asahi_bind_flags */
   __u32 flags;
   /* Object to bind (ignored for UNBIND). */
   __u32 handle;
   /* Byte offset into the object (the repeated page for SINGLE_PAGE). */
   __u64 offset;
   /* Bytes of VA to (un)bind. */
   __u64 range;
   /* GPU VA of the start of the range. */
   __u64 addr;
};

struct drm_asahi_vm_bind {
   __u32 vm_id;
   __u32 num_binds;
   /*
    * Bytes from one drm_asahi_gem_bind_op to the next, so the op struct can
    * grow without a new ioctl.
    */
   __u32 stride;
   __u32 pad;
   /* User pointer to num_binds ops, stride bytes apart. */
   __u64 userptr;
};

enum drm_asahi_bind_object_op {
   DRM_ASAHI_BIND_OBJECT_OP_BIND = 0,
   DRM_ASAHI_BIND_OBJECT_OP_UNBIND = 1,
};

enum drm_asahi_bind_object_flags {
   /* The firmware may write command timestamps into this range. */
   DRM_ASAHI_BIND_OBJECT_USAGE_TIMESTAMPS = (1L << 0),
};

/*
 * Makes (part of) a GEM object a special firmware-visible object. The
 * firmware does not see user VAs, so such objects are named by the returned
 * object_handle instead of an address.
 */
struct drm_asahi_gem_bind_object {
   /* enum drm_asahi_bind_object_op */
   __u32 op;
   /* enum drm_asahi_bind_object_flags */
   __u32 flags;
   /* GEM object (BIND). */
   __u32 handle;
   /* Must be 0 for now. */
   __u32 vm_id;
   /* Byte range of the object (BIND). */
   __u64 offset;
   __u64 range;
   /* Out for BIND, in for UNBIND. */
   __u32 object_handle;
   __u32 pad;
};

enum drm_asahi_cmd_type {
   /* Render pass on the render subqueue; payload drm_asahi_cmd_render. */
   DRM_ASAHI_CMD_RENDER = 0,
   /* Compute stream on the compute subqueue; payload drm_asahi_cmd_compute. */
   DRM_ASAHI_CMD_COMPUTE = 1,
   /*
    * Software commands: the payload is an array of drm_asahi_attachment
    * that applies to the following commands of that stage in this submit.
    */
   DRM_ASAHI_SET_VERTEX_ATTACHMENTS = 2,
   DRM_ASAHI_SET_FRAGMENT_ATTACHMENTS = 3,
   DRM_ASAHI_SET_COMPUTE_ATTACHMENTS = 4,
};

/* Forwarded to the firmware scheduler; HIGH and REALTIME are reserved. */
enum drm_asahi_priority {
   DRM_ASAHI_PRIORITY_LOW = 0,
   DRM_ASAHI_PRIORITY_MEDIUM = 1,
   DRM_ASAHI_PRIORITY_HIGH = 2,
   DRM_ASAHI_PRIORITY_REALTIME = 3,
};

struct drm_asahi_queue_create {
   /* Must be 0. */
   __u32 flags;
   __u32 vm_id;
   /* enum drm_asahi_priority */
   __u32 priority;
   /* Out: the new queue. */
   __u32 queue_id;
   /*
    * Base of the 4 GiB window holding every shader of this queue. Hardware
    * words carry 32-bit USC offsets from it; the kernel programs it into
    * USC_EXEC_BASE_TA, _ISP and _CP for every command of the queue.
    */
   __u64 usc_exec_base;
};

struct drm_asahi_queue_destroy {
   __u32 queue_id;
   __u32 pad;
};

enum drm_asahi_sync_type {
   DRM_ASAHI_SYNC_SYNCOBJ = 0,
   DRM_ASAHI_SYNC_TIMELINE_SYNCOBJ = 1,
};

struct drm_asahi_sync {
   /* enum drm_asahi_sync_type */
   __u32 sync_type;
   /* DRM syncobj handle. */
   __u32 handle;
   /* Point on the timeline (TIMELINE_SYNCOBJ only). */
   __u64 timeline_value;
};

/* A barrier index meaning "do not wait on that subqueue". */
#define DRM_ASAHI_BARRIER_NONE (0xFFFFu)

/*
 * Header of each command in the flat command buffer; the payload follows.
 * Fixed forever: it is how the kernel finds the next command.
 *
 * vdm_barrier / cdm_barrier: what this command waits for on the render
 * (VDM) and compute (CDM) subqueues. 0 waits for all work submitted before
 * this SUBMIT; N waits for the first N commands of that subqueue in this
 * SUBMIT; DRM_ASAHI_BARRIER_NONE waits for nothing. Attachment commands
 * must pass NONE.
 */
struct drm_asahi_cmd_header {
   /* enum drm_asahi_cmd_type */
   __u16 cmd_type;
   /*
    * Payload bytes. A hardware command shorter than the kernel's struct is
    * zero-extended (older userspace); for attachment commands this is
    * count * sizeof(struct drm_asahi_attachment).
    */
   __u16 size;
   __u16 vdm_barrier;
   __u16 cdm_barrier;
};

struct drm_asahi_submit {
   /* User pointer: in_sync_count waits followed by out_sync_count signals. */
   __u64 syncs;
   /* User pointer to the flat command buffer. */
   __u64 cmdbuf;
   /* Must be 0. */
   __u32 flags;
   __u32 queue_id;
   __u32 in_sync_count;
   __u32 out_sync_count;
   /*
    * Bytes of command buffer. It must hold between 1 and
    * max_commands_per_submission hardware commands.
    */
   __u32 cmdbuf_size;
   __u32 pad;
};

/*
 * A hint of memory the shaders of a command write (render targets written by
 * end-of-tile programs, above all), passed on to the firmware.
 */
struct drm_asahi_attachment {
   __u64 pointer;
   __u64 size;
   __u32 pad;
   /* Must be 0. */
   __u32 flags;
};

enum drm_asahi_render_flags {
   /* A vertex-stage shader uses scratch memory. */
   DRM_ASAHI_RENDER_VERTEX_SCRATCH = (1U << 0),
   /* Run bg/eot programs on tiles no primitive touched: needed for clears. */
   DRM_ASAHI_RENDER_PROCESS_EMPTY_TILES = (1U << 1),
   /* Keep vertex work on one cluster; slower, useful when debugging. */
   DRM_ASAHI_RENDER_NO_VERTEX_CLUSTERING = (1U << 2),
   /*
    * Use the integer (unorm depth) depth-bias formula rather than the float
    * one. Bit 18 because that is the bit in the hardware register.
    */
   DRM_ASAHI_RENDER_DBIAS_IS_INT = (1U << 18),
};

/*
 * A depth or stencil buffer for the ZLS unit. The hardware has separate load,
 * store and partial-render registers; the kernel sets all three from this.
 */
struct drm_asahi_zls_buffer {
   __u64 base;
   /* Compression metadata, when the buffer is compressed. */
   __u64 comp_base;
   /* Bytes between layers (layered rendering). */
   __u32 stride;
   __u32 comp_stride;
};

/*
 * Where the firmware writes a timestamp: an object bound with
 * GEM_BIND_OBJECT(USAGE_TIMESTAMPS) and a byte offset in it. handle 0 skips
 * the write.
 */
struct drm_asahi_timestamp {
   __u32 handle;
   __u32 offset;
};

struct drm_asahi_timestamps {
   struct drm_asahi_timestamp start;
   struct drm_asahi_timestamp end;
};

/*
 * The helper program is a small compute-like kernel the hardware dispatches
 * itself, chiefly to hand out per-subgroup scratch from a shared allocation.
 */
struct drm_asahi_helper_program {
   /* USC offset of the program; configuration in the low (tag) bits. */
   __u32 binary;
   __u32 cfg;
   /* Opaque to kernel, firmware and hardware; read back by the helper. */
   __u64 data;
};

/*
 * A background (tile start) or end-of-tile program. The tilebuffer is plain
 * local memory, so these programs are what load and store render targets.
 */
struct drm_asahi_bg_eot {
   /* USC offset of the program's USC word list, tag in the low bits. */
   __u32 usc;
   /* Packed resource counts (registers, uniforms, textures, samplers). */
   __u32 rsrc_spec;
};

/*
 * One render pass. Most fields are raw values of per-pass hardware control
 * registers that the firmware loads; the framebuffer geometry is also here
 * because the kernel needs it to size the tiling structures.
 */
struct drm_asahi_cmd_render {
   /* enum drm_asahi_render_flags */
   __u32 flags;
   /* ISP_ZLS_PIXELS: depth/stencil dimensions. */
   __u32 isp_zls_pixels;
   /* GPU VA of the first VDM control stream block. */
   __u64 vdm_ctrl_stream_base;
   struct drm_asahi_helper_program vertex_helper;
   struct drm_asahi_helper_program fragment_helper;
   /* GPU VA of the scissor array indexed by PPP records. */
   __u64 isp_scissor_base;
   /* GPU VA of the depth-bias array indexed by PPP records. */
   __u64 isp_dbias_base;
   /* GPU VA of the occlusion query result array. */
   __u64 isp_oclqry_base;
   struct drm_asahi_zls_buffer depth;
   struct drm_asahi_zls_buffer stencil;
   __u64 zls_ctrl;
   __u64 ppp_multisamplectl;
   /* Sampler heap shared by the vertex and fragment stages. */
   __u64 sampler_heap;
   __u32 ppp_ctrl;
   __u16 width_px;
   __u16 height_px;
   __u16 layers;
   __u16 sampler_count;
   /* Tilebuffer tile size: 16 or 32 in each direction. */
   __u8 utile_width_px;
   __u8 utile_height_px;
   /* 1, 2 or 4. */
   __u8 samples;
   /* Tilebuffer bytes per sample. */
   __u8 sample_size_B;
   /*
    * Float bits of tan(60°)·width and ·height for triangle merging, given by
    * userspace so the kernel needs no floating point.
    */
   __u32 isp_merge_upper_x;
   __u32 isp_merge_upper_y;
   struct drm_asahi_bg_eot bg;
   struct drm_asahi_bg_eot eot;
   /* Programs that resume / pause a pass around a partial render. */
   struct drm_asahi_bg_eot partial_bg;
   struct drm_asahi_bg_eot partial_eot;
   /* Depth clear value in the depth format (f32, or unorm16 in the low bits). */
   __u32 isp_bgobjdepth;
   /* Stencil clear value in bits 0-7. */
   __u32 isp_bgobjvals;
   struct drm_asahi_timestamps ts_vtx;
   struct drm_asahi_timestamps ts_frag;
};

/* A compute control stream; timestamps cover the whole command. */
struct drm_asahi_cmd_compute {
   /* Must be 0. */
   __u32 flags;
   __u32 sampler_count;
   /* GPU VA of the first CDM control stream block. */
   __u64 cdm_ctrl_stream_base;
   /* End of the first contiguous segment of the stream. */
   __u64 cdm_ctrl_stream_end;
   __u64 sampler_heap;
   struct drm_asahi_helper_program helper;
   struct drm_asahi_timestamps ts;
};

struct drm_asahi_get_time {
   /* Must be 0. */
   __u64 flags;
   /* Out: GPU time in nanoseconds. */
   __u64 gpu_timestamp;
};

#define DRM_IOCTL_ASAHI(access, id, type)                                     \
   DRM_IO##access(DRM_COMMAND_BASE + DRM_ASAHI_##id, struct drm_asahi_##type)

/* An enum rather than macros, as upstream, so bindings generators see them. */
enum {
   DRM_IOCTL_ASAHI_GET_PARAMS = DRM_IOCTL_ASAHI(W, GET_PARAMS, get_params),
   DRM_IOCTL_ASAHI_GET_TIME = DRM_IOCTL_ASAHI(WR, GET_TIME, get_time),
   DRM_IOCTL_ASAHI_VM_CREATE = DRM_IOCTL_ASAHI(WR, VM_CREATE, vm_create),
   DRM_IOCTL_ASAHI_VM_DESTROY = DRM_IOCTL_ASAHI(W, VM_DESTROY, vm_destroy),
   DRM_IOCTL_ASAHI_VM_BIND = DRM_IOCTL_ASAHI(W, VM_BIND, vm_bind),
   DRM_IOCTL_ASAHI_GEM_CREATE = DRM_IOCTL_ASAHI(WR, GEM_CREATE, gem_create),
   DRM_IOCTL_ASAHI_GEM_MMAP_OFFSET =
      DRM_IOCTL_ASAHI(WR, GEM_MMAP_OFFSET, gem_mmap_offset),
   DRM_IOCTL_ASAHI_GEM_BIND_OBJECT =
      DRM_IOCTL_ASAHI(WR, GEM_BIND_OBJECT, gem_bind_object),
   DRM_IOCTL_ASAHI_QUEUE_CREATE =
      DRM_IOCTL_ASAHI(WR, QUEUE_CREATE, queue_create),
   DRM_IOCTL_ASAHI_QUEUE_DESTROY =
      DRM_IOCTL_ASAHI(W, QUEUE_DESTROY, queue_destroy),
   DRM_IOCTL_ASAHI_SUBMIT = DRM_IOCTL_ASAHI(W, SUBMIT, submit),
};

#if defined(__cplusplus)
}
#endif

#endif /* ASAHI_DRM_H */
