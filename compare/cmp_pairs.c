/* SPDX-License-Identifier: MIT */
/*
 * Pairs image files from two files or two directory trees. Directories are
 * matched by relative path so a replay's dump directory can be compared
 * with a reference dump of the same trace; names are sorted so reports
 * and exit statuses do not depend on readdir order.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "compare/compare.h"

#define MAX_DEPTH 32

struct name_list {
   char **v;
   size_t n, cap;
};

static bool
push_name(struct name_list *l, const char *s)
{
   if (l->n == l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 32;
      char **v = realloc(l->v, cap * sizeof(*v));
      if (!v)
         return false;
      l->v = v;
      l->cap = cap;
   }
   l->v[l->n] = strdup(s);
   return l->v[l->n++] != NULL;
}

static void
free_names(struct name_list *l)
{
   for (size_t i = 0; i < l->n; i++)
      free(l->v[i]);
   free(l->v);
}

static bool
is_png_name(const char *s)
{
   size_t n = strlen(s);
   return n > 4 && !strcasecmp(s + n - 4, ".png");
}

static char *
join(const char *a, const char *b)
{
   size_t la = strlen(a), lb = strlen(b);
   char *s = malloc(la + lb + 2);
   if (!s)
      return NULL;
   memcpy(s, a, la);
   s[la] = '/';
   memcpy(s + la + 1, b, lb + 1);
   if (!*a)
      memmove(s, s + 1, lb + 1);
   return s;
}

static bool
walk(const char *root, const char *rel, unsigned depth, struct name_list *out,
     char *err)
{
   char *dir = *rel ? join(root, rel) : strdup(root);
   if (!dir) {
      snprintf(err, CMP_ERR_LEN, "out of memory");
      return false;
   }
   DIR *d = opendir(dir);
   if (!d) {
      snprintf(err, CMP_ERR_LEN, "cannot read directory '%s': %s", dir,
               strerror(errno));
      free(dir);
      return false;
   }
   bool ok = true;
   struct dirent *de;
   while (ok && (de = readdir(d))) {
      if (de->d_name[0] == '.')
         continue;
      char *sub = join(rel, de->d_name);
      char *full = sub ? join(root, sub) : NULL;
      struct stat st;
      if (!sub || !full) {
         snprintf(err, CMP_ERR_LEN, "out of memory");
         ok = false;
      } else if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
         if (depth < MAX_DEPTH)
            ok = walk(root, sub, depth + 1, out, err);
      } else if (is_png_name(de->d_name)) {
         ok = push_name(out, sub);
         if (!ok)
            snprintf(err, CMP_ERR_LEN, "out of memory");
      }
      free(sub);
      free(full);
   }
   closedir(d);
   free(dir);
   return ok;
}

static int
cmp_str(const void *a, const void *b)
{
   return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
push_pair(struct cmp_pair_list *l, const char *name, char *pa, char *pb)
{
   if (l->n == l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 16;
      struct cmp_pair *v = realloc(l->v, cap * sizeof(*v));
      if (!v) {
         free(pa);
         free(pb);
         return false;
      }
      l->v = v;
      l->cap = cap;
   }
   struct cmp_pair *p = &l->v[l->n++];
   p->name = strdup(name);
   p->path_a = pa;
   p->path_b = pb;
   return p->name != NULL;
}

bool
cmp_pairs_find(const char *a, const char *b, struct cmp_pair_list *out,
               char err[CMP_ERR_LEN])
{
   struct stat sa, sb;
   memset(out, 0, sizeof(*out));
   if (stat(a, &sa) != 0) {
      snprintf(err, CMP_ERR_LEN, "cannot open '%s': %s", a, strerror(errno));
      return false;
   }
   if (stat(b, &sb) != 0) {
      snprintf(err, CMP_ERR_LEN, "cannot open '%s': %s", b, strerror(errno));
      return false;
   }
   bool da = S_ISDIR(sa.st_mode), db = S_ISDIR(sb.st_mode);
   if (da != db) {
      snprintf(err, CMP_ERR_LEN,
               "'%s' is a %s but '%s' is not: give two files or two "
               "directories", da ? a : b, "directory", da ? b : a);
      return false;
   }
   if (!da) {
      const char *slash = strrchr(a, '/');
      if (!push_pair(out, slash ? slash + 1 : a, strdup(a), strdup(b)) ||
          !out->v[0].path_a || !out->v[0].path_b) {
         snprintf(err, CMP_ERR_LEN, "out of memory");
         cmp_pairs_free(out);
         return false;
      }
      return true;
   }

   struct name_list na = {0}, nb = {0};
   bool ok = walk(a, "", 0, &na, err) && walk(b, "", 0, &nb, err);
   if (ok) {
      /* An empty directory leaves a NULL list, which qsort must not see. */
      if (na.n > 1)
         qsort(na.v, na.n, sizeof(char *), cmp_str);
      if (nb.n > 1)
         qsort(nb.v, nb.n, sizeof(char *), cmp_str);
      size_t i = 0, j = 0;
      while (ok && (i < na.n || j < nb.n)) {
         int c = i == na.n ? 1 : j == nb.n ? -1 : strcmp(na.v[i], nb.v[j]);
         const char *name = c <= 0 ? na.v[i] : nb.v[j];
         char *pa = c <= 0 ? join(a, name) : NULL;
         char *pb = c >= 0 ? join(b, name) : NULL;
         ok = push_pair(out, name, pa, pb) && (c > 0 || pa) &&
              (c < 0 || pb);
         if (c <= 0)
            i++;
         if (c >= 0)
            j++;
      }
      if (!ok)
         snprintf(err, CMP_ERR_LEN, "out of memory");
      else if (out->n == 0) {
         snprintf(err, CMP_ERR_LEN, "no .png files in '%s' or '%s'", a, b);
         ok = false;
      }
   }
   free_names(&na);
   free_names(&nb);
   if (!ok)
      cmp_pairs_free(out);
   return ok;
}

void
cmp_pairs_free(struct cmp_pair_list *l)
{
   for (size_t i = 0; i < l->n; i++) {
      free(l->v[i].name);
      free(l->v[i].path_a);
      free(l->v[i].path_b);
   }
   free(l->v);
   memset(l, 0, sizeof(*l));
}

/* Width and height from a PNG's IHDR (bytes 16-23); false if not a PNG. */
static bool
png_size(const char *path, uint32_t *w, uint32_t *h)
{
   static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
   uint8_t b[24];
   FILE *f = fopen(path, "rb");
   if (!f)
      return false;
   bool ok = fread(b, 1, sizeof(b), f) == sizeof(b) && !memcmp(b, sig, 8) &&
             !memcmp(b + 12, "IHDR", 4);
   fclose(f);
   if (ok) {
      *w = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
      *h = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
   }
   return ok;
}

/* replay --dump-images names: fFFFF_sSSSSS_<kind>... */
static bool
is_frame_color(const char *name, unsigned frame)
{
   char pre[16];
   snprintf(pre, sizeof(pre), "f%04u_s", frame);
   size_t n = strlen(pre);
   return !strncmp(name, pre, n) && strstr(name + n, "_color") && is_png_name(name);
}

bool
cmp_pairs_swaps(const char *swaps, const char *live_dir, const char *replay_dir,
                struct cmp_pair_list *out, char err[CMP_ERR_LEN])
{
   memset(out, 0, sizeof(*out));
   FILE *f = fopen(swaps, "r");
   if (!f) {
      snprintf(err, CMP_ERR_LEN, "cannot open '%s': %s", swaps, strerror(errno));
      return false;
   }
   struct name_list replay = {0};
   bool ok = walk(replay_dir, "", MAX_DEPTH, &replay, err);
   if (ok && replay.n > 1)
      qsort(replay.v, replay.n, sizeof(char *), cmp_str);
   char line[256];
   unsigned frame = 0, lineno = 0, snaps = 0;
   while (ok && fgets(line, sizeof(line), f)) {
      lineno++;
      char *end;
      errno = 0;
      unsigned long long call = strtoull(line, &end, 10);
      while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
         end++;
      if (end == line || *end || errno || line[0] == '-') {
         snprintf(err, CMP_ERR_LEN, "%s:%u: not a call number: '%.40s'", swaps, lineno, line);
         ok = false;
         break;
      }
      char snap_name[32], name[32];
      snprintf(snap_name, sizeof(snap_name), "%010llu.png", call);
      snprintf(name, sizeof(name), "frame%04u.png", frame);
      char *snap = join(live_dir, snap_name);
      uint32_t w, h;
      if (!snap) {
         snprintf(err, CMP_ERR_LEN, "out of memory");
         ok = false;
      } else if (png_size(snap, &w, &h)) {
         snaps++;
         const char *best = NULL;
         for (size_t i = 0; i < replay.n; i++) {
            uint32_t rw, rh;
            if (!is_frame_color(replay.v[i], frame))
               continue;
            char *p = join(replay_dir, replay.v[i]);
            if (p && png_size(p, &rw, &rh) && rw == w && rh == h)
               best = replay.v[i];   /* sorted by S: the last one wins */
            free(p);
         }
         char *pb = best ? join(replay_dir, best) : NULL;
         ok = push_pair(out, name, snap, pb) && (!best || pb);
         snap = NULL;
         if (!ok)
            snprintf(err, CMP_ERR_LEN, "out of memory");
      }
      free(snap);
      frame++;
   }
   if (ok && ferror(f)) {
      snprintf(err, CMP_ERR_LEN, "cannot read '%s'", swaps);
      ok = false;
   }
   fclose(f);
   free_names(&replay);
   if (ok && !snaps) {
      snprintf(err, CMP_ERR_LEN, "no snapshot of the %u swap calls of '%s' in '%s'",
               frame, swaps, live_dir);
      ok = false;
   }
   if (!ok)
      cmp_pairs_free(out);
   return ok;
}
