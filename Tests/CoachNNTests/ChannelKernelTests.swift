import CoachNN
import XCTest

/// `ChannelKernels`' passes made block by block give the very values of the plain passes they
/// stand for: the training run's bits do not depend on how the rows are blocked.
final class ChannelKernelTests: XCTestCase {
    private func values(_ count: Int, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Float(generator.nextNormal()) }
    }

    func testSumsContinuedOverPiecesOfRowsEqualOneSum() {
        for channels in [16, 12] {
            let rows = 103
            let a = values(rows * channels, seed: 1), b = values(rows * channels, seed: 2)
            var sum = [Float](repeating: 0, count: channels), productSum = sum
            var pieceSum = sum, pieceProductSum = sum
            ChannelKernels.channelSumsSerial(a, b, rows: rows, channels: channels, sum: &sum, productSum: &productSum)
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    var row = 0
                    for piece in [1, 40, 0, 17, 45] {
                        ChannelKernels.channelSumsSerial(pa.baseAddress! + row * channels, pb.baseAddress! + row * channels,
                                                         rows: piece, channels: channels, sum: &pieceSum,
                                                         productSum: &pieceProductSum, continuing: row > 0)
                        row += piece
                    }
                    XCTAssertEqual(row, rows)
                }
            }
            XCTAssertEqual(pieceSum, sum, "\(channels) channels")
            XCTAssertEqual(pieceProductSum, productSum, "\(channels) channels")
            // And the sums are the sums (in double precision, to float rounding).
            for k in 0..<channels {
                let expected = (0..<rows).reduce(0.0) { $0 + Double(a[$1 * channels + k]) }
                XCTAssertEqual(Double(sum[k]), expected, accuracy: 1e-4)
            }
        }
    }

    func testNormalizeAndScaleIsTwoAffinePasses() {
        // 6,480 rows × 16 channels: parallel chunks of several row blocks; 12 channels: the scalar path.
        for (rows, channels) in [(6480, 16), (6480, 12), (5, 8)] {
            let x = values(rows * channels, seed: 3)
            let a = values(channels, seed: 4), b = values(channels, seed: 5)
            let gamma = values(channels, seed: 6), beta = values(channels, seed: 7)
            for relu in [false, true] {
                var normalized = [Float](repeating: 0, count: x.count), output = normalized
                ChannelKernels.normalizeAndScale(x, a, b, normalized: &normalized, gamma, beta, &output,
                                                 rows: rows, channels: channels, relu: relu)
                var expectedNormalized = [Float](repeating: 0, count: x.count), expectedOutput = expectedNormalized
                ChannelKernels.affine(x, a, b, &expectedNormalized, rows: rows, channels: channels, relu: false)
                ChannelKernels.affine(expectedNormalized, gamma, beta, &expectedOutput, rows: rows, channels: channels, relu: relu)
                XCTAssertEqual(normalized, expectedNormalized, "\(rows)×\(channels)")
                XCTAssertEqual(output, expectedOutput, "\(rows)×\(channels), ReLU \(relu)")
                let i = rows * channels - 1, k = channels - 1
                let plain = (x[i] * a[k] + b[k]) * gamma[k] + beta[k]
                XCTAssertEqual(output[i], relu ? max(plain, 0) : plain, accuracy: 1e-5)
            }
        }
    }
}
