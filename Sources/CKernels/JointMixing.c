// The graph convolution's joint mixing: out[m, r, :] = Σ_j a[r, j] · x[m, j, :] for every frame m
// of a batch ([M, J, C] in, [M, R, C] out, a [R, J] with R = joints × partitions), and its
// adjacency gradient ga[r, j] = Σ_m Σ_c g[m, r, c] · x[m, j, c].
//
// Done as one GEMM, the joints must first be moved to the outside of the frames ([J, M·C]) and the
// product moved back: copies of the whole activation in both directions, forward and backward, and
// a product whose depth is only J. Here every frame's [R, J] · [J, C] product reads its frame where
// it lies (a few KB, in L1) and writes the layout the next layer reads.
//
// Every output element is one chain of fused multiply-adds in order — over j for the mixing, over
// (m, channel block) per lane then a fixed tree over the eight lanes for the gradient — in the AVX2
// kernel as in portable C (`fmaf`), so results are the same bits on every instruction set.
#include "CKernels.h"
#include "KernelTargets.h"

#include <math.h>
#include <stdlib.h>

// The first `count` of 8 lanes, as a mask for maskload.
TARGET256 INLINE __m256i mask256(int count) {
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), index);
}

// One frame's rows [r0, r1) and channels [c0, C): each element alone, in portable C.
static void mix_elements(const float *a, int J, const float *xm, int C, int r0, int r1, int c0, float *om) {
    for (int r = r0; r < r1; r++) {
        for (int c = c0; c < C; c++) {
            float sum = 0;
            for (int j = 0; j < J; j++) sum = fmaf(a[(long)r * J + j], xm[(long)j * C + c], sum);
            om[(long)r * C + c] = sum;
        }
    }
}

// RR rows (from r0) × V vectors of 8 channels (from c0) of one frame: RR·V accumulators, whole
// vectors only (masked stores are slow on some x86 cores, and the products are short).
TARGET256 INLINE void mix_tile(const float *a, int J, const float *xm, int C, int r0, int c0, float *om, const int RR,
                               const int V) {
    __m256 s[4][2];
    for (int i = 0; i < RR; i++)
        for (int v = 0; v < V; v++) s[i][v] = _mm256_setzero_ps();
    for (int j = 0; j < J; j++) {
        __m256 xv[2];
        for (int v = 0; v < V; v++) xv[v] = _mm256_loadu_ps(xm + (long)j * C + c0 + 8 * v);
        for (int i = 0; i < RR; i++) {
            const __m256 w = _mm256_broadcast_ss(a + (long)(r0 + i) * J + j);
            for (int v = 0; v < V; v++) s[i][v] = _mm256_fmadd_ps(w, xv[v], s[i][v]);
        }
    }
    for (int i = 0; i < RR; i++)
        for (int v = 0; v < V; v++) _mm256_storeu_ps(om + (long)(r0 + i) * C + c0 + 8 * v, s[i][v]);
}

// The last channels [c0, C) (fewer than 8: the input's x, y, z and confidence) of one frame, eight
// rows at a time along the transposed adjacency `at` [J, R]: one accumulator per channel.
TARGET256 static void mix_columns(const float *at, int R, int J, const float *xm, int C, int c0, float *om) {
    const int tail = C - c0;
    for (int r0 = 0; r0 < R; r0 += 8) {
        const __m256i mask = mask256(R - r0);
        __m256 s[8];
        for (int t = 0; t < tail; t++) s[t] = _mm256_setzero_ps();
        for (int j = 0; j < J; j++) {
            const __m256 w = _mm256_maskload_ps(at + (long)j * R + r0, mask);
            for (int t = 0; t < tail; t++) s[t] = _mm256_fmadd_ps(w, _mm256_broadcast_ss(xm + (long)j * C + c0 + t), s[t]);
        }
        const int rows = R - r0 < 8 ? R - r0 : 8;
        for (int t = 0; t < tail; t++) {
            float lanes[8];
            _mm256_storeu_ps(lanes, s[t]);
            for (int i = 0; i < rows; i++) om[(long)(r0 + i) * C + c0 + t] = lanes[i];
        }
    }
}

TARGET256 static void mix_avx2(const float *a, int R, int J, const float *x, int C, long first, long count, float *out) {
    const int whole = C / 8 * 8;
    float *at = NULL;
    if (whole < C) {
        at = malloc(sizeof(float) * (size_t)R * J);
        if (at)
            for (int r = 0; r < R; r++)
                for (int j = 0; j < J; j++) at[(long)j * R + r] = a[(long)r * J + j];
    }
    for (long m = first; m < first + count; m++) {
        const float *xm = x + m * J * C;
        float *om = out + m * R * C;
        int c0 = 0;
        for (; c0 + 16 <= whole; c0 += 16) {
            int r0 = 0;
            for (; r0 + 4 <= R; r0 += 4) mix_tile(a, J, xm, C, r0, c0, om, 4, 2);
            for (; r0 < R; r0++) mix_tile(a, J, xm, C, r0, c0, om, 1, 2);
        }
        for (; c0 < whole; c0 += 8) {
            int r0 = 0;
            for (; r0 + 4 <= R; r0 += 4) mix_tile(a, J, xm, C, r0, c0, om, 4, 1);
            for (; r0 < R; r0++) mix_tile(a, J, xm, C, r0, c0, om, 1, 1);
        }
        if (whole < C) {
            if (at) mix_columns(at, R, J, xm, C, whole, om);
            else mix_elements(a, J, xm, C, 0, R, whole, om);
        }
    }
    free(at);
}

void coach_joint_mix(const float *a, int rows, int joints, const float *x, int channels, long first, long count,
                     float *out) {
    if (count <= 0 || rows <= 0 || channels <= 0) return;
    if (coach_kernels_isa() >= 1) {
        mix_avx2(a, rows, joints, x, channels, first, count, out);
    } else {
        for (long m = first; m < first + count; m++)
            mix_elements(a, joints, x + m * joints * channels, channels, 0, rows, 0, out + m * rows * channels);
    }
}

// ---------------------------------------------------------------------------------------------
// ga[r, j] = Σ_m Σ_c g[m, r, c] · x[m, j, c]: eight lanes per (r, j), lane l summing the channels
// c ≡ l (mod 8) over the frames in order (channels past the last read as 0), then
// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).

static float lane_total(const float *l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }

static void adjacency_portable(const float *g, int R, const float *x, int J, int C, long first, long count, float *lanes) {
    for (long m = first; m < first + count; m++) {
        const float *gm = g + m * R * C, *xm = x + m * J * C;
        for (int r = 0; r < R; r++) {
            for (int j = 0; j < J; j++) {
                float *l = lanes + ((long)r * J + j) * 8;
                for (int c0 = 0; c0 < C; c0 += 8) {
                    for (int k = 0; k < 8; k++) {
                        int c = c0 + k;
                        float gv = c < C ? gm[(long)r * C + c] : 0, xv = c < C ? xm[(long)j * C + c] : 0;
                        l[k] = fmaf(gv, xv, l[k]);
                    }
                }
            }
        }
    }
}

// Frames [m0, m1) for rows r0… (RR of them) and joints j0… (JJ): RR·JJ accumulators in registers.
TARGET256 INLINE void adjacency_tile(const float *g, int R, const float *x, int J, int C, long m0, long m1, int r0, int j0,
                                     float *lanes, const int RR, const int JJ) {
    __m256 s[4][2];
    for (int i = 0; i < RR; i++)
        for (int k = 0; k < JJ; k++) s[i][k] = _mm256_loadu_ps(lanes + ((long)(r0 + i) * J + j0 + k) * 8);
    for (long m = m0; m < m1; m++) {
        const float *gm = g + (m * R + r0) * C, *xm = x + (m * J + j0) * C;
        for (int c0 = 0; c0 < C; c0 += 8) {
            const __m256i mask = mask256(C - c0);
            __m256 xv[2], gv[4];
            for (int k = 0; k < JJ; k++) xv[k] = _mm256_maskload_ps(xm + (long)k * C + c0, mask);
            for (int i = 0; i < RR; i++) gv[i] = _mm256_maskload_ps(gm + (long)i * C + c0, mask);
            for (int i = 0; i < RR; i++)
                for (int k = 0; k < JJ; k++) s[i][k] = _mm256_fmadd_ps(gv[i], xv[k], s[i][k]);
        }
    }
    for (int i = 0; i < RR; i++)
        for (int k = 0; k < JJ; k++) _mm256_storeu_ps(lanes + ((long)(r0 + i) * J + j0 + k) * 8, s[i][k]);
}

// Frames are taken 16 at a time, so a block's frames (16 × (R + J) × C floats: 147 KB for 54 rows,
// 18 joints and 32 channels) stay in L2 while every tile of (r, j) runs over them.
#define ADJACENCY_FRAMES 16

TARGET256 static void adjacency_avx2(const float *g, int R, const float *x, int J, int C, long first, long count,
                                     float *lanes) {
    for (long m0 = first; m0 < first + count; m0 += ADJACENCY_FRAMES) {
        long m1 = m0 + ADJACENCY_FRAMES < first + count ? m0 + ADJACENCY_FRAMES : first + count;
        for (int r0 = 0; r0 < R; r0 += 4) {
            for (int j0 = 0; j0 < J; j0 += 2) {
                int rr = R - r0 < 4 ? R - r0 : 4, jj = J - j0 < 2 ? J - j0 : 2;
                switch (rr * 2 + jj) {  // constant tile sizes, so the accumulators stay in registers
                case 10: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 4, 2); break;
                case 9: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 4, 1); break;
                case 8: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 3, 2); break;
                case 7: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 3, 1); break;
                case 6: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 2, 2); break;
                case 5: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 2, 1); break;
                case 4: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 1, 2); break;
                default: adjacency_tile(g, R, x, J, C, m0, m1, r0, j0, lanes, 1, 1); break;
                }
            }
        }
    }
}

int coach_joint_mix_adjacency_gradient(const float *g, int rows, const float *x, int joints, int channels, long first,
                                       long count, float *ga) {
    float *lanes = calloc((size_t)rows * joints * 8, sizeof(float));
    if (!lanes) return -1;
    if (count > 0 && channels > 0) {
        if (coach_kernels_isa() >= 1) adjacency_avx2(g, rows, x, joints, channels, first, count, lanes);
        else adjacency_portable(g, rows, x, joints, channels, first, count, lanes);
    }
    for (long e = 0; e < (long)rows * joints; e++) ga[e] = lane_total(lanes + e * 8);
    free(lanes);
    return 0;
}
