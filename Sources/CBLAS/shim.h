#ifndef COACH_CBLAS_SHIM_H
#define COACH_CBLAS_SHIM_H
#include <cblas.h>
/* OpenBLAS extensions: thread control (declared in its cblas.h on Debian). */
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
/* Flush denormal floats to zero (FTZ) and treat denormal inputs as zero (DAZ) on this thread:
   tiny activations otherwise cost ~100 cycles per operation. Returns the previous MXCSR. */
static inline unsigned int coach_flush_denormals(void) {
    unsigned int previous = _mm_getcsr();
    _mm_setcsr(previous | 0x8040);
    return previous;
}
static inline void coach_restore_float_control(unsigned int previous) { _mm_setcsr(previous); }
#else
static inline unsigned int coach_flush_denormals(void) { return 0; }
static inline void coach_restore_float_control(unsigned int previous) { (void)previous; }
#endif
#endif
