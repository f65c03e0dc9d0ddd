// Packed-weight GEMM with a fused epilogue: the 1×1 convolutions of Coach's inference networks.
//
// The weights are packed once (16-column panels, k-major), so a call reads them as a stream;
// each output tile's sums stay in vector registers from the bias to the activation, and the
// tile is stored once. Three kernels, chosen at run time by CPU features: 12×32 tiles in
// AVX-512F registers, 6×16 tiles with AVX2 and FMA, and portable C.
#include "CKernels.h"
#include "KernelTargets.h"

#include <cpuid.h>
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// CPU features

static int detected_isa(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1, fma = (ecx >> 12) & 1;
    if (!osxsave || !avx || !fma) return 0;
    unsigned xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 0x6) != 0x6) return 0;            // the OS saves SSE and AVX state
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int avx2 = (ebx >> 5) & 1, avx512f = (ebx >> 16) & 1;
    if (!avx2) return 0;
    if (avx512f && (xcr0_lo & 0xe6) == 0xe6) return 2; // opmask and ZMM state saved too
    return 1;
}

static int isa_in_use = -1;

static int requested_cap(void) {
    const char *value = getenv("COACH_KERNELS");
    if (value == NULL) return 2;
    if (strcmp(value, "portable") == 0) return 0;
    if (strcmp(value, "avx2") == 0) return 1;
    return 2;
}

int coach_kernels_isa(void) {
    int isa = __atomic_load_n(&isa_in_use, __ATOMIC_ACQUIRE);
    if (isa < 0) {
        isa = detected_isa();
        int cap = requested_cap();
        if (isa > cap) isa = cap;
        __atomic_store_n(&isa_in_use, isa, __ATOMIC_RELEASE);
    }
    return isa;
}

int coach_kernels_set_isa(int isa) {
    int available = detected_isa();
    if (isa > available) isa = available;
    if (isa < 0) isa = 0;
    __atomic_store_n(&isa_in_use, isa, __ATOMIC_RELEASE);
    return isa;
}

// ---------------------------------------------------------------------------------------------
// Packing

long coach_packed_weights_size(int k, int n) { return (long)((n + 15) / 16) * 16 * k; }

void coach_pack_weights(const float *weights, int k, int n, float *packed) {
    int panels = (n + 15) / 16;
    for (int p = 0; p < panels; p++) {
        float *panel = packed + (long)p * k * 16;
        int columns = n - p * 16 < 16 ? n - p * 16 : 16;
        for (int kk = 0; kk < k; kk++) {
            const float *row = weights + (long)kk * n + p * 16;
            for (int j = 0; j < 16; j++) panel[kk * 16 + j] = j < columns ? row[j] : 0.0f;
        }
    }
}

// The next tile's height when `rows` rows remain for `tiles` tiles: heights differ by at most one.
static inline int tile_height(int rows, int tiles) { return rows / tiles + (rows % tiles != 0); }

// ---------------------------------------------------------------------------------------------
// AVX-512F: tiles of up to 12 rows × 32 columns (two panels), 24 accumulators.

TARGET512 INLINE __m512 epilogue512(__m512 v, __mmask16 mask, const float *residual, const float *slopes,
                                    __m512 lower, __m512 upper) {
    if (residual) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, residual));
    if (slopes) {
        __m512 zero = _mm512_setzero_ps();
        __m512 s = _mm512_maskz_loadu_ps(mask, slopes);
        return _mm512_add_ps(_mm512_max_ps(zero, v), _mm512_mul_ps(s, _mm512_min_ps(zero, v)));
    }
    return _mm512_min_ps(upper, _mm512_max_ps(lower, v));   // a NaN passes through, as in C
}

// A tile's sums through the epilogue into `c` (rows of n floats): 16 columns, or 32 when `two`.
TARGET512 INLINE void store_tile512(const int rows, const int two, const __m512 *acc0, const __m512 *acc1, __mmask16 m0,
                                    __mmask16 m1, const float *residual, const float *slopes, float lower, float upper,
                                    float *c, int n) {
    __m512 lo = _mm512_set1_ps(lower), hi = _mm512_set1_ps(upper);
#pragma clang loop unroll(full)
    for (int r = 0; r < rows; r++) {
        const float *res = residual ? residual + (long)r * n : NULL;
        _mm512_mask_storeu_ps(c + (long)r * n, m0, epilogue512(acc0[r], m0, res, slopes, lo, hi));
        if (two)
            _mm512_mask_storeu_ps(c + (long)r * n + 16, m1,
                                  epilogue512(acc1[r], m1, res ? res + 16 : NULL, slopes ? slopes + 16 : NULL, lo, hi));
    }
}

TARGET512 INLINE void tile512(const int rows, const int two, const float *a, int k, const float *p0, const float *p1,
                              const float *bias, __mmask16 m0, __mmask16 m1, const float *residual,
                              const float *slopes, float lower, float upper, float *c, int n) {
    __m512 acc0[12], acc1[12];
    __m512 b0 = _mm512_maskz_loadu_ps(m0, bias), b1 = two ? _mm512_maskz_loadu_ps(m1, bias + 16) : b0;
#pragma clang loop unroll(full)
    for (int r = 0; r < rows; r++) { acc0[r] = b0; acc1[r] = b1; }
    for (int kk = 0; kk < k; kk++) {
        __m512 w0 = _mm512_loadu_ps(p0 + kk * 16);
        __m512 w1 = two ? _mm512_loadu_ps(p1 + kk * 16) : w0;
#pragma clang loop unroll(full)
        for (int r = 0; r < rows; r++) {
            __m512 x = _mm512_set1_ps(a[(long)r * k + kk]);
            acc0[r] = _mm512_fmadd_ps(x, w0, acc0[r]);
            if (two) acc1[r] = _mm512_fmadd_ps(x, w1, acc1[r]);
        }
    }
    store_tile512(rows, two, acc0, acc1, m0, m1, residual, slopes, lower, upper, c, n);
}

#define TILE512_CASE(R) \
    case R: \
        if (two) tile512(R, 1, a, k, p0, p1, bias, m0, m1, residual, slopes, lower, upper, c, n); \
        else tile512(R, 0, a, k, p0, p1, bias, m0, m1, residual, slopes, lower, upper, c, n); \
        break;

// The two 16-column panels of up to 32 `columns` at `panel` (k rows each) with their lanes, then
// the tile of `rows` ≤ 12 rows by CASE(R), R a constant so the tile's loops unroll.
#define TILE512_DISPATCH(CASE) \
    int two = columns > 16; \
    __mmask16 m0 = lanes512(columns), m1 = lanes512(columns - 16); \
    const float *p0 = panel, *p1 = panel + (long)k * 16; \
    switch (rows) { \
        CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8) CASE(9) CASE(10) CASE(11) CASE(12) \
    }

// One tile of `rows` ≤ 12 rows and `columns` ≤ 32 columns starting at `panel`.
TARGET512 static void any_tile512(int rows, int columns, const float *a, int k, const float *panel, const float *bias,
                                  const float *residual, const float *slopes, float lower, float upper, float *c, int n) {
    TILE512_DISPATCH(TILE512_CASE)
}

// ---------------------------------------------------------------------------------------------
// AVX2 with FMA: tiles of up to 6 rows × 16 columns (one panel), 12 accumulators.

TARGET256 INLINE __m256i mask256(int columns) {
    // Lane i is on when i < columns (columns may be ≤ 0 or ≥ 8).
    __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(columns), index);
}

TARGET256 INLINE __m256 epilogue256(__m256 v, __m256i mask, const float *residual, const float *slopes,
                                    __m256 lower, __m256 upper) {
    if (residual) v = _mm256_add_ps(v, _mm256_maskload_ps(residual, mask));
    if (slopes) {
        __m256 zero = _mm256_setzero_ps();
        __m256 s = _mm256_maskload_ps(slopes, mask);
        return _mm256_add_ps(_mm256_max_ps(zero, v), _mm256_mul_ps(s, _mm256_min_ps(zero, v)));
    }
    return _mm256_min_ps(upper, _mm256_max_ps(lower, v));
}

TARGET256 INLINE void tile256(const int rows, const float *a, int k, const float *p, const float *bias,
                              __m256i m0, __m256i m1, const float *residual, const float *slopes, float lower,
                              float upper, float *c, int n) {
    __m256 acc0[6], acc1[6];
    __m256 b0 = _mm256_maskload_ps(bias, m0), b1 = _mm256_maskload_ps(bias + 8, m1);
#pragma clang loop unroll(full)
    for (int r = 0; r < rows; r++) { acc0[r] = b0; acc1[r] = b1; }
    for (int kk = 0; kk < k; kk++) {
        __m256 w0 = _mm256_loadu_ps(p + kk * 16), w1 = _mm256_loadu_ps(p + kk * 16 + 8);
#pragma clang loop unroll(full)
        for (int r = 0; r < rows; r++) {
            __m256 x = _mm256_broadcast_ss(a + (long)r * k + kk);
            acc0[r] = _mm256_fmadd_ps(x, w0, acc0[r]);
            acc1[r] = _mm256_fmadd_ps(x, w1, acc1[r]);
        }
    }
    __m256 lo = _mm256_set1_ps(lower), hi = _mm256_set1_ps(upper);
#pragma clang loop unroll(full)
    for (int r = 0; r < rows; r++) {
        const float *res = residual ? residual + (long)r * n : NULL;
        _mm256_maskstore_ps(c + (long)r * n, m0, epilogue256(acc0[r], m0, res, slopes, lo, hi));
        _mm256_maskstore_ps(c + (long)r * n + 8, m1,
                            epilogue256(acc1[r], m1, res ? res + 8 : NULL, slopes ? slopes + 8 : NULL, lo, hi));
    }
}

#define TILE256_CASE(R) \
    case R: tile256(R, a, k, panel, bias, m0, m1, residual, slopes, lower, upper, c, n); break;

// One tile of `rows` ≤ 6 rows and `columns` ≤ 16 columns of `panel`.
TARGET256 static void any_tile256(int rows, int columns, const float *a, int k, const float *panel, const float *bias,
                                  const float *residual, const float *slopes, float lower, float upper, float *c, int n) {
    __m256i m0 = mask256(columns), m1 = mask256(columns - 8);
    switch (rows) { TILE256_CASE(1) TILE256_CASE(2) TILE256_CASE(3) TILE256_CASE(4) TILE256_CASE(5) TILE256_CASE(6) }
}

// ---------------------------------------------------------------------------------------------
// Portable C: one row × 16 columns at a time, the same order of operations.

// One row × `columns` ≤ 16 columns of `panel`: the same order of operations in plain C.
static void any_tile_portable(int rows, int columns, const float *a, int k, const float *panel, const float *bias,
                              const float *residual, const float *slopes, float lower, float upper, float *c, int n) {
    (void)rows;   // always 1
    float acc[16];
    for (int q = 0; q < 16; q++) acc[q] = q < columns ? bias[q] : 0.0f;
    for (int kk = 0; kk < k; kk++) {
        float x = a[kk];
        for (int q = 0; q < 16; q++) acc[q] += x * panel[kk * 16 + q];
    }
    for (int q = 0; q < columns; q++) {
        float v = acc[q];
        if (residual) v += residual[q];
        if (slopes) {
            v = (v > 0 ? v : 0.0f) + slopes[q] * (v < 0 ? v : 0.0f);
        } else {
            v = v < lower ? lower : v;
            v = v > upper ? upper : v;
        }
        c[q] = v;
    }
    (void)n;
}

// ---------------------------------------------------------------------------------------------
// The walk every kernel shares: column groups of `width` (whole panels), and within each, rows in
// tiles of near-equal height up to `tallest` (49 rows in 12-row tiles: 10, 10, 10, 10, 9).

typedef void (*tile_function)(int rows, int columns, const float *a, int k, const float *panel, const float *bias,
                              const float *residual, const float *slopes, float lower, float upper, float *c, int n);

static void walk(tile_function tile, int width, int tallest, const float *a, int m, int k, const float *packed, int n,
                 int firstColumn, int lastColumn, const float *bias, const float *residual, const float *slopes,
                 float lower, float upper, float *c) {
    for (int j = firstColumn; j < lastColumn; j += width) {
        int columns = lastColumn - j < width ? lastColumn - j : width;
        const float *panel = packed + (long)(j / 16) * k * 16;
        int tiles = (m + tallest - 1) / tallest;
        for (int t = 0, i = 0; t < tiles; t++) {
            int height = tile_height(m - i, tiles - t);
            tile(height, columns, a + (long)i * k, k, panel, bias + j, residual ? residual + (long)i * n + j : NULL,
                 slopes ? slopes + j : NULL, lower, upper, c + (long)i * n + j, n);
            i += height;
        }
    }
}

void coach_packed_gemm_columns(const float *a, int m, int k, const float *packed, int n, int firstColumn,
                               int columnCount, const float *bias, const float *residual, const float *slopes,
                               float lower, float upper, float *c) {
    int last = firstColumn + columnCount < n ? firstColumn + columnCount : n;
    if (m <= 0 || firstColumn >= last) return;
    switch (coach_kernels_isa()) {
    case 2: walk(any_tile512, 32, 12, a, m, k, packed, n, firstColumn, last, bias, residual, slopes, lower, upper, c); break;
    case 1: walk(any_tile256, 16, 6, a, m, k, packed, n, firstColumn, last, bias, residual, slopes, lower, upper, c); break;
    default: walk(any_tile_portable, 16, 1, a, m, k, packed, n, firstColumn, last, bias, residual, slopes, lower, upper, c); break;
    }
}

void coach_packed_gemm(const float *a, int m, int k, const float *packed, int n, const float *bias,
                       const float *residual, const float *slopes, float lower, float upper, float *c) {
    coach_packed_gemm_columns(a, m, k, packed, n, 0, n, bias, residual, slopes, lower, upper, c);
}

// ---------------------------------------------------------------------------------------------
// Direct k×k convolution of few input channels (the stems: RGB in), AVX-512F: the packed GEMM's
// 12×32 tile with each row's operand read straight from the image instead of an unfolded copy.
// The sum runs over taps in (row, column, channel) order from the bias, as the unfolded GEMM's
// does; taps outside the image are skipped (the unfolded copy multiplies zeros in).

TARGET512 INLINE void direct_tile512(const int rows, const int two, const float *image, const long *origin,
                                     int width, int channels, int kyStart, int kyEnd, int kernelWidth,
                                     int kxStart, int kxEnd, const float *p0, const float *p1, const float *bias,
                                     __mmask16 m0, __mmask16 m1, const float *slopes, float lower, float upper,
                                     float *c, int n) {
    __m512 acc0[12], acc1[12];
    __m512 b0 = _mm512_maskz_loadu_ps(m0, bias), b1 = two ? _mm512_maskz_loadu_ps(m1, bias + 16) : b0;
#pragma clang loop unroll(full)
    for (int r = 0; r < rows; r++) { acc0[r] = b0; acc1[r] = b1; }
    for (int ky = kyStart; ky < kyEnd; ky++) {
        for (int kx = kxStart; kx < kxEnd; kx++) {
            const long offset = ((long)ky * width + kx) * channels;
            const int tap = (ky * kernelWidth + kx) * channels;
            for (int ci = 0; ci < channels; ci++) {
                __m512 w0 = _mm512_loadu_ps(p0 + (tap + ci) * 16);
                __m512 w1 = two ? _mm512_loadu_ps(p1 + (tap + ci) * 16) : w0;
#pragma clang loop unroll(full)
                for (int r = 0; r < rows; r++) {
                    __m512 x = _mm512_set1_ps(image[origin[r] + offset + ci]);
                    acc0[r] = _mm512_fmadd_ps(x, w0, acc0[r]);
                    if (two) acc1[r] = _mm512_fmadd_ps(x, w1, acc1[r]);
                }
            }
        }
    }
    store_tile512(rows, two, acc0, acc1, m0, m1, NULL, slopes, lower, upper, c, n);
}

#define DIRECT512_CASE(R) \
    case R: \
        if (two) direct_tile512(R, 1, image, origin, width, channels, kyStart, kyEnd, kernelWidth, kxStart, kxEnd, \
                                p0, p1, bias, m0, m1, slopes, lower, upper, c, n); \
        else direct_tile512(R, 0, image, origin, width, channels, kyStart, kyEnd, kernelWidth, kxStart, kxEnd, \
                            p0, p1, bias, m0, m1, slopes, lower, upper, c, n); \
        break;

TARGET512 static void any_direct_tile512(int rows, int columns, const float *image, const long *origin, int width,
                                         int channels, int kyStart, int kyEnd, int kernelWidth, int kxStart, int kxEnd,
                                         const float *panel, int k, const float *bias, const float *slopes,
                                         float lower, float upper, float *c, int n) {
    TILE512_DISPATCH(DIRECT512_CASE)
}

int coach_direct_convolution_available(int channels) { return channels <= 4 && coach_kernels_isa() == 2; }

void coach_direct_convolution_row(const float *image, int height, int width, int channels, int kernelHeight,
                                  int kernelWidth, int strideWidth, int padLeft, int y0, int outputWidth,
                                  const float *packed, int n, const float *bias, const float *slopes, float lower,
                                  float upper, float *output) {
    const int k = kernelHeight * kernelWidth * channels;
    const int kyStart = y0 < 0 ? -y0 : 0, kyEnd = kernelHeight < height - y0 ? kernelHeight : height - y0;
    const int s = strideWidth;
    int insideStart = (padLeft + s - 1) / s;
    if (insideStart > outputWidth) insideStart = outputWidth;
    int lastInside = width + padLeft - kernelWidth;
    int insideEnd = lastInside < 0 ? insideStart : lastInside / s + 1;
    if (insideEnd > outputWidth) insideEnd = outputWidth;
    if (insideEnd < insideStart) insideEnd = insideStart;
    long origin[12];
    for (int j = 0; j < n; j += 32) {
        const int columns = n - j < 32 ? n - j : 32;
        const float *panel = packed + (long)(j / 16) * k * 16;
        // Border pixels one at a time, their taps clipped to the image.
        for (int ox = 0; ox < outputWidth; ox++) {
            if (ox == insideStart) { ox = insideEnd - 1; continue; }
            const int x0 = ox * s - padLeft;
            const int kxStart = x0 < 0 ? -x0 : 0;
            int kxEnd = kernelWidth < width - x0 ? kernelWidth : width - x0;
            if (kxEnd < kxStart) kxEnd = kxStart;
            origin[0] = ((long)y0 * width + x0) * channels;
            any_direct_tile512(1, columns, image, origin, width, channels, kyStart, kyEnd, kernelWidth, kxStart, kxEnd,
                               panel, k, bias + j, slopes ? slopes + j : NULL, lower, upper,
                               output + (long)ox * n + j, n);
        }
        // Inside pixels in tiles of near-equal width up to 12.
        const int inside = insideEnd - insideStart, tiles = (inside + 11) / 12;
        for (int t = 0, ox = insideStart; t < tiles; t++) {
            const int rows = tile_height(insideEnd - ox, tiles - t);
            for (int r = 0; r < rows; r++) origin[r] = ((long)y0 * width + (ox + r) * s - padLeft) * channels;
            any_direct_tile512(rows, columns, image, origin, width, channels, kyStart, kyEnd, kernelWidth, 0, kernelWidth,
                               panel, k, bias + j, slopes ? slopes + j : NULL, lower, upper,
                               output + (long)ox * n + j, n);
            ox += rows;
        }
    }
}
