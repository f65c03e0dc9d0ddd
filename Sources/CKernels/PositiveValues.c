// MiniRocket's pooling (Dempster, Schmidt & Webb, KDD 2021) of one convolution output against
// many biases: for each bias, the proportion of positive values (PPV) and the mean of positive
// values (MPV) of output − bias over frames [lower, upper).
//
// The plain loop branches on every frame of every bias, and as the biases are quantiles of the
// output, the branch goes either way at random. The AVX2 kernel takes 32 biases at a time (four
// vectors, so four chains of additions overlap), one per lane; a lane whose output does not
// exceed its bias adds +0, which leaves a count or a sum of positive values unchanged, so each
// lane runs the plain loop's additions in the same order and gives the same bits.
#include "CKernels.h"
#include "KernelTargets.h"

static void positive_values_portable(const float *out, int lower, int upper, const float *biases, int count,
                                     float inverse, float *features) {
    for (int b = 0; b < count; b++) {
        float positives = 0, sum = 0;
        for (int t = lower; t < upper; t++) {
            float excess = out[t] - biases[b];
            if (excess > 0) {
                positives += 1;
                sum += excess;
            }
        }
        features[2 * b] = positives * inverse;
        features[2 * b + 1] = positives > 0 ? sum / positives : 0;
    }
}

// `vectors` (1 or 4) vectors of biases from `biases`, their features to `features`.
TARGET256 INLINE void positive_values_block(const float *out, int lower, int upper, const float *biases,
                                            float inverse, float *features, const int vectors) {
    const __m256 one = _mm256_set1_ps(1), zero = _mm256_setzero_ps();
    __m256 bias[4], positives[4], sums[4];
    for (int v = 0; v < vectors; v++) {
        bias[v] = _mm256_loadu_ps(biases + 8 * v);
        positives[v] = zero;
        sums[v] = zero;
    }
    for (int t = lower; t < upper; t++) {
        __m256 value = _mm256_broadcast_ss(out + t);
        for (int v = 0; v < vectors; v++) {
            __m256 excess = _mm256_sub_ps(value, bias[v]);
            __m256 positive = _mm256_cmp_ps(excess, zero, _CMP_GT_OQ);
            positives[v] = _mm256_add_ps(positives[v], _mm256_and_ps(positive, one));
            sums[v] = _mm256_add_ps(sums[v], _mm256_and_ps(positive, excess));
        }
    }
    for (int v = 0; v < vectors; v++) {
        float count[8], sum[8];
        _mm256_storeu_ps(count, positives[v]);
        _mm256_storeu_ps(sum, sums[v]);
        for (int lane = 0; lane < 8; lane++) {
            float *feature = features + 2 * (8 * v + lane);
            feature[0] = count[lane] * inverse;
            feature[1] = count[lane] > 0 ? sum[lane] / count[lane] : 0;
        }
    }
}

TARGET256 static void positive_values_avx2(const float *out, int lower, int upper, const float *biases, int count,
                                           float inverse, float *features) {
    int b = 0;
    for (; b + 32 <= count; b += 32) positive_values_block(out, lower, upper, biases + b, inverse, features + 2 * b, 4);
    for (; b + 8 <= count; b += 8) positive_values_block(out, lower, upper, biases + b, inverse, features + 2 * b, 1);
    positive_values_portable(out, lower, upper, biases + b, count - b, inverse, features + 2 * b);
}

void coach_positive_values(const float *out, int lower, int upper, const float *biases, int count, float inverse,
                           float *features) {
    if (count <= 0) return;
    if (coach_kernels_isa() >= 1) positive_values_avx2(out, lower, upper, biases, count, inverse, features);
    else positive_values_portable(out, lower, upper, biases, count, inverse, features);
}
