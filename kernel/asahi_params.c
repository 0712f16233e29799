/* SPDX-License-Identifier: MIT */
/*
 * GET_PARAMS and GET_TIME: what the device is, from the model's identity
 * registers and the firmware clock.
 */
#include <errno.h>
#include <string.h>

#include "kernel/asahi_priv.h"

int
asahi_ioctl_get_params(struct asahi_file *f, void *data)
{
   struct drm_asahi_get_params *a = data;
   if (a->param_group != 0 || a->pad)
      return -EINVAL;
   const struct hw_device_info *hi = hw_device_info(f->dev->hw);
   struct drm_asahi_params_global p;
   memset(&p, 0, sizeof(p));
   p.features = hw_device_soft_faults(f->dev->hw) ? DRM_ASAHI_FEATURE_SOFT_FAULTS : 0;
   p.gpu_generation = hi->generation;
   p.gpu_variant = hi->variant;
   p.gpu_revision = hi->revision;
   p.chip_id = hi->chip_id;
   p.num_dies = hi->num_dies;
   p.num_clusters_total = hi->num_clusters;
   p.num_cores_per_cluster = hi->num_cores_per_cluster;
   p.max_frequency_khz = hi->max_frequency_khz;
   for (uint32_t c = 0; c < hi->num_clusters && c < DRM_ASAHI_MAX_CLUSTERS; c++)
      p.core_masks[c] = hi->core_mask;
   p.vm_start = ASAHI_VM_START;
   p.vm_end = ASAHI_VM_END;
   p.vm_kernel_min_size = ASAHI_VM_KERNEL_MIN_SIZE;
   p.max_commands_per_submission = ASAHI_MAX_COMMANDS;
   p.max_attachments = ASAHI_MAX_ATTACHMENTS;
   p.command_timestamp_frequency_hz = hi->timestamp_frequency_hz;
   /* Older userspace may know a shorter struct: give it its prefix. */
   size_t n = a->size < sizeof(p) ? (size_t)a->size : sizeof(p);
   return os_copy_to_user(a->pointer, &p, n);
}

int
asahi_ioctl_get_time(struct asahi_file *f, void *data)
{
   struct drm_asahi_get_time *a = data;
   if (a->flags)
      return -EINVAL;
   a->gpu_timestamp = hw_device_gpu_time_ns(f->dev->hw);
   return 0;
}
