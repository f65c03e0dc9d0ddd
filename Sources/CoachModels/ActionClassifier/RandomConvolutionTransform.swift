import CoachRandom
import CoachTensor
import Foundation

/// A MiniRocket-style random convolution transform of multichannel series (pose windows):
/// fixed kernels at several dilations over random subsets of the channels, each output
/// thresholded at biases drawn from training outputs, pooled into two numbers per bias —
/// the proportion of positive values (PPV) and the mean of the positive values (MPV).
///
/// The kernels and their layout follow Dempster, Schmidt & Webb, "MINIROCKET: A Very Fast
/// (Almost) Deterministic Transform for Time Series Classification" (KDD 2021): the 84 kernels
/// of length 9 whose weights are six −1 and three 2 (they sum to zero, so a constant series
/// gives zero away from the edges); dilations spread exponentially up to the window
/// (`⌊2^x⌋`, x evenly spaced in 0…log2((T − 1)/8)); padding alternating between combinations
/// (padded outputs are pooled over all T frames, unpadded ones over the frames where the whole
/// kernel fits); biases at low-discrepancy quantiles (`i·φ mod 1`) of the combination's output on
/// a random training window; per combination, `⌊2^u⌋` channels (u uniform in 0…log2(min(C,9)+1))
/// summed, as in MiniRocket's multivariate form. MPV is MultiRocket's second pooling operator
/// (Tan, Dempster, Bergmeir & Webb, 2022).
///
/// Series are laid out channel-major: element `c · T + t`.
public struct RandomConvolutionTransform: Equatable, Sendable {
    /// Taps per kernel.
    public static let kernelLength = 9
    /// The 84 kernels: for each, the three taps (0..<9) whose weight is 2 (the others are −1).
    public static let kernels: [[Int]] = {
        var result: [[Int]] = []
        for a in 0..<9 { for b in (a + 1)..<9 { for c in (b + 1)..<9 { result.append([a, b, c]) } } }
        return result
    }()
    /// At most this many dilations per kernel (MiniRocket's default).
    public static let maximumDilationsPerKernel = 32

    /// Frames per series (T).
    public let length: Int
    /// Channels per input (C).
    public let channelCount: Int
    /// Per combination: the kernel (index into `kernels`).
    public private(set) var kernelIndices: [Int]
    /// Per combination: the dilation (≥ 1).
    public private(set) var dilations: [Int]
    /// Per combination: whether its output is pooled over all frames (zero padding) or only
    /// over the frames where the dilated kernel fits.
    public private(set) var padded: [Bool]
    /// Per combination: how many channels it sums.
    public private(set) var channelCounts: [Int]
    /// The combinations' channels, concatenated.
    public private(set) var channels: [Int]
    /// Per combination: how many biases (features pairs) it has.
    public private(set) var biasCounts: [Int]
    /// The biases, concatenated (fitted by `fitBiases`).
    public var biases: [Float]

    /// Features per input: a PPV and an MPV for every bias.
    public var featureCount: Int { biases.count * 2 }
    /// The number of kernel/dilation combinations.
    public var combinationCount: Int { kernelIndices.count }

    /// A transform with about `biasCount` biases (rounded down to a multiple of 84, at least 84)
    /// for series of `length` frames and `channelCount` channels; the random channel subsets come
    /// from `generator`, drawn from `availableChannels` when given and not empty (channels that
    /// never vary — a joint never detected — would only waste combinations). Biases are zero
    /// until `fitBiases` sets them.
    public init(length: Int, channelCount: Int, biasCount: Int, availableChannels: [Int]? = nil,
                generator: inout SeededGenerator) {
        precondition(length > 0 && channelCount > 0, "a series needs at least one frame and one channel")
        let available = availableChannels.flatMap { $0.isEmpty ? nil : $0 } ?? Array(0..<channelCount)
        precondition(available.allSatisfy { (0..<channelCount).contains($0) }, "available channels must be in 0..<channelCount")
        self.length = length
        self.channelCount = channelCount
        let kernelCount = RandomConvolutionTransform.kernels.count
        let perKernel = max(1, biasCount / kernelCount)
        let (dilationValues, perDilation) = RandomConvolutionTransform.dilations(length: length, biasesPerKernel: perKernel)
        kernelIndices = []
        dilations = []
        padded = []
        biasCounts = []
        for (dilationIndex, dilation) in dilationValues.enumerated() {
            for kernel in 0..<kernelCount {
                kernelIndices.append(kernel)
                dilations.append(dilation)
                padded.append((dilationIndex + kernel) % 2 == 0)
                biasCounts.append(perDilation[dilationIndex])
            }
        }
        let maximumChannels = min(available.count, 9)
        let maximumExponent = log2(Double(maximumChannels + 1))
        channelCounts = []
        channels = []
        for _ in 0..<kernelIndices.count {
            let u = generator.nextDouble() * maximumExponent
            let count = min(maximumChannels, max(1, Int(pow(2, u))))
            var pool = available
            for i in 0..<count {
                let j = i + generator.nextInt(in: 0...(pool.count - 1 - i))
                pool.swapAt(i, j)
            }
            channelCounts.append(count)
            channels += pool[0..<count]
        }
        biases = [Float](repeating: 0, count: biasCounts.reduce(0, +))
    }

    /// A transform from its stored parts. Returns nil (with the reason) when they are inconsistent.
    public static func validated(length: Int, channelCount: Int, kernelIndices: [Int], dilations: [Int], padded: [Bool],
                                 channelCounts: [Int], channels: [Int], biasCounts: [Int],
                                 biases: [Float]) -> Result<RandomConvolutionTransform, RandomConvolutionTransformProblem> {
        let n = kernelIndices.count
        guard length > 0, channelCount > 0 else { return .failure(.init("length and channel count must be positive")) }
        guard n > 0, dilations.count == n, padded.count == n, channelCounts.count == n, biasCounts.count == n else {
            return .failure(.init("expected one kernel, dilation, padding, channel count and bias count per combination"))
        }
        guard kernelIndices.allSatisfy({ (0..<kernels.count).contains($0) }) else {
            return .failure(.init("kernel indices must be in 0..<\(kernels.count)"))
        }
        guard dilations.allSatisfy({ $0 >= 1 && $0 <= 1 << 20 }) else { return .failure(.init("dilations must be ≥ 1")) }
        guard channelCounts.allSatisfy({ $0 >= 1 }), channelCounts.reduce(0, +) == channels.count,
              channels.allSatisfy({ (0..<channelCount).contains($0) }) else {
            return .failure(.init("channel subsets must be non-empty and index channels 0..<\(channelCount)"))
        }
        guard biasCounts.allSatisfy({ $0 >= 0 }), biasCounts.reduce(0, +) == biases.count,
              biases.allSatisfy(\.isFinite) else {
            return .failure(.init("expected \(biasCounts.reduce(0, +)) finite biases, found \(biases.count)"))
        }
        var transform = RandomConvolutionTransform(empty: length, channelCount: channelCount)
        transform.kernelIndices = kernelIndices
        transform.dilations = dilations
        transform.padded = padded
        transform.channelCounts = channelCounts
        transform.channels = channels
        transform.biasCounts = biasCounts
        transform.biases = biases
        return .success(transform)
    }

    private init(empty length: Int, channelCount: Int) {
        self.length = length
        self.channelCount = channelCount
        kernelIndices = []
        dilations = []
        padded = []
        channelCounts = []
        channels = []
        biasCounts = []
        biases = []
    }

    /// MiniRocket's dilations for series of `length` frames: the distinct values of
    /// ⌊2^x⌋ for x at `maximumDilationsPerKernel` even steps in 0…log2((length − 1)/8), and how
    /// many of `biasesPerKernel` biases each gets (in proportion to its multiplicity, the
    /// remainder handed out from the smallest dilation on).
    public static func dilations(length: Int, biasesPerKernel: Int) -> (values: [Int], biases: [Int]) {
        let steps = min(biasesPerKernel, maximumDilationsPerKernel)
        let maximumExponent = max(0, log2(Double(length - 1) / Double(kernelLength - 1)))
        var values: [Int] = [], multiplicity: [Int] = []
        for i in 0..<steps {
            let x = steps == 1 ? 0 : maximumExponent * Double(i) / Double(steps - 1)
            let value = max(1, Int(pow(2, x)))
            if values.last == value { multiplicity[multiplicity.count - 1] += 1 } else {
                values.append(value)
                multiplicity.append(1)
            }
        }
        let multiplier = Double(biasesPerKernel) / Double(steps)
        var biases = multiplicity.map { Int(Double($0) * multiplier) }
        var remainder = biasesPerKernel - biases.reduce(0, +)
        var i = 0
        while remainder > 0 {
            biases[i] += 1
            remainder -= 1
            i = (i + 1) % biases.count
        }
        return (values, biases)
    }

    /// Sets every combination's biases to quantiles of its output on one of `series` (chosen
    /// by `generator`), at the low-discrepancy quantiles `i·φ mod 1` (φ the golden ratio),
    /// numbered across all combinations as MiniRocket does.
    public mutating func fitBiases(series: [[Float]], generator: inout SeededGenerator) {
        precondition(!series.isEmpty, "fitting biases needs at least one series")
        var scratch = Scratch(length: length, channelCount: channelCount)
        var output = [Float](repeating: 0, count: length)
        var quantileIndex = 1
        var biasIndex = 0
        let golden = (5.0.squareRoot() + 1) / 2
        var channelStart = 0
        var preparedDilation = -1, preparedSeries = -1
        for combination in 0..<combinationCount {
            let pick = generator.nextInt(in: 0...(series.count - 1))
            if pick != preparedSeries || dilations[combination] != preparedDilation {
                series[pick].withUnsafeBufferPointer { scratch.prepare($0, dilation: dilations[combination]) }
                preparedSeries = pick
                preparedDilation = dilations[combination]
            }
            let subset = channels[channelStart..<(channelStart + channelCounts[combination])]
            channelStart += channelCounts[combination]
            output.withUnsafeMutableBufferPointer {
                scratch.convolve(kernel: kernelIndices[combination], channels: subset, into: $0)
            }
            let sorted = output.sorted()
            for _ in 0..<biasCounts[combination] {
                let q = (Double(quantileIndex) * golden).truncatingRemainder(dividingBy: 1)
                quantileIndex += 1
                let position = q * Double(length - 1)
                let lower = Int(position.rounded(.down)), upper = min(lower + 1, length - 1)
                let weight = Float(position - Double(lower))
                biases[biasIndex] = sorted[lower] + weight * (sorted[upper] - sorted[lower])
                biasIndex += 1
            }
        }
    }

    /// Writes the `featureCount` features of one input (`channelCount · length` values,
    /// channel-major) into `features`: for each bias in order, its PPV then its MPV.
    public func features(of series: UnsafeBufferPointer<Float>, into features: UnsafeMutableBufferPointer<Float>,
                         scratch: inout Scratch) {
        precondition(series.count == channelCount * length && features.count == featureCount)
        var output = [Float](repeating: 0, count: length)
        var channelStart = 0, biasIndex = 0
        var preparedDilation = -1
        for combination in 0..<combinationCount {
            let dilation = dilations[combination]
            if dilation != preparedDilation {
                scratch.prepare(series, dilation: dilation)
                preparedDilation = dilation
            }
            let subset = channels[channelStart..<(channelStart + channelCounts[combination])]
            channelStart += channelCounts[combination]
            output.withUnsafeMutableBufferPointer { out in
                scratch.convolve(kernel: kernelIndices[combination], channels: subset, into: out)
                var lower = 0, upper = length
                let reach = (RandomConvolutionTransform.kernelLength / 2) * dilation
                if !padded[combination] && 2 * reach < length {
                    lower = reach
                    upper = length - reach
                }
                let inverse = 1 / Float(upper - lower)
                let count = biasCounts[combination]
                biases.withUnsafeBufferPointer { biases in
                    poolPositiveValues(UnsafeBufferPointer(out), frames: lower..<upper,
                                       biases: UnsafeBufferPointer(rebasing: biases[biasIndex..<(biasIndex + count)]),
                                       inverse: inverse,
                                       into: UnsafeMutableBufferPointer(rebasing: features[(2 * biasIndex)..<(2 * (biasIndex + count))]))
                }
                biasIndex += count
            }
        }
    }

    /// Work buffers for one thread: each channel's sum over the 9 taps and its 9 shifted copies
    /// at the current dilation (zero outside the series).
    public struct Scratch {
        let length: Int
        let channelCount: Int
        var shifted: [Float]
        var tapSums: [Float]

        /// Buffers for series of `length` frames and `channelCount` channels.
        public init(length: Int, channelCount: Int) {
            self.length = length
            self.channelCount = channelCount
            shifted = [Float](repeating: 0, count: channelCount * RandomConvolutionTransform.kernelLength * length)
            tapSums = [Float](repeating: 0, count: channelCount * length)
        }

        mutating func prepare(_ series: UnsafeBufferPointer<Float>, dilation: Int) {
            let taps = RandomConvolutionTransform.kernelLength, half = taps / 2
            let length = self.length
            shifted.withUnsafeMutableBufferPointer { shifted in
                tapSums.withUnsafeMutableBufferPointer { sums in
                    for c in 0..<channelCount {
                        let source = c * length
                        let sumBase = c * length
                        for t in 0..<length { sums[sumBase + t] = 0 }
                        for tap in 0..<taps {
                            let offset = (tap - half) * dilation
                            let base = (c * taps + tap) * length
                            for t in 0..<length {
                                let s = t + offset
                                let value: Float = (s >= 0 && s < length) ? series[source + s] : 0
                                shifted[base + t] = value
                                sums[sumBase + t] += value
                            }
                        }
                    }
                }
            }
        }

        /// The kernel's output: Σ over `channels` of (−Σ taps + 3 · the three taps of weight 2).
        func convolve(kernel: Int, channels: ArraySlice<Int>, into out: UnsafeMutableBufferPointer<Float>) {
            let taps = RandomConvolutionTransform.kernelLength
            let positions = RandomConvolutionTransform.kernels[kernel]
            let length = self.length
            for t in 0..<length { out[t] = 0 }
            shifted.withUnsafeBufferPointer { shifted in
                tapSums.withUnsafeBufferPointer { sums in
                    for c in channels {
                        let a = (c * taps + positions[0]) * length
                        let b = (c * taps + positions[1]) * length
                        let d = (c * taps + positions[2]) * length
                        let s = c * length
                        for t in 0..<length {
                            out[t] += 3 * (shifted[a + t] + shifted[b + t] + shifted[d + t]) - sums[s + t]
                        }
                    }
                }
            }
        }
    }
}

/// Why stored transform parts do not form a transform.
public struct RandomConvolutionTransformProblem: Error, Equatable, Sendable {
    /// What is wrong.
    public var reason: String
    init(_ reason: String) { self.reason = reason }
}
