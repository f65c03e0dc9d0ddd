// Per-function instruction-set targets shared by the kernels (private to CKernels).
#ifndef COACH_KERNEL_TARGETS_H
#define COACH_KERNEL_TARGETS_H

#define TARGET512 __attribute__((target("avx512f,fma")))
#define TARGET256 __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline))

#include <immintrin.h>

// The first `count` of 16 lanes (none when count ≤ 0, all when count ≥ 16).
TARGET512 INLINE __mmask16 lanes512(int count) {
    return count >= 16 ? (__mmask16)0xFFFF : count <= 0 ? (__mmask16)0 : (__mmask16)((1u << count) - 1);
}

#endif
