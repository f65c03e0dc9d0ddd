// CFourier: two-dimensional complex float FFTs on FFmpeg's libavutil av_tx.
//
// A plan owns the av_tx contexts for its row and column lengths and an aligned complex buffer
// of width × height values (interleaved re, im; rows top to bottom). Fill the buffer, call
// coach_fourier_transform, read the buffer. Any length ≥ 1 works (av_tx factors lengths and
// falls back to a direct transform for large primes). Forward uses e^{-2πi kn/N}; the inverse
// uses e^{+2πi kn/N} and is not normalised (divide by width × height).
#ifndef COACH_CFOURIER_H
#define COACH_CFOURIER_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CoachFourierPlan CoachFourierPlan;

/// A plan for width × height transforms, or NULL (sizes below 1, or out of memory).
CoachFourierPlan *coach_fourier_plan_create(int width, int height);

/// Frees a plan and its buffer (NULL is ignored).
void coach_fourier_plan_destroy(CoachFourierPlan *plan);

/// The plan's buffer: 2 × width × height floats (re, im interleaved), rows top to bottom.
float *coach_fourier_plan_buffer(CoachFourierPlan *plan);

/// Transforms the buffer in place: forward when inverse == 0, otherwise inverse (unscaled).
void coach_fourier_transform(CoachFourierPlan *plan, int inverse);

#ifdef __cplusplus
}
#endif

#endif
