// Products with a thin operand: a wide matrix A [m, k] (a logistic regression's features) times a
// matrix of few columns B [k, n] (its weights: one column per class), and Aᵀ times a thin R [m, n]
// (the gradient's residuals).
//
// OpenBLAS packs both operands of every product into its own layout first. With n of 2 to a few
// dozen, that copy of A costs as much as the product itself, and a solver takes hundreds of these
// products of the same A. Here A is read once per column chunk, straight from its rows.
//
// Every output element is one chain of fused multiply-adds over the reduction index in order,
// starting from 0 — in the AVX2 and AVX-512 kernels as in portable C (`fmaf`) — so results are the
// same bits whichever instruction set, thread or piece computes them. (a·b has no AVX-512 kernel:
// its AVX2 tiles, once they kept enough chains going, ran as fast as sixteen rows per lane of a
// transposed AVX-512 tile did on a 2-core Intel Xeon.)
#include "CKernels.h"
#include "KernelTargets.h"

#include <math.h>

// ---------------------------------------------------------------------------------------------
// c[i, j] = Σ_f a[i, f] · b[f, j]

static void thin_nn_portable(const float *a, int k, const float *b, int n, float *c, int first, int count) {
    for (int i = first; i < first + count; i++) {
        const float *row = a + (long)i * k;
        for (int j = 0; j < n; j++) {
            float sum = 0;
            for (int f = 0; f < k; f++) sum = fmaf(row[f], b[(long)f * n + j], sum);
            c[(long)i * n + j] = sum;
        }
    }
}

// The first `count` of 8 lanes, as a mask for maskload/maskstore.
TARGET256 INLINE __m256i lanes256(int count) {
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), index);
}

// The reduction runs in blocks of THIN_NN_BLOCK values of f: a block of b ([THIN_NN_BLOCK, n]) stays
// in the cache while every row meets it, each element's partial sum waiting in c between blocks (a
// stored and reloaded float is the same bits, so the chain over f is unchanged). Without the
// blocks, b itself streams past every four rows: with 27 classes and 10,000 features it is 1 MB,
// more than this AMD core's L2, and the product of 7,844 rows took 93 ms on a 2-core AMD EPYC
// (AVX2) against 69 ms in blocks of 1,024 (512 and 2,048: 71 and 73 ms; with 4 classes, b fits,
// and both take 28 ms, bound by reading a).
#define THIN_NN_BLOCK 1024

// `rows` rows from row i against `vectors` (1 or 2) vectors of columns from j0, over f in
// [f0, f1): sums start at 0 when f0 is 0, and at c's partial sums otherwise. Each accumulator is one
// chain of dependent multiply-adds, so a tile needs about eight of them to keep the FMA units busy
// (an FMA's result is ready some four cycles later, and two start every cycle): four rows by two
// vectors, and eight rows by one when there are eight classes or fewer (six rows by two did no
// better). With four rows by one, the NATOPS head's 6 classes ran at half the speed: 1,080 rows of
// 10,000 features took 4.2 ms against 2.7 ms on a 2-core Intel Xeon (AVX-512, the AVX2 kernel).
// The last rows of a call go in one tile of as many rows, not one by one.
TARGET256 INLINE void thin_nn_tile(const float *a, int k, const float *b, int n, float *c, int i, int j0, int f0,
                                   int f1, __m256i mask0, __m256i mask1, const int rows, const int vectors) {
    __m256 s[8][2];
    float *o = c + (long)i * n + j0;
    for (int r = 0; r < rows; r++)
        for (int v = 0; v < vectors; v++)
            s[r][v] = f0 == 0 ? _mm256_setzero_ps() : _mm256_maskload_ps(o + (long)r * n + 8 * v, v ? mask1 : mask0);
    const float *x = a + (long)i * k, *w = b + (long)f0 * n + j0;
    for (int f = f0; f < f1; f++, w += n) {
        __m256 w0 = _mm256_maskload_ps(w, mask0);
        __m256 w1 = vectors > 1 ? _mm256_maskload_ps(w + 8, mask1) : w0;
        for (int r = 0; r < rows; r++) {
            __m256 xr = _mm256_broadcast_ss(x + (long)r * k + f);
            s[r][0] = _mm256_fmadd_ps(xr, w0, s[r][0]);
            if (vectors > 1) s[r][1] = _mm256_fmadd_ps(xr, w1, s[r][1]);
        }
    }
    for (int r = 0; r < rows; r++)
        for (int v = 0; v < vectors; v++) _mm256_maskstore_ps(o + (long)r * n + 8 * v, v ? mask1 : mask0, s[r][v]);
}

// Sixteen columns (two vectors) at a time, or one vector for the last eight or fewer.
TARGET256 static void thin_nn_avx2(const float *a, int k, const float *b, int n, float *c, int first, int count) {
    int end = first + count;
    for (int f0 = 0; f0 < k; f0 += THIN_NN_BLOCK) {
        int f1 = k - f0 < THIN_NN_BLOCK ? k : f0 + THIN_NN_BLOCK;
        for (int j0 = 0; j0 < n; j0 += 16) {
            int width = n - j0 < 16 ? n - j0 : 16;
            __m256i mask0 = lanes256(width), mask1 = lanes256(width - 8);
            int i = first;
            if (width > 8) {
                for (; i + 4 <= end; i += 4) thin_nn_tile(a, k, b, n, c, i, j0, f0, f1, mask0, mask1, 4, 2);
                switch (end - i) {
                case 3: thin_nn_tile(a, k, b, n, c, i, j0, f0, f1, mask0, mask1, 3, 2); break;
                case 2: thin_nn_tile(a, k, b, n, c, i, j0, f0, f1, mask0, mask1, 2, 2); break;
                case 1: thin_nn_tile(a, k, b, n, c, i, j0, f0, f1, mask0, mask1, 1, 2); break;
                }
            } else {
                for (; i + 8 <= end; i += 8) thin_nn_tile(a, k, b, n, c, i, j0, f0, f1, mask0, mask1, 8, 1);
                switch (end - i) {
#define THIN_NN_LAST_ROWS(R) case R: thin_nn_tile(a, k, b, n, c, i, j0, f0, f1, mask0, mask1, R, 1); break;
                THIN_NN_LAST_ROWS(7) THIN_NN_LAST_ROWS(6) THIN_NN_LAST_ROWS(5) THIN_NN_LAST_ROWS(4)
                THIN_NN_LAST_ROWS(3) THIN_NN_LAST_ROWS(2) THIN_NN_LAST_ROWS(1)
#undef THIN_NN_LAST_ROWS
                }
            }
        }
    }
}

void coach_thin_gemm(const float *a, int k, const float *b, int n, float *c, int firstRow, int rowCount) {
    if (rowCount <= 0 || n <= 0) return;
    if (k <= 0) {  // empty sums: no block of f would write them
        for (long e = (long)firstRow * n; e < (long)(firstRow + rowCount) * n; e++) c[e] = 0;
        return;
    }
    if (coach_kernels_isa() >= 1) thin_nn_avx2(a, k, b, n, c, firstRow, rowCount);
    else thin_nn_portable(a, k, b, n, c, firstRow, rowCount);
}

// ---------------------------------------------------------------------------------------------
// sums[j, f] += Σ_i a[i, f] · r[i, j]: aᵀ · r, transposed (lanes along a's columns), accumulated
// over calls on successive blocks of rows

static void thin_tn_portable(const float *a, int rows, int k, const float *r, int n, float *sums, int first, int count) {
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < n; j++) {
            float v = r[(long)i * n + j];
            float *t = sums + (long)j * k;
            for (int f = first; f < first + count; f++) t[f] = fmaf(a[(long)i * k + f], v, t[f]);
        }
    }
}

// Rows of a are taken THIN_TN_ROWS at a time, so the loads of a run along those rows (a
// stride of k between rows for every vector would miss the cache and the TLB on each one). For each
// block of rows, sixteen columns of a (two vectors: one cache line of each row) meet up to six
// columns of r in twelve accumulators, loaded from and stored back to `sums`; the rows still reach
// every element in order. 64 rows, and a prefetch 128 floats ahead along each row: on a 2-core AMD
// EPYC (AVX2) the product for 7,796 × 10,000 features and 4 classes took 27 ms, against 39 ms with
// 32 rows and no prefetch and 47 ms for OpenBLAS's sgemm.
#define THIN_TN_ROWS 64
#define THIN_TN_AHEAD 128

// One block of rows against `columns` (a constant once inlined, so the accumulators stay in
// registers) columns of r: sixteen columns of a from `x`, the sums at `sums` (row stride `stride`).
TARGET256 INLINE void thin_tn_block(const float *x, const float *y, int rows, int k, int n, __m256i mask0,
                                    __m256i mask1, float *sums, long stride, const int columns) {
    __m256 s[6][2];
    for (int j = 0; j < columns; j++) {
        s[j][0] = _mm256_maskload_ps(sums + j * stride, mask0);
        s[j][1] = _mm256_maskload_ps(sums + j * stride + 8, mask1);
    }
    for (int i = 0; i < rows; i++, x += k, y += n) {
        _mm_prefetch((const char *)(x + THIN_TN_AHEAD), _MM_HINT_T0);
        __m256 x0 = _mm256_maskload_ps(x, mask0), x1 = _mm256_maskload_ps(x + 8, mask1);
        for (int j = 0; j < columns; j++) {
            __m256 v = _mm256_broadcast_ss(y + j);
            s[j][0] = _mm256_fmadd_ps(x0, v, s[j][0]);
            s[j][1] = _mm256_fmadd_ps(x1, v, s[j][1]);
        }
    }
    for (int j = 0; j < columns; j++) {
        _mm256_maskstore_ps(sums + j * stride, mask0, s[j][0]);
        _mm256_maskstore_ps(sums + j * stride + 8, mask1, s[j][1]);
    }
}

// The passes over blocks of rows, 2 × `half` columns of a and up to six columns of r at a time,
// for either vector width: `block` is that width's kernel, `mask_t` and `lanes` its lane masks.
#define THIN_TN_PASSES(name, target, block, half, mask_t, lanes)                                          \
    target static void name(const float *a, int m, int k, const float *r, int n, float *sums, int first,  \
                            int count) {                                                                   \
        for (int i0 = 0; i0 < m; i0 += THIN_TN_ROWS) {                                                     \
            int rows = m - i0 < THIN_TN_ROWS ? m - i0 : THIN_TN_ROWS;                                     \
            for (int f = first; f < first + count; f += 2 * (half)) {                                     \
                int width = first + count - f < 2 * (half) ? first + count - f : 2 * (half);              \
                mask_t mask0 = lanes(width), mask1 = lanes(width - (half));                                \
                const float *x = a + (long)i0 * k + f;                                                     \
                for (int j0 = 0; j0 < n; j0 += 6) {                                                        \
                    const float *y = r + (long)i0 * n + j0;                                                \
                    float *t = sums + (long)j0 * k + f;                                                    \
                    switch (n - j0 < 6 ? n - j0 : 6) {                                                     \
                    case 1: block(x, y, rows, k, n, mask0, mask1, t, k, 1); break;                         \
                    case 2: block(x, y, rows, k, n, mask0, mask1, t, k, 2); break;                         \
                    case 3: block(x, y, rows, k, n, mask0, mask1, t, k, 3); break;                         \
                    case 4: block(x, y, rows, k, n, mask0, mask1, t, k, 4); break;                         \
                    case 5: block(x, y, rows, k, n, mask0, mask1, t, k, 5); break;                         \
                    default: block(x, y, rows, k, n, mask0, mask1, t, k, 6); break;                        \
                    }                                                                                      \
                }                                                                                          \
            }                                                                                              \
        }                                                                                                  \
    }

THIN_TN_PASSES(thin_tn_avx2, TARGET256, thin_tn_block, 8, __m256i, lanes256)

// AVX-512F: the same blocks with thirty-two columns of a (two vectors of sixteen) per pass, half the
// instructions per value of a; every element's chain over the rows is the same, so the same bits.
// On a 2-core Intel Xeon, 21 rows of 10,000 features and 6 classes in the cache: 22 → 38 GB/s of
// a; 1,080 rows from memory: 15 → 19 GB/s.
TARGET512 INLINE void thin_tn_block512(const float *x, const float *y, int rows, int k, int n, __mmask16 mask0,
                                       __mmask16 mask1, float *sums, long stride, const int columns) {
    __m512 s[6][2];
    for (int j = 0; j < columns; j++) {
        s[j][0] = _mm512_maskz_loadu_ps(mask0, sums + j * stride);
        s[j][1] = _mm512_maskz_loadu_ps(mask1, sums + j * stride + 16);
    }
    for (int i = 0; i < rows; i++, x += k, y += n) {
        _mm_prefetch((const char *)(x + THIN_TN_AHEAD), _MM_HINT_T0);
        _mm_prefetch((const char *)(x + THIN_TN_AHEAD + 16), _MM_HINT_T0);
        __m512 x0 = _mm512_maskz_loadu_ps(mask0, x), x1 = _mm512_maskz_loadu_ps(mask1, x + 16);
        for (int j = 0; j < columns; j++) {
            __m512 v = _mm512_set1_ps(y[j]);
            s[j][0] = _mm512_fmadd_ps(x0, v, s[j][0]);
            s[j][1] = _mm512_fmadd_ps(x1, v, s[j][1]);
        }
    }
    for (int j = 0; j < columns; j++) {
        _mm512_mask_storeu_ps(sums + j * stride, mask0, s[j][0]);
        _mm512_mask_storeu_ps(sums + j * stride + 16, mask1, s[j][1]);
    }
}

THIN_TN_PASSES(thin_tn_avx512, TARGET512, thin_tn_block512, 16, __mmask16, lanes512)

void coach_thin_gemm_tn_accumulate(const float *a, int rows, int k, const float *r, int n, float *sums,
                                   int firstColumn, int columnCount) {
    if (rows <= 0 || columnCount <= 0 || n <= 0) return;
    int isa = coach_kernels_isa();
    if (isa == 2) thin_tn_avx512(a, rows, k, r, n, sums, firstColumn, columnCount);
    else if (isa == 1) thin_tn_avx2(a, rows, k, r, n, sums, firstColumn, columnCount);
    else thin_tn_portable(a, rows, k, r, n, sums, firstColumn, columnCount);
}
