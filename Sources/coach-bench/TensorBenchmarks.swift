import CBLAS
import CoachTensor
import CoachTraining

/// Kernel benchmarks: GEMM overhead against raw cblas_sgemm, pointwise and depthwise
/// convolution throughput at EfficientNet-Lite0 shapes.
enum TensorBenchmarks {
    static func run(threads: Int) {
        ComputeThreads.set(threads)
        print("== tensor kernels (\(threads) thread\(threads == 1 ? "" : "s"))")
        var g = SeededGenerator(seed: 1)
        let n = 1024
        let a = Tensor.randomNormal([n, n], using: &g), b = Tensor.randomNormal([n, n], using: &g)
        var c = [Float](repeating: 0, count: n * n)
        // Raw OpenBLAS on its own threads (Coach keeps it on one and splits products itself).
        openblas_set_num_threads(Int32(threads))
        let raw = Timing.medianSeconds {
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(n), Int32(n), Int32(n), 1,
                                pa.baseAddress, Int32(n), pb.baseAddress, Int32(n), 0, &c, Int32(n))
                }
            }
        }
        openblas_set_num_threads(1)
        let coach = Timing.medianSeconds { _ = Tensor.matmul(a, b) }
        let flops = 2 * Double(n * n * n)
        print("matmul 1024²: coach \(format(flops / coach / 1e9, 1)) GFLOP/s, raw cblas_sgemm \(format(flops / raw / 1e9, 1)) GFLOP/s")
        print("matmul-vs-cblas ratio: \(format(raw / coach, 3))")

        // 1×1 convolutions of EfficientNet-Lite0 at 224² (batch 1): (H·W, Cin, Cout).
        let pointwise = [(112 * 112, 32, 16), (112 * 112, 16, 96), (56 * 56, 144, 24), (28 * 28, 240, 40),
                         (14 * 14, 480, 80), (14 * 14, 672, 112), (7 * 7, 1152, 192), (7 * 7, 320, 1280)]
        var totalFlops = 0.0, totalSeconds = 0.0, packedSeconds = 0.0
        for (pixels, cin, cout) in pointwise {
            let side = Int(Double(pixels).squareRoot())
            let x = Tensor.randomNormal([1, side, side, cin], using: &g)
            let w = Tensor.randomNormal([1, 1, cin, cout], using: &g)
            let bias = Tensor.randomNormal([cout], using: &g)
            let t = Timing.medianSeconds(sampleSeconds: 0.15) {
                _ = Tensor.conv2D(x, filter: w, bias: bias, activation: .relu6)
            }
            // The inference kernel: weights packed once, bias and ReLU6 in registers (CKernels).
            let packed = PackedWeights.packing(w.scalars, rows: cin, columns: cout)
            var out = [Float](repeating: 0, count: pixels * cout)
            let tp = x.withUnsafeBufferPointer { px in bias.withUnsafeBufferPointer { pb in out.withUnsafeMutableBufferPointer { po in
                Timing.medianSeconds(sampleSeconds: 0.15) {
                    Kernels.pointwise(input: px.baseAddress!, rows: pixels, weights: packed, bias: pb.baseAddress!,
                                      activation: .relu6, output: po.baseAddress!)
                }
            } } }
            let f = 2 * Double(pixels * cin * cout)
            totalFlops += f; totalSeconds += t; packedSeconds += tp
            print("  1×1 conv \(side)×\(side)×\(cin)→\(cout): \(format(f / t / 1e9, 1)) GFLOP/s (training path, OpenBLAS), "
                  + "\(format(f / tp / 1e9, 1)) GFLOP/s (inference, packed)")
        }
        print("1×1 convolution (EfficientNet-Lite0 shapes, overall): \(format(totalFlops / totalSeconds / 1e9, 1)) GFLOP/s with OpenBLAS, "
              + "\(format(totalFlops / packedSeconds / 1e9, 1)) GFLOP/s packed (\(PackedWeights.instructionSet))")

        for k in [3, 5] {
            let shapes = k == 3 ? [(112, 96, 2), (56, 144, 1), (28, 240, 2), (14, 480, 1)]
                                : [(56, 144, 2), (28, 240, 1), (14, 672, 1), (14, 672, 2)]
            var f = 0.0, s = 0.0
            for (side, channels, stride) in shapes {
                let x = Tensor.randomNormal([1, side, side, channels], using: &g)
                let w = Tensor.randomNormal([k, k, channels], using: &g)
                let bias = Tensor.randomNormal([channels], using: &g)
                let t = Timing.medianSeconds(sampleSeconds: 0.15) {
                    _ = Tensor.depthwiseConv2D(x, filter: w, bias: bias, stride: (stride, stride), padding: .same,
                                               activation: .relu6)
                }
                let out = (side + stride - 1) / stride
                f += 2 * Double(out * out * channels * k * k); s += t
            }
            print("depthwise \(k)×\(k) (EfficientNet-Lite0 shapes): \(format(f / s / 1e9, 1)) GFLOP/s")
        }

        // A logistic regression's two products per solver step, features [m, k] and c classes:
        // logits a·W and gradient aᵀ·R — the random-convolution head's on NATOPS (648 windows) and on
        // the generated throws (7,796), on the 8,000 windows (the most it takes) of a set of 27
        // actions (the size of a Kinect action set), and the image head's on the cornhole crops.
        for (m, k, classes, name) in [(648, 10_000, 6, "action head, NATOPS"), (7_796, 10_000, 4, "action head, throws"),
                                      (8_000, 10_000, 27, "action head, 27 actions"),
                                      (522, 1_392, 5, "image head, cornhole crops")] {
            let a = Tensor.randomNormal([m, k], using: &g), w = Tensor.randomNormal([k, classes], using: &g)
            let r = Tensor.randomNormal([m, classes], using: &g)
            let thin = Timing.medianSeconds(samples: 3) { _ = Tensor.thinMatmul(a, w); _ = Tensor.thinMatmulTransposed(a, r) }
            let blas = Timing.medianSeconds(samples: 3) { _ = Tensor.matmul(a, w); _ = Tensor.matmul(a, r, transposeA: true) }
            // The solver's whole objective (loss and gradient), which takes the rows in passes that
            // stay in the cache between the two products.
            let labels = (0..<m).map { $0 % classes }
            let packed = [Float](repeating: 0.01, count: k * classes + classes)
            let objective = Timing.medianSeconds(samples: 3) {
                _ = SoftmaxRegression(l2Penalty: 0.1).objective(packed, features: a, labels: labels, classCount: classes)
            }
            print("logistic-regression step \(m)×\(k), \(classes) classes (\(name)): thin products \(format(thin * 1e3, 2)) ms, "
                  + "OpenBLAS \(format(blas * 1e3, 2)) ms, ratio \(format(blas / thin, 2)); "
                  + "the whole objective in passes of rows \(format(objective * 1e3, 2)) ms")
        }
    }
}
