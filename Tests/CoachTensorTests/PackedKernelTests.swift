import XCTest
import CKernels
import CoachTensor
import TestSupport

/// Runs `body` on each instruction set of `CKernels` up to what the CPU has (portable C, AVX2+FMA,
/// AVX-512F); the kernels' own choice is restored afterwards.
func forEachInstructionSet(_ body: (Int32) -> Void) {
    let best = coach_kernels_set_isa(2)
    defer { coach_kernels_set_isa(best) }
    for isa in 0...best { XCTAssertEqual(coach_kernels_set_isa(isa), isa); body(isa) }
}

/// The packed-weight GEMM behind every inference 1×1 and k×k convolution (`CKernels`), on each
/// instruction set this machine has (AVX-512F, AVX2+FMA, portable C), against sums in Double.
final class PackedKernelTests: XCTestCase {
    var generator = SeededGenerator(seed: 11)


    /// output = act(bias + x·W (+ residual)) or PReLU, computed in Double.
    func reference(_ x: [Float], _ w: [Float], m: Int, k: Int, n: Int, bias: [Float], residual: [Float]?,
                   slopes: [Float]?, lower: Float, upper: Float) -> [Float] {
        var out = [Float](repeating: 0, count: m * n)
        for i in 0..<m {
            for j in 0..<n {
                var sum = Double(bias[j])
                for kk in 0..<k { sum += Double(x[i * k + kk]) * Double(w[kk * n + j]) }
                var v = Float(sum) + (residual?[i * n + j] ?? 0)
                if let slopes { v = v >= 0 ? v : v * slopes[j] } else { v = min(max(v, lower), upper) }
                out[i * n + j] = v
            }
        }
        return out
    }

    func run(_ x: [Float], _ packed: PackedWeights, rows: Int, bias: [Float], residual: [Float]?, slopes: [Float]?,
             activation: FusedActivation) -> [Float] {
        var out = [Float](repeating: .nan, count: rows * packed.columns)
        func withPointer(_ values: [Float]?, _ body: (UnsafePointer<Float>?) -> Void) {
            if let values { values.withUnsafeBufferPointer { body($0.baseAddress!) } } else { body(nil) }
        }
        x.withUnsafeBufferPointer { px in bias.withUnsafeBufferPointer { pb in out.withUnsafeMutableBufferPointer { po in
            withPointer(residual) { r in withPointer(slopes) { s in
                Kernels.pointwise(input: px.baseAddress!, rows: rows, weights: packed, bias: pb.baseAddress!, activation: activation,
                                  residual: r, slopes: s, output: po.baseAddress!)
            } }
        } } }
        return out
    }

    /// Shapes below, at and above the tiles (12×32, 6×16, 1×16) and the 96-row chunks, with and
    /// without a residual, under ReLU6, no activation and PReLU.
    func testPackedPointwiseMatchesDoubleSumsOnEveryInstructionSet() {
        forEachInstructionSet { isa in
            for (m, k, n) in [(1, 1, 1), (5, 3, 17), (13, 27, 24), (37, 50, 70), (49, 192, 33), (200, 16, 64)] {
                let x = Tensor.randomNormal([m * k], using: &generator).scalars
                let w = Tensor.randomNormal([k * n], using: &generator).scalars
                let bias = Tensor.randomNormal([n], using: &generator).scalars
                let residual = Tensor.randomNormal([m * n], using: &generator).scalars
                let slopes = Tensor.randomUniform([n], lower: 0, upper: 0.5, using: &generator).scalars
                let packed = PackedWeights.packing(w, rows: k, columns: n)
                let tolerance = 1e-5 * Float(k).squareRoot() * 4
                for (activation, useResidual, useSlopes) in [(FusedActivation.relu6, false, false), (.none, true, false),
                                                             (.none, true, true), (.none, false, true)] {
                    let fast = run(x, packed, rows: m, bias: bias, residual: useResidual ? residual : nil,
                                   slopes: useSlopes ? slopes : nil, activation: activation)
                    let slow = reference(x, w, m: m, k: k, n: n, bias: bias, residual: useResidual ? residual : nil,
                                         slopes: useSlopes ? slopes : nil, lower: activation == .relu6 ? 0 : -.infinity,
                                         upper: activation == .relu6 ? 6 : .infinity)
                    assertClose(fast, slow, absolute: tolerance, "isa \(isa) \(m)×\(k)×\(n) \(activation) residual \(useResidual) prelu \(useSlopes)")
                }
            }
        }
    }

    /// A row's result does not depend on which call, tile or chunk computes it: all rows at once,
    /// one row at a time and uneven splits give the same bits (batching and threads cannot change
    /// features).
    func testRowsGiveTheSameBitsHoweverTheyAreSplit() {
        forEachInstructionSet { isa in
            let (m, k, n) = (61, 40, 45)
            let x = Tensor.randomNormal([m * k], using: &generator).scalars
            let w = Tensor.randomNormal([k * n], using: &generator).scalars
            let bias = Tensor.randomNormal([n], using: &generator).scalars
            let packed = PackedWeights.packing(w, rows: k, columns: n)
            let whole = run(x, packed, rows: m, bias: bias, residual: nil, slopes: nil, activation: .relu6)
            for splits in [[1, 60], [13, 17, 31], [25, 36]] {
                var pieces: [Float] = [], start = 0
                for count in splits {
                    pieces += run(Array(x[(start * k)..<((start + count) * k)]), packed, rows: count, bias: bias, residual: nil,
                                  slopes: nil, activation: .relu6)
                    start += count
                }
                XCTAssertEqual(pieces, whole, "isa \(isa) splits \(splits)")
            }
        }
    }

    /// Columns computed in groups of 32 (how a small feature map is shared among threads) give
    /// the same bits as the whole product.
    func testColumnGroupsGiveTheSameBitsAsTheWholeProduct() {
        forEachInstructionSet { isa in
            let (m, k, n) = (49, 70, 100)
            let x = Tensor.randomNormal([m * k], using: &generator).scalars
            let w = Tensor.randomNormal([k * n], using: &generator).scalars
            let bias = Tensor.randomNormal([n], using: &generator).scalars
            let residual = Tensor.randomNormal([m * n], using: &generator).scalars
            let packed = PackedWeights.packing(w, rows: k, columns: n)
            var packedCopy = [Float](repeating: 0, count: Int(coach_packed_weights_size(Int32(k), Int32(n))))
            w.withUnsafeBufferPointer { coach_pack_weights($0.baseAddress!, Int32(k), Int32(n), &packedCopy) }
            var whole = [Float](repeating: .nan, count: m * n), pieces = whole
            coach_packed_gemm(x, Int32(m), Int32(k), packedCopy, Int32(n), bias, residual, nil, 0, 6, &whole)
            for (first, count) in [(0, 32), (32, 64), (96, 50)] {
                coach_packed_gemm_columns(x, Int32(m), Int32(k), packedCopy, Int32(n), Int32(first), Int32(count), bias, residual,
                                          nil, 0, 6, &pieces)
            }
            XCTAssertEqual(pieces, whole, "isa \(isa)")
            XCTAssertEqual(run(x, packed, rows: m, bias: bias, residual: residual, slopes: nil, activation: .relu6), whole, "isa \(isa)")
        }
    }

    /// A NaN input stays NaN through the clamp (it is not turned into 0 or 6), on every instruction set.
    func testNaNIsNotClampedAway() {
        forEachInstructionSet { isa in
            let packed = PackedWeights.packing([1, 2, 3], rows: 1, columns: 3)
            let out = run([.nan, 1], packed, rows: 2, bias: [0, 0, 0], residual: nil, slopes: nil, activation: .relu6)
            XCTAssertTrue(out[0..<3].allSatisfy(\.isNaN), "isa \(isa): \(out)")
            XCTAssertEqual(Array(out[3..<6]), [1, 2, 3], "isa \(isa)")
        }
    }

    /// The k×k convolution (im2col a chunk at a time, packed GEMM) equals the naive loops for strides,
    /// SAME and explicit padding, one to four channels (the stems, computed straight from the image
    /// on AVX-512F) and more (unfolded), more than 32 output channels, with ReLU6 and with PReLU.
    func testPackedConvolutionMatchesNaive() {
        forEachInstructionSet { isa in
            for (cin, cout, k, stride, padding) in [(3, 24, 3, 2, Padding.same), (5, 7, 5, 1, .explicit(top: 2, bottom: 1, left: 0, right: 2)),
                                                    (8, 33, 2, 2, .valid), (4, 40, 3, 1, .same),
                                                    (1, 16, 5, 2, .explicit(top: 0, bottom: 2, left: 2, right: 1))] {
                let x = Tensor.randomNormal([2, 23, 19, cin], using: &generator)
                let f = Tensor.randomNormal([k, k, cin, cout], using: &generator)
                let bias = Tensor.randomNormal([cout], using: &generator)
                let slopes = Tensor.randomUniform([cout], lower: 0, upper: 0.5, using: &generator)
                let g = ConvolutionGeometry(inputShape: x.shape, kernelHeight: k, kernelWidth: k, strideHeight: stride,
                                            strideWidth: stride, padding: padding)
                let packed = PackedWeights.packing(f.scalars, rows: k * k * cin, columns: cout)
                let workspace = UnsafeMutablePointer<Float>.allocate(capacity: Kernels.convolutionWorkspace(geometry: g))
                defer { workspace.deallocate() }
                let linear = Naive.conv2D(x, f, stride: (stride, stride), padding: padding) + bias
                for prelu in [false, true] {
                    let fast = Tensor(shape: [2, g.outputHeight, g.outputWidth, cout]) { out in
                        x.withUnsafeBufferPointer { px in bias.withUnsafeBufferPointer { pb in slopes.withUnsafeBufferPointer { ps in
                            Kernels.convolution(input: px.baseAddress!, geometry: g, weights: packed, bias: pb.baseAddress!,
                                                activation: prelu ? .none : .relu6, slopes: prelu ? ps.baseAddress! : nil,
                                                workspace: workspace, output: out.baseAddress!)
                        } } }
                    }
                    let expected = prelu
                        ? linear.scalars.enumerated().map { i, v in v >= 0 ? v : v * slopes.scalars[i % cout] }
                        : linear.relu6().scalars
                    XCTAssertEqual(fast.shape, linear.shape)
                    assertClose(fast.scalars, expected, absolute: 1e-4, "isa \(isa) cin \(cin) cout \(cout) k\(k) s\(stride) \(padding) prelu \(prelu)")
                }
            }
        }
    }
}
