/// A sample type the resampler reads: 8-bit (decoded pixels) or float.
protocol ResamplingSample {
    /// The sample as a float.
    var floatValue: Float { get }
}

extension UInt8: ResamplingSample {
    @inline(__always) var floatValue: Float { Float(self) }
}

extension Float: ResamplingSample {
    @inline(__always) var floatValue: Float { self }
}

/// Anti-aliased bilinear resampling of interleaved (HWC) images, matching scikit-image's
/// `resize(order=1, anti_aliasing=True)` (see `ResamplingAxis`).
///
/// Two separable passes over precomputed weights: horizontal (input rows → output
/// columns), then vertical (contiguous rows, vectorised axpy). Only the requested window of
/// the output grid is computed, so a centre crop costs no more than its own pixels.
enum ImageResampler {
    /// Resamples `source` (`height × width × channels`) onto an `outputWidth × outputHeight`
    /// grid and writes the window `columns × rows` of that grid to `destination`, whose rows
    /// are `rowStride` floats apart.
    static func resample<Sample: ResamplingSample>(
        _ source: UnsafeBufferPointer<Sample>, width: Int, height: Int, channels: Int,
        outputWidth: Int, outputHeight: Int, columns: Range<Int>, rows: Range<Int>,
        into destination: UnsafeMutablePointer<Float>, rowStride: Int
    ) {
        guard !columns.isEmpty, !rows.isEmpty, let input = source.baseAddress else { return }
        let horizontal = ResamplingAxis(inputLength: width, outputLength: outputWidth, window: columns)
        let vertical = ResamplingAxis(inputLength: height, outputLength: outputHeight, window: rows)
        let firstRow = vertical.firstInput.min() ?? 0
        let lastRow = (vertical.firstInput.max() ?? 0) + vertical.taps  // exclusive
        let rowLength = columns.count * channels

        var intermediate = [Float](repeating: 0, count: (lastRow - firstRow) * rowLength)
        intermediate.withUnsafeMutableBufferPointer { buffer in
            let middle = buffer.baseAddress!
            horizontal.weights.withUnsafeBufferPointer { weights in
                horizontal.firstInput.withUnsafeBufferPointer { firsts in
                    for row in firstRow..<lastRow {
                        horizontalPass(input + row * width * channels, channels: channels,
                                       firsts: firsts, weights: weights.baseAddress!, taps: horizontal.taps,
                                       into: middle + (row - firstRow) * rowLength)
                    }
                }
            }
            vertical.weights.withUnsafeBufferPointer { weights in
                for outputRow in 0..<vertical.count {
                    let target = destination + outputRow * rowStride
                    target.update(repeating: 0, count: rowLength)
                    for tap in 0..<vertical.taps {
                        let weight = weights[outputRow * vertical.taps + tap]
                        if weight == 0 { continue }
                        let line = UnsafePointer(middle + (vertical.firstInput[outputRow] + tap - firstRow) * rowLength)
                        for index in 0..<rowLength { target[index] += weight * line[index] }
                    }
                }
            }
        }
    }

    /// One input row → `firsts.count` output pixels.
    @inline(__always)
    private static func horizontalPass<Sample: ResamplingSample>(
        _ row: UnsafePointer<Sample>, channels: Int, firsts: UnsafeBufferPointer<Int>,
        weights: UnsafePointer<Float>, taps: Int, into output: UnsafeMutablePointer<Float>
    ) {
        if channels == 3 {
            for column in 0..<firsts.count {
                let pixel = row + firsts[column] * 3
                let columnWeights = weights + column * taps
                var red: Float = 0, green: Float = 0, blue: Float = 0
                for tap in 0..<taps {
                    let weight = columnWeights[tap]
                    red += weight * pixel[3 * tap].floatValue
                    green += weight * pixel[3 * tap + 1].floatValue
                    blue += weight * pixel[3 * tap + 2].floatValue
                }
                output[3 * column] = red
                output[3 * column + 1] = green
                output[3 * column + 2] = blue
            }
        } else {
            for column in 0..<firsts.count {
                let pixel = row + firsts[column] * channels
                let columnWeights = weights + column * taps
                for channel in 0..<channels {
                    var sum: Float = 0
                    for tap in 0..<taps { sum += columnWeights[tap] * pixel[channels * tap + channel].floatValue }
                    output[channels * column + channel] = sum
                }
            }
        }
    }
}
