/* SPDX-License-Identifier: MIT */
/*
 * The USC native path: runs of straight-line ALU records translated once
 * per shader into host code through LLVM's ORC LLJIT (LLVM-C API).
 *
 * One function per run, void f(uint32_t r[128][32], const uint32_t *u,
 * uint32_t exec, const struct hw_usc_simd *s): each record becomes <32 x i32> / <32 x float> vector
 * operations on the SIMD group's register rows, written back under the
 * exec mask by a select.  Registers a run touches are loaded once and
 * stored once (exec cannot change inside a run: only control-flow records
 * write it).  Every translated op mirrors the interpreter's helpers in
 * hw_usc_exec.c bit for bit (FTZ on fp32 sources and results, canonical
 * NaN, .sat, abs/neg as sign-bit operations); anything else stays in the
 * interpreter, which remains the reference (docs/usc.md).
 *
 * Built only with TESSERA_HAVE_LLVM; the interpreter reaches this file
 * through weak references (hw_usc_internal.h), so a program linking
 * libhwusc.a without LLVM (Mesa's compiler test) simply has no native path.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hw/usc/hw_usc_internal.h"
#include "tessera/float_bits.h"

#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/blake3.h>
#include <llvm/Config/llvm-config.h>   /* LLVM_VERSION_STRING (plain #defines) */

/* ---- the process-wide JIT ---------------------------------------------- */

#define SR_SYMBOL "tessera_usc_read_sr"

static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;
static LLVMOrcLLJITRef jit;
static LLVMTargetMachineRef tm;    /* compiles runs to object files */
static char *tm_triple, *tm_cpu, *tm_features;
/* The host converts float to half in hardware (F16C, every x86-64 with
 * AVX2): f64_to_f16 then rounds through it instead of integer vector
 * code (f64_to_f16_hw). */
static bool host_f16c;
static bool jit_failed;
static unsigned jit_serial;        /* unique temporary file names */
static unsigned jit_users;         /* live shaders holding JIT code */
static int native_mode = -1;       /* TESSERA_USC_NATIVE: 0 off, 1 hot shaders,
                                      2 every shader at its first launch */
static int native_verbose;
/* Set at exit: no more compiles.  A render worker can reach the hot
 * threshold while the process exits (the frames are done, the threads
 * still drain), and the compile thread can take a job queued on the last
 * frames then; compiling after libLLVM's statics were destroyed crashed
 * (SIGSEGV in SelectionDAG type legalization, a capture of
 * glmark2-es2-build on asahi; free() of an invalid pointer in
 * PassRegistry::registerPass under LLVMInitializeX86Target, piglit with
 * the compile thread) or looped there holding jit_lock, which the
 * shim's destructor then waited for (a hang at exit).
 *
 * exit() runs its handlers in the reverse order of their registration,
 * so a handler registered before the plugin was loaded (piglit's
 * teardown, which destroys the GL context) runs after libLLVM's static
 * destructors, which libLLVM's constructors registered when the plugin
 * was dlopen'ed.  jit_at_exit is therefore registered by the plugin's own
 * constructor (jit_hook_exit), which runs right after libLLVM's (a
 * dependency): it runs before any of their destructors, waits for a
 * compile under way, and stops later ones.  It used to be registered
 * only after the first compile, which left that first compile open. */
static bool jit_exiting;

static void
jit_at_exit(void)
{
   pthread_mutex_lock(&jit_lock);   /* waits for a compile under way */
   jit_exiting = true;
   pthread_mutex_unlock(&jit_lock);
}

/* Builds a code generation pipeline once, on an empty module, with a
 * target machine of its own.  That makes the only statics LLVM constructs
 * lazily on our compiles (SDNode::getValueTypeList's tables, from the
 * SelectionDAG constructor; found by breaking on __cxa_atexit over
 * test_hw_usc_native and a piglit run), whose destructors are registered
 * right then.  Made on the first compile instead, during exit() (the
 * compile thread taking a job while piglit tears down), they were
 * destroyed under that compile before the guard below could stop it: a
 * segfault in EVT::isExtendedVector or "Invalid size request on a
 * scalable vector" in the DAG combiner. */
static void
jit_warm(void)
{
   if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
      return;   /* jit_init_locked reports it */
   char *triple = LLVMGetDefaultTargetTriple();
   LLVMTargetRef target;
   char *msg = NULL;
   if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
      LLVMDisposeMessage(msg);
      LLVMDisposeMessage(triple);
      return;
   }
   LLVMTargetMachineRef wtm = LLVMCreateTargetMachine(target, triple, "", "",
                                                      LLVMCodeGenLevelDefault,
                                                      LLVMRelocDefault,
                                                      LLVMCodeModelJITDefault);
   if (wtm) {
      LLVMContextRef ctx = LLVMContextCreate();
      LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("usc_warm", ctx);
      LLVMSetTarget(mod, triple);
      LLVMMemoryBufferRef mb = NULL;
      if (LLVMTargetMachineEmitToMemoryBuffer(wtm, mod, LLVMObjectFile, &msg, &mb))
         LLVMDisposeMessage(msg);
      else
         LLVMDisposeMemoryBuffer(mb);
      LLVMDisposeModule(mod);
      LLVMContextDispose(ctx);
      LLVMDisposeTargetMachine(wtm);
   }
   LLVMDisposeMessage(triple);
}

/* The plugin's constructor runs after libLLVM's (a dependency): the
 * guard registered here runs at exit before the destructors of all of
 * libLLVM's statics, the lazy ones included (jit_warm). */
__attribute__((constructor)) static void
jit_hook_exit(void)
{
   jit_warm();
   atexit(jit_at_exit);
}

/* Compile statistics (TESSERA_USC_NATIVE_STATS=1 prints them at exit);
 * compile time is the compiling thread's CPU time. */
static uint64_t stat_shaders, stat_runs, stat_records, stat_ns, stat_sharing;
static struct usc_native_cache_counts cache_counts;
/* ALU/IMUL records left to the interpreter, by enum usc_op (and, for
 * float ops, by a 16-bit destination): what to translate next. */
static uint64_t stat_left[U_HOOK + 1][2];

static const char *const op_names[U_HOOK + 1] = {
   [U_MOV_IMM] = "mov_imm", [U_GET_SR] = "get_sr", [U_IADD] = "iadd", [U_IMADD] = "imadd",
   [U_CONVERT] = "convert", [U_BFI] = "bfi", [U_BFEIL] = "bfeil", [U_EXTR] = "extr",
   [U_SHLHI] = "shlhi", [U_SHRHI] = "shrhi", [U_ASR] = "asr", [U_ASRH] = "asrh",
   [U_BITOP] = "bitop", [U_BITREV] = "bitrev", [U_POPCOUNT] = "popcount", [U_FFS] = "ffs",
   [U_INTL] = "intl", [U_FMADD32] = "fmadd32", [U_FADD32] = "fadd32", [U_FMUL32] = "fmul32",
   [U_FMADD16] = "fmadd16", [U_FADD16] = "fadd16", [U_FMUL16] = "fmul16",
   [U_FUNARY] = "funary", [U_ICMPSEL] = "icmpsel", [U_FCMPSEL] = "fcmpsel",
   [U_BALLOT] = "ballot",
};

static void
print_stats(void)
{
   /* Registered after jit_at_exit, so it runs first: a background compile
    * under way would otherwise finish (and be counted) after the figures
    * were printed, and a short program (piglit) showed none at all. */
   jit_at_exit();
   if (stat_shaders)
      fprintf(stderr, "usc native: %llu shaders, %llu runs, %llu records, "
              "%.3f ms CPU compiling (%.3f ms per shader); %llu more shaders "
              "share that code (same code bytes)\n",
              (unsigned long long)stat_shaders, (unsigned long long)stat_runs,
              (unsigned long long)stat_records, stat_ns / 1e6,
              stat_ns / 1e6 / (double)stat_shaders, (unsigned long long)stat_sharing);
   if (cache_counts.hits + cache_counts.stored + cache_counts.rejected + cache_counts.unwritable)
      fprintf(stderr, "usc native cache: %llu loaded, %llu stored, %llu rejected, "
              "%llu not stored (unwritable)\n",
              (unsigned long long)cache_counts.hits, (unsigned long long)cache_counts.stored,
              (unsigned long long)cache_counts.rejected,
              (unsigned long long)cache_counts.unwritable);
   for (unsigned op = 0; op <= U_HOOK; op++)
      for (unsigned h = 0; h < 2; h++)
         if (stat_left[op][h])
            fprintf(stderr, "usc native:   left to the interpreter: %s%s x%llu\n",
                    op_names[op] ? op_names[op] : "?", h ? " (16-bit dst)" : "",
                    (unsigned long long)stat_left[op][h]);
}

/* Called with jit_lock held. */
static int
mode_locked(void)
{
   if (native_mode < 0) {
      const char *e = getenv("TESSERA_USC_NATIVE");
      int m = HW_USC_NATIVE_DEFAULT;
      if (e && *e) {
         if (!strcmp(e, "0"))
            m = 0;
         else if (!strcmp(e, "1"))
            m = 1;
         else if (!strcmp(e, "2"))
            m = 2;
         else
            fprintf(stderr, "tessera: TESSERA_USC_NATIVE=%s is not 0, 1 or 2; "
                    "using the default (%d)\n", e, m);
      }
      const char *v = getenv("TESSERA_USC_NATIVE_STATS");
      native_verbose = v && !strcmp(v, "1");
      if (native_verbose)
         atexit(print_stats);
      __atomic_store_n(&native_mode, m, __ATOMIC_RELEASE);
   }
   return native_mode;
}

static int
current_mode(void)
{
   int m = __atomic_load_n(&native_mode, __ATOMIC_ACQUIRE);
   if (m < 0) {
      pthread_mutex_lock(&jit_lock);
      m = mode_locked();
      pthread_mutex_unlock(&jit_lock);
   }
   return m;
}

static void
report_error(const char *what, LLVMErrorRef e)
{
   char *m = LLVMGetErrorMessage(e);
   fprintf(stderr, "tessera: usc native: %s: %s; using the interpreter\n", what, m);
   LLVMDisposeErrorMessage(m);
}

static bool
jit_init_locked(void)
{
   if (jit)
      return true;
   if (jit_failed)
      return false;
   jit_failed = true;
   if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter())
      return false;
   LLVMOrcJITTargetMachineBuilderRef jtmb;
   LLVMErrorRef e = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
   if (e) {
      report_error("detecting the host", e);
      return false;
   }
   LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
   LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(b, jtmb);
   e = LLVMOrcCreateLLJIT(&jit, b);
   if (e) {
      jit = NULL;
      report_error("creating the JIT", e);
      return false;
   }
   /* libm/libgcc helpers codegen may call (fmaf without host FMA) */
   LLVMOrcDefinitionGeneratorRef gen;
   e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
   if (e) {
      report_error("process symbols", e);
      LLVMOrcDisposeLLJIT(jit);
      jit = NULL;
      return false;
   }
   LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit), gen);
   /* usc_read_sr, which the code calls for the registers it does not
    * compute itself, by name (an executable does not export it to dlsym) */
   LLVMOrcCSymbolMapPair sr = {
      .Name = LLVMOrcLLJITMangleAndIntern(jit, SR_SYMBOL),
      .Sym = { .Address = (LLVMOrcExecutorAddress)(uintptr_t)&usc_read_sr,
               .Flags = { .GenericFlags = LLVMJITSymbolGenericFlagsExported |
                                          LLVMJITSymbolGenericFlagsCallable } },
   };
   e = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), LLVMOrcAbsoluteSymbols(&sr, 1));
   if (e) {
      report_error("defining usc_read_sr", e);
      LLVMOrcDisposeLLJIT(jit);
      jit = NULL;
      return false;
   }
   /* Code is compiled to an object file by our own target machine, set up
    * as the JIT's would be (host triple, CPU and features, default
    * optimisation, the JIT code model), so that the same bytes can go to
    * the disk cache and into the JIT (LLVMOrcLLJITAddObjectFile). */
   tm_triple = LLVMGetDefaultTargetTriple();
   tm_cpu = LLVMGetHostCPUName();
   tm_features = LLVMGetHostCPUFeatures();
   host_f16c = tm_features && strstr(tm_features, "+f16c");
   LLVMTargetRef target;
   char *msg = NULL;
   if (LLVMGetTargetFromTriple(tm_triple, &target, &msg)) {
      fprintf(stderr, "tessera: usc native: no target for %s: %s; using the interpreter\n",
              tm_triple, msg ? msg : "?");
      LLVMDisposeMessage(msg);
      LLVMOrcDisposeLLJIT(jit);
      jit = NULL;
      return false;
   }
   tm = LLVMCreateTargetMachine(target, tm_triple, tm_cpu, tm_features, LLVMCodeGenLevelDefault,
                                LLVMRelocDefault, LLVMCodeModelJITDefault);
   if (!tm) {
      fprintf(stderr, "tessera: usc native: no target machine; using the interpreter\n");
      LLVMOrcDisposeLLJIT(jit);
      jit = NULL;
      return false;
   }
   jit_failed = false;
   return true;
}

/* ---- the on-disk cache of compiled code ---------------------------------
 *
 * Like Mesa's shader disk cache for llvmpipe: the object file of a
 * shader's runs is kept under a key that names everything its bytes
 * depend on, so a later process loads it (LLVMOrcLLJITAddObjectFile)
 * instead of running LLVM's code generator (5-30 ms a shader).
 * Key: BLAKE3 of a format constant, USC_NATIVE_TRANSLATOR (bump it when
 * the meaning of the runs' metadata or the function signature changes;
 * changes of the generated IR change the key by themselves), LLVM's
 * version, the host triple, CPU and features, and the module's bitcode.
 * A file: struct cache_header then the object; a file whose magic, key,
 * length or checksum (BLAKE3 of the object) does not match is ignored
 * with a one-line warning and replaced by a fresh compile.  Written to a
 * temporary name and renamed, so readers never see a partial file.  A
 * directory that cannot be made or written only costs the compile. */

#define USC_NATIVE_TRANSLATOR 1u
#define CACHE_FORMAT 1u
static const char cache_magic[8] = { 'T', 'S', 'U', 'S', 'C', 'N', 'O', '\0' };

struct cache_header {
   char magic[8];
   uint32_t format, translator;
   uint8_t key[32];
   uint64_t length;        /* bytes of object after the header */
   uint8_t checksum[32];   /* BLAKE3 of those bytes */
};

static char *cache_dir;       /* NULL: disabled */
static bool cache_dir_set;

static void
cache_dir_locked(void)
{
   if (cache_dir_set)
      return;
   cache_dir_set = true;
   const char *e = getenv("TESSERA_USC_NATIVE_CACHE");
   char buf[4096];
   if (e) {
      if (!*e || !strcmp(e, "0"))
         return;
      snprintf(buf, sizeof(buf), "%s", e);
   } else {
      const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
      if (x && *x == '/')
         snprintf(buf, sizeof(buf), "%s/tessera/usc-native", x);
      else if (h && *h)
         snprintf(buf, sizeof(buf), "%s/.cache/tessera/usc-native", h);
      else
         return;
   }
   cache_dir = strdup(buf);
}

static void
cache_path(char *out, size_t size, const uint8_t key[32])
{
   int o = snprintf(out, size, "%s/", cache_dir);
   for (unsigned i = 0; i < 32 && o > 0 && (size_t)o + 3 < size; i++)
      o += snprintf(out + o, size - (size_t)o, "%02x", key[i]);
}

/* The cached object of `key`, or NULL (absent, or rejected with a
 * warning). */
static LLVMMemoryBufferRef
cache_load_locked(const uint8_t key[32])
{
   if (!cache_dir)
      return NULL;
   char path[4352];
   cache_path(path, sizeof(path), key);
   int fd = open(path, O_RDONLY | O_CLOEXEC);
   if (fd < 0)
      return NULL;
   const char *bad = NULL;
   struct stat st;
   struct cache_header h;
   uint8_t *obj = NULL;
   if (fstat(fd, &st) || st.st_size < (off_t)sizeof(h) ||
       read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
      bad = "truncated header";
   else if (memcmp(h.magic, cache_magic, sizeof(cache_magic)) || h.format != CACHE_FORMAT ||
            h.translator != USC_NATIVE_TRANSLATOR)
      bad = "not a cache file of this version";
   else if (memcmp(h.key, key, 32))
      bad = "key mismatch";
   else if (h.length == 0 || h.length != (uint64_t)st.st_size - sizeof(h))
      bad = "length mismatch";
   else if (!(obj = malloc(h.length)))
      bad = "out of memory";
   else {
      size_t got = 0;
      while (got < h.length) {
         ssize_t r = read(fd, obj + got, h.length - got);
         if (r <= 0)
            break;
         got += (size_t)r;
      }
      uint8_t sum[32];
      llvm_blake3_hasher b3;
      llvm_blake3_hasher_init(&b3);
      llvm_blake3_hasher_update(&b3, obj, got);
      llvm_blake3_hasher_finalize(&b3, sum, sizeof(sum));
      if (got != h.length)
         bad = "truncated";
      else if (memcmp(sum, h.checksum, sizeof(sum)))
         bad = "checksum mismatch";
   }
   close(fd);
   if (bad) {
      fprintf(stderr, "tessera: usc native cache: ignoring %s (%s); compiling again\n", path, bad);
      cache_counts.rejected++;
      free(obj);
      return NULL;
   }
   LLVMMemoryBufferRef mb =
      LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)obj, h.length, "usc-cached");
   free(obj);
   return mb;
}

static bool
write_all(int fd, const void *p, size_t n)
{
   while (n) {
      ssize_t w = write(fd, p, n);
      if (w <= 0)
         return false;
      p = (const char *)p + w;
      n -= (size_t)w;
   }
   return true;
}

/* mkdir -p of the cache directory. */
static void
make_dirs(const char *dir)
{
   char p[4096];
   snprintf(p, sizeof(p), "%s", dir);
   for (char *c = p + 1; *c; c++) {
      if (*c == '/') {
         *c = '\0';
         mkdir(p, 0755);
         *c = '/';
      }
   }
   mkdir(p, 0755);
}

static void
cache_store_locked(const uint8_t key[32], LLVMMemoryBufferRef mb)
{
   if (!cache_dir)
      return;
   struct cache_header h = { .format = CACHE_FORMAT, .translator = USC_NATIVE_TRANSLATOR };
   memcpy(h.magic, cache_magic, sizeof(h.magic));
   memcpy(h.key, key, 32);
   const void *obj = LLVMGetBufferStart(mb);
   h.length = LLVMGetBufferSize(mb);
   llvm_blake3_hasher b3;
   llvm_blake3_hasher_init(&b3);
   llvm_blake3_hasher_update(&b3, obj, h.length);
   llvm_blake3_hasher_finalize(&b3, h.checksum, sizeof(h.checksum));
   char path[4352], tmp[4416];
   cache_path(path, sizeof(path), key);
   snprintf(tmp, sizeof(tmp), "%s.tmp.%ld.%u", path, (long)getpid(), jit_serial++);
   int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
   if (fd < 0 && errno == ENOENT) {
      make_dirs(cache_dir);
      fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
   }
   if (fd < 0) {
      cache_counts.unwritable++;
      return;
   }
   bool ok = write_all(fd, &h, sizeof(h)) && write_all(fd, obj, h.length);
   ok = !close(fd) && ok;
   if (ok && !rename(tmp, path)) {
      cache_counts.stored++;
   } else {
      unlink(tmp);
      cache_counts.unwritable++;
   }
}

/* Loaded objects, by key: shaders whose IR is the same (private entries,
 * or code bytes that differ only outside the runs) share one, as its
 * symbols can be defined only once in the JIT. */
struct jit_obj {
   uint8_t key[32];
   unsigned refs;
   LLVMOrcResourceTrackerRef rt;
   struct jit_obj *next;
};
static struct jit_obj *jit_objs;

static void
jit_obj_put_locked(struct jit_obj *o)
{
   if (--o->refs)
      return;
   struct jit_obj **pp = &jit_objs;
   while (*pp != o)
      pp = &(*pp)->next;
   *pp = o->next;
   LLVMErrorRef err = LLVMOrcResourceTrackerRemove(o->rt);
   if (err)
      LLVMConsumeError(err);
   LLVMOrcReleaseResourceTracker(o->rt);
   free(o);
}

void
usc_native_set_cache_dir(const char *dir)
{
   pthread_mutex_lock(&jit_lock);
   free(cache_dir);
   cache_dir = dir && *dir ? strdup(dir) : NULL;
   cache_dir_set = true;
   pthread_mutex_unlock(&jit_lock);
}

struct usc_native_cache_counts
usc_native_cache_get_counts(void)
{
   pthread_mutex_lock(&jit_lock);
   struct usc_native_cache_counts c = cache_counts;
   pthread_mutex_unlock(&jit_lock);
   return c;
}

/* ---- IR building ------------------------------------------------------- */

struct nb {
   LLVMContextRef ctx;
   LLVMModuleRef mod;
   LLVMBuilderRef b;
   LLVMTypeRef i1, i32, i64, f32, f64, v32i32, v32i64, v32f32, v32f64, vptr, i32ptr;
   LLVMValueRef fn, rarg, uarg, sarg, exarg, exmask;
   LLVMValueRef fma_fn, fma64_fn, fabs_fn, ctpop_fn, trunc_fn, rint_fn;
   LLVMTypeRef fma_ty, fma64_ty, fabs_ty, ctpop_ty, trunc_ty, rint_ty, sr_ty;
   LLVMValueRef sr_buf;   /* the run's <32 x i32> scratch for usc_read_sr */
   LLVMValueRef cur[HW_USC_NUM_GPRS];
   bool dirty[HW_USC_NUM_GPRS];
   LLVMValueRef uni[HW_USC_NUM_UNIFORMS];
};

static LLVMValueRef
ci32(struct nb *n, uint32_t v)
{
   return LLVMConstInt(n->i32, v, false);
}

static LLVMValueRef
splat_const(struct nb *n, uint32_t v)
{
   LLVMValueRef e[USC_W];
   for (unsigned l = 0; l < USC_W; l++)
      e[l] = ci32(n, v);
   return LLVMConstVector(e, USC_W);
}

static LLVMValueRef
fsplat_const(struct nb *n, uint32_t bits)
{
   return LLVMConstBitCast(splat_const(n, bits), n->v32f32);
}

static LLVMValueRef
splat(struct nb *n, LLVMValueRef scalar)
{
   LLVMValueRef v = LLVMBuildInsertElement(n->b, LLVMGetUndef(n->v32i32), scalar,
                                           ci32(n, 0), "");
   return LLVMBuildShuffleVector(n->b, v, LLVMGetUndef(n->v32i32),
                                 LLVMConstNull(LLVMVectorType(n->i32, USC_W)), "");
}

static LLVMValueRef
reg_ptr(struct nb *n, unsigned reg)
{
   LLVMValueRef off = ci32(n, (reg & 127) * USC_W);
   LLVMValueRef p = LLVMBuildGEP2(n->b, n->i32, n->rarg, &off, 1, "");
   return LLVMBuildPointerCast(n->b, p, n->vptr, "");
}

static LLVMValueRef
get_reg(struct nb *n, unsigned reg)
{
   reg &= 127;
   if (!n->cur[reg]) {
      LLVMValueRef ld = LLVMBuildLoad2(n->b, n->v32i32, reg_ptr(n, reg), "");
      LLVMSetAlignment(ld, 4);
      n->cur[reg] = ld;
   }
   return n->cur[reg];
}

static void
set_reg(struct nb *n, unsigned reg, LLVMValueRef v)
{
   reg &= 127;
   n->cur[reg] = v;
   n->dirty[reg] = true;
}

static LLVMValueRef
get_uni(struct nb *n, unsigned u)
{
   u &= 255;
   if (!n->uni[u]) {
      LLVMValueRef off = ci32(n, u);
      LLVMValueRef p = LLVMBuildGEP2(n->b, n->i32, n->uarg, &off, 1, "");
      LLVMValueRef ld = LLVMBuildLoad2(n->b, n->i32, p, "");
      LLVMSetAlignment(ld, 4);
      n->uni[u] = ld;
   }
   return n->uni[u];
}

/* Sources a run can read: no 64-bit forms. */
static bool
src_ok(const struct usc_src *s)
{
   switch (s->kind) {
   case SRC_IMM: case SRC_FIMM: case SRC_R16: case SRC_R32: case SRC_U16: case SRC_U32:
      return true;
   default:
      return false;
   }
}

static unsigned
src_bits32(const struct usc_src *s)
{
   return s->kind == SRC_R32 || s->kind == SRC_U32 ? 32 : 16;
}

/* rd_raw(), truncated to the low 32 bits. */
static LLVMValueRef
raw32(struct nb *n, const struct usc_src *s)
{
   switch (s->kind) {
   case SRC_IMM: case SRC_FIMM:
      return splat_const(n, s->imm);
   case SRC_R32:
      return get_reg(n, s->idx);
   case SRC_R16: {
      LLVMValueRef v = get_reg(n, (s->idx >> 1) & 127);
      if (s->idx & 1)
         v = LLVMBuildLShr(n->b, v, splat_const(n, 16), "");
      return LLVMBuildAnd(n->b, v, splat_const(n, 0xffff), "");
   }
   case SRC_U32:
      return splat(n, get_uni(n, s->idx));
   default: {   /* SRC_U16 */
      LLVMValueRef v = get_uni(n, (s->idx >> 1) & 255);
      if (s->idx & 1)
         v = LLVMBuildLShr(n->b, v, ci32(n, 16), "");
      return splat(n, LLVMBuildAnd(n->b, v, ci32(n, 0xffff), ""));
   }
   }
}

/* rd_int(), low 32 bits: a 16-bit register/uniform source sign-extends
 * with .sx (32-bit sources are their own low 32 bits either way). */
static LLVMValueRef
int32_src(struct nb *n, const struct usc_src *s, bool sx)
{
   LLVMValueRef v = raw32(n, s);
   if (sx && s->kind != SRC_IMM && src_bits32(s) == 16) {
      v = LLVMBuildShl(n->b, v, splat_const(n, 16), "");
      v = LLVMBuildAShr(n->b, v, splat_const(n, 16), "");
   }
   return v;
}

/* rd_int() as 64-bit lanes, for compares. */
static LLVMValueRef
int64_src(struct nb *n, const struct usc_src *s, bool sx)
{
   bool x = sx && s->kind != SRC_IMM;
   LLVMValueRef v = int32_src(n, s, x);
   if (x)
      return LLVMBuildSExt(n->b, v, n->v32i64, "");
   return LLVMBuildZExt(n->b, v, n->v32i64, "");
}

static LLVMValueRef
sel(struct nb *n, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b)
{
   return LLVMBuildSelect(n->b, c, a, b, "");
}

static LLVMValueRef
ieq(struct nb *n, LLVMValueRef a, uint32_t c)
{
   return LLVMBuildICmp(n->b, LLVMIntEQ, a, splat_const(n, c), "");
}

/* hw_usc_f16_to_f32 over the lanes, as f32 bits (exact). */
static LLVMValueRef
half_to_f32_bits(struct nb *n, LLVMValueRef h)
{
   if (host_f16c) {
      /* vcvtph2ps: exact for every half, denormals included (they are
       * float normals); only a NaN differs, quieted by the conversion,
       * where hw_usc_f16_to_f32 keeps the payload as it is. */
      LLVMTypeRef v32i16 = LLVMVectorType(LLVMInt16TypeInContext(n->ctx), USC_W);
      LLVMTypeRef v32f16 = LLVMVectorType(LLVMHalfTypeInContext(n->ctx), USC_W);
      LLVMValueRef f = LLVMBuildFPExt(
         n->b, LLVMBuildBitCast(n->b, LLVMBuildTrunc(n->b, h, v32i16, ""), v32f16, ""),
         n->v32f32, "");
      LLVMValueRef nan = LLVMBuildICmp(n->b, LLVMIntUGT,
                                       LLVMBuildAnd(n->b, h, splat_const(n, 0x7fff), ""),
                                       splat_const(n, 0x7c00), "");
      LLVMValueRef nanbits = LLVMBuildOr(
         n->b,
         LLVMBuildOr(n->b,
                     LLVMBuildShl(n->b, LLVMBuildAnd(n->b, h, splat_const(n, 0x8000), ""),
                                  splat_const(n, 16), ""),
                     splat_const(n, 0x7f800000u), ""),
         LLVMBuildShl(n->b, LLVMBuildAnd(n->b, h, splat_const(n, 0x3ff), ""),
                      splat_const(n, 13), ""), "");
      return sel(n, nan, nanbits, LLVMBuildBitCast(n->b, f, n->v32i32, ""));
   }
   LLVMValueRef sign = LLVMBuildShl(n->b, LLVMBuildAnd(n->b, h, splat_const(n, 0x8000), ""),
                                    splat_const(n, 16), "");
   LLVMValueRef e = LLVMBuildAnd(n->b, LLVMBuildLShr(n->b, h, splat_const(n, 10), ""),
                                 splat_const(n, 0x1f), "");
   LLVMValueRef m = LLVMBuildAnd(n->b, h, splat_const(n, 0x3ff), "");
   LLVMValueRef m13 = LLVMBuildShl(n->b, m, splat_const(n, 13), "");
   LLVMValueRef infnan = LLVMBuildOr(n->b, LLVMBuildOr(n->b, sign, splat_const(n, 0x7f800000u), ""),
                                     m13, "");
   LLVMValueRef normal = LLVMBuildOr(
      n->b, LLVMBuildOr(n->b, sign,
                        LLVMBuildShl(n->b, LLVMBuildAdd(n->b, e, splat_const(n, 112), ""),
                                     splat_const(n, 23), ""), ""), m13, "");
   /* denormal: m * 2^-24 is exact in float; then the sign */
   LLVMValueRef df = LLVMBuildFMul(n->b, LLVMBuildUIToFP(n->b, m, n->v32f32, ""),
                                   fsplat_const(n, 0x33800000u /* 2^-24 */), "");
   LLVMValueRef den = LLVMBuildOr(n->b, LLVMBuildBitCast(n->b, df, n->v32i32, ""), sign, "");
   return sel(n, ieq(n, e, 31), infnan, sel(n, ieq(n, e, 0), den, normal));
}

/* rd_float() as f32 bits: fp32 flushed, fp16 exact, minifloat as is,
 * then abs / neg on the sign bit (what fabsf and negation do). */
static LLVMValueRef
f32_src_bits(struct nb *n, const struct usc_src *s)
{
   LLVMValueRef v;
   switch (s->kind) {
   case SRC_R32: case SRC_U32: {
      v = raw32(n, s);
      LLVMValueRef e = LLVMBuildAnd(n->b, v, splat_const(n, 0x7f800000u), "");
      v = sel(n, ieq(n, e, 0), LLVMBuildAnd(n->b, v, splat_const(n, 0x80000000u), ""), v);
      break;
   }
   case SRC_FIMM:
      v = splat_const(n, s->imm);
      break;
   case SRC_IMM:
      v = splat_const(n, tessera_fui(hw_usc_f16_to_f32((uint16_t)s->imm)));
      break;
   default:   /* SRC_R16, SRC_U16 */
      v = half_to_f32_bits(n, raw32(n, s));
      break;
   }
   if (s->flags & SRCF_ABS)
      v = LLVMBuildAnd(n->b, v, splat_const(n, 0x7fffffffu), "");
   if (s->flags & SRCF_NEG)
      v = LLVMBuildXor(n->b, v, splat_const(n, 0x80000000u), "");
   return v;
}

static LLVMValueRef
f32_src(struct nb *n, const struct usc_src *s)
{
   return LLVMBuildBitCast(n->b, f32_src_bits(n, s), n->v32f32, "");
}

/* usc_store_f32(r, sat) of an f32 result, as bits. */
static LLVMValueRef
f32_result(struct nb *n, LLVMValueRef r, bool sat)
{
   LLVMValueRef b = LLVMBuildBitCast(n->b, r, n->v32i32, "");
   LLVMValueRef e = LLVMBuildAnd(n->b, b, splat_const(n, 0x7f800000u), "");
   LLVMValueRef nan = LLVMBuildAnd(
      n->b, ieq(n, e, 0x7f800000u),
      LLVMBuildICmp(n->b, LLVMIntNE, LLVMBuildAnd(n->b, b, splat_const(n, 0x007fffffu), ""),
                    splat_const(n, 0), ""), "");
   LLVMValueRef v = sel(n, ieq(n, e, 0), LLVMBuildAnd(n->b, b, splat_const(n, 0x80000000u), ""), b);
   if (!sat)
      return sel(n, nan, splat_const(n, 0x7fc00000u), v);
   /* applegpu's saturate: NaN, negatives and -0 -> +0, above 1 -> 1 */
   v = sel(n, LLVMBuildICmp(n->b, LLVMIntSLT, v, splat_const(n, 0), ""), splat_const(n, 0), v);
   v = sel(n, LLVMBuildICmp(n->b, LLVMIntUGT, v, splat_const(n, 0x3f800000u), ""),
           splat_const(n, 0x3f800000u), v);
   return sel(n, nan, splat_const(n, 0), v);
}

/* wr_lanes() for 16- and 32-bit destinations: v holds the value in its
 * low bits; inactive lanes keep theirs. */
static void
write_dst(struct nb *n, const struct usc_dst *d, LLVMValueRef v)
{
   if (d->size == 32) {
      set_reg(n, d->idx, sel(n, n->exmask, v, get_reg(n, d->idx)));
      return;
   }
   unsigned reg = (d->idx >> 1) & 127, sh = (d->idx & 1) * 16;
   LLVMValueRef old = get_reg(n, reg);
   LLVMValueRef nv = LLVMBuildOr(
      n->b, LLVMBuildAnd(n->b, old, splat_const(n, ~(0xffffu << sh)), ""),
      LLVMBuildAnd(n->b, sh ? LLVMBuildShl(n->b, v, splat_const(n, sh), "") : v,
                   splat_const(n, 0xffffu << sh), ""), "");
   set_reg(n, reg, sel(n, n->exmask, nv, old));
}

static LLVMValueRef
fcmp_lanes(struct nb *n, unsigned cc, LLVMValueRef a, LLVMValueRef b)
{
   LLVMValueRef r;
   switch (cc & 7) {
   case 0: r = LLVMBuildFCmp(n->b, LLVMRealOEQ, a, b, ""); break;
   case 1: r = LLVMBuildFCmp(n->b, LLVMRealOLT, a, b, ""); break;
   case 2: r = LLVMBuildFCmp(n->b, LLVMRealOGT, a, b, ""); break;
   case 3: case 7:   /* NaN loses: !isnan(a) && (isnan(b) || a <> b) */
      r = LLVMBuildAnd(
         n->b, LLVMBuildFCmp(n->b, LLVMRealORD, a, a, ""),
         LLVMBuildOr(n->b, LLVMBuildFCmp(n->b, LLVMRealUNO, b, b, ""),
                     LLVMBuildFCmp(n->b, (cc & 7) == 3 ? LLVMRealOLT : LLVMRealOGT, a, b, ""),
                     ""), "");
      break;
   case 5: r = LLVMBuildFCmp(n->b, LLVMRealOGE, a, b, ""); break;
   case 6: r = LLVMBuildFCmp(n->b, LLVMRealOLE, a, b, ""); break;
   default: r = LLVMConstNull(LLVMVectorType(n->i1, USC_W)); break;
   }
   if (cc & 8)
      r = LLVMBuildNot(n->b, r, "");
   return r;
}

static LLVMValueRef
icmp_lanes(struct nb *n, unsigned cc, LLVMValueRef a, LLVMValueRef b)
{
   LLVMValueRef r = LLVMBuildICmp(n->b, (cc & 3) == 0 ? LLVMIntEQ :
                                        (cc & 3) == 1 ? LLVMIntSLT : LLVMIntSGT, a, b, "");
   if (cc & 8)
      r = LLVMBuildNot(n->b, r, "");
   return r;
}


static LLVMValueRef
splat64_const(struct nb *n, uint64_t v)
{
   LLVMValueRef e[USC_W];
   for (unsigned l = 0; l < USC_W; l++)
      e[l] = LLVMConstInt(n->i64, v, false);
   return LLVMConstVector(e, USC_W);
}

static LLVMValueRef
q_and(struct nb *n, LLVMValueRef a, uint64_t c)
{
   return LLVMBuildAnd(n->b, a, splat64_const(n, c), "");
}

/* q + (rem > half || (rem == half && (q & 1))): nearest even. */
static LLVMValueRef
round_even(struct nb *n, LLVMValueRef q, LLVMValueRef rem, LLVMValueRef half)
{
   LLVMValueRef up = LLVMBuildOr(
      n->b, LLVMBuildICmp(n->b, LLVMIntUGT, rem, half, ""),
      LLVMBuildAnd(n->b, LLVMBuildICmp(n->b, LLVMIntEQ, rem, half, ""),
                   LLVMBuildICmp(n->b, LLVMIntNE, q_and(n, q, 1), splat64_const(n, 0), ""),
                   ""), "");
   return LLVMBuildAdd(n->b, q, LLVMBuildZExt(n->b, up, n->v32i64, ""), "");
}

/*
 * tessera_f64_to_f16(d, false) through the host's conversions: d rounded
 * to float *to odd* (the nearest-even conversion, stepped toward zero when
 * it went away from zero, then the last bit set when it was inexact),
 * then to half to nearest even (vcvtps2ph).  Rounding to odd at a
 * precision of at least p + 2 bits followed by one rounding to nearest at
 * p bits is the single rounding to nearest of the original value (Boldo
 * and Melquiond, "Emulation of FMA and correctly rounded sums: proved
 * algorithms using rounding to odd"; float's 24 bits against half's 11,
 * also where half is denormal, whose precision is lower still), so this
 * is bit for bit what the integer code below computes for every double,
 * with a tenth of the instructions: those were most of the code of
 * Mesa asahi's fp16 fragment shaders (glmark2 pulsar's held ~3700
 * instructions).  Doubles below float's range become float denormals or
 * zero (still rounded to odd: zero or the smallest denormal), which
 * half rounds to a signed zero either way; beyond float's range the
 * conversion gives infinity, stepped back to FLT_MAX, which half rounds
 * to infinity as d itself does.  NaN gives 0x7e00 as tessera_f64_to_f16.
 * Hosts without F16C keep the integer code; tests/unit/test_hw_usc_native.c
 * (test_f16_rounding) holds both to the interpreter's rounding.
 */
static LLVMValueRef
f64_to_f16_hw(struct nb *n, LLVMValueRef d)
{
   LLVMBuilderRef b = n->b;
   LLVMTypeRef v32f16 = LLVMVectorType(LLVMHalfTypeInContext(n->ctx), USC_W);
   LLVMTypeRef v32i16 = LLVMVectorType(LLVMInt16TypeInContext(n->ctx), USC_W);
   LLVMValueRef t = LLVMBuildFPTrunc(b, d, n->v32f32, "");
   LLVMValueRef back = LLVMBuildFPExt(b, t, n->v32f64, "");
   /* ordered: false for NaN, which the select below handles */
   LLVMValueRef inexact = LLVMBuildFCmp(b, LLVMRealONE, back, d, "");
   LLVMValueRef away = LLVMBuildFCmp(
      b, LLVMRealOGT, LLVMBuildCall2(b, n->fabs_ty, n->fabs_fn, &back, 1, ""),
      LLVMBuildCall2(b, n->fabs_ty, n->fabs_fn, &d, 1, ""), "");
   LLVMValueRef tb = LLVMBuildBitCast(b, t, n->v32i32, "");
   /* sign and magnitude: one less in the bits is one ulp toward zero */
   tb = LLVMBuildSub(b, tb, LLVMBuildZExt(b, away, n->v32i32, ""), "");
   tb = LLVMBuildOr(b, tb, LLVMBuildZExt(b, inexact, n->v32i32, ""), "");
   LLVMValueRef h = LLVMBuildFPTrunc(b, LLVMBuildBitCast(b, tb, n->v32f32, ""), v32f16, "");
   LLVMValueRef r = LLVMBuildZExt(b, LLVMBuildBitCast(b, h, v32i16, ""), n->v32i32, "");
   return sel(n, LLVMBuildFCmp(b, LLVMRealUNO, d, d, ""), splat_const(n, 0x7e00), r);
}

/* tessera_f64_to_f16(d, false) over the lanes: one rounding to nearest
 * even; the result in the low 16 bits of i32 lanes. */
static LLVMValueRef
f64_to_f16(struct nb *n, LLVMValueRef d)
{
   if (host_f16c)
      return f64_to_f16_hw(n, d);
   LLVMBuilderRef b = n->b;
   LLVMValueRef u = LLVMBuildBitCast(b, d, n->v32i64, "");
   LLVMValueRef sign = q_and(n, LLVMBuildLShr(b, u, splat64_const(n, 48), ""), 0x8000);
   LLVMValueRef e = q_and(n, LLVMBuildLShr(b, u, splat64_const(n, 52), ""), 0x7ff);
   LLVMValueRef m = q_and(n, u, (1ull << 52) - 1);
   /* half normal: 1009 <= e <= 1038 */
   LLVMValueRef qn = LLVMBuildOr(
      b, LLVMBuildShl(b, LLVMBuildSub(b, e, splat64_const(n, 1008), ""), splat64_const(n, 10), ""),
      LLVMBuildLShr(b, m, splat64_const(n, 42), ""), "");
   qn = round_even(n, qn, q_and(n, m, (1ull << 42) - 1), splat64_const(n, 1ull << 41));
   /* half denormal or zero: 998 <= e <= 1008 (drop 43..53); the shift is
    * clamped so other lanes stay defined */
   LLVMValueRef mant = LLVMBuildOr(b, m, splat64_const(n, 1ull << 52), "");
   LLVMValueRef drop = LLVMBuildSub(b, splat64_const(n, 1051), e, "");
   LLVMValueRef inrange = LLVMBuildAnd(
      b, LLVMBuildICmp(b, LLVMIntUGE, e, splat64_const(n, 998), ""),
      LLVMBuildICmp(b, LLVMIntULE, e, splat64_const(n, 1008), ""), "");
   drop = sel(n, inrange, drop, splat64_const(n, 43));
   LLVMValueRef qd = LLVMBuildLShr(b, mant, drop, "");
   LLVMValueRef one = splat64_const(n, 1);
   LLVMValueRef halfd = LLVMBuildShl(b, one, LLVMBuildSub(b, drop, one, ""), "");
   LLVMValueRef remd = LLVMBuildAnd(b, mant, LLVMBuildSub(b, LLVMBuildShl(b, one, drop, ""), one, ""), "");
   qd = round_even(n, qd, remd, halfd);
   LLVMValueRef q = sel(n, LLVMBuildICmp(b, LLVMIntULT, LLVMBuildSub(b, e, splat64_const(n, 1009), ""),
                                         splat64_const(n, 30), ""),
                        qn,
                        sel(n, LLVMBuildICmp(b, LLVMIntEQ, e, splat64_const(n, 0x7ff), ""),
                            sel(n, LLVMBuildICmp(b, LLVMIntNE, m, splat64_const(n, 0), ""),
                                splat64_const(n, 0x7e00 & 0x7fff), splat64_const(n, 0x7c00)),
                            sel(n, LLVMBuildICmp(b, LLVMIntUGE, e, splat64_const(n, 1039), ""),
                                splat64_const(n, 0x7c00),
                                sel(n, inrange, qd, splat64_const(n, 0)))));
   /* NaN gives 0x7e00 without the sign */
   LLVMValueRef nan = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, e, splat64_const(n, 0x7ff), ""),
                                   LLVMBuildICmp(b, LLVMIntNE, m, splat64_const(n, 0), ""), "");
   LLVMValueRef r = sel(n, nan, splat64_const(n, 0x7e00), LLVMBuildOr(b, sign, q, ""));
   return LLVMBuildTrunc(b, r, n->v32i32, "");
}

/* usc_store_f16(v, sat) of an exact/double value. */
static LLVMValueRef
f16_result(struct nb *n, LLVMValueRef v, bool sat)
{
   LLVMValueRef nan = LLVMBuildFCmp(n->b, LLVMRealUNO, v, v, "");
   if (sat) {
      LLVMValueRef u = LLVMBuildBitCast(n->b, v, n->v32i64, "");
      LLVMValueRef neg = LLVMBuildICmp(n->b, LLVMIntSLT, u, splat64_const(n, 0), "");
      LLVMValueRef onef = LLVMConstBitCast(splat64_const(n, 0x3ff0000000000000ull), n->v32f64);
      v = sel(n, neg, LLVMConstNull(n->v32f64),
              sel(n, LLVMBuildFCmp(n->b, LLVMRealOGT, v, onef, ""), onef, v));
   }
   return sel(n, nan, splat_const(n, sat ? 0 : 0x7e00), f64_to_f16(n, v));
}

/*
 * f16_result() of the float r, where r is the float rounding (to nearest
 * even) of the exact sum or product of two halves: a product is exact in
 * float (22 bits, exponents -48..32); a sum is rounded once to float's 24
 * bits, and rounding again to half's 11 gives the single rounding of the
 * exact sum because 24 >= 2 * 11 + 2 (a double rounding is innocuous for
 * +, -, *, / and sqrt at that precision: Figueroa, "When is double
 * rounding innocuous?", SIGNUM Newsletter 30(3), 1995).  A nonzero exact
 * value is at least 2^-24, so its float keeps its sign and its side of 1:
 * the saturation gives the same answer on either.  With F16C only
 * (vcvtps2ph).
 */
static LLVMValueRef
f16_result_f32(struct nb *n, LLVMValueRef r, bool sat)
{
   LLVMBuilderRef b = n->b;
   LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, r, r, "");
   if (sat) {
      LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildBitCast(b, r, n->v32i32, ""),
                                       splat_const(n, 0), "");
      LLVMValueRef one = fsplat_const(n, 0x3f800000u);
      r = sel(n, neg, LLVMConstNull(n->v32f32),
              sel(n, LLVMBuildFCmp(b, LLVMRealOGT, r, one, ""), one, r));
   }
   LLVMTypeRef v32i16 = LLVMVectorType(LLVMInt16TypeInContext(n->ctx), USC_W);
   LLVMTypeRef v32f16 = LLVMVectorType(LLVMHalfTypeInContext(n->ctx), USC_W);
   LLVMValueRef h = LLVMBuildZExt(
      b, LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, r, v32f16, ""), v32i16, ""), n->v32i32, "");
   return sel(n, nan, splat_const(n, sat ? 0 : 0x7e00), h);
}

/* A source that is a half (f32_src of it is its exact value). */
static bool
src_is_half(const struct usc_src *s)
{
   return s->kind == SRC_R16 || s->kind == SRC_U16 || s->kind == SRC_IMM;
}

/* usc_fma16(a, b, c): a*b exact, the sum by TwoSum rounded to odd, so
 * the later rounding to half is the single rounding of the exact value. */
static LLVMValueRef
fma16(struct nb *n, LLVMValueRef a, LLVMValueRef b_, LLVMValueRef c)
{
   LLVMBuilderRef b = n->b;
   LLVMValueRef p = LLVMBuildFMul(b, a, b_, "");
   LLVMValueRef s = LLVMBuildFAdd(b, p, c, "");
   LLVMValueRef bb = LLVMBuildFSub(b, s, p, "");
   LLVMValueRef err = LLVMBuildFAdd(b, LLVMBuildFSub(b, p, LLVMBuildFSub(b, s, bb, ""), ""),
                                    LLVMBuildFSub(b, c, bb, ""), "");
   LLVMValueRef zero = LLVMConstNull(n->v32f64);
   LLVMValueRef inf = LLVMConstBitCast(splat64_const(n, 0x7ff0000000000000ull), n->v32f64);
   /* isfinite(x): |x| < inf (false for NaN) */
   LLVMValueRef fin_s = LLVMBuildFCmp(b, LLVMRealOLT, LLVMBuildCall2(b, n->fabs_ty, n->fabs_fn, &s, 1, ""), inf, "");
   LLVMValueRef fin_p = LLVMBuildFCmp(b, LLVMRealOLT, LLVMBuildCall2(b, n->fabs_ty, n->fabs_fn, &p, 1, ""), inf, "");
   LLVMValueRef fin_c = LLVMBuildFCmp(b, LLVMRealOLT, LLVMBuildCall2(b, n->fabs_ty, n->fabs_fn, &c, 1, ""), inf, "");
   LLVMValueRef exact = LLVMBuildOr(
      b, LLVMBuildNot(b, LLVMBuildAnd(b, LLVMBuildAnd(b, fin_s, fin_p, ""), fin_c, ""), ""),
      LLVMBuildFCmp(b, LLVMRealOEQ, err, zero, ""), "");
   LLVMValueRef u = LLVMBuildBitCast(b, s, n->v32i64, "");
   LLVMValueRef toward0 = LLVMBuildXor(b, LLVMBuildFCmp(b, LLVMRealOGT, err, zero, ""),
                                       LLVMBuildFCmp(b, LLVMRealOGT, s, zero, ""), "");
   u = LLVMBuildSub(b, u, LLVMBuildZExt(b, toward0, n->v32i64, ""), "");
   u = LLVMBuildOr(b, u, splat64_const(n, 1), "");
   return sel(n, exact, s, LLVMBuildBitCast(b, u, n->v32f64, ""));
}

/* A <32 x i32> of the hw_usc_simd at byte offset `off`. */
static LLVMValueRef
simd_row(struct nb *n, size_t off)
{
   LLVMValueRef o = LLVMConstInt(n->i64, off, false);
   LLVMValueRef p = LLVMBuildGEP2(n->b, LLVMInt8TypeInContext(n->ctx), n->sarg, &o, 1, "");
   LLVMValueRef ld = LLVMBuildLoad2(n->b, n->v32i32, LLVMBuildPointerCast(n->b, p, n->vptr, ""), "");
   LLVMSetAlignment(ld, 4);
   return ld;
}

static LLVMValueRef
lane_const(struct nb *n, uint32_t (*f)(unsigned l))
{
   LLVMValueRef e[USC_W];
   for (unsigned l = 0; l < USC_W; l++)
      e[l] = ci32(n, f(l));
   return LLVMConstVector(e, USC_W);
}

static uint32_t lane_index(unsigned l) { return l; }
static uint32_t lanes_below(unsigned l) { return (1u << l) - 1; }
static uint32_t quad_below(unsigned l) { return ((1u << l) - 1) & (0xfu << (l & ~3u)); }

/* usc_read_sr(s, sr) over the lanes: the per-lane registers of the SIMD
 * group (lane, exec-derived, thread positions) in line; the others
 * (workgroup, launch, stage hook) by a call of the interpreter's own
 * function, which cannot touch the registers the run holds. */
static LLVMValueRef
get_sr(struct nb *n, unsigned sr)
{
   LLVMValueRef ex = splat(n, n->exarg);
   switch (sr) {
   case 48: case 49: case 50:
      return simd_row(n, offsetof(struct hw_usc_simd, local_id) + (sr - 48) * USC_W * 4);
   case 51:
      return simd_row(n, offsetof(struct hw_usc_simd, linear_id));
   case 52:
      return lane_const(n, lane_index);
   case 53: {
      LLVMValueRef o = LLVMConstInt(n->i64, offsetof(struct hw_usc_simd, index), false);
      LLVMValueRef p = LLVMBuildGEP2(n->b, LLVMInt8TypeInContext(n->ctx), n->sarg, &o, 1, "");
      LLVMValueRef ld = LLVMBuildLoad2(n->b, n->i32, LLVMBuildPointerCast(n->b, p, n->i32ptr, ""), "");
      LLVMSetAlignment(ld, 4);
      return splat(n, ld);
   }
   case 56: case 58: {
      LLVMValueRef m = LLVMBuildAnd(n->b, ex, lane_const(n, sr == 56 ? quad_below : lanes_below), "");
      return LLVMBuildCall2(n->b, n->ctpop_ty, n->ctpop_fn, &m, 1, "");
   }
   case 63: {
      /* exec less the helper lanes (hw_usc_simd_set_helpers), read where
       * used: a stage hook may have changed them since the run began */
      LLVMValueRef o = LLVMConstInt(n->i64, offsetof(struct hw_usc_simd, helpers), false);
      LLVMValueRef p = LLVMBuildGEP2(n->b, LLVMInt8TypeInContext(n->ctx), n->sarg, &o, 1, "");
      LLVMValueRef ld = LLVMBuildLoad2(n->b, n->i32, LLVMBuildPointerCast(n->b, p, n->i32ptr, ""), "");
      LLVMSetAlignment(ld, 4);
      LLVMValueRef act = LLVMBuildAnd(n->b, n->exarg, LLVMBuildNot(n->b, ld, ""), "");
      return LLVMBuildAnd(n->b, LLVMBuildLShr(n->b, splat(n, act), lane_const(n, lane_index), ""),
                          splat_const(n, 1), "");
   }
   default: {
      /* by name, defined in the JIT as usc_read_sr's address
       * (jit_init_locked): an address in the IR would differ between
       * processes (ASLR) and so defeat the disk cache's key */
      LLVMValueRef f = LLVMGetNamedFunction(n->mod, SR_SYMBOL);
      if (!f)
         f = LLVMAddFunction(n->mod, SR_SYMBOL, n->sr_ty);
      LLVMValueRef args[3] = { n->sarg, ci32(n, sr), n->sr_buf };
      LLVMBuildCall2(n->b, n->sr_ty, f, args, 3, "");
      LLVMValueRef ld = LLVMBuildLoad2(n->b, n->v32i32, n->sr_buf, "");
      LLVMSetAlignment(ld, 4);
      return ld;
   }
   }
}

/* convert's modes from integers (the rest go from floats to integers). */
static bool
convert_from_int(unsigned mode)
{
   return mode == 0 || mode == 1 || mode == 6 || mode == 7 || mode == 10 || mode == 11;
}

/* convert_lane() over the lanes: integers are exact in double, then one
 * rounding to float (nearest even, then a step toward zero when that went
 * away from zero and the mode is rtz) or to half (nearest even only); floats
 * (fp32 flushed, fp16 widened) truncated or rounded to nearest even in
 * double, NaN to 0, clamped to the mode's range. */
static LLVMValueRef
convert(struct nb *n, const struct usc_inst *in)
{
   LLVMBuilderRef b = n->b;
   unsigned mode = in->cc;
   bool rtz = in->mode == 0;
   LLVMValueRef raw = raw32(n, &in->s[0]);
   if (convert_from_int(mode)) {
      LLVMValueRef iv = raw;
      bool sgn = mode & 1;
      unsigned bits = mode < 2 ? 8 : mode < 8 ? 16 : 32;
      if (bits < 32 && sgn)
         iv = LLVMBuildAShr(b, LLVMBuildShl(b, iv, splat_const(n, 32 - bits), ""),
                            splat_const(n, 32 - bits), "");
      else if (bits < 32)
         iv = LLVMBuildAnd(b, iv, splat_const(n, (1u << bits) - 1), "");
      LLVMValueRef d = sgn ? LLVMBuildSIToFP(b, iv, n->v32f64, "")
                           : LLVMBuildUIToFP(b, iv, n->v32f64, "");
      if (in->d.size == 16)
         return f64_to_f16(n, d);
      LLVMValueRef f = LLVMBuildFPTrunc(b, d, n->v32f32, "");
      LLVMValueRef fb = LLVMBuildBitCast(b, f, n->v32i32, "");
      if (!rtz)
         return fb;
      LLVMValueRef back = LLVMBuildFPExt(b, f, n->v32f64, "");
      LLVMValueRef away = LLVMBuildFCmp(
         b, LLVMRealOGT, LLVMBuildCall2(b, n->fabs_ty, n->fabs_fn, &back, 1, ""),
         LLVMBuildCall2(b, n->fabs_ty, n->fabs_fn, &d, 1, ""), "");
      return sel(n, away, LLVMBuildSub(b, fb, splat_const(n, 1), ""), fb);
   }
   LLVMValueRef fbits;
   if (src_bits32(&in->s[0]) == 16) {
      fbits = half_to_f32_bits(n, raw);
   } else {
      LLVMValueRef e = LLVMBuildAnd(b, raw, splat_const(n, 0x7f800000u), "");
      fbits = sel(n, ieq(n, e, 0), LLVMBuildAnd(b, raw, splat_const(n, 0x80000000u), ""), raw);
   }
   LLVMValueRef d = LLVMBuildFPExt(b, LLVMBuildBitCast(b, fbits, n->v32f32, ""), n->v32f64, "");
   LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, d, d, "");
   d = rtz ? LLVMBuildCall2(b, n->trunc_ty, n->trunc_fn, &d, 1, "")
           : LLVMBuildCall2(b, n->rint_ty, n->rint_fn, &d, 1, "");
   double lo, hi;
   switch (mode) {
   case 4: lo = 0; hi = 65535; break;
   case 5: lo = -32768; hi = 32767; break;
   case 8: lo = 0; hi = 4294967295.0; break;
   default: lo = -2147483648.0; hi = 2147483647.0; break;
   }
   LLVMValueRef vlo = LLVMBuildSIToFP(b, splat64_const(n, (uint64_t)(int64_t)lo), n->v32f64, "");
   LLVMValueRef vhi = LLVMBuildSIToFP(b, splat64_const(n, (uint64_t)(int64_t)hi), n->v32f64, "");
   d = sel(n, LLVMBuildFCmp(b, LLVMRealOLT, d, vlo, ""), vlo,
           sel(n, LLVMBuildFCmp(b, LLVMRealOGT, d, vhi, ""), vhi, d));
   /* NaN lanes: the conversion is poison there, the select drops it */
   LLVMValueRef i = LLVMBuildTrunc(b, LLVMBuildFPToSI(b, d, n->v32i64, ""), n->v32i32, "");
   return sel(n, nan, splat_const(n, 0), i);
}

/* ---- what is translated -------------------------------------------------- */

static bool
dst_ok(const struct usc_dst *d)
{
   return d->size == 16 || d->size == 32;
}

bool
usc_native_translatable(const struct usc_inst *in)
{
   if (in->cls != C_ALU && in->cls != C_IMUL)
      return false;
   switch ((enum usc_op)in->op) {
   case U_MOV_IMM: case U_GET_SR:
      return dst_ok(&in->d);
   case U_CONVERT:
      /* register and uniform sources (immediates stay interpreted); to
       * half only rounding to nearest (f64_to_f16 has no rtz) */
      return dst_ok(&in->d) &&
             (in->s[0].kind == SRC_R16 || in->s[0].kind == SRC_R32 ||
              in->s[0].kind == SRC_U16 || in->s[0].kind == SRC_U32) &&
             !(convert_from_int(in->cc) && in->d.size == 16 && in->mode == 0);
   case U_BITOP:
      return dst_ok(&in->d) && src_ok(&in->s[0]) && src_ok(&in->s[1]);
   case U_IADD:
      /* the saturating form stays in the interpreter */
      return dst_ok(&in->d) && src_ok(&in->s[0]) && src_ok(&in->s[1]) &&
             !(in->sat && in->shift == 0);
   case U_IMADD:
      return dst_ok(&in->d) && src_ok(&in->s[0]) && src_ok(&in->s[1]) &&
             src_ok(&in->s[2]) && !(in->sat && in->shift == 0);
   case U_FADD32: case U_FMUL32:
      return dst_ok(&in->d) && src_ok(&in->s[0]) && src_ok(&in->s[1]);
   case U_FMADD32:
      return dst_ok(&in->d) && src_ok(&in->s[0]) && src_ok(&in->s[1]) && src_ok(&in->s[2]);
   case U_FADD16: case U_FMUL16:
      return in->d.size == 16 && src_ok(&in->s[0]) && src_ok(&in->s[1]);
   case U_FMADD16:
      return in->d.size == 16 && src_ok(&in->s[0]) && src_ok(&in->s[1]) && src_ok(&in->s[2]);
   case U_ICMPSEL:
      return dst_ok(&in->d) && src_ok(&in->s[0]) && src_ok(&in->s[1]) &&
             in->s[0].kind != SRC_FIMM && in->s[1].kind != SRC_FIMM &&
             src_ok(&in->s[2]) && src_ok(&in->s[3]);
   case U_FCMPSEL:
      return dst_ok(&in->d) && src_ok(&in->s[0]) && src_ok(&in->s[1]) &&
             src_ok(&in->s[2]) && src_ok(&in->s[3]);
   default:
      return false;
   }
}

static void
emit(struct nb *n, const struct usc_inst *in)
{
   switch ((enum usc_op)in->op) {
   case U_MOV_IMM:
      write_dst(n, &in->d, splat_const(n, in->s[0].imm));
      return;
   case U_GET_SR:
      write_dst(n, &in->d, get_sr(n, in->s[0].imm));
      return;
   case U_CONVERT:
      write_dst(n, &in->d, convert(n, in));
      return;
   case U_BITOP: {
      LLVMValueRef a = raw32(n, &in->s[0]), b = raw32(n, &in->s[1]);
      unsigned tt = in->cc;
      if (tt == 0x3 || tt == 0xc) {   /* a move of A (applegpu) */
         write_dst(n, &in->d, a);
         return;
      }
      LLVMValueRef na = LLVMBuildNot(n->b, a, ""), nb_ = LLVMBuildNot(n->b, b, "");
      LLVMValueRef r = splat_const(n, 0);
      if (tt & 1) r = LLVMBuildOr(n->b, r, LLVMBuildAnd(n->b, na, nb_, ""), "");
      if (tt & 2) r = LLVMBuildOr(n->b, r, LLVMBuildAnd(n->b, a, nb_, ""), "");
      if (tt & 4) r = LLVMBuildOr(n->b, r, LLVMBuildAnd(n->b, na, b, ""), "");
      if (tt & 8) r = LLVMBuildOr(n->b, r, LLVMBuildAnd(n->b, a, b, ""), "");
      write_dst(n, &in->d, r);
      return;
   }
   case U_IADD: case U_IMADD: {
      bool mad = in->op == U_IMADD;
      LLVMValueRef a = int32_src(n, &in->s[0], in->s[0].flags & SRCF_SX);
      LLVMValueRef b = int32_src(n, &in->s[1], in->s[1].flags & SRCF_SX);
      LLVMValueRef add = b, base = a;
      if (mad) {
         add = int32_src(n, &in->s[2], in->s[2].flags & SRCF_SX);
         base = LLVMBuildMul(n->b, a, b, "");
      }
      if (in->neg)
         add = LLVMBuildSub(n->b, splat_const(n, 0), add, "");
      add = in->shift < 5 ? LLVMBuildShl(n->b, add, splat_const(n, in->shift), "")
                          : splat_const(n, 0);
      write_dst(n, &in->d, LLVMBuildAdd(n->b, base, add, ""));
      return;
   }
   case U_FADD32: case U_FMUL32: case U_FMADD32: {
      LLVMValueRef a = f32_src(n, &in->s[0]), b = f32_src(n, &in->s[1]), r;
      if (in->op == U_FADD32) {
         r = LLVMBuildFAdd(n->b, a, b, "");
      } else if (in->op == U_FMUL32) {
         r = LLVMBuildFMul(n->b, a, b, "");
      } else {
         LLVMValueRef args[3] = { a, b, f32_src(n, &in->s[2]) };
         r = LLVMBuildCall2(n->b, n->fma_ty, n->fma_fn, args, 3, "");
      }
      LLVMValueRef v = f32_result(n, r, in->sat);
      if (in->d.size == 16)   /* rounded to f32 (FTZ, sat) first, then to half */
         v = f16_result(n, LLVMBuildFPExt(n->b, LLVMBuildBitCast(n->b, v, n->v32f32, ""),
                                          n->v32f64, ""), false);
      write_dst(n, &in->d, v);
      return;
   }
   case U_FADD16: case U_FMUL16: case U_FMADD16: {
      if (host_f16c && in->op != U_FMADD16 && src_is_half(&in->s[0]) &&
          src_is_half(&in->s[1])) {
         /* halves: in float, then one conversion (f16_result_f32) */
         LLVMValueRef a = f32_src(n, &in->s[0]), b = f32_src(n, &in->s[1]);
         LLVMValueRef r = in->op == U_FADD16 ? LLVMBuildFAdd(n->b, a, b, "")
                                             : LLVMBuildFMul(n->b, a, b, "");
         write_dst(n, &in->d, f16_result_f32(n, r, in->sat));
         return;
      }
      /* sums and products of halves are exact in double */
      LLVMValueRef a = LLVMBuildFPExt(n->b, f32_src(n, &in->s[0]), n->v32f64, "");
      LLVMValueRef b = LLVMBuildFPExt(n->b, f32_src(n, &in->s[1]), n->v32f64, "");
      LLVMValueRef r;
      if (in->op == U_FADD16)
         r = LLVMBuildFAdd(n->b, a, b, "");
      else if (in->op == U_FMUL16)
         r = LLVMBuildFMul(n->b, a, b, "");
      else if (host_f16c && src_is_half(&in->s[0]) && src_is_half(&in->s[1]) &&
               src_is_half(&in->s[2])) {
         /*
          * Halves: a*b + c rounded once to double (llvm.fma), then to
          * half through f64_to_f16_hw, is the single rounding of the
          * exact value.  A wrong double rounding needs the double to land
          * on a half rounding boundary m (an odd multiple of half an ulp,
          * 65520 included) that x = a*b + c is not: then 0 < |x - m| <=
          * |x| 2^-53 < 2^-37, while x - m = p + (c - m) with c - m a
          * nonzero multiple of 2^-25, so the product p must be a multiple
          * of less than 2^-37, i.e. below 2^-15 (22 bits); then |c - m| <
          * 2^-14 puts m below 2^-3 and |x - m| below 2^-56, finer than
          * any product (multiples of 2^-48) or half: impossible.  The
          * saturation sees the same sign and the same side of 1 as on
          * usc_fma16's round-to-odd value.  Other sources keep that.
          */
         LLVMValueRef args[3] = { a, b, LLVMBuildFPExt(n->b, f32_src(n, &in->s[2]), n->v32f64, "") };
         r = LLVMBuildCall2(n->b, n->fma64_ty, n->fma64_fn, args, 3, "");
      } else
         r = fma16(n, a, b, LLVMBuildFPExt(n->b, f32_src(n, &in->s[2]), n->v32f64, ""));
      write_dst(n, &in->d, f16_result(n, r, in->sat));
      return;
   }
   case U_ICMPSEL: case U_FCMPSEL: {
      LLVMValueRef c;
      if (in->op == U_FCMPSEL) {
         c = fcmp_lanes(n, in->cc, f32_src(n, &in->s[0]), f32_src(n, &in->s[1]));
      } else {
         /* the condition's sign bit decides the extension (applegpu) */
         bool sx = in->cc & 4;
         c = icmp_lanes(n, in->cc, int64_src(n, &in->s[0], sx), int64_src(n, &in->s[1], sx));
      }
      write_dst(n, &in->d, sel(n, c, raw32(n, &in->s[2]), raw32(n, &in->s[3])));
      return;
   }
   default:
      return;
   }
}

/* ---- shaders -------------------------------------------------------------- */

/* Shortest run worth a call. */
#define MIN_RUN 2

static const struct usc_native none_marker;

/* An overloaded LLVM intrinsic declared for one vector type: the function
 * and its type, for LLVMBuildCall2. */
static void
nb_intrinsic(struct nb *n, const char *name, LLVMTypeRef type,
             LLVMValueRef *fn, LLVMTypeRef *fty)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   *fn = LLVMGetIntrinsicDeclaration(n->mod, id, &type, 1);
   *fty = LLVMIntrinsicGetType(n->ctx, id, &type, 1);
}

static struct usc_native *
compile_locked(const struct hw_usc_shader *sh)
{
   const unsigned count = sh->count;
   bool *start = calloc(count + 1, 1);
   struct usc_native *nat = calloc(1, sizeof(*nat));
   if (!start || !nat)
      goto fail;
   /* Runs end where control can enter: branch/call targets and the
    * record after a call (return address).  Entering mid-run elsewhere
    * is still correct: those records are interpreted. */
   for (unsigned i = 0; i < count; i++) {
      const struct usc_inst *in = &sh->inst[i];
      if ((in->op == U_JMP_ANY || in->op == U_JMP_NONE || in->op == U_CALL) &&
          in->target >= 0 && (unsigned)in->target < count)
         start[in->target] = true;
      if (in->op == U_CALL || in->op == U_CALL_REG)
         start[i + 1] = true;
   }
   nat->at = calloc(count ? count : 1, sizeof(*nat->at));
   nat->runs = calloc(count ? count : 1, sizeof(*nat->runs));
   if (!nat->at || !nat->runs)
      goto fail;

   struct nb n = { 0 };
   LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
   n.ctx = LLVMOrcThreadSafeContextGetContext(tsc);
   n.mod = LLVMModuleCreateWithNameInContext("usc", n.ctx);
   n.b = LLVMCreateBuilderInContext(n.ctx);
   n.i1 = LLVMInt1TypeInContext(n.ctx);
   n.i32 = LLVMInt32TypeInContext(n.ctx);
   n.i64 = LLVMInt64TypeInContext(n.ctx);
   n.f32 = LLVMFloatTypeInContext(n.ctx);
   n.f64 = LLVMDoubleTypeInContext(n.ctx);
   n.v32f64 = LLVMVectorType(n.f64, USC_W);
   n.v32i32 = LLVMVectorType(n.i32, USC_W);
   n.v32i64 = LLVMVectorType(n.i64, USC_W);
   n.v32f32 = LLVMVectorType(n.f32, USC_W);
   n.vptr = LLVMPointerType(n.v32i32, 0);
   n.i32ptr = LLVMPointerType(n.i32, 0);
   nb_intrinsic(&n, "llvm.fma", n.v32f32, &n.fma_fn, &n.fma_ty);
   nb_intrinsic(&n, "llvm.fma", n.v32f64, &n.fma64_fn, &n.fma64_ty);
   nb_intrinsic(&n, "llvm.fabs", n.v32f64, &n.fabs_fn, &n.fabs_ty);
   nb_intrinsic(&n, "llvm.trunc", n.v32f64, &n.trunc_fn, &n.trunc_ty);
   nb_intrinsic(&n, "llvm.rint", n.v32f64, &n.rint_fn, &n.rint_ty);
   nb_intrinsic(&n, "llvm.ctpop", n.v32i32, &n.ctpop_fn, &n.ctpop_ty);
   LLVMTypeRef bytep = LLVMPointerType(LLVMInt8TypeInContext(n.ctx), 0);
   LLVMTypeRef sr_params[3] = { bytep, n.i32, n.vptr };
   n.sr_ty = LLVMFunctionType(LLVMVoidTypeInContext(n.ctx), sr_params, 3, false);
   LLVMTypeRef params[4] = { n.i32ptr, n.i32ptr, n.i32, bytep };
   LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(n.ctx), params, 4, false);

   unsigned nruns = 0, nrec = 0;
   char names[128];
   for (unsigned i = 0; i < count;) {
      unsigned j = i;
      while (j < count && usc_native_translatable(&sh->inst[j]) && (j == i || !start[j]))
         j++;
      if (j - i < MIN_RUN) {
         for (unsigned k = i; k < (j > i ? j : i + 1); k++) {
            const struct usc_inst *in = &sh->inst[k];
            if (in->cls == C_ALU || in->cls == C_IMUL)
               stat_left[in->op][in->d.size == 16]++;
         }
         i = j > i ? j : i + 1;
         continue;
      }
      /* named by record for now; renamed by the key below */
      snprintf(names, sizeof(names), "usc_%u", i);
      n.fn = LLVMAddFunction(n.mod, names, fty);
      LLVMSetLinkage(n.fn, LLVMExternalLinkage);
      n.rarg = LLVMGetParam(n.fn, 0);
      n.uarg = LLVMGetParam(n.fn, 1);
      n.exarg = LLVMGetParam(n.fn, 2);
      n.sarg = LLVMGetParam(n.fn, 3);
      LLVMPositionBuilderAtEnd(n.b, LLVMAppendBasicBlockInContext(n.ctx, n.fn, "entry"));
      n.sr_buf = LLVMBuildAlloca(n.b, n.v32i32, "");
      LLVMSetAlignment(n.sr_buf, 4);
      memset(n.cur, 0, sizeof(n.cur));
      memset(n.dirty, 0, sizeof(n.dirty));
      memset(n.uni, 0, sizeof(n.uni));
      LLVMValueRef bits[USC_W];
      for (unsigned l = 0; l < USC_W; l++)
         bits[l] = ci32(&n, 1u << l);
      n.exmask = LLVMBuildICmp(n.b, LLVMIntNE,
                               LLVMBuildAnd(n.b, splat(&n, LLVMGetParam(n.fn, 2)),
                                            LLVMConstVector(bits, USC_W), ""),
                               splat_const(&n, 0), "");
      struct usc_native_run *run = &nat->runs[nruns++];
      run->n = j - i;
      run->end = j;
      for (unsigned k = i; k < j; k++) {
         const struct usc_inst *in = &sh->inst[k];
         emit(&n, in);
         if (in->cls == C_IMUL) {
            run->imul++;
            run->cycles += 4;
         } else {
            run->alu++;
            run->cycles += 1;
         }
      }
      for (unsigned r = 0; r < HW_USC_NUM_GPRS; r++) {
         if (n.dirty[r]) {
            LLVMValueRef st = LLVMBuildStore(n.b, n.cur[r], reg_ptr(&n, r));
            LLVMSetAlignment(st, 4);
         }
      }
      LLVMBuildRetVoid(n.b);
      nat->at[i] = run;
      nrec += j - i;
      i = j;
   }
   LLVMDisposeBuilder(n.b);
   free(start);
   start = NULL;

   if (nruns == 0) {   /* nothing worth translating: the interpreter alone */
      LLVMDisposeModule(n.mod);
      LLVMOrcDisposeThreadSafeContext(tsc);
      goto fail;
   }
   /* The key: everything the object's bytes depend on (see the cache
    * section above), the IR before the functions get their final names. */
   uint8_t key[32];
   {
      llvm_blake3_hasher b3;
      llvm_blake3_hasher_init(&b3);
      const uint32_t v[2] = { CACHE_FORMAT, USC_NATIVE_TRANSLATOR };
      llvm_blake3_hasher_update(&b3, v, sizeof(v));
      const char *id[4] = { LLVM_VERSION_STRING, tm_triple, tm_cpu, tm_features };
      for (unsigned k = 0; k < 4; k++)
         llvm_blake3_hasher_update(&b3, id[k], strlen(id[k]) + 1);
      /* The module's bitcode, not its IR text: the same module either
       * way (bitcode round-trips the IR exactly, so a change of the
       * generated IR still changes the key), but printing the text
       * (column tracking over <32 x i32> constants) was three quarters
       * of a warm-cache shader's cost: ~9 of glxgears' 12 ms. */
      LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(n.mod);
      if (!bc) {
         LLVMDisposeModule(n.mod);
         LLVMOrcDisposeThreadSafeContext(tsc);
         goto fail;
      }
      llvm_blake3_hasher_update(&b3, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc));
      LLVMDisposeMemoryBuffer(bc);
      llvm_blake3_hasher_finalize(&b3, key, sizeof(key));
   }
   /* Symbols carry the key, so objects of different code never clash in
    * the JIT and a cached object's names match the module's. */
   char kname[33];
   for (unsigned k = 0; k < 16; k++)
      snprintf(kname + 2 * k, 3, "%02x", key[k]);
   for (unsigned i = 0; i < count; i++) {
      if (!nat->at[i])
         continue;
      snprintf(names, sizeof(names), "usc_%u", i);
      LLVMValueRef f = LLVMGetNamedFunction(n.mod, names);
      snprintf(names, sizeof(names), "usc_%s_%u", kname, i);
      LLVMSetValueName2(f, names, strlen(names));
   }

   struct jit_obj *obj = jit_objs;
   while (obj && memcmp(obj->key, key, sizeof(key)))
      obj = obj->next;
   if (obj) {   /* the same code is loaded already */
      obj->refs++;
      LLVMDisposeModule(n.mod);
      LLVMOrcDisposeThreadSafeContext(tsc);
   } else {
      obj = calloc(1, sizeof(*obj));
      if (!obj) {
         LLVMDisposeModule(n.mod);
         LLVMOrcDisposeThreadSafeContext(tsc);
         goto fail;
      }
      memcpy(obj->key, key, sizeof(key));
      obj->refs = 1;
      cache_dir_locked();
      LLVMMemoryBufferRef mb = cache_load_locked(key);
      if (mb) {
         cache_counts.hits++;
      } else {
         char *msg = NULL;
         LLVMSetTarget(n.mod, tm_triple);
         LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
         LLVMSetModuleDataLayout(n.mod, dl);
         LLVMDisposeTargetData(dl);
         if (LLVMTargetMachineEmitToMemoryBuffer(tm, n.mod, LLVMObjectFile, &msg, &mb)) {
            fprintf(stderr, "tessera: usc native: compiling: %s; using the interpreter\n",
                    msg ? msg : "?");
            LLVMDisposeMessage(msg);
            mb = NULL;
         } else {
            cache_store_locked(key, mb);
         }
      }
      LLVMDisposeModule(n.mod);
      LLVMOrcDisposeThreadSafeContext(tsc);
      if (!mb) {
         free(obj);
         goto fail;
      }
      LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
      obj->rt = LLVMOrcJITDylibCreateResourceTracker(jd);
      LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(jit, obj->rt, mb);   /* takes mb */
      if (e) {
         report_error("adding an object", e);
         LLVMOrcReleaseResourceTracker(obj->rt);
         free(obj);
         goto fail;
      }
      obj->next = jit_objs;
      jit_objs = obj;
   }
   nat->rt = obj;
   for (unsigned i = 0; i < count; i++) {
      if (!nat->at[i])
         continue;
      LLVMOrcExecutorAddress addr = 0;
      snprintf(names, sizeof(names), "usc_%s_%u", kname, i);
      LLVMErrorRef e = LLVMOrcLLJITLookup(jit, &addr, names);
      if (e) {
         report_error("linking", e);
         jit_obj_put_locked(obj);
         nat->rt = NULL;
         goto fail;
      }
      nat->at[i]->fn = (usc_native_fn)(uintptr_t)addr;
   }
   nat->nruns = nruns;
   nat->nrecords = nrec;
   jit_users++;
   return nat;

fail:
   free(start);
   if (nat) {
      free(nat->at);
      free(nat->runs);
      free(nat);
   }
   return NULL;
}

/* ---- sharing between shaders ------------------------------------------- */

/* Cached shaders with the same code bytes decode to the same records
 * (decoding does not depend on the address), so they share one entry:
 * their work adds up towards USC_NATIVE_HOT and the code is compiled once
 * (minetest on asahi holds ~1100 shaders, many of them copies).  A shader
 * not from the cache (no code bytes kept) has an entry of its own. */
struct usc_native_share {
   uint64_t hash;
   size_t bytes;
   unsigned count;
   uint8_t *code;                 /* NULL: a private entry */
   unsigned refs;                 /* shaders using it, and a queued compile (jit_lock) */
   uint64_t work;                 /* instructions run before compiling */
   bool queued;                   /* handed to the compile thread */
   struct usc_native *native;     /* compiled code, &none_marker, or NULL */
   struct usc_native_share *next; /* hash chain */
};

#define SHARE_BUCKETS 1024
static struct usc_native_share *share_table[SHARE_BUCKETS];

/* Called with jit_lock held. */
static struct usc_native_share *
share_get_locked(const struct hw_usc_shader *sh)
{
   unsigned b = (unsigned)(sh->hash % SHARE_BUCKETS);
   if (sh->code) {
      for (struct usc_native_share *e = share_table[b]; e; e = e->next) {
         if (e->hash == sh->hash && e->bytes == sh->bytes && e->count == sh->count &&
             !memcmp(e->code, sh->code, sh->bytes)) {
            e->refs++;
            if (e->native && e->native != &none_marker)
               stat_sharing++;
            return e;
         }
      }
   }
   struct usc_native_share *e = calloc(1, sizeof(*e));
   if (!e)
      return NULL;
   e->refs = 1;
   if (sh->code && (e->code = malloc(sh->bytes ? sh->bytes : 1))) {
      memcpy(e->code, sh->code, sh->bytes);
      e->hash = sh->hash;
      e->bytes = sh->bytes;
      e->count = sh->count;
      e->next = share_table[b];
      share_table[b] = e;
   }
   return e;
}

/* Compiles the entry's code unless it has some (or the process exits),
 * then publishes it; called with jit_lock held. */
static void
compile_entry_locked(struct usc_native_share *e, const struct hw_usc_shader *sh)
{
   if (e->native)
      return;
   struct usc_native *made = NULL;
   if (!jit_exiting && jit_init_locked()) {
      struct timespec t0, t1;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
      made = compile_locked(sh);
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
      if (made) {
         stat_shaders++;
         stat_runs += made->nruns;
         stat_records += made->nrecords;
         stat_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000ull +
                    (uint64_t)(t1.tv_nsec - t0.tv_nsec);
         stat_sharing += e->refs - 1 - e->queued;
      }
   }
   /* exiting, or the JIT failed: interpreted from now on */
   __atomic_store_n(&e->native, made ? made : (struct usc_native *)&none_marker,
                    __ATOMIC_RELEASE);
}

/* ---- compiling off the critical path -----------------------------------
 * With TESSERA_USC_NATIVE=1 a hot shader's compile (5-30 ms) is handed to
 * one compile thread instead of stalling the render worker that crossed
 * the threshold (on glxgears that was 60-100 ms of a 0.4 s replay).  The
 * job holds a copy of the shader's records and a reference on the entry,
 * so the shader may be freed meanwhile.  The thread compiles under
 * jit_lock like a synchronous compile, so the exit guard (jit_at_exit)
 * still waits for a compile under way and stops later ones.  The thread
 * is detached and never ends: at exit it sleeps in bg_main's wait, or
 * takes a job and drops it (jit_exiting).  Mode 2 always compiles
 * synchronously (the tests want the code at once);
 * TESSERA_USC_NATIVE_ASYNC=0 makes mode 1 do so too: the loader reads it
 * (hw_usc_native_load.c, async_get, which its deferred load follows too)
 * and hands it over through usc_native_set_async before publishing the
 * plugin, so this side never reads it.
 * TESSERA_USC_NATIVE_ASYNC_DELAY_MS (tests only) makes the thread sleep
 * that long before each job, so that a test can have a queued compile
 * start while the process exits. */
struct bg_job {
   struct usc_native_share *e;
   struct hw_usc_shader sh;   /* count and a copy of the records */
   struct bg_job *next;
};
static struct bg_job *bg_head, **bg_tail = &bg_head;
static pthread_cond_t bg_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t bg_idle = PTHREAD_COND_INITIALIZER;
static unsigned bg_pending;
static bool bg_started;
static bool bg_async = true;   /* usc_native_set_async's (atomic) */

static bool
bg_enabled(void)
{
   return __atomic_load_n(&bg_async, __ATOMIC_ACQUIRE);
}

static void share_put_locked(struct usc_native_share *e);

static void *
bg_main(void *arg)
{
   (void)arg;
   const char *d = getenv("TESSERA_USC_NATIVE_ASYNC_DELAY_MS");
   const long delay_ms = d && *d ? strtol(d, NULL, 10) : 0;
   pthread_mutex_lock(&jit_lock);
   for (;;) {
      while (!bg_head)
         pthread_cond_wait(&bg_cond, &jit_lock);
      if (delay_ms > 0) {   /* tests: the job starts late (see above) */
         pthread_mutex_unlock(&jit_lock);
         struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000 };
         while (nanosleep(&ts, &ts) && errno == EINTR) {
         }
         pthread_mutex_lock(&jit_lock);
      }
      struct bg_job *j = bg_head;
      bg_head = j->next;
      if (!bg_head)
         bg_tail = &bg_head;
      compile_entry_locked(j->e, &j->sh);
      __atomic_store_n(&j->e->queued, false, __ATOMIC_RELEASE);
      share_put_locked(j->e);   /* may free it: its shaders are gone */
      free(j->sh.inst);
      free(j);
      if (!--bg_pending)
         pthread_cond_broadcast(&bg_idle);
   }
   return NULL;
}

static void
bg_queue(struct usc_native_share *e, const struct hw_usc_shader *sh)
{
   pthread_mutex_lock(&jit_lock);
   if (e->queued || e->native || jit_exiting) {
      pthread_mutex_unlock(&jit_lock);
      return;
   }
   struct bg_job *j = calloc(1, sizeof(*j));
   if (j)
      j->sh.inst = malloc((sh->count ? sh->count : 1) * sizeof(*sh->inst));
   if (!bg_started && j && j->sh.inst) {
      pthread_t t;
      pthread_attr_t at;
      pthread_attr_init(&at);
      pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
      bg_started = !pthread_create(&t, &at, bg_main, NULL);
      pthread_attr_destroy(&at);
   }
   if (!j || !j->sh.inst || !bg_started) {   /* no thread: compile here */
      if (j)
         free(j->sh.inst);
      free(j);
      compile_entry_locked(e, sh);
      pthread_mutex_unlock(&jit_lock);
      return;
   }
   memcpy(j->sh.inst, sh->inst, sh->count * sizeof(*sh->inst));
   j->sh.count = sh->count;
   j->e = e;
   e->refs++;
   __atomic_store_n(&e->queued, true, __ATOMIC_RELEASE);
   *bg_tail = j;
   bg_tail = &j->next;
   bg_pending++;
   pthread_cond_signal(&bg_cond);
   pthread_mutex_unlock(&jit_lock);
}

/* fork(): the child has no compile thread, and jit_lock or the queue
 * could be caught mid-change.  So fork waits for a compile under way
 * (prepare), and the child drops the queued jobs (its next launches of
 * those shaders queue them again, to a thread of its own); otherwise
 * wait_idle, shutdown and the jobs' entries waited forever there. */
static void
bg_fork_prepare(void)
{
   pthread_mutex_lock(&jit_lock);
}

static void
bg_fork_parent(void)
{
   pthread_mutex_unlock(&jit_lock);
}

static void
bg_fork_child(void)
{
   pthread_cond_init(&bg_cond, NULL);   /* the parent's thread waited on it */
   pthread_cond_init(&bg_idle, NULL);
   while (bg_head) {
      struct bg_job *j = bg_head;
      bg_head = j->next;
      __atomic_store_n(&j->e->queued, false, __ATOMIC_RELEASE);
      share_put_locked(j->e);
      free(j->sh.inst);
      free(j);
   }
   bg_tail = &bg_head;
   bg_pending = 0;
   bg_started = false;
   pthread_mutex_unlock(&jit_lock);
}

__attribute__((constructor)) static void
bg_hook_fork(void)
{
   pthread_atfork(bg_fork_prepare, bg_fork_parent, bg_fork_child);
}

void
usc_native_wait_idle(void)
{
   pthread_mutex_lock(&jit_lock);
   while (bg_pending)
      pthread_cond_wait(&bg_idle, &jit_lock);
   pthread_mutex_unlock(&jit_lock);
}

void
usc_native_set_async(bool async)
{
   __atomic_store_n(&bg_async, async, __ATOMIC_RELEASE);
}

const struct usc_native *
usc_native_get(const struct hw_usc_shader *sh)
{
   struct hw_usc_shader *w = (struct hw_usc_shader *)sh;   /* the lazily set fields */
   const struct usc_native *nat = __atomic_load_n(&w->native, __ATOMIC_ACQUIRE);
   if (nat)
      return nat == &none_marker ? NULL : nat;
   const int mode = current_mode();
   struct usc_native_share *e = __atomic_load_n(&w->native_share, __ATOMIC_ACQUIRE);
   if (!e && mode) {
      pthread_mutex_lock(&jit_lock);
      e = w->native_share;
      if (!e) {
         e = share_get_locked(sh);
         __atomic_store_n(&w->native_share, e, __ATOMIC_RELEASE);
      }
      pthread_mutex_unlock(&jit_lock);
   }
   if (!e) {   /* off, or out of memory: interpreted */
      __atomic_store_n(&w->native, (struct usc_native *)&none_marker, __ATOMIC_RELEASE);
      return NULL;
   }
   nat = __atomic_load_n(&e->native, __ATOMIC_ACQUIRE);
   if (!nat) {
      /* Mode 1 compiles once the code is hot: compiling costs about what
       * interpreting ~10^5 SIMD-group instructions does, and a trace can
       * hold a thousand shaders that each run a few groups.
       * usc_native_note() counts the instructions run by every shader of
       * the entry (whichever worker threads run them: results are
       * identical either way). */
      if (mode == 1 && __atomic_load_n(&e->work, __ATOMIC_RELAXED) < USC_NATIVE_HOT)
         return NULL;
      if (mode == 1 && bg_enabled()) {
         /* off the critical path: the compile thread makes the code while
          * this and other launches keep interpreting (the results are the
          * same either way); a later launch picks the code up */
         if (!__atomic_load_n(&e->queued, __ATOMIC_ACQUIRE))
            bg_queue(e, sh);
         nat = __atomic_load_n(&e->native, __ATOMIC_ACQUIRE);
         if (!nat)
            return NULL;
      } else {
         pthread_mutex_lock(&jit_lock);
         compile_entry_locked(e, sh);
         nat = e->native;
         pthread_mutex_unlock(&jit_lock);
      }
   }
   __atomic_store_n(&w->native, (struct usc_native *)nat, __ATOMIC_RELEASE);
   return nat == &none_marker ? NULL : nat;
}

void
usc_native_note(const struct hw_usc_shader *sh, uint64_t instructions)
{
   struct usc_native_share *e = __atomic_load_n(&sh->native_share, __ATOMIC_ACQUIRE);
   if (e && !__atomic_load_n(&e->native, __ATOMIC_RELAXED))
      __atomic_add_fetch(&e->work, instructions, __ATOMIC_RELAXED);
}

/* Drops a reference on the entry (a shader's, or a queued compile's);
 * the last one frees it and its code.  Called with jit_lock held. */
static void
share_put_locked(struct usc_native_share *e)
{
   if (--e->refs)
      return;
   if (e->code) {
      struct usc_native_share **pp = &share_table[e->hash % SHARE_BUCKETS];
      while (*pp != e)
         pp = &(*pp)->next;
      *pp = e->next;
   }
   struct usc_native *nat = e->native;
   if (nat && nat != &none_marker) {
      if (nat->rt) {
         jit_obj_put_locked(nat->rt);
         jit_users--;
      }
      free(nat->at);
      free(nat->runs);
      free(nat);
   }
   free(e->code);
   free(e);
}

void
usc_native_release(struct hw_usc_shader *sh)
{
   struct usc_native_share *e = sh->native_share;
   sh->native = NULL;
   sh->native_share = NULL;
   if (!e)
      return;
   pthread_mutex_lock(&jit_lock);
   share_put_locked(e);
   pthread_mutex_unlock(&jit_lock);
}

void
usc_native_set_mode(int mode)
{
   pthread_mutex_lock(&jit_lock);
   __atomic_store_n(&native_mode, mode, __ATOMIC_RELEASE);
   pthread_mutex_unlock(&jit_lock);
}

void
usc_native_shutdown(void)
{
   pthread_mutex_lock(&jit_lock);
   while (bg_pending)   /* a queued compile would make code after this */
      pthread_cond_wait(&bg_idle, &jit_lock);
   if (jit && jit_users == 0) {
      LLVMOrcDisposeLLJIT(jit);
      jit = NULL;
      LLVMDisposeTargetMachine(tm);
      tm = NULL;
      LLVMDisposeMessage(tm_triple);
      LLVMDisposeMessage(tm_cpu);
      LLVMDisposeMessage(tm_features);
      tm_triple = tm_cpu = tm_features = NULL;
   }
   pthread_mutex_unlock(&jit_lock);
}
