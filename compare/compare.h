/* SPDX-License-Identifier: MIT */
/*
 * compare: image and timing comparison for replay results.
 *
 * Contract
 *  - Images are decoded from PNG with libpng (8- or 16-bit, grey, grey+alpha,
 *    RGB, RGBA, palette) into RGBA with 16 bits per channel. Channel values
 *    keep the file's own scale: 0..255 for 8-bit files, 0..65535 for 16-bit
 *    ones. Two images of different bit depth are compared at 16 bits (8-bit
 *    values are scaled by 257, which maps 255 to 65535 exactly).
 *  - Metrics are computed over R, G, B, plus A when either image has an
 *    alpha channel (grey images have R = G = B, so their MSE is the grey
 *    MSE). SSIM is on luminance only (see cmp_image_compare).
 *  - Timing files are JSON (schema "tessera-timing/1", docs/compare.md),
 *    read with jansson.
 *  - Every function that can fail returns false / NULL and fills a
 *    caller-provided message buffer; nothing aborts on bad input.
 */
#ifndef TESSERA_COMPARE_H
#define TESSERA_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CMP_ERR_LEN 256

/* ---------------------------------------------------------------- images */

struct cmp_image {
   uint32_t width, height;
   unsigned depth;      /* 8 or 16: scale of the values in px */
   bool has_alpha;      /* the file had alpha (or tRNS) */
   bool is_grey;        /* the file had no colour */
   uint16_t *px;        /* width * height * 4, RGBA, row-major */
};

/* Largest image accepted, in pixels (keeps a hostile header from asking
 * for gigabytes before its data is read). */
#ifdef TESSERA_FUZZING
#define CMP_MAX_PIXELS (1u << 20)
#else
#define CMP_MAX_PIXELS (1u << 26)
#endif

bool cmp_png_decode(const uint8_t *data, size_t size, struct cmp_image *out,
                    char err[CMP_ERR_LEN]);
/* Reads the whole file (returned in *bytes if bytes != NULL, for embedding
 * in reports; free() it) and decodes it. */
bool cmp_png_load(const char *path, struct cmp_image *out, uint8_t **bytes,
                  size_t *nbytes, char err[CMP_ERR_LEN]);
void cmp_image_free(struct cmp_image *img);

/* Encodes 8-bit RGB pixels (w * h * 3 bytes) as PNG into a malloc'ed
 * buffer. Fast compression: diff pictures are large and mostly flat. */
bool cmp_png_encode_rgb8(const uint8_t *rgb, uint32_t w, uint32_t h,
                         uint8_t **png, size_t *size, char err[CMP_ERR_LEN]);
bool cmp_write_file(const char *path, const uint8_t *data, size_t size,
                    char err[CMP_ERR_LEN]);
/* Creates dir and its missing parents, like mkdir -p. */
bool cmp_mkdir_p(const char *dir, char err[CMP_ERR_LEN]);

struct cmp_image_thresholds {
   unsigned tolerance;       /* channel difference allowed per pixel */
   int64_t max_diff_pixels;  /* < 0: no limit */
   double max_diff_fraction; /* < 0: no limit */
   double min_psnr;          /* < 0: no limit (dB) */
   double min_ssim;          /* < -1: no limit */
   /* cmp_image_entry_run: alpha is taken as opaque on both sides before
    * comparing (RGB only: an RGBX target whose X the driver leaves
    * undefined, or a snapshot without --snapshot-alpha) */
   bool ignore_alpha;
};

void cmp_image_thresholds_default(struct cmp_image_thresholds *t);

struct cmp_image_result {
   bool size_mismatch;        /* nothing else is valid when set */
   unsigned depth;            /* scale the differences are in */
   unsigned channels;         /* 3 or 4 (RGB, or RGB + alpha) */
   unsigned max_diff;         /* largest channel difference */
   uint64_t diff_pixels;      /* pixels with a channel diff > tolerance */
   uint64_t total_pixels;
   double diff_fraction;
   bool has_bbox;             /* bbox of pixels above tolerance */
   uint32_t bbox_x0, bbox_y0, bbox_x1, bbox_y1; /* inclusive */
   double mse;                /* over the compared channels, own scale */
   double psnr;               /* dB; INFINITY when identical */
   double ssim;               /* 1 when identical */
   bool pass;
   char reason[CMP_ERR_LEN];  /* why it failed, empty when it passed */
};

/*
 * Compares a (reference) with b. SSIM: luminance Y = 0.299 R + 0.587 G +
 * 0.114 B scaled to [0, 1]; windows of 8x8 pixels at a stride of 4 that
 * lie fully inside the image, each giving
 *    (2 mx my + C1)(2 cxy + C2) / ((mx^2 + my^2 + C1)(vx + vy + C2))
 * with population (co)variances, C1 = 0.01^2, C2 = 0.03^2; the result is
 * the mean over windows. An image smaller than 8 in a dimension is one
 * window. Also applies the thresholds (result->pass, result->reason).
 */
void cmp_image_compare(const struct cmp_image *a, const struct cmp_image *b,
                       const struct cmp_image_thresholds *t,
                       struct cmp_image_result *r);

/* The diff picture: the reference dimmed to grey; pixels that differ by
 * more than the tolerance in red (brighter = larger difference), smaller
 * non-zero differences in dark yellow. Returns w*h*3 bytes (free()). */
uint8_t *cmp_image_diff_picture(const struct cmp_image *a,
                                const struct cmp_image *b,
                                unsigned tolerance);

/* A pair of image files to compare, found from two files or two
 * directories (matched by relative path, *.png, recursively). */
struct cmp_pair {
   char *name;       /* relative name ("" for a file pair) */
   char *path_a;     /* NULL when missing on that side */
   char *path_b;
};

struct cmp_pair_list {
   struct cmp_pair *v;
   size_t n, cap;
};

bool cmp_pairs_find(const char *a, const char *b, struct cmp_pair_list *out,
                    char err[CMP_ERR_LEN]);
void cmp_pairs_free(struct cmp_pair_list *l);

/* Pairs eglretrace's snapshots of a live run with `tessera replay
 * --dump-images` of its capture, frame by frame. `swaps` is a file with
 * one apitrace call number per line, the SwapBuffers calls in order (line
 * F+1 ends frame F; `apitrace dump` lists them), so frame F's snapshot is
 * live_dir/<call, 10 digits>.png. Its pair is the replay's colour target
 * of the same size written last in frame F (replay_dir/fFFFF_sSSSSS_
 * colorN*.png with the highest S): the back buffer eglretrace read. Pairs
 * are named frameFFFF.png; a frame without a snapshot is skipped (eglretrace
 * -S takes a subset), one without a replay target is a pair missing its
 * second image. Errors: unreadable files or directories, a malformed
 * swaps line, no snapshot at all. */
bool cmp_pairs_swaps(const char *swaps, const char *live_dir, const char *replay_dir,
                     struct cmp_pair_list *out, char err[CMP_ERR_LEN]);

/* One compared pair, as reports see it. */
struct cmp_image_entry {
   const char *name, *path_a, *path_b;
   bool error;                 /* could not compare: message in error_msg */
   char error_msg[CMP_ERR_LEN];
   uint32_t wa, ha, wb, hb;
   struct cmp_image_result res;
   /* PNG bytes for the HTML page (may be NULL) */
   uint8_t *png_a, *png_b, *png_diff;
   size_t png_a_size, png_b_size, png_diff_size;
};

/* Runs one pair: loads, compares, and when want_pngs keeps the file bytes
 * and encodes the diff picture. */
void cmp_image_entry_run(struct cmp_image_entry *e,
                         const struct cmp_image_thresholds *t, bool want_pngs);
void cmp_image_entry_free(struct cmp_image_entry *e);

/* 0 all pass, 1 some failed, 2 some could not be compared. */
int cmp_images_status(const struct cmp_image_entry *e, size_t n);

/* ---------------------------------------------------------------- stats */

/* Sorts a copy; q in [0, 1], linear interpolation between order
 * statistics (type 7, as R and numpy use by default). */
double cmp_quantile_sorted(const double *sorted, size_t n, double q);
double cmp_median(const double *x, size_t n);
double cmp_mad(const double *x, size_t n);  /* median |x - median|, unscaled */
double cmp_iqr(const double *x, size_t n);

struct cmp_mwu {
   double u;       /* U statistic of the first sample */
   double z;       /* normal approximation, continuity- and tie-corrected */
   double p;       /* two-sided */
};

void cmp_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                      struct cmp_mwu *out);

/* Percentile bootstrap of median(b) / median(a); deterministic for a seed.
 * level e.g. 0.95. Returns false if a median of a resample is 0. */
bool cmp_bootstrap_ratio(const double *a, size_t na, const double *b,
                         size_t nb, unsigned iters, uint64_t seed,
                         double level, double *lo, double *hi);

/* ---------------------------------------------------------------- timing */

struct cmp_timing_frame {
   int64_t id;        /* "frame" number */
   double *gpu, *cpu; /* one sample per run (ns); NAN if a run lacks it */
};

struct cmp_timing_file {
   char *meta_json;              /* "meta" object re-serialised, or NULL */
   size_t nruns;
   double *run_gpu, *run_cpu;    /* per-run totals (sum over frames) */
   size_t nframes;
   struct cmp_timing_frame *frames; /* sorted by id */
};

bool cmp_timing_parse(const char *text, size_t len,
                      struct cmp_timing_file *out, char err[CMP_ERR_LEN]);
bool cmp_timing_load(const char *path, struct cmp_timing_file *out,
                     char err[CMP_ERR_LEN]);
void cmp_timing_free(struct cmp_timing_file *f);

enum cmp_verdict {
   CMP_NO_CHANGE,
   CMP_FASTER,
   CMP_SLOWER,
   CMP_TOO_FEW,      /* not enough runs to judge */
};

const char *cmp_verdict_name(enum cmp_verdict v);

struct cmp_timing_opts {
   bool use_cpu;          /* compare CPU time instead of GPU time */
   double alpha;          /* significance level of the rank test */
   double min_effect;     /* relative change that matters, e.g. 0.02 */
   unsigned bootstrap;    /* resamples */
   uint64_t seed;
   double level;          /* confidence level of the interval */
};

void cmp_timing_opts_default(struct cmp_timing_opts *o);

struct cmp_timing_stat {
   int64_t id;             /* frame id, -1 for the per-run totals */
   size_t na, nb;
   double med_a, med_b, iqr_a, iqr_b, mad_a, mad_b;
   double ratio;           /* med_b / med_a */
   double ci_lo, ci_hi;
   struct cmp_mwu mwu;
   enum cmp_verdict verdict;
   const double *sa, *sb;  /* the samples (NAN-free copies) */
};

struct cmp_timing_result {
   struct cmp_timing_stat total;
   size_t nframes;
   struct cmp_timing_stat *frames;
   size_t only_a, only_b;  /* frames present on one side only */
   double *store;          /* backing for the sample copies */
};

/* Judges one pair of samples: a verdict other than no-change needs
 * p < alpha, the whole confidence interval of the ratio on one side of 1,
 * and |ratio - 1| >= min_effect. Noise alone therefore never gives
 * "slower". */
void cmp_timing_judge(const double *a, size_t na, const double *b, size_t nb,
                      const struct cmp_timing_opts *o,
                      struct cmp_timing_stat *s);

bool cmp_timing_compare(const struct cmp_timing_file *a,
                        const struct cmp_timing_file *b,
                        const struct cmp_timing_opts *o,
                        struct cmp_timing_result *r, char err[CMP_ERR_LEN]);
void cmp_timing_result_free(struct cmp_timing_result *r);

/* ---------------------------------------------------------------- reports */

struct cmp_image_thresholds;

void cmp_report_images_text(FILE *fp, const struct cmp_image_entry *e,
                            size_t n, const struct cmp_image_thresholds *t);
/* Returns a malloc'ed JSON document. */
char *cmp_report_images_json(const struct cmp_image_entry *e, size_t n,
                             const struct cmp_image_thresholds *t);
void cmp_report_timing_text(FILE *fp, const struct cmp_timing_result *r,
                            const struct cmp_timing_opts *o);
char *cmp_report_timing_json(const struct cmp_timing_result *r,
                             const struct cmp_timing_opts *o,
                             const char *path_a, const char *path_b);

/* Writes dir/index.html (creating dir); one page, images as data: URIs. */
bool cmp_html_images(const char *dir, const struct cmp_image_entry *e,
                     size_t n, const struct cmp_image_thresholds *t,
                     char err[CMP_ERR_LEN]);
bool cmp_html_timing(const char *dir, const struct cmp_timing_result *r,
                     const struct cmp_timing_opts *o, const char *path_a,
                     const char *path_b, char err[CMP_ERR_LEN]);


/* --------------------------------------------------------------- profiles */

/* A `tessera profile --json` document (schema "tessera-profile/1",
 * docs/profiling.md), reduced to what `compare profile` needs. Counters
 * are kept by name, in the file's meta.counters order. */
struct cmp_prof_entry {
   int64_t index;            /* draw / dispatch index in its pass; -1 overhead */
   uint64_t vs, fs;          /* shader VAs (compute: vs = kernel); 0 none */
   uint64_t *c;              /* one per counter */
};

struct cmp_prof_pass {
   int64_t index;
   bool compute;
   uint32_t width, height;
   uint64_t *total;          /* the pass's counters */
   struct cmp_prof_entry overhead;
   size_t n;
   struct cmp_prof_entry *e; /* draws or dispatches, in order */
};

struct cmp_prof_frame {
   int64_t frame;
   uint64_t *total;
   size_t npasses;
   struct cmp_prof_pass *passes;
};

struct cmp_prof_file {
   size_t ncounters;
   char **names;
   size_t nframes;
   struct cmp_prof_frame *frames;   /* in the file's order */
};

/* Parse/load: false with a message on anything but a well-formed
 * tessera-profile/1 document (every counter object must hold every
 * counter of meta.counters as a non-negative integer). */
bool cmp_prof_parse(const char *text, size_t len, struct cmp_prof_file *out,
                    char err[CMP_ERR_LEN]);
bool cmp_prof_load(const char *path, struct cmp_prof_file *out,
                   char err[CMP_ERR_LEN]);
void cmp_prof_free(struct cmp_prof_file *f);

/* Verdicts of a profile comparison. Profiles are modelled and exactly
 * reproducible (one "run" per side, no noise), so there is no test to
 * make: a change is exact, and it is called slower/faster when it is at
 * least min_effect of A's value; "no change" only when identical. */
enum cmp_prof_verdict {
   CMP_PROF_SAME,        /* identical */
   CMP_PROF_SMALL,       /* changed by less than min_effect */
   CMP_PROF_FASTER,
   CMP_PROF_SLOWER,
};
const char *cmp_prof_verdict_name(enum cmp_prof_verdict v);
enum cmp_prof_verdict cmp_prof_judge(uint64_t a, uint64_t b, double min_effect);

/* One matched (or unmatched) draw/dispatch/overhead. ea or eb is NULL for
 * an entry present on one side only. Counter indices are the result's. */
struct cmp_prof_dentry {
   const struct cmp_prof_entry *ea, *eb;
   enum cmp_prof_verdict verdict;   /* on cycles */
};

struct cmp_prof_dpass {
   const struct cmp_prof_pass *pa, *pb;   /* one NULL: pass on one side only */
   enum cmp_prof_verdict verdict;
   struct cmp_prof_dentry overhead;
   size_t n;
   struct cmp_prof_dentry *d;             /* matched and unmatched, in order */
};

struct cmp_prof_dframe {
   const struct cmp_prof_frame *fa, *fb;
   enum cmp_prof_verdict verdict;
   size_t npasses;
   struct cmp_prof_dpass *passes;
};

struct cmp_prof_result {
   double min_effect;
   size_t ncounters;
   char *const *names;         /* the counter names (A's = B's) */
   uint64_t *total_a, *total_b;
   enum cmp_prof_verdict verdict;
   size_t nframes;
   struct cmp_prof_dframe *frames;
   size_t added, removed;      /* unmatched draws/dispatches (and passes' ones) */
};

/* Compares B with A. Frames must be the same set (else false: "frames
 * differ"); passes are matched in order while their kinds agree; within a
 * pair of passes draws are matched by order and shader identity: a
 * longest common subsequence over the keys (vs, fs), where fs 0 (no
 * primitive reached a tile) matches any fs. Counters are compared by name
 * (both files must list the same counters in the same order, else false).
 * The result borrows a and b. */
bool cmp_prof_compare(const struct cmp_prof_file *a, const struct cmp_prof_file *b,
                      double min_effect, struct cmp_prof_result *r,
                      char err[CMP_ERR_LEN]);
void cmp_prof_result_free(struct cmp_prof_result *r);

/* Reports: text lists frames, passes, the changed draws, the `top`
 * largest cycle changes either way and the unmatched draws; JSON
 * (schema "tessera-compare-profile/1") holds every pair and counter;
 * HTML is one self-contained page (no script). */
void cmp_report_profile_text(FILE *fp, const struct cmp_prof_result *r, unsigned top,
                             const char *path_a, const char *path_b);
char *cmp_report_profile_json(const struct cmp_prof_result *r, unsigned top,
                              const char *path_a, const char *path_b);
bool cmp_html_profile(const char *dir, const struct cmp_prof_result *r, unsigned top,
                      const char *path_a, const char *path_b, char err[CMP_ERR_LEN]);

/* The `top` matched draws/dispatches whose cycles grew most (sign > 0) or
 * shrank most (sign < 0), largest change first; ties: earlier first.
 * Returns a malloc'ed array of *n references (NULL when none). */
struct cmp_prof_ref { size_t frame, pass, draw; int64_t delta; };
struct cmp_prof_ref *cmp_prof_top(const struct cmp_prof_result *r, unsigned top, int sign,
                                  size_t *n);

/* ----------------------------------------------------------- trace report */

/* The page of `tessera report` (cli/cmd_report.c gathers the data from the
 * trace library and a replay; this only lays it out). Strings are plain
 * text (escaped here); NULL strings are left out. */
struct cmp_trace_frame {
   int64_t id;            /* trace frame number */
   const char *image;     /* back buffer PNG, relative to the page; NULL: none */
   double gpu_ns, cpu_ns; /* replay times; NAN: not measured */
};

struct cmp_trace_shader {
   const char *title;     /* one line: address, size, stage, hash, first use */
   const char *text;      /* the disassembly */
};

struct cmp_trace_page {
   const char *trace;     /* the trace's name as given */
   const char *info;      /* what `tessera info` prints */
   const char *replay_cmd;  /* command lines to replay the trace */
   const char *replay_note; /* replay problems (NULL: none) */
   size_t nframes;
   const struct cmp_trace_frame *frames;
   size_t nshaders;
   const struct cmp_trace_shader *shaders;
};

/* Writes dir/index.html (creating dir): one page with no script and no
 * remote resource; thumbnails are <img> links to the PNGs named in
 * frames[], which must lie inside dir for the directory to stay
 * self-contained. */
bool cmp_html_trace(const char *dir, const struct cmp_trace_page *p,
                    char err[CMP_ERR_LEN]);

#endif
