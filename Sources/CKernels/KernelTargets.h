// Per-function instruction-set targets shared by the kernels (private to CKernels).
#ifndef COACH_KERNEL_TARGETS_H
#define COACH_KERNEL_TARGETS_H

#define TARGET512 __attribute__((target("avx512f,fma")))
#define TARGET256 __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline))

#endif
