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
/// Two separable passes over precomputed weights: vertical (whole input rows summed into
/// each output row, a vectorised axpy), then horizontal (a few taps per output pixel).
/// Only the requested window of the output grid is computed, so a centre crop costs no
/// more than its own rows and columns.
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
        let inputRowLength = width * channels

        // Vertical first: each output row is a weighted sum of whole input rows (contiguous,
        // vectorised), so the expensive full-width work happens only for the output rows.
        var intermediate = [Float](repeating: 0, count: vertical.count * inputRowLength)
        intermediate.withUnsafeMutableBufferPointer { buffer in
            let middle = buffer.baseAddress!
            vertical.weights.withUnsafeBufferPointer { weights in
                for outputRow in 0..<vertical.count {
                    let target = middle + outputRow * inputRowLength
                    for tap in 0..<vertical.taps {
                        let weight = weights[outputRow * vertical.taps + tap]
                        if weight == 0 { continue }
                        accumulate(input + (vertical.firstInput[outputRow] + tap) * inputRowLength,
                                   weight: weight, count: inputRowLength, into: target)
                    }
                }
            }
            horizontal.weights.withUnsafeBufferPointer { weights in
                horizontal.firstInput.withUnsafeBufferPointer { firsts in
                    for outputRow in 0..<vertical.count {
                        horizontalPass(UnsafePointer(middle + outputRow * inputRowLength), channels: channels,
                                       firsts: firsts, weights: weights.baseAddress!, taps: horizontal.taps,
                                       into: destination + outputRow * rowStride)
                    }
                }
            }
        }
    }

    /// `target[i] += weight · line[i]` for `count` samples.
    @inline(__always)
    private static func accumulate<Sample: ResamplingSample>(
        _ line: UnsafePointer<Sample>, weight: Float, count: Int, into target: UnsafeMutablePointer<Float>
    ) {
        for index in 0..<count { target[index] += weight * line[index].floatValue }
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
