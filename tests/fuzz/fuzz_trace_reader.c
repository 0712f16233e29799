/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target over the trace reader: open from memory, iterate every
 * record (which also applies state: binds, objects, memory), read memory
 * through the queues' VMs, the live state, seek, and verify. Any input must be rejected or
 * read without a crash, a leak or undefined behaviour.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   struct tsr_reader *r;
   char err[256];
   if (tsr_reader_open_mem(&r, data, size, err, sizeof(err)))
      return 0;
   struct tsr_record rec;
   uint8_t buf[256];
   unsigned n = 0;
   while (tsr_reader_next(r, &rec) > 0 && n++ < 100000) {
      if (rec.type == TSR_REC_SUBMIT) {
         uint32_t vm;
         uint64_t base;
         if (tsr_reader_queue(r, rec.file, rec.u.submit.queue_id, &vm, &base))
            tsr_reader_read_va(r, rec.file, vm, base, buf, sizeof(buf));
      } else if (rec.type == TSR_REC_MEMORY && rec.u.memory.num_pages) {
         tsr_reader_read_object(r, rec.file, rec.u.memory.handle,
                                rec.u.memory.first_page * TSR_PAGE_SIZE + 100, buf, sizeof(buf));
      }
   }
   /* The live state at the end, as `tessera trim` lists it. */
   struct tsr_state st;
   if (tsr_reader_state(r, &st) == 0) {
      struct tsr_hash h;
      for (uint32_t i = 0; i < st.num_objects && i < 64; i++)
         tsr_reader_object_page(r, st.objects[i].file, st.objects[i].create.handle, 0, &h);
      tsr_state_free(&st);
   }
   const struct tsr_info *in = tsr_reader_info(r);
   if (in->submits)
      tsr_reader_seek_submit(r, in->submits - 1);
   if (in->frames)
      tsr_reader_seek_frame(r, in->frames);
   tsr_reader_verify(r, NULL);
   /* The damage message is built from file contents: it must be a string. */
   volatile size_t len = 0;
   for (const char *p = tsr_reader_damage(r); *p; p++)
      len++;
   (void)len;
   tsr_reader_close(r);
   return 0;
}
