// Depthwise convolution with fused bias and activation, one output row per call: the depthwise
// layers of every inference network (the backbone, MediaPipe's pose and hand models).
//
// Each output element is its bias plus its taps in (row, column) order, one fused multiply-add
// per tap (a plain multiply and add in portable C), then clamped: the same operations whether
// the pixel sits in a tile of eight, four or one, on the border or inside, so results never
// depend on the row split over threads or on batching. Kernels: AVX-512F (16 channels per
// vector), AVX2 with FMA (8), portable C; chosen by `coach_kernels_isa`.
#include "CKernels.h"
#include "KernelTargets.h"

#include <immintrin.h>

// The geometry of one output row, shared by every kernel.
typedef struct {
    const float *image;      // one image, height × width × stride floats (from the first channel computed)
    int width, channels;     // channels: how many to compute
    int stride;              // floats between adjacent pixels (the image's channels)
    const float *filter;     // kernelHeight × kernelWidth × channels
    int kernelWidth, step;   // step: floats between horizontally adjacent output pixels' windows
    int y0, kyStart, kyEnd;  // the window's top row and its rows inside the image
    const float *bias;
    float lower, upper;
} row_geometry;

// ---------------------------------------------------------------------------------------------
// AVX-512F

// `count` pixels' sums, clamped to [lo, hi], `stride` floats apart from `dst`.
TARGET512 INLINE void store_clamped512(const int count, const __m512 *acc, __mmask16 m, __m512 lo, __m512 hi, float *dst,
                                       long stride) {
#pragma clang loop unroll(full)
    for (int p = 0; p < count; p++) _mm512_mask_storeu_ps(dst + p * stride, m, _mm512_min_ps(hi, _mm512_max_ps(lo, acc[p])));
}

// The lanes of a block of up to 16 of `remaining` channels, and `count` sums starting at its bias.
TARGET512 INLINE __mmask16 start_block512(const int count, const float *bias, int remaining, __m512 *acc) {
    const __mmask16 m = lanes512(remaining);
    const __m512 b = _mm512_maskz_loadu_ps(m, bias);
#pragma clang loop unroll(full)
    for (int p = 0; p < count; p++) acc[p] = b;
    return m;
}

// `count` adjacent output pixels whose window starts at column x0, taps kx in [kxStart, kxEnd).
TARGET512 INLINE void pixels512(const int count, const row_geometry *g, int x0, int kxStart, int kxEnd, float *dst) {
    const int C = g->channels, S = g->stride;
    const __m512 lo = _mm512_set1_ps(g->lower), hi = _mm512_set1_ps(g->upper);
    for (int c = 0; c < C; c += 16) {
        __m512 acc[8];
        const __mmask16 m = start_block512(count, g->bias + c, C - c, acc);
        for (int ky = g->kyStart; ky < g->kyEnd; ky++) {
            const float *row = g->image + (long)(g->y0 + ky) * g->width * S + c;
            const float *w = g->filter + (long)ky * g->kernelWidth * S + c;
            for (int kx = kxStart; kx < kxEnd; kx++) {
                const __m512 wv = _mm512_maskz_loadu_ps(m, w + (long)kx * S);
                const float *x = row + (long)(x0 + kx) * S;
#pragma clang loop unroll(full)
                for (int p = 0; p < count; p++)
                    acc[p] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + (long)p * g->step), wv, acc[p]);
            }
        }
        store_clamped512(count, acc, m, lo, hi, dst + c, S);
    }
}

// Eight adjacent pixels of a KW-wide kernel at stride SW, sliding along the input row: each input
// vector is loaded once and multiplied into every pixel whose window holds it, so a row of taps
// costs 7·SW + KW loads instead of 8·KW. Input columns outside the image are skipped (`clipped`:
// a tile over the row's border), so each pixel adds exactly its taps inside the image, in (row,
// column) order, as every other path does. The first `count` pixels are stored (a row's last
// tile may be short: the others are computed from the columns inside and dropped).
TARGET512 INLINE void slide512(const int KW, const int SW, const int clipped, const row_geometry *g, int x0, int count,
                               float *dst) {
    const int C = g->channels, S = g->stride;
    const __m512 lo = _mm512_set1_ps(g->lower), hi = _mm512_set1_ps(g->upper);
    const int first = clipped && x0 < 0 ? -x0 : 0, end = clipped ? g->width - x0 : 7 * SW + KW;
    for (int c = 0; c < C; c += 16) {
        __m512 acc[8];
        const __mmask16 m = start_block512(8, g->bias + c, C - c, acc);
        for (int ky = g->kyStart; ky < g->kyEnd; ky++) {
            const float *row = g->image + (long)(g->y0 + ky) * g->width * S + (long)x0 * S + c;
            const float *w = g->filter + (long)ky * KW * S + c;
            __m512 wv[7];
#pragma clang loop unroll(full)
            for (int kx = 0; kx < KW; kx++) wv[kx] = _mm512_maskz_loadu_ps(m, w + (long)kx * S);
#pragma clang loop unroll(full)
            for (int ix = 0; ix < 7 * SW + KW; ix++) {
                if (clipped && (ix < first || ix >= end)) continue;
                const __m512 x = _mm512_maskz_loadu_ps(m, row + (long)ix * S);
#pragma clang loop unroll(full)
                for (int p = 0; p < 8; p++) {
                    const int kx = ix - p * SW;
                    if (kx >= 0 && kx < KW) acc[p] = _mm512_fmadd_ps(x, wv[kx], acc[p]);
                }
            }
        }
        if (count == 8) store_clamped512(8, acc, m, lo, hi, dst + c, S);
        else
            for (int p = 0; p < count; p++) _mm512_mask_storeu_ps(dst + c + (long)p * S, m, _mm512_min_ps(hi, _mm512_max_ps(lo, acc[p])));
    }
}

// Whether `slide_tile512` takes this kernel (the backbone's and the pose models' shapes).
static int slides512(int KW, int SW) { return (KW == 3 || KW == 5) && (SW == 1 || SW == 2); }

// Up to eight pixels from x0 (`count`), clipped to the image or not, by a sliding tile.
TARGET512 static void slide_tile512(const row_geometry *g, int x0, int clipped, int count, float *dst) {
    const int KW = g->kernelWidth, SW = g->step / g->stride;
    if (clipped) {
        if (KW == 3 && SW == 1) slide512(3, 1, 1, g, x0, count, dst);
        else if (KW == 5 && SW == 1) slide512(5, 1, 1, g, x0, count, dst);
        else if (KW == 3 && SW == 2) slide512(3, 2, 1, g, x0, count, dst);
        else slide512(5, 2, 1, g, x0, count, dst);
    } else {
        if (KW == 3 && SW == 1) slide512(3, 1, 0, g, x0, 8, dst);
        else if (KW == 5 && SW == 1) slide512(5, 1, 0, g, x0, 8, dst);
        else if (KW == 3 && SW == 2) slide512(3, 2, 0, g, x0, 8, dst);
        else slide512(5, 2, 0, g, x0, 8, dst);
    }
}

TARGET512 static void pixels512_8(const row_geometry *g, int x0, int a, int b, float *dst) {
    if (slides512(g->kernelWidth, g->step / g->stride)) slide_tile512(g, x0, 0, 8, dst);
    else pixels512(8, g, x0, a, b, dst);
}
TARGET512 static void pixels512_4(const row_geometry *g, int x0, int a, int b, float *dst) { pixels512(4, g, x0, a, b, dst); }
// One pixel, 64 channels at a time (four independent sums hide the multiply-add latency), then
// the rest of the channels by `pixels512`.
TARGET512 static void pixels512_1(const row_geometry *g, int x0, int kxStart, int kxEnd, float *dst) {
    const int C = g->channels, S = g->stride, wide = C - C % 64;
    const __m512 lo = _mm512_set1_ps(g->lower), hi = _mm512_set1_ps(g->upper);
    for (int c = 0; c < wide; c += 64) {
        __m512 acc[4];
#pragma clang loop unroll(full)
        for (int q = 0; q < 4; q++) acc[q] = _mm512_loadu_ps(g->bias + c + 16 * q);
        for (int ky = g->kyStart; ky < g->kyEnd; ky++) {
            const float *row = g->image + (long)(g->y0 + ky) * g->width * S + c;
            const float *w = g->filter + (long)ky * g->kernelWidth * S + c;
            for (int kx = kxStart; kx < kxEnd; kx++) {
                const float *x = row + (long)(x0 + kx) * S, *wk = w + (long)kx * S;
#pragma clang loop unroll(full)
                for (int q = 0; q < 4; q++)
                    acc[q] = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16 * q), _mm512_loadu_ps(wk + 16 * q), acc[q]);
            }
        }
#pragma clang loop unroll(full)
        for (int q = 0; q < 4; q++) _mm512_storeu_ps(dst + c + 16 * q, _mm512_min_ps(hi, _mm512_max_ps(lo, acc[q])));
    }
    if (wide == C) return;
    row_geometry rest = *g;
    rest.image += wide; rest.filter += wide; rest.bias += wide; rest.channels = C - wide;
    pixels512(1, &rest, x0, kxStart, kxEnd, dst + wide);
}

// ---------------------------------------------------------------------------------------------
// AVX2 with FMA

TARGET256 INLINE __m256i lanes256(int count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

TARGET256 INLINE void pixels256(const int count, const row_geometry *g, int x0, int kxStart, int kxEnd, float *dst) {
    const int C = g->channels, S = g->stride;
    const __m256 lo = _mm256_set1_ps(g->lower), hi = _mm256_set1_ps(g->upper);
    for (int c = 0; c < C; c += 8) {
        const __m256i m = lanes256(C - c);
        const __m256 b = _mm256_maskload_ps(g->bias + c, m);
        __m256 acc[8];
#pragma clang loop unroll(full)
        for (int p = 0; p < count; p++) acc[p] = b;
        for (int ky = g->kyStart; ky < g->kyEnd; ky++) {
            const float *row = g->image + (long)(g->y0 + ky) * g->width * S + c;
            const float *w = g->filter + (long)ky * g->kernelWidth * S + c;
            for (int kx = kxStart; kx < kxEnd; kx++) {
                const __m256 wv = _mm256_maskload_ps(w + (long)kx * S, m);
                const float *x = row + (long)(x0 + kx) * S;
#pragma clang loop unroll(full)
                for (int p = 0; p < count; p++)
                    acc[p] = _mm256_fmadd_ps(_mm256_maskload_ps(x + (long)p * g->step, m), wv, acc[p]);
            }
        }
#pragma clang loop unroll(full)
        for (int p = 0; p < count; p++)
            _mm256_maskstore_ps(dst + (long)p * S + c, m, _mm256_min_ps(hi, _mm256_max_ps(lo, acc[p])));
    }
}

TARGET256 static void pixels256_8(const row_geometry *g, int x0, int a, int b, float *dst) { pixels256(8, g, x0, a, b, dst); }
TARGET256 static void pixels256_4(const row_geometry *g, int x0, int a, int b, float *dst) { pixels256(4, g, x0, a, b, dst); }
TARGET256 static void pixels256_1(const row_geometry *g, int x0, int a, int b, float *dst) { pixels256(1, g, x0, a, b, dst); }

// ---------------------------------------------------------------------------------------------
// Portable C: one pixel at a time, the same order of operations.

static void pixels_portable(const row_geometry *g, int x0, int kxStart, int kxEnd, float *dst) {
    const int C = g->channels, S = g->stride;
    for (int c = 0; c < C; c++) {
        float acc = g->bias[c];
        for (int ky = g->kyStart; ky < g->kyEnd; ky++) {
            const float *row = g->image + (long)(g->y0 + ky) * g->width * S + c;
            const float *w = g->filter + (long)ky * g->kernelWidth * S + c;
            for (int kx = kxStart; kx < kxEnd; kx++) acc += row[(long)(x0 + kx) * S] * w[(long)kx * S];
        }
        acc = acc < g->lower ? g->lower : acc;
        dst[c] = acc > g->upper ? g->upper : acc;
    }
}

// ---------------------------------------------------------------------------------------------
// The row walk: inside pixels (every tap in the image) in tiles of eight, then four, then one;
// border pixels one at a time with their taps clipped to the image.

typedef void (*pixels_function)(const row_geometry *g, int x0, int kxStart, int kxEnd, float *dst);

void coach_depthwise_row(const float *image, int height, int width, int channels, int firstChannel, int channelCount,
                         const float *filter, int kernelHeight, int kernelWidth, int strideWidth, int padLeft, int y0,
                         int outputWidth, const float *bias, float lower, float upper, float *output) {
    row_geometry g = {
        image + firstChannel, width, channelCount, channels, filter + firstChannel, kernelWidth, strideWidth * channels, y0,
        y0 < 0 ? -y0 : 0, kernelHeight < height - y0 ? kernelHeight : height - y0, bias + firstChannel, lower, upper,
    };
    output += firstChannel;
    pixels_function eight, four, one;
    switch (coach_kernels_isa()) {
    case 2: eight = pixels512_8; four = pixels512_4; one = pixels512_1; break;
    case 1: eight = pixels256_8; four = pixels256_4; one = pixels256_1; break;
    default: eight = four = NULL; one = pixels_portable; break;
    }
    const int s = strideWidth;
    int insideStart = (padLeft + s - 1) / s;
    if (insideStart > outputWidth) insideStart = outputWidth;
    int lastInside = width + padLeft - kernelWidth;   // ox · s ≤ this for a window inside the image
    int insideEnd = lastInside < 0 ? insideStart : lastInside / s + 1;
    if (insideEnd > outputWidth) insideEnd = outputWidth;
    if (insideEnd < insideStart) insideEnd = insideStart;
    if (coach_kernels_isa() == 2 && slides512(kernelWidth, strideWidth)) {
        // Tiles of eight along the whole row: those inside the image unclipped, those over a
        // border (and a short last tile) with the columns outside skipped.
        for (int ox = 0; ox < outputWidth; ox += 8) {
            const int count = outputWidth - ox < 8 ? outputWidth - ox : 8;
            const int inside = ox >= insideStart && ox + 8 <= insideEnd;
            slide_tile512(&g, ox * s - padLeft, !inside, count, output + (long)ox * channels);
        }
        return;
    }
    for (int ox = 0; ox < outputWidth;) {
        const int x0 = ox * s - padLeft;
        float *dst = output + (long)ox * channels;
        if (ox >= insideStart && ox < insideEnd) {
            if (eight && ox + 8 <= insideEnd) { eight(&g, x0, 0, kernelWidth, dst); ox += 8; continue; }
            if (four && ox + 4 <= insideEnd) { four(&g, x0, 0, kernelWidth, dst); ox += 4; continue; }
            one(&g, x0, 0, kernelWidth, dst);
        } else {
            int kxStart = x0 < 0 ? -x0 : 0, kxEnd = kernelWidth < width - x0 ? kernelWidth : width - x0;
            if (kxEnd < kxStart) kxEnd = kxStart;
            one(&g, x0, kxStart, kxEnd, dst);
        }
        ox += 1;
    }
}
