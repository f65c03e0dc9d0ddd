import XCTest
import CoachTensor
import TestSupport

/// The pointer-level inference kernels the planned graph executor uses, against the naive loops
/// in NaiveReference.swift and the tensor-level operations.
final class InferenceKernelTests: XCTestCase {
    var generator = SeededGenerator(seed: 7)

    /// The direct few-output-channel convolution (8-lane accumulation) equals the naive loops for
    /// channel counts below, at and above a multiple of 8, strides, explicit and SAME padding.
    func testNarrowConvolutionMatchesNaive() {
        for (cin, cout, k, stride, padding) in [(8, 1, 3, 1, Padding.same), (5, 2, 3, 2, .explicit(top: 1, bottom: 0, left: 2, right: 1)),
                                                (19, 4, 2, 2, .valid), (16, 3, 5, 1, .symmetric(2))] {
            let x = Tensor.randomNormal([2, 9, 7, cin], using: &generator)
            let f = Tensor.randomNormal([k, k, cin, cout], using: &generator)
            let bias = Tensor.randomNormal([cout], using: &generator)
            let g = ConvolutionGeometry(inputShape: x.shape, kernelHeight: k, kernelWidth: k, strideHeight: stride,
                                        strideWidth: stride, padding: padding)
            let laidOut = UnsafeMutablePointer<Float>.allocate(capacity: f.count)
            defer { laidOut.deallocate() }
            f.withUnsafeBufferPointer { Kernels.layOutNarrowFilter($0.baseAddress!, kernelHeight: k, kernelWidth: k,
                                                                   inputChannels: cin, outputChannels: cout, into: laidOut) }
            for activation in [FusedActivation.none, .relu6] {
                let fast = Tensor(shape: [2, g.outputHeight, g.outputWidth, cout]) { out in
                    x.withUnsafeBufferPointer { px in
                        bias.withUnsafeBufferPointer { pb in
                            Kernels.narrowConvolution(input: px.baseAddress!, geometry: g, filter: laidOut, outputChannels: cout,
                                                      bias: pb.baseAddress!, activation: activation, output: out.baseAddress!)
                        }
                    }
                }
                var slow = Naive.conv2D(x, f, stride: (stride, stride), padding: padding) + bias
                if activation == .relu6 { slow = slow.relu6() }
                XCTAssertEqual(fast.shape, slow.shape)
                assertClose(fast.scalars, slow.scalars, absolute: 1e-4, "cin \(cin) cout \(cout) k\(k) s\(stride) \(padding) \(activation)")
            }
        }
    }

    /// Max pooling through pointers equals the naive loops (padding never wins); bilinear
    /// resizing (the tensor method runs the pointer kernel) on a hand-worked 2×2 → 4×4 case.
    func testMaxPoolAndResize() {
        for (k, s, padding) in [(2, 2, Padding.same), (3, 2, .same), (2, 1, .valid), (3, 3, .symmetric(1))] {
            let x = Tensor.randomNormal([2, 7, 6, 5], using: &generator) - 3   // mostly negative: padding must not win
            let g = ConvolutionGeometry(inputShape: x.shape, kernelHeight: k, kernelWidth: k, strideHeight: s, strideWidth: s, padding: padding)
            let fast = Tensor(shape: [2, g.outputHeight, g.outputWidth, 5]) { out in
                x.withUnsafeBufferPointer { Kernels.maxPool(input: $0.baseAddress!, geometry: g, output: out.baseAddress!) }
            }
            XCTAssertEqual(fast, Naive.pool(x, kernel: (k, k), stride: (s, s), padding: padding, max: true), "k\(k) s\(s) \(padding)")
        }
        // Half-pixel centres: output x = 0…3 samples input x = −0.25, 0.25, 0.75, 1.25 (clamped to 0…1).
        let image = Tensor(shape: [1, 2, 2, 1], scalars: [0, 4, 8, 12])
        let resized = image.resizedBilinear(height: 4, width: 4, halfPixelCenters: true)
        XCTAssertEqual(Array(resized.scalars.prefix(4)), [0, 1, 3, 4])
        XCTAssertEqual(Array(resized.scalars.suffix(4)), [8, 9, 11, 12])
    }

    /// PReLU fused into a 1×1 convolution equals the convolution followed by PReLU.
    func testPointwiseWithPReLUSlopes() {
        let x = Tensor.randomNormal([1, 6, 5, 12], using: &generator)
        let f = Tensor.randomNormal([12, 7], using: &generator)
        let bias = Tensor.randomNormal([7], using: &generator)
        let slopes = Tensor.randomUniform([7], lower: 0, upper: 0.5, using: &generator)
        let fused = Tensor(shape: [1, 6, 5, 7]) { out in
            x.withUnsafeBufferPointer { px in f.withUnsafeBufferPointer { pf in bias.withUnsafeBufferPointer { pb in
                slopes.withUnsafeBufferPointer { ps in
                    Kernels.pointwise(input: px.baseAddress!, rows: 30, inputChannels: 12, filter: pf.baseAddress!, outputChannels: 7,
                                      bias: pb.baseAddress!, activation: .none, slopes: ps.baseAddress!, output: out.baseAddress!)
                }
            } } }
        }
        let linear = Naive.conv2D(x, f.reshaped(to: [1, 1, 12, 7]), stride: (1, 1), padding: .valid) + bias
        let expected = linear.scalars.enumerated().map { index, v in v >= 0 ? v : v * slopes.scalars[index % 7] }
        assertClose(fused.scalars, expected, absolute: 1e-4, "pointwise + PReLU")
        XCTAssertTrue(expected.contains { $0 < 0 } && expected.contains { $0 > 0 }, "both signs exercised")
    }
}
