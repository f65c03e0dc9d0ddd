#ifndef COACH_CKERNELS_H
#define COACH_CKERNELS_H

/// Inference kernels with prepacked weights, chosen at run time by the CPU's features
/// (AVX-512F, AVX2 with FMA, or portable C), so one binary runs on any x86-64 and uses
/// the widest vectors the machine has.
///
/// Every output element is computed by the same sequence of operations whatever the
/// number of rows in the call, where the row sits in its tile, or which thread runs it:
/// results never depend on batching or threading (they do depend on the instruction set,
/// as OpenBLAS's do on its kernels). The thin products of the logistic regressions' solver
/// (`coach_thin_gemm*`) are the exception to both: they serve training, and their AVX-512,
/// AVX2 and portable kernels give the same bits.

#ifdef __cplusplus
extern "C" {
#endif

/// The instruction set in use: 2 = AVX-512F, 1 = AVX2 with FMA, 0 = portable C.
/// `COACH_KERNELS=avx512|avx2|portable` in the environment caps it (for tests and comparisons).
int coach_kernels_isa(void);

/// Caps the instruction set at `isa` (clamped to what the CPU has); returns the one in use.
int coach_kernels_set_isa(int isa);

/// The number of floats `coach_pack_weights` writes for a [k, n] matrix.
long coach_packed_weights_size(int k, int n);

/// Packs a row-major [k, n] weight matrix into 16-column panels (k × 16 floats each, the
/// last zero-padded), the layout every `coach_packed_gemm` kernel reads.
void coach_pack_weights(const float *weights, int k, int n, float *packed);

/// c[m, n] = epilogue(bias + a[m, k] · W), row-major with leading dimensions k and n; W packed
/// by `coach_pack_weights`. The sum runs over k in order, starting from the bias.
/// Epilogue: `residual` [m, n] added when given; then PReLU with per-column `slopes` when given
/// (max(v, 0) + slope · min(v, 0)); otherwise clamped to [lower, upper].
void coach_packed_gemm(const float *a, int m, int k, const float *packed, int n, const float *bias,
                       const float *residual, const float *slopes, float lower, float upper, float *c);

/// `coach_packed_gemm` for output columns [firstColumn, firstColumn + columnCount) only (c, bias,
/// residual and slopes still indexed by the full width n). `firstColumn` must be a multiple of
/// 32: every element then gets the same tile, and the same bits, as in the whole product.
void coach_packed_gemm_columns(const float *a, int m, int k, const float *packed, int n, int firstColumn,
                               int columnCount, const float *bias, const float *residual, const float *slopes,
                               float lower, float upper, float *c);

/// Unfolds output pixels [first, first + count) of a k×k convolution of one NHWC image
/// (height × width × channels; zero padding `padTop`/`padLeft`, output `outputWidth` wide) into
/// rows of kh·kw·channels floats at `columns`: the `a` of `coach_packed_gemm`.
void coach_im2col(const float *image, int height, int width, int channels, int kernelHeight, int kernelWidth,
                  int strideHeight, int strideWidth, int padTop, int padLeft, int outputWidth, int first, int count,
                  float *columns);

/// Whether `coach_direct_convolution_row` runs for `channels` input channels on this machine
/// (few channels, AVX-512F); otherwise unfold with `coach_im2col` and use `coach_packed_gemm`.
int coach_direct_convolution_available(int channels);

/// One output row of a k×k convolution of one NHWC image with few channels, computed straight
/// from the image with weights packed by `coach_pack_weights` ([kh·kw·channels, n]): output[ox, j]
/// = epilogue(bias[j] + Σ taps), the taps summed in (row, column, channel) order, those outside the
/// image skipped; the window's top row is `y0`, its left column ox · strideWidth − padLeft.
/// Epilogue: PReLU with `slopes` when given, else clamped to [lower, upper].
void coach_direct_convolution_row(const float *image, int height, int width, int channels, int kernelHeight,
                                  int kernelWidth, int strideWidth, int padLeft, int y0, int outputWidth,
                                  const float *packed, int n, const float *bias, const float *slopes, float lower,
                                  float upper, float *output);

/// One output row of a depthwise convolution of one NHWC image (height × width × channels, filter
/// kernelHeight × kernelWidth × channels, zero padding): output[ox, c] = clamp(bias[c] + Σ taps,
/// lower, upper) for the window whose top row is `y0` (= output row · stride − top padding) and
/// whose left column is ox · strideWidth − padLeft. The taps are summed in (row, column) order,
/// taps outside the image skipped. Only channels [firstChannel, firstChannel + channelCount) are
/// computed (a small map's channels shared among threads); each gets the same bits either way.
void coach_depthwise_row(const float *image, int height, int width, int channels, int firstChannel, int channelCount,
                         const float *filter, int kernelHeight, int kernelWidth, int strideWidth, int padLeft, int y0,
                         int outputWidth, const float *bias, float lower, float upper, float *output);

/// c[i, j] = Σ_f a[i, f] · b[f, j] for rows i in [firstRow, firstRow + rowCount): a row-major
/// [m, k], b [k, n] with few columns (a classifier's weights), c [m, n]. Each element is one chain
/// of fused multiply-adds over f in order from 0, the same bits on every instruction set.
void coach_thin_gemm(const float *a, int k, const float *b, int n, float *c, int firstRow, int rowCount);

/// sums[j, f] += Σ_i a[i, f] · r[i, j] for f in [firstColumn, firstColumn + columnCount): aᵀ · r
/// transposed, for `rows` rows of a (row-major, k wide) and of a thin r (n wide); sums is [n, k].
/// Each element continues one chain of fused multiply-adds over the rows in order, so calls on
/// successive blocks of rows give the bits of one call on them all, on every instruction set.
void coach_thin_gemm_tn_accumulate(const float *a, int rows, int k, const float *r, int n, float *sums,
                                   int firstColumn, int columnCount);

/// The graph convolution's joint mixing: out[m, r, c] = Σ_j a[r, j] · x[m, j, c] for frames m in
/// [first, first + count), with a [rows, joints], x [M, joints, channels] and out [M, rows, channels]
/// (row-major). Each element is one chain of fused multiply-adds over j in order from 0
///, the same bits on every instruction set.
void coach_joint_mix(const float *a, int rows, int joints, const float *x, int channels, long first, long count,
                     float *out);

/// The mixing's adjacency gradient over frames [first, first + count): ga[r, j] = Σ_m Σ_c g[m, r, c] · x[m, j, c]
/// (g [M, rows, channels], x [M, joints, channels], ga [rows, joints], overwritten). Eight lanes per
/// element, lane l a chain of fused multiply-adds over the frames in order and the channels
/// c ≡ l (mod 8), then summed as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)): the same bits on
/// every instruction set. Returns 0, or −1 when its 32·rows·joints bytes of scratch cannot be allocated.
int coach_joint_mix_adjacency_gradient(const float *g, int rows, const float *x, int joints, int channels, long first,
                                       long count, float *ga);

/// MiniRocket's pooling of one convolution output `out` against `count` biases: for bias b,
/// features[2b] = (frames t in [lower, upper) with out[t] − bias > 0) · `inverse` (the proportion of
/// positive values when `inverse` is 1 / (upper − lower)) and features[2b + 1] = the mean of those
/// positive values (0 when there are none). Each is summed over the frames in order, the same bits
/// on every instruction set.
void coach_positive_values(const float *out, int lower, int upper, const float *biases, int count, float inverse,
                           float *features);

/// A task of a parallel job: `index` in [0, tasks).
typedef void (*coach_task)(void *context, int index);

/// Runs task(context, i) for every i in [0, tasks) on up to `threads` threads (the caller's
/// included) of a pool whose workers spin briefly between jobs, and returns when all are done.
/// Runs serially inside another task or while another caller's job is running.
void coach_pool_run(int threads, int tasks, coach_task task, void *context);

/// Whether the calling thread is running a task of `coach_pool_run`.
int coach_pool_inside_task(void);

#ifdef __cplusplus
}
#endif

#endif
