/* SPDX-License-Identifier: MIT */
/*
 * Fault and error reporting: one line on stderr per failed job, with the
 * decoded FAULT_INFO record, like the kernel's dev_err() on a GPU fault.
 */
#include <stdio.h>

#include "kernel/asahi_priv.h"

void
asahi_log_fault(struct asahi_dev *dev, const uint8_t *msg, const char *what,
                struct asahi_queue *q)
{
   if (dev->cfg.quiet)
      return;
   struct agx_fw_event_header h;
   agx_fw_event_header_unpack(msg, &h);
   struct agx_fw_event_fault e;
   agx_fw_event_fault_unpack(msg, &e);   /* first 8 words shared by all */
   unsigned qid = q ? q->id : 0;
   if (h.type == AGX_FW_EVENT_FAULT) {
      struct agx_fault_info fi;
      agx_fault_info_unpack(&e.fault_info, &fi);
      fprintf(stderr,
              "asahi: GPU fault: queue %u vm slot %u job %#x (%s): %s %s at 0x%llx, "
              "unit %s, level %u\n",
              qid, e.vm_slot, e.job_id, what, fi.read ? "read" : "write",
              agx_uat_fault_reason_as_str(fi.reason), (unsigned long long)e.address,
              agx_fault_unit_as_str(fi.unit), fi.level);
   } else if (h.type == AGX_FW_EVENT_TIMEOUT) {
      struct agx_fw_event_timeout t;
      agx_fw_event_timeout_unpack(msg, &t);
      fprintf(stderr, "asahi: GPU timeout: queue %u vm slot %u job %#x (%s) after %llu cycles\n",
              qid, t.vm_slot, t.job_id, what, (unsigned long long)t.cycles);
   } else {
      struct agx_fw_event_job_error j;
      agx_fw_event_job_error_unpack(msg, &j);
      /* This job's own message: the last error may be a later job's. */
      char why[192];
      if (!hw_device_job_error(dev->hw, j.job_id, why, sizeof(why)))
         snprintf(why, sizeof(why), "%s", hw_device_last_error(dev->hw));
      fprintf(stderr, "asahi: GPU job error: queue %u vm slot %u job %#x (%s): %s (%s)\n",
              qid, j.vm_slot, j.job_id, what, agx_fw_error_as_str(j.error), why);
   }
}
