/* SPDX-License-Identifier: MIT */
/*
 * --validate: the pages each submission changed (a snapshot of every object
 * before it, compared after it) wait as pending pages for the capture's
 * next recording of them; the bytes the submission wrote must read the
 * same there. A page rewritten before the capture recorded it, or never
 * recorded again, cannot be checked and is counted as unverifiable.
 */
#include <string.h>

#include "replay/replay_engine.h"

void
replay_snapshot_take(struct replay_engine *e, struct replay_snapshot *s)
{
   s->n = e->objs.n;
   s->data = calloc(s->n ? s->n : 1, sizeof(*s->data));
   for (unsigned i = 0; s->data && i < s->n; i++) {
      struct replay_obj *o = &e->objs.v[i];
      if (o->live && (s->data[i] = malloc(o->size)))
         memcpy(s->data[i], o->map, o->size);
   }
}

/* Timestamps are times, not results: they differ from run to run on real
 * hardware, so validation leaves timestamp objects out. */
static bool
is_timestamp_obj(struct replay_engine *e, unsigned obj)
{
   for (unsigned i = 0; i < e->tsobjs.n; i++)
      if (e->tsobjs.v[i].live && e->tsobjs.v[i].obj == (int)obj)
         return true;
   return false;
}

static int
find_pending(struct replay_engine *e, int obj, uint64_t offset)
{
   for (unsigned i = 0; i < e->pending.n; i++)
      if (e->pending.v[i].obj == obj && e->pending.v[i].offset == offset)
         return (int)i;
   return -1;
}

/* A pending page that will never be compared: the GPU wrote it again, or
 * its object went away, before the capture recorded it. */
static void
drop_pending(struct replay_engine *e, unsigned i, bool unverifiable)
{
   if (unverifiable)
      e->st.pages_unverifiable++;
   e->pending.v[i] = e->pending.v[--e->pending.n];
}

void
replay_drop_all_pending(struct replay_engine *e, int obj)
{
   for (unsigned i = e->pending.n; i-- > 0;)
      if (obj < 0 || e->pending.v[i].obj == obj)
         drop_pending(e, i, true);
}

void
replay_cpu_overwrite(struct replay_engine *e, const char *value)
{
   unsigned file, handle;
   unsigned long long off, size;
   if (sscanf(value, "%u %u %llu %llu", &file, &handle, &off, &size) != 4)
      return;   /* an unknown form: the pages stay pending and are compared */
   int obj = replay_find_obj(e, file, handle);
   if (obj < 0)
      return;
   for (unsigned i = e->pending.n; i-- > 0;)
      if (e->pending.v[i].obj == obj && e->pending.v[i].offset >= off &&
          e->pending.v[i].offset - off < size)
         drop_pending(e, i, true);
}

/* The pages submission `seq` changed join the pending list. A page still
 * pending from an earlier submission was rewritten before the capture
 * recorded it: the earlier result cannot be checked against this trace. */
void
replay_snapshot_diff(struct replay_engine *e, struct replay_snapshot *s, uint32_t seq)
{
   for (unsigned i = 0; s->data && i < s->n; i++) {
      struct replay_obj *o = &e->objs.v[i];
      if (!s->data[i] || !o->live || is_timestamp_obj(e, i))
         continue;
      for (uint64_t off = 0; off < o->size; off += TSR_PAGE_SIZE) {
         uint64_t n = o->size - off < TSR_PAGE_SIZE ? o->size - off : TSR_PAGE_SIZE;
         if (!memcmp(s->data[i] + off, o->map + off, n))
            continue;
         struct replay_pending_page *p = calloc(1, sizeof(*p));
         if (!p) {
            replay_fail(e, "out of memory");
            break;
         }
         p->obj = (int)i;
         p->offset = off;
         p->seq = seq;
         memcpy(p->before, s->data[i] + off, n);
         memcpy(p->data, o->map + off, n);
         int old = find_pending(e, (int)i, off);
         if (old >= 0) {
            e->st.pages_unverifiable++;
            e->pending.v[old] = *p;
         } else {
            REPLAY_VEC_PUSH(e->pending, *p);
         }
         free(p);
      }
   }
   for (unsigned i = 0; s->data && i < s->n; i++)
      free(s->data[i]);
   free(s->data);
}

/* Bytes --override-shader replaced differ from the capture on purpose. */
static bool
is_overridden(struct replay_engine *e, int obj, uint64_t offset)
{
   for (unsigned i = 0; i < e->overridden.n; i++) {
      const struct replay_obj_range *r = &e->overridden.v[i];
      if (r->obj == obj && offset >= r->offset && offset - r->offset < r->size)
         return true;
   }
   return false;
}

/* A memory record brings the first recording of page (obj, offset) since
 * the pending submission wrote it: the bytes that submission changed must
 * read the same in `want`. Other bytes may have been rewritten by the
 * program's CPU before the capture recorded the page. */
void
replay_validate_page(struct replay_engine *e, int obj, uint64_t offset, const uint8_t *want)
{
   int i = find_pending(e, obj, offset);
   if (i < 0)
      return;
   struct replay_pending_page *p = &e->pending.v[i];
   struct replay_obj *o = &e->objs.v[obj];
   uint64_t n = o->size - p->offset < TSR_PAGE_SIZE ? o->size - p->offset : TSR_PAGE_SIZE;
   e->st.pages_validated++;
   for (uint64_t k = 0; k < n && !e->difference_reported; k++) {
      if (p->before[k] == p->data[k] || want[k] == p->data[k] ||
          is_overridden(e, p->obj, p->offset + k))
         continue;
      fprintf(e->log,
              "tessera replay: validation: submission %u: GEM object %u offset 0x%llx: "
              "replay wrote 0x%02x, the capture recorded 0x%02x\n",
              p->seq, o->handle, (unsigned long long)(p->offset + k), p->data[k], want[k]);
      e->difference_reported = true;
      e->st.validated_ok = false;
      if (e->status == REPLAY_OK)
         e->status = REPLAY_DIFFERENT;
   }
   drop_pending(e, (unsigned)i, false);
}
