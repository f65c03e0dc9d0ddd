import XCTest
import CKernels
import CoachTensor
import TestSupport

/// The depthwise kernels of `CKernels` (sliding eight-pixel tiles for 3×3 and 5×5 at stride 1
/// and 2, four- and one-pixel tiles, 64-channel single pixels, clipped borders), on every
/// instruction set this machine has, against sums in Double.
final class DepthwiseKernelTests: XCTestCase {
    var generator = SeededGenerator(seed: 23)

    /// clamp(bias + Σ taps) in Double, zero padding.
    func reference(_ x: Tensor, _ f: Tensor, _ b: Tensor, stride: Int, padding: Padding, lower: Float, upper: Float) -> [Float] {
        let g = ConvolutionGeometry(inputShape: x.shape, kernelHeight: f.shape[0], kernelWidth: f.shape[1],
                                    strideHeight: stride, strideWidth: stride, padding: padding)
        let (h, w, c) = (x.shape[1], x.shape[2], x.shape[3])
        var out: [Float] = []
        for n in 0..<x.shape[0] {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for ch in 0..<c {
                        var sum = Double(b.scalars[ch])
                        for ky in 0..<f.shape[0] {
                            for kx in 0..<f.shape[1] {
                                let y = oy * stride - g.padTop + ky, xx = ox * stride - g.padLeft + kx
                                guard y >= 0, y < h, xx >= 0, xx < w else { continue }
                                sum += Double(x.scalars[((n * h + y) * w + xx) * c + ch])
                                    * Double(f.scalars[(ky * f.shape[1] + kx) * c + ch])
                            }
                        }
                        out.append(min(max(Float(sum), lower), upper))
                    }
                }
            }
        }
        return out
    }

    func testDepthwiseMatchesDoubleSumsOnEveryInstructionSet() {
        forEachInstructionSet { isa in
            for (k, stride, channels, width) in [(3, 1, 8, 30), (3, 2, 24, 30), (5, 1, 19, 30), (5, 2, 144, 29),
                                                 (5, 1, 83, 7), (3, 1, 64, 14), (7, 1, 16, 21), (1, 1, 5, 9)] {
                for padding in [Padding.same, .valid, .explicit(top: 1, bottom: 0, left: 2, right: 1)] {
                    let x = Tensor.randomNormal([2, 9, width, channels], using: &generator)
                    let f = Tensor.randomNormal([k, k, channels], using: &generator)
                    let b = Tensor.randomNormal([channels], using: &generator)
                    let fast = Tensor.depthwiseConv2D(x, filter: f, bias: b, stride: (stride, stride), padding: padding,
                                                      activation: .relu6)
                    let slow = reference(x, f, b, stride: stride, padding: padding, lower: 0, upper: 6)
                    assertClose(fast.scalars, slow, absolute: 2e-5 * Float(k), "isa \(isa) k\(k) s\(stride) C\(channels) W\(width) \(padding)")
                    let plain = Tensor.depthwiseConv2D(x, filter: f, bias: b, stride: (stride, stride), padding: padding)
                    assertClose(plain.scalars, reference(x, f, b, stride: stride, padding: padding, lower: -.infinity, upper: .infinity),
                                absolute: 2e-5 * Float(k), "isa \(isa) k\(k) s\(stride) C\(channels) no activation")
                }
            }
        }
    }

    /// A pixel's result does not depend on the tile that computes it (eight, four or one pixels,
    /// sliding or not): an image shifted right by one column gives the same bits one column
    /// further on, though every pixel has moved to another place in its tile.
    func testPixelsGiveTheSameBitsInEveryTile() {
        forEachInstructionSet { isa in
            for (k, channels) in [(3, 24), (5, 67), (7, 16)] {
                let (h, w) = (9, 27)
                let x = Tensor.randomNormal([1, h, w, channels], using: &generator)
                let f = Tensor.randomNormal([k, k, channels], using: &generator)
                let b = Tensor.randomNormal([channels], using: &generator)
                var shifted = [Float](repeating: 0, count: h * (w + 1) * channels)
                for y in 0..<h {
                    for column in 0..<w {
                        for c in 0..<channels {
                            shifted[((y * (w + 1)) + column + 1) * channels + c] = x.scalars[((y * w) + column) * channels + c]
                        }
                    }
                }
                let a = Tensor.depthwiseConv2D(x, filter: f, bias: b, padding: .valid)
                let s = Tensor.depthwiseConv2D(Tensor(shape: [1, h, w + 1, channels], scalars: shifted), filter: f, bias: b,
                                               padding: .valid)
                let (oh, ow) = (a.shape[1], a.shape[2])
                for y in 0..<oh {
                    let original = Array(a.scalars[(y * ow * channels)..<((y + 1) * ow * channels)])
                    let moved = Array(s.scalars[((y * (ow + 1) + 1) * channels)..<((y + 1) * (ow + 1) * channels)])
                    XCTAssertEqual(original, moved, "isa \(isa) k\(k) C\(channels) row \(y)")
                }
            }
        }
    }

    /// AVX-512F's sliding tiles over a row's borders and short last tiles skip the columns outside
    /// the image, so each pixel adds the same taps in the same order as AVX2's pixel-by-pixel
    /// clipped sums: the same bits, on maps as small as the backbone's last (7 wide) and at every
    /// padding.
    func testBorderTilesGiveThePixelByPixelBits() throws {
        guard coach_kernels_set_isa(2) == 2 else { throw skipTest("SKIPPED: no AVX-512F on this CPU: its border tiles cannot run") }
        defer { coach_kernels_set_isa(2) }
        for (k, stride, channels, width) in [(3, 1, 24, 7), (5, 1, 83, 7), (3, 2, 32, 14), (5, 2, 40, 15), (3, 1, 16, 30), (5, 1, 17, 12)] {
            for padding in [Padding.same, .explicit(top: 1, bottom: 0, left: 2, right: 1), .explicit(top: 0, bottom: 2, left: 0, right: 4)] {
                let x = Tensor.randomNormal([1, 9, width, channels], using: &generator)
                let f = Tensor.randomNormal([k, k, channels], using: &generator)
                let b = Tensor.randomNormal([channels], using: &generator)
                coach_kernels_set_isa(2)
                let tiles = Tensor.depthwiseConv2D(x, filter: f, bias: b, stride: (stride, stride), padding: padding, activation: .relu6)
                coach_kernels_set_isa(1)
                let pixels = Tensor.depthwiseConv2D(x, filter: f, bias: b, stride: (stride, stride), padding: padding, activation: .relu6)
                XCTAssertEqual(tiles.scalars, pixels.scalars, "k\(k) s\(stride) C\(channels) W\(width) \(padding)")
            }
        }
    }

    /// A row computed in groups of channels (how a small map is shared among threads) has the
    /// same bits as the row computed whole.
    func testChannelGroupsGiveTheSameBitsAsTheWholeRow() {
        forEachInstructionSet { isa in
            let (h, w, c, k) = (7, 7, 150, 5)
            let x = Tensor.randomNormal([h * w * c], using: &generator).scalars
            let f = Tensor.randomNormal([k * k * c], using: &generator).scalars
            let b = Tensor.randomNormal([c], using: &generator).scalars
            for oy in 0..<h {
                var whole = [Float](repeating: .nan, count: w * c), pieces = whole
                coach_depthwise_row(x, Int32(h), Int32(w), Int32(c), 0, Int32(c), f, Int32(k), Int32(k), 1, 2, Int32(oy - 2), Int32(w),
                                    b, 0, 6, &whole)
                for (first, count) in [(0, 64), (64, 64), (128, 22)] {
                    coach_depthwise_row(x, Int32(h), Int32(w), Int32(c), Int32(first), Int32(count), f, Int32(k), Int32(k), 1, 2,
                                        Int32(oy - 2), Int32(w), b, 0, 6, &pieces)
                }
                XCTAssertEqual(pieces, whole, "isa \(isa) row \(oy)")
            }
        }
    }

    /// A NaN input stays NaN through the clamp.
    func testNaNIsNotClampedAway() {
        forEachInstructionSet { isa in
            var values = [Float](repeating: 1, count: 3 * 12 * 16)
            values[(1 * 12 + 5) * 16 + 3] = .nan
            let out = Tensor.depthwiseConv2D(Tensor(shape: [1, 3, 12, 16], scalars: values),
                                             filter: Tensor(repeating: 1, shape: [3, 3, 16]), bias: Tensor(repeating: 0, shape: [16]),
                                             padding: .same, activation: .relu6)
            XCTAssertTrue(out.scalars[(1 * 12 + 5) * 16 + 3].isNaN, "isa \(isa)")
            XCTAssertEqual(out.scalars[(1 * 12 + 5) * 16 + 4], 6, "isa \(isa)")
        }
    }
}
