/* SPDX-License-Identifier: MIT */
/*
 * Fences and DRM sync objects. A fence is one point of completion (a
 * submission, or a stub signalled by userspace). A syncobj holds a binary
 * payload (one fence or none) and a timeline: ascending points, each with
 * its fence; a point counts as signalled once it and every earlier point
 * are, as with dma_fence_chain.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <drm.h>

#include "kernel/asahi_priv.h"

struct asahi_fence *
asahi_fence_create(void)
{
   struct asahi_fence *f = os_zalloc(sizeof(*f));
   if (f)
      f->refcnt = 1;
   return f;
}

struct asahi_fence *
asahi_fence_get(struct asahi_fence *f)
{
   if (f)
      f->refcnt++;
   return f;
}

void
asahi_fence_put(struct asahi_fence *f)
{
   if (!f || --f->refcnt)
      return;
   for (unsigned i = 0; i < f->ndeps; i++)
      asahi_fence_put(f->deps[i]);
   os_free(f->deps);
   os_free(f);
}

/* Settles the merged fences whose deps have all signalled (the list holds
 * one reference on each). */
static void
settle_merged(struct asahi_dev *dev)
{
   struct asahi_fence **pp = &dev->merged;
   while (*pp) {
      struct asahi_fence *m = *pp;
      unsigned i = 0;
      int error = 0;
      for (; i < m->ndeps && m->deps[i]->signaled; i++)
         error = error ? error : m->deps[i]->error;
      if (i < m->ndeps) {
         pp = &m->next_merged;
         continue;
      }
      *pp = m->next_merged;
      m->next_merged = NULL;
      m->error = m->error ? m->error : error;
      m->signaled = true;
      asahi_fence_put(m);
   }
}

void
asahi_fence_signal(struct asahi_dev *dev, struct asahi_fence *f, int error)
{
   if (f->signaled)
      return;
   f->error = error;
   f->signaled = true;
   settle_merged(dev);
   asahi_sync_files_notify(dev);
   os_cond_broadcast(&dev->fence_cv);
}

static bool
add_dep(struct asahi_fence ***deps, unsigned *n, unsigned *cap, struct asahi_fence *f)
{
   for (unsigned i = 0; i < *n; i++)
      if ((*deps)[i] == f)
         return true;
   if (*n == *cap) {
      unsigned ncap = *cap ? *cap * 2 : 4;
      struct asahi_fence **d = os_realloc_array(*deps, ncap, sizeof(*d));
      if (!d)
         return false;
      *deps = d;
      *cap = ncap;
   }
   (*deps)[(*n)++] = asahi_fence_get(f);
   return true;
}

struct asahi_fence *
asahi_fence_merge(struct asahi_dev *dev, struct asahi_fence *const *fences, unsigned n)
{
   struct asahi_fence **deps = NULL;
   unsigned ndeps = 0, cap = 0;
   int error = 0;
   bool ok = true;
   for (unsigned i = 0; i < n && ok; i++) {
      struct asahi_fence *f = fences[i];
      if (!f)
         continue;
      if (f->signaled) {
         error = error ? error : f->error;
      } else if (f->ndeps) {
         for (unsigned d = 0; d < f->ndeps && ok; d++)
            if (!f->deps[d]->signaled)
               ok = add_dep(&deps, &ndeps, &cap, f->deps[d]);
      } else {
         ok = add_dep(&deps, &ndeps, &cap, f);
      }
   }
   struct asahi_fence *m = NULL;
   if (ok && ndeps == 1 && !error) {
      m = asahi_fence_get(deps[0]);
   } else if (ok && (m = asahi_fence_create())) {
      if (ndeps) {
         m->deps = deps;
         m->ndeps = ndeps;
         deps = NULL;
         ndeps = 0;
         asahi_fence_get(m);   /* the pending list's reference */
         m->next_merged = dev->merged;
         dev->merged = m;
         /* an error already known is carried by a pending fence too: it
          * surfaces when the rest signals */
         if (error)
            m->error = error;
      } else {
         asahi_fence_signal(dev, m, error);
      }
   }
   for (unsigned i = 0; i < ndeps; i++)
      asahi_fence_put(deps[i]);
   os_free(deps);
   return m;
}

void
asahi_fence_fini_merged(struct asahi_dev *dev)
{
   while (dev->merged) {
      struct asahi_fence *m = dev->merged;
      dev->merged = m->next_merged;
      asahi_fence_put(m);
   }
}

static struct asahi_fence *
stub_fence(struct asahi_dev *dev)
{
   struct asahi_fence *f = asahi_fence_create();
   if (f)
      asahi_fence_signal(dev, f, 0);
   return f;
}

/* ------------------------------------------------------------- syncobjs */

struct asahi_syncobj *
asahi_syncobj_lookup(struct asahi_file *f, uint32_t h)
{
   return asahi_idr_find(&f->syncobjs, h);
}

static void
syncobj_clear_points(struct asahi_syncobj *s)
{
   for (unsigned i = 0; i < s->npts; i++)
      asahi_fence_put(s->pts[i].fence);
   s->npts = 0;
}

void
asahi_syncobj_put(struct asahi_dev *dev, struct asahi_syncobj *s)
{
   if (--s->refcnt)
      return;
   if (s->export_fd >= 0) {
      struct asahi_syncobj **pp = &dev->sync_exports;
      while (*pp && *pp != s)
         pp = &(*pp)->next_export;
      if (*pp)
         *pp = s->next_export;
      close(s->export_fd);
   }
   asahi_fence_put(s->fence);
   syncobj_clear_points(s);
   os_free(s->pts);
   os_free(s);
}

void
asahi_syncobj_replace(struct asahi_syncobj *s, struct asahi_fence *f)
{
   asahi_fence_put(s->fence);
   s->fence = asahi_fence_get(f);
}

/* Folds leading signalled points into the base. */
static void
syncobj_collapse(struct asahi_syncobj *s)
{
   unsigned n = 0;
   while (n < s->npts && s->pts[n].fence->signaled) {
      s->tl_base = s->pts[n].value;
      asahi_fence_put(s->pts[n].fence);
      n++;
   }
   if (n) {
      for (unsigned i = n; i < s->npts; i++)
         s->pts[i - n] = s->pts[i];
      s->npts -= n;
   }
}

int
asahi_syncobj_add_point(struct asahi_syncobj *s, uint64_t point, struct asahi_fence *f)
{
   if (point == 0) {
      asahi_syncobj_replace(s, f);
      return 0;
   }
   syncobj_collapse(s);
   if (s->npts == s->cap) {
      unsigned ncap = s->cap ? s->cap * 2 : 4;
      if (ncap > 65536)
         return -ENOMEM;
      struct asahi_point *n = os_realloc_array(s->pts, ncap, sizeof(*n));
      if (!n)
         return -ENOMEM;
      s->pts = n;
      s->cap = ncap;
   }
   /* Points should ascend; a lower one is inserted in order (DRM only
    * warns about it). Re-signalling an existing point replaces it. */
   unsigned i = s->npts;
   while (i > 0 && s->pts[i - 1].value > point)
      i--;
   if (i > 0 && s->pts[i - 1].value == point) {
      asahi_fence_put(s->pts[i - 1].fence);
      s->pts[i - 1].fence = asahi_fence_get(f);
      return 0;
   }
   for (unsigned j = s->npts; j > i; j--)
      s->pts[j] = s->pts[j - 1];
   s->pts[i] = (struct asahi_point){ point, asahi_fence_get(f) };
   s->npts++;
   /* the binary view of a timeline syncobj is its latest point */
   if (i == s->npts - 1)
      asahi_syncobj_replace(s, f);
   return 0;
}

/*
 * State of point `point`: 1 signalled, 0 pending (*out = the fence to wait
 * for, referenced), -ENOENT not submitted yet. Point 0 is the binary
 * payload.
 */
int
asahi_syncobj_find_fence(struct asahi_syncobj *s, uint64_t point, struct asahi_fence **out)
{
   *out = NULL;
   if (point == 0) {
      if (!s->fence)
         return -ENOENT;
      if (s->fence->signaled)
         return 1;
      *out = asahi_fence_get(s->fence);
      return 0;
   }
   syncobj_collapse(s);
   if (point <= s->tl_base)
      return 1;
   for (unsigned i = 0; i < s->npts; i++) {
      if (s->pts[i].value >= point) {
         /* Earlier unsignalled points gate it too (after a collapse,
          * pts[0] is unsignalled). Hand out the point's own fence, or the
          * first gating one once the point itself has signalled. */
         if (!s->pts[i].fence->signaled)
            *out = asahi_fence_get(s->pts[i].fence);
         else
            *out = asahi_fence_get(s->pts[0].fence);
         return 0;
      }
   }
   return -ENOENT;
}

static uint64_t
syncobj_query(struct asahi_syncobj *s, bool last_submitted)
{
   syncobj_collapse(s);
   if (last_submitted && s->npts)
      return s->pts[s->npts - 1].value;
   return s->tl_base;
}

int
asahi_debug_syncobj_error(struct asahi_file *f, uint32_t handle, uint64_t point)
{
   int ret = -ENOENT;
   os_mutex_lock(&f->dev->lock);
   struct asahi_syncobj *s = asahi_syncobj_lookup(f, handle);
   if (s) {
      struct asahi_fence *fence = NULL;
      if (point == 0) {
         fence = s->fence;
      } else {
         for (unsigned i = 0; i < s->npts; i++)
            if (s->pts[i].value == point)
               fence = s->pts[i].fence;
      }
      ret = fence && fence->signaled ? fence->error : 0;
   }
   os_mutex_unlock(&f->dev->lock);
   return ret;
}

void
asahi_file_release_syncobjs(struct asahi_file *f)
{
   uint32_t id = 0;
   struct asahi_syncobj *s;
   while ((s = asahi_idr_next(&f->syncobjs, &id)))
      asahi_syncobj_put(f->dev, s);
}

/* --------------------------------------------------------------- ioctls */

int
asahi_ioctl_syncobj_create(struct asahi_file *f, void *data)
{
   struct drm_syncobj_create *a = data;
   if (a->flags & ~(uint32_t)DRM_SYNCOBJ_CREATE_SIGNALED)
      return -EINVAL;
   struct asahi_dev *dev = f->dev;
   struct asahi_syncobj *s = os_zalloc(sizeof(*s));
   if (!s)
      return -ENOMEM;
   s->refcnt = 1;
   s->export_fd = -1;
   os_mutex_lock(&dev->lock);
   int ret = 0;
   if (a->flags & DRM_SYNCOBJ_CREATE_SIGNALED) {
      s->fence = stub_fence(dev);
      if (!s->fence)
         ret = -ENOMEM;
   }
   uint32_t h;
   if (!ret)
      ret = asahi_idr_alloc(&f->syncobjs, s, &h);
   if (ret)
      asahi_syncobj_put(dev, s);
   else
      a->handle = h;
   os_mutex_unlock(&dev->lock);
   return ret;
}

int
asahi_ioctl_syncobj_destroy(struct asahi_file *f, void *data)
{
   struct drm_syncobj_destroy *a = data;
   if (a->pad)
      return -EINVAL;
   os_mutex_lock(&f->dev->lock);
   struct asahi_syncobj *s = asahi_idr_remove(&f->syncobjs, a->handle);
   if (s)
      asahi_syncobj_put(f->dev, s);
   os_mutex_unlock(&f->dev->lock);
   return s ? 0 : -EINVAL;
}

/* The fence a sync-file export snapshots: the binary payload, or for a
 * timeline syncobj its latest point (what dma_fence_chain's head is); a
 * timeline whose points have all signalled gives a signalled stub. */
static struct asahi_fence *
syncobj_export_fence(struct asahi_dev *dev, struct asahi_syncobj *s)
{
   if (s->fence)
      return asahi_fence_get(s->fence);
   syncobj_collapse(s);
   if (s->npts)
      return asahi_fence_get(s->pts[s->npts - 1].fence);
   return s->tl_base ? stub_fence(dev) : NULL;
}

int
asahi_ioctl_syncobj_handle_to_fd(struct asahi_file *f, void *data)
{
   struct drm_syncobj_handle *a = data;
   if ((a->flags & ~(uint32_t)DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE) || a->pad)
      return -EINVAL;
   struct asahi_dev *dev = f->dev;
   os_mutex_lock(&dev->lock);
   int ret;
   struct asahi_syncobj *s = asahi_syncobj_lookup(f, a->handle);
   if (!s) {
      ret = -ENOENT;
   } else if (a->flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE) {
      /* As drm_syncobj_export_sync_file: no fence yet is EINVAL. */
      struct asahi_fence *fence = syncobj_export_fence(dev, s);
      ret = fence ? asahi_sync_file_export(dev, fence) : -EINVAL;
      asahi_fence_put(fence);
   } else {
      bool fresh = s->export_fd < 0;
      ret = asahi_export_fd(&s->export_fd, &s->export_ino, "asahi-syncobj", O_CLOEXEC);
      if (fresh && s->export_fd >= 0) {
         s->next_export = dev->sync_exports;
         dev->sync_exports = s;
      }
   }
   os_mutex_unlock(&dev->lock);
   if (ret < 0)
      return ret;
   a->fd = ret;
   return 0;
}

/* FD_TO_HANDLE with IMPORT_SYNC_FILE: the sync file's fence becomes the
 * binary payload of an existing syncobj (drm_syncobj_import_sync_file). */
static int
syncobj_import_sync_file(struct asahi_file *f, struct drm_syncobj_handle *a)
{
   struct asahi_dev *dev = f->dev;
   os_mutex_lock(&dev->lock);
   int ret = 0;
   struct asahi_syncobj *s = asahi_syncobj_lookup(f, a->handle);
   struct asahi_fence *fence = s ? asahi_sync_file_fence(dev, a->fd) : NULL;
   if (!s)
      ret = -ENOENT;
   else if (!fence)
      ret = -EINVAL;
   else
      asahi_syncobj_replace(s, fence);
   asahi_fence_put(fence);
   os_mutex_unlock(&dev->lock);
   return ret;
}

int
asahi_ioctl_syncobj_fd_to_handle(struct asahi_file *f, void *data)
{
   struct drm_syncobj_handle *a = data;
   if ((a->flags & ~(uint32_t)DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE) || a->pad)
      return -EINVAL;
   if (a->flags & DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE)
      return syncobj_import_sync_file(f, a);
   ino_t ino;
   int ret = asahi_fd_ino(a->fd, &ino);
   if (ret)
      return -EINVAL;
   struct asahi_dev *dev = f->dev;
   os_mutex_lock(&dev->lock);
   struct asahi_syncobj *s = dev->sync_exports;
   while (s && s->export_ino != ino)
      s = s->next_export;
   if (!s) {
      ret = -EINVAL;
   } else {
      uint32_t h;
      ret = asahi_idr_alloc(&f->syncobjs, s, &h);
      if (!ret) {
         s->refcnt++;
         a->handle = h;
      }
   }
   os_mutex_unlock(&dev->lock);
   return ret;
}

/* Copies a u32 handle array in and looks every syncobj up (referenced). */
static int
lookup_array(struct asahi_file *f, uint64_t uptr, uint32_t count,
             struct asahi_syncobj ***out)
{
   if (!count || count > 4096)
      return -EINVAL;
   uint32_t *h = os_zalloc_array(count, sizeof(*h));
   struct asahi_syncobj **s = os_zalloc_array(count, sizeof(*s));
   int ret = (!h || !s) ? -ENOMEM : os_copy_from_user(h, uptr, (size_t)count * 4);
   for (uint32_t i = 0; i < count && !ret; i++) {
      s[i] = asahi_syncobj_lookup(f, h[i]);
      if (!s[i])
         ret = -ENOENT;
   }
   if (!ret)
      for (uint32_t i = 0; i < count; i++)
         s[i]->refcnt++;
   os_free(h);
   if (ret) {
      os_free(s);
      return ret;
   }
   *out = s;
   return 0;
}

static void
put_array(struct asahi_dev *dev, struct asahi_syncobj **s, uint32_t count)
{
   for (uint32_t i = 0; i < count; i++)
      asahi_syncobj_put(dev, s[i]);
   os_free(s);
}

static int
copy_points(uint64_t uptr, uint32_t count, uint64_t **out)
{
   uint64_t *p = os_zalloc_array(count, sizeof(*p));
   if (!p)
      return -ENOMEM;
   int ret = uptr ? os_copy_from_user(p, uptr, (size_t)count * 8) : 0;
   if (ret) {
      os_free(p);
      return ret;
   }
   *out = p;
   return 0;
}

/*
 * drm_syncobj_array_wait(): the deadline is absolute CLOCK_MONOTONIC ns.
 * Without WAIT_FOR_SUBMIT, a point nobody has submitted yet is an error
 * (-EINVAL) rather than something to wait for.
 */
static int
wait_common(struct asahi_file *f, uint64_t handles, const uint64_t *points,
            uint32_t count, int64_t timeout_ns, uint32_t flags, uint32_t *first)
{
   const uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
                          DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
                          DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
   if (flags & ~known)
      return -EINVAL;
   struct asahi_dev *dev = f->dev;
   struct asahi_syncobj **s;
   os_mutex_lock(&dev->lock);
   int ret = lookup_array(f, handles, count, &s);
   if (ret) {
      os_mutex_unlock(&dev->lock);
      return ret;
   }
   uint64_t deadline = timeout_ns <= 0 ? 0 : (uint64_t)timeout_ns;
#ifdef TESSERA_FUZZING
   /* random absolute timeouts would stall the fuzzer for years */
   if (deadline > os_now_ns() + 10000000ull)
      deadline = os_now_ns() + 10000000ull;
#endif
   bool all = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
   bool for_submit = flags & (DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
                              DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE);
   bool available_only = flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
   for (;;) {
      uint32_t done = 0, first_done = UINT32_MAX;
      ret = 0;
      for (uint32_t i = 0; i < count; i++) {
         struct asahi_fence *fence;
         int st = asahi_syncobj_find_fence(s[i], points ? points[i] : 0, &fence);
         if (st == -ENOENT && !for_submit) {
            ret = -EINVAL;
            break;
         }
         bool ok = st == 1 || (st == 0 && available_only);
         asahi_fence_put(fence);
         if (ok) {
            done++;
            if (first_done == UINT32_MAX)
               first_done = i;
         }
      }
      if (ret)
         break;
      if (all ? done == count : done > 0) {
         *first = all ? 0 : first_done;
         break;
      }
      if (dev->stopping) {
         ret = -ENODEV;
         break;
      }
      if (os_now_ns() >= deadline) {
         ret = -ETIME;
         break;
      }
      os_cond_wait_until(&dev->fence_cv, &dev->lock, deadline);
   }
   put_array(dev, s, count);
   os_mutex_unlock(&dev->lock);
   return ret;
}

int
asahi_ioctl_syncobj_wait(struct asahi_file *f, void *data)
{
   struct drm_syncobj_wait *a = data;
   if (a->pad || (a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE))
      return -EINVAL;
   return wait_common(f, a->handles, NULL, a->count_handles, a->timeout_nsec,
                      a->flags, &a->first_signaled);
}

int
asahi_ioctl_syncobj_timeline_wait(struct asahi_file *f, void *data)
{
   struct drm_syncobj_timeline_wait *a = data;
   if (a->pad || !a->count_handles || a->count_handles > 4096)
      return -EINVAL;
   uint64_t *pts;
   int ret = copy_points(a->points, a->count_handles, &pts);
   if (ret)
      return ret;
   ret = wait_common(f, a->handles, pts, a->count_handles, a->timeout_nsec,
                     a->flags, &a->first_signaled);
   os_free(pts);
   return ret;
}

int
asahi_ioctl_syncobj_reset(struct asahi_file *f, void *data)
{
   struct drm_syncobj_array *a = data;
   if (a->pad)
      return -EINVAL;
   struct asahi_syncobj **s;
   os_mutex_lock(&f->dev->lock);
   int ret = lookup_array(f, a->handles, a->count_handles, &s);
   if (!ret) {
      for (uint32_t i = 0; i < a->count_handles; i++)
         asahi_syncobj_replace(s[i], NULL);
      put_array(f->dev, s, a->count_handles);
   }
   os_mutex_unlock(&f->dev->lock);
   return ret;
}

int
asahi_ioctl_syncobj_signal(struct asahi_file *f, void *data)
{
   struct drm_syncobj_array *a = data;
   if (a->pad)
      return -EINVAL;
   struct asahi_dev *dev = f->dev;
   struct asahi_syncobj **s;
   os_mutex_lock(&dev->lock);
   int ret = lookup_array(f, a->handles, a->count_handles, &s);
   if (!ret) {
      struct asahi_fence *stub = stub_fence(dev);
      if (!stub)
         ret = -ENOMEM;
      for (uint32_t i = 0; i < a->count_handles && stub; i++)
         asahi_syncobj_replace(s[i], stub);
      asahi_fence_put(stub);
      put_array(dev, s, a->count_handles);
   }
   os_mutex_unlock(&dev->lock);
   return ret;
}

int
asahi_ioctl_syncobj_timeline_signal(struct asahi_file *f, void *data)
{
   struct drm_syncobj_timeline_array *a = data;
   if (a->flags)
      return -EINVAL;
   if (!a->count_handles || a->count_handles > 4096)
      return -EINVAL;
   uint64_t *pts;
   int ret = copy_points(a->points, a->count_handles, &pts);
   if (ret)
      return ret;
   struct asahi_dev *dev = f->dev;
   struct asahi_syncobj **s;
   os_mutex_lock(&dev->lock);
   ret = lookup_array(f, a->handles, a->count_handles, &s);
   if (!ret) {
      struct asahi_fence *stub = stub_fence(dev);
      if (!stub)
         ret = -ENOMEM;
      for (uint32_t i = 0; i < a->count_handles && stub && !ret; i++)
         ret = asahi_syncobj_add_point(s[i], pts[i], stub);
      asahi_fence_put(stub);
      put_array(dev, s, a->count_handles);
   }
   os_mutex_unlock(&dev->lock);
   os_free(pts);
   return ret;
}

int
asahi_ioctl_syncobj_query(struct asahi_file *f, void *data)
{
   struct drm_syncobj_timeline_array *a = data;
   if (a->flags & ~(uint32_t)DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)
      return -EINVAL;
   if (!a->count_handles || a->count_handles > 4096)
      return -EINVAL;
   uint64_t *pts = os_zalloc_array(a->count_handles, sizeof(*pts));
   if (!pts)
      return -ENOMEM;
   struct asahi_dev *dev = f->dev;
   struct asahi_syncobj **s;
   os_mutex_lock(&dev->lock);
   int ret = lookup_array(f, a->handles, a->count_handles, &s);
   if (!ret) {
      for (uint32_t i = 0; i < a->count_handles; i++)
         pts[i] = syncobj_query(s[i], a->flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED);
      put_array(dev, s, a->count_handles);
   }
   os_mutex_unlock(&dev->lock);
   if (!ret)
      ret = os_copy_to_user(a->points, pts, (size_t)a->count_handles * 8);
   os_free(pts);
   return ret;
}

int
asahi_ioctl_syncobj_transfer(struct asahi_file *f, void *data)
{
   struct drm_syncobj_transfer *a = data;
   if (a->pad || (a->flags & ~(uint32_t)DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
      return -EINVAL;
   struct asahi_dev *dev = f->dev;
   os_mutex_lock(&dev->lock);
   int ret = 0;
   struct asahi_syncobj *src = asahi_syncobj_lookup(f, a->src_handle);
   struct asahi_syncobj *dst = asahi_syncobj_lookup(f, a->dst_handle);
   if (!src || !dst) {
      ret = -ENOENT;
      goto out;
   }
   struct asahi_fence *fence = NULL;
   int st = asahi_syncobj_find_fence(src, a->src_point, &fence);
   if (st == -ENOENT) {
      ret = -EINVAL;
      goto out;
   }
   if (st == 1) {
      fence = stub_fence(dev);
      if (!fence) {
         ret = -ENOMEM;
         goto out;
      }
   }
   if (a->dst_point)
      ret = asahi_syncobj_add_point(dst, a->dst_point, fence);
   else
      asahi_syncobj_replace(dst, fence);
   asahi_fence_put(fence);
out:
   os_mutex_unlock(&dev->lock);
   return ret;
}
