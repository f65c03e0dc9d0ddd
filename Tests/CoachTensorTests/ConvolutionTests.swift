import XCTest
import CoachTensor
import TestSupport

/// Convolutions and pooling against the naive loops in NaiveReference.swift.
final class ConvolutionTests: XCTestCase {
    var generator = SeededGenerator(seed: 42)

    let paddings: [Padding] = [.valid, .same, .explicit(top: 1, bottom: 2, left: 0, right: 1), .symmetric(2)]

    func testConv2DMatchesNaiveForKernelsStridesAndPaddings() {
        for (k, stride, padding) in [(3, 1, Padding.same), (3, 2, .same), (5, 2, .same), (1, 1, .valid),
                                     (1, 2, .valid), (3, 1, .valid), (3, 2, .explicit(top: 1, bottom: 2, left: 0, right: 1)),
                                     (2, 2, .symmetric(1)), (1, 1, .same)] {
            for (h, w) in [(7, 8), (6, 6), (9, 5)] {
                let x = Tensor.randomNormal([2, h, w, 3], using: &generator)
                let f = Tensor.randomNormal([k, k, 3, 4], using: &generator)
                let fast = Tensor.conv2D(x, filter: f, stride: (stride, stride), padding: padding)
                let slow = Naive.conv2D(x, f, stride: (stride, stride), padding: padding)
                XCTAssertEqual(fast.shape, slow.shape, "k\(k) s\(stride) \(padding) \(h)×\(w)")
                assertClose(fast.scalars, slow.scalars, absolute: 1e-4, "k\(k) s\(stride) \(padding)")
            }
        }
    }

    func testConv2DFusedBiasAndActivations() {
        let x = Tensor.randomNormal([1, 5, 5, 2], using: &generator)
        let f = Tensor.randomNormal([3, 3, 2, 3], using: &generator) * 3
        let b = Tensor([0.5, -1, 7])
        let plain = Naive.conv2D(x, f, stride: (1, 1), padding: .same) + b
        assertClose(Tensor.conv2D(x, filter: f, bias: b, padding: .same).scalars, plain.scalars, absolute: 1e-4)
        assertClose(Tensor.conv2D(x, filter: f, bias: b, padding: .same, activation: .relu).scalars,
                    plain.relu().scalars, absolute: 1e-4)
        assertClose(Tensor.conv2D(x, filter: f, bias: b, padding: .same, activation: .relu6).scalars,
                    plain.relu6().scalars, absolute: 1e-4)
    }

    func testDepthwiseMatchesNaiveIncludingSIMDTail() {
        // 19 channels exercise the SIMD16/SIMD4/scalar per-pixel path; 24 channels on a
        // 13-wide image also the four-pixel interior path (multiples of 8 channels).
        for (k, stride, channels, width) in [(3, 1, 19, 8), (3, 2, 19, 8), (5, 1, 19, 8), (5, 2, 19, 8),
                                             (3, 1, 24, 13), (3, 2, 24, 13), (5, 1, 24, 13), (5, 2, 24, 13)] {
            for padding in paddings {
                let x = Tensor.randomNormal([2, 9, width, channels], using: &generator)
                let f = Tensor.randomNormal([k, k, channels], using: &generator)
                let b = Tensor.randomNormal([channels], using: &generator)
                let fast = Tensor.depthwiseConv2D(x, filter: f, bias: b, stride: (stride, stride), padding: padding,
                                                  activation: .relu6)
                let slow = (Naive.depthwise(x, f, stride: (stride, stride), padding: padding) + b).relu6()
                XCTAssertEqual(fast.shape, slow.shape)
                assertClose(fast.scalars, slow.scalars, absolute: 1e-4, "k\(k) s\(stride) \(padding)")
            }
        }
    }

    func testPoolingMatchesNaive() {
        for (k, s) in [(2, 2), (3, 1), (3, 2)] {
            for padding in paddings {
                let x = Tensor.randomNormal([2, 7, 6, 3], using: &generator)
                assertClose(Tensor.averagePool2D(x, kernel: (k, k), stride: (s, s), padding: padding).scalars,
                            Naive.pool(x, kernel: (k, k), stride: (s, s), padding: padding, max: false).scalars,
                            absolute: 1e-5, "avg k\(k) s\(s) \(padding)")
                XCTAssertEqual(Tensor.maxPool2D(x, kernel: (k, k), stride: (s, s), padding: padding).values.scalars,
                               Naive.pool(x, kernel: (k, k), stride: (s, s), padding: padding, max: true).scalars,
                               "max k\(k) s\(s) \(padding)")
            }
        }
        let x = Tensor.randomNormal([2, 4, 3, 5], using: &generator)
        let g = Tensor.globalAveragePool(x)
        XCTAssertEqual(g.shape, [2, 5])
        assertClose(g.scalars, Naive.pool(x, kernel: (4, 3), stride: (1, 1), padding: .valid, max: false).scalars,
                    absolute: 1e-5)
    }

    func testSamePaddingPutsTheExtraPixelBottomRight() {
        // TF SAME, 4 wide, kernel 3, stride 2: output 2, total padding 1 → (0 before, 1 after).
        XCTAssertEqual(Padding.same.amounts(size: 4, kernel: 3, stride: 2, vertical: true).0, 0)
        XCTAssertEqual(Padding.same.amounts(size: 4, kernel: 3, stride: 2, vertical: true).1, 1)
        XCTAssertEqual(Padding.same.amounts(size: 224, kernel: 3, stride: 2, vertical: false).0, 0)
        XCTAssertEqual(Padding.same.amounts(size: 5, kernel: 5, stride: 1, vertical: false).0, 2)
    }

    func testConv1DEqualsAConvolutionOverTime() {
        let x = Tensor.randomNormal([2, 11, 4], using: &generator)
        let f = Tensor.randomNormal([3, 4, 5], using: &generator)
        let y = Tensor.conv1D(x, filter: f, padding: .same)
        XCTAssertEqual(y.shape, [2, 11, 5])
        // Reference: out[n,t,o] = Σ_k Σ_i x[n, t+k−1, i]·f[k,i,o].
        for n in 0..<2 { for t in 0..<11 { for o in 0..<5 {
            var s: Float = 0
            for k in 0..<3 where t + k - 1 >= 0 && t + k - 1 < 11 {
                for i in 0..<4 { s += x[n, t + k - 1, i] * f[k, i, o] }
            }
            XCTAssertEqual(y[n, t, o], s, accuracy: 1e-4)
        } } }
    }

    func testBackwardKernelsAreAdjointsOfTheForward() {
        // ⟨conv(x, w), g⟩ = ⟨x, convᵀ_input(g, w)⟩ = ⟨w, convᵀ_filter(g, x)⟩.
        for (k, s, padding) in [(3, 2, Padding.same), (1, 1, .valid), (5, 1, .symmetric(1)), (1, 2, .valid)] {
            let x = Tensor.randomNormal([2, 7, 6, 3], using: &generator)
            let w = Tensor.randomNormal([k, k, 3, 4], using: &generator)
            let y = Tensor.conv2D(x, filter: w, stride: (s, s), padding: padding)
            let g = Tensor.randomNormal(y.shape, using: &generator)
            let lhs = (y * g).sum()
            let dx = Tensor.conv2DBackwardInput(g, filter: w, inputShape: x.shape, stride: (s, s), padding: padding)
            let dw = Tensor.conv2DBackwardFilter(g, input: x, filterShape: w.shape, stride: (s, s), padding: padding)
            XCTAssertEqual((x * dx).sum(), lhs, accuracy: 1e-3 * max(1, abs(lhs)))
            XCTAssertEqual((w * dw).sum(), lhs, accuracy: 1e-3 * max(1, abs(lhs)))

            let wd = Tensor.randomNormal([k, k, 3], using: &generator)
            let yd = Tensor.depthwiseConv2D(x, filter: wd, stride: (s, s), padding: padding)
            let gd = Tensor.randomNormal(yd.shape, using: &generator)
            let lhsD = (yd * gd).sum()
            let dxd = Tensor.depthwiseConv2DBackwardInput(gd, filter: wd, inputShape: x.shape, stride: (s, s), padding: padding)
            let dwd = Tensor.depthwiseConv2DBackwardFilter(gd, input: x, filterShape: wd.shape, stride: (s, s), padding: padding)
            XCTAssertEqual((x * dxd).sum(), lhsD, accuracy: 1e-3 * max(1, abs(lhsD)))
            XCTAssertEqual((wd * dwd).sum(), lhsD, accuracy: 1e-3 * max(1, abs(lhsD)))
        }
    }
}
