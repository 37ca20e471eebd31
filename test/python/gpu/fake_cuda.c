/* A stand-in for libcuda.so.1 and MLIR's libmlir_cuda_runtime.so, for the
 * host-runtime tests on machines without a GPU: one device, device memory is
 * host memory, kernels are recorded, not run. fake_log() returns what the
 * compiled host code asked for, one line per call; a copy's line names its
 * direction (htod, dtoh, dtod, htoh) from the live allocations. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char log_[1 << 16];
static size_t used_;

static void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(log_ + used_, sizeof log_ - used_, fmt, ap);
  va_end(ap);
  if (n > 0 && used_ + (size_t)n < sizeof log_) used_ += (size_t)n;
}

const char *fake_log(void) { return log_; }
void fake_clear(void) { used_ = 0; log_[0] = 0; }

int cuInit(unsigned flags) { (void)flags; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return 0; }
/* compute capability 8.0; managed memory (83); concurrent managed access (89)
 * unless $FAKE_CUDA_NO_MANAGED is set */
int cuDeviceGetAttribute(int *v, int attr, int dev) {
  (void)dev;
  *v = attr == 75 ? 8 : attr == 83 ? 1 : attr == 89 ? getenv("FAKE_CUDA_NO_MANAGED") == NULL : 0;
  return 0;
}

/* live device allocations, to tell a copy's direction */
static struct { char *p; uint64_t n; } live_[4096];
static int nlive_;

static int on_device(const void *q) {
  for (int i = 0; i < nlive_; i++)
    if ((const char *)q >= live_[i].p && (const char *)q < live_[i].p + live_[i].n) return 1;
  return 0;
}

void *mgpuStreamCreate(void) { note("stream\n"); return (void *)0x1; }
void mgpuStreamDestroy(void *s) { (void)s; note("stream_destroy\n"); }
void mgpuStreamSynchronize(void *s) { (void)s; note("sync\n"); }
void *mgpuMemAlloc(uint64_t bytes, void *s, char shared) {
  (void)s;
  void *p = calloc(1, bytes ? bytes : 1);
  if (nlive_ < 4096) { live_[nlive_].p = p; live_[nlive_].n = bytes ? bytes : 1; nlive_++; }
  note(shared ? "alloc_managed %llu\n" : "alloc %llu\n", (unsigned long long)bytes);
  return p;
}
void mgpuMemFree(void *p, void *s) {
  (void)s;
  for (int i = 0; i < nlive_; i++)
    if (live_[i].p == p) { live_[i] = live_[--nlive_]; break; }
  free(p);
  note("free\n");
}
void mgpuMemcpy(void *dst, void *src, uint64_t bytes, void *s) {
  (void)s;
  int d = on_device(dst), s_ = on_device(src);
  memcpy(dst, src, bytes);
  note("memcpy %llu %s\n", (unsigned long long)bytes,
       d ? (s_ ? "dtod" : "htod") : (s_ ? "dtoh" : "htoh"));
}
void *mgpuModuleLoad(void *data, uint64_t size) {
  note("module_load %s %llu\n", memcmp(data, "\177ELF", 4) == 0 ? "cubin" : "other",
       (unsigned long long)size);
  return data;
}
void *mgpuModuleLoadJIT(void *data, int opt) { (void)opt; note("module_load ptx\n"); return data; }
void mgpuModuleUnload(void *m) { (void)m; }
void *mgpuModuleGetFunction(void *m, const char *name) { (void)m; return (void *)name; }
void mgpuLaunchKernel(void *f, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by,
                      intptr_t bz, int32_t smem, void *stream, void **params, void **extra,
                      size_t nparams) {
  (void)stream; (void)params; (void)extra;
  note("launch %s %ld %ld %ld %ld %ld %ld %d %zu\n", (const char *)f, (long)gx, (long)gy,
       (long)gz, (long)bx, (long)by, (long)bz, smem, nparams);
}
