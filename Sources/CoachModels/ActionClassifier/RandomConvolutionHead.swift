import CoachTensor
import Foundation

/// A linear classifier on a `RandomConvolutionTransform` of the encoded windows — the second
/// member of Coach's action-classifier ensemble beside the network (MiniRocket's recipe with a
/// multinomial logistic regression instead of a ridge classifier, so it gives probabilities).
///
/// The transform reads the encoding's position and velocity channels of every joint (not the
/// confidence or hand channels) as `J · k` series of T frames, then each of `bones`' vectors (its
/// second joint's position minus its first's, one series per coordinate: a kernel sums the
/// series it picks, so without them no feature sees one joint relative to another); `weight` and `bias` act on the raw
/// features (any standardisation is folded in). With `fillsGaps`, a joint's undetected frames
/// inside a window are first filled from its detected ones (see `fillGaps`), as the peers
/// interpolate missing values: a zero among real positions reads to a convolution as a jump to
/// the window's centre and back.
public struct RandomConvolutionHead: Equatable, Sendable {
    /// The model-file prefix of its tensors.
    public static let tensorPrefix = "randomConvolution."

    /// The transform.
    public var transform: RandomConvolutionTransform
    /// [features, classes].
    public var weight: Tensor
    /// [classes].
    public var bias: Tensor
    /// Whether undetected frames of a joint are filled before the transform (heads written
    /// before this existed read zeros).
    public var fillsGaps: Bool
    /// The bones whose vectors (second joint's position minus the first's) the transform reads
    /// after the joints' series (a custom joint set's are found in its training poses); empty for
    /// heads without them (older files).
    public var bones: [SkeletonGraph.Edge]

    /// A head of `transform` with `weight` [F, classes] and `bias` [classes].
    public init(transform: RandomConvolutionTransform, weight: Tensor, bias: Tensor, fillsGaps: Bool = true,
                bones: [SkeletonGraph.Edge] = []) {
        precondition(weight.shape == [transform.featureCount, bias.count], "weight must be [features, classes]")
        self.transform = transform
        self.weight = weight
        self.bias = bias
        self.fillsGaps = fillsGaps
        self.bones = bones
    }

    /// The encoded channels (indices into K) the transform reads: positions and velocities.
    public static func seriesChannels(of encoding: ActionInputEncoding) -> [Int] {
        let positions = encoding.includesDepth ? 3 : 2
        let velocities = encoding.includesVelocity ? positions : 0
        return Array(0..<positions) + Array((positions + 1)..<(positions + 1 + velocities))
    }

    /// The number of series per window for `encoding` with `boneCount` bones: each joint's
    /// positions and velocities, then each bone's vector.
    public static func seriesCount(of encoding: ActionInputEncoding, boneCount: Int = 0) -> Int {
        encoding.jointCount * seriesChannels(of: encoding).count + boneCount * encoding.positionCount
    }

    /// Each window of `encoded` [N, T, J, K] as the transform's input: series (joint, channel)
    /// channel-major, T frames each, gaps filled when `fillsGaps`; then, per bone, its vector's
    /// coordinates (the filled positions' difference; zero throughout when either joint is
    /// undetected in every frame of the window).
    public static func series(of encoded: Tensor, encoding: ActionInputEncoding, fillsGaps: Bool,
                              bones: [SkeletonGraph.Edge] = []) -> [[Float]] {
        let n = encoded.shape[0], t = encoded.shape[1], j = encoded.shape[2], k = encoded.shape[3]
        let channels = seriesChannels(of: encoding)
        let positionCount = encoding.positionCount
        return encoded.withUnsafeBufferPointer { values in
            (0..<n).map { window in
                var series = [Float](repeating: 0, count: seriesCount(of: encoding, boneCount: bones.count) * t)
                for frame in 0..<t {
                    for joint in 0..<j {
                        let source = ((window * t + frame) * j + joint) * k
                        for (index, channel) in channels.enumerated() {
                            series[(joint * channels.count + index) * t + frame] = values[source + channel]
                        }
                    }
                }
                if fillsGaps {
                    let confidence = encoding.keypointChannels.count - 1
                    var detected = [Bool](repeating: false, count: j * t)
                    for frame in 0..<t {
                        for joint in 0..<j { detected[joint * t + frame] = values[((window * t + frame) * j + joint) * k + confidence] > 0 }
                    }
                    fillGaps(&series, detected: detected, frameCount: t, jointCount: j,
                             positionCount: confidence, hasVelocity: encoding.includesVelocity)
                }
                if !bones.isEmpty {
                    let confidence = encoding.keypointChannels.count - 1
                    let seen = (0..<j).map { joint in
                        (0..<t).contains { values[((window * t + $0) * j + joint) * k + confidence] > 0 }
                    }
                    for (index, bone) in bones.enumerated() where seen[bone.first] && seen[bone.second] {
                        for c in 0..<positionCount {
                            let row = (j * channels.count + index * positionCount + c) * t
                            let from = (bone.first * channels.count + c) * t, to = (bone.second * channels.count + c) * t
                            for frame in 0..<t { series[row + frame] = series[to + frame] - series[from + frame] }
                        }
                    }
                }
                return series
            }
        }
    }

    /// Fills the gaps of `series` (one window: per joint `positionCount` position series, then as
    /// many velocity series when `hasVelocity`, `frameCount` frames each) where `detected[joint ·
    /// frameCount + frame]` is false: linearly between the nearest detected frames, held at the
    /// window's ends; a joint never detected stays zero. Velocities are recomputed as the filled
    /// positions' frame-to-frame change (0 at the first frame).
    public static func fillGaps(_ series: inout [Float], detected: [Bool], frameCount t: Int, jointCount j: Int,
                                positionCount: Int, hasVelocity: Bool) {
        let perJoint = positionCount * (hasVelocity ? 2 : 1)
        var seen: [Int] = []
        seen.reserveCapacity(t)
        for joint in 0..<j {
            seen.removeAll(keepingCapacity: true)
            for frame in 0..<t where detected[joint * t + frame] { seen.append(frame) }
            guard !seen.isEmpty, seen.count < t else { continue }
            for c in 0..<positionCount {
                let row = (joint * perJoint + c) * t
                var next = 0
                for frame in 0..<t {
                    while next < seen.count && seen[next] < frame { next += 1 }
                    if next < seen.count && seen[next] == frame { continue }
                    if next == 0 {
                        series[row + frame] = series[row + seen[0]]
                    } else if next == seen.count {
                        series[row + frame] = series[row + seen[next - 1]]
                    } else {
                        let before = seen[next - 1], after = seen[next]
                        let w = Float(frame - before) / Float(after - before)
                        series[row + frame] = series[row + before] * (1 - w) + series[row + after] * w
                    }
                }
                if hasVelocity {
                    let velocity = (joint * perJoint + positionCount + c) * t
                    series[velocity] = 0
                    for frame in 1..<t { series[velocity + frame] = series[row + frame] - series[row + frame - 1] }
                }
            }
        }
    }

    /// The transform's features [N, F] of `series`, computed across cores (each window on its
    /// own, so the values do not depend on the thread count).
    public static func features(of series: [[Float]], transform: RandomConvolutionTransform) -> Tensor {
        let count = series.count, width = transform.featureCount
        guard count > 0 else { return Tensor(shape: [0, width], scalars: []) }
        return Tensor(shape: [count, width]) { out in
            let base = out.baseAddress!
            let chunks = min(count, 64)
            parallelFor(chunks, minimumWork: 2) { chunk in
                var scratch = RandomConvolutionTransform.Scratch(length: transform.length,
                                                                 channelCount: transform.channelCount)
                for window in (chunk * count / chunks)..<((chunk + 1) * count / chunks) {
                    series[window].withUnsafeBufferPointer { input in
                        transform.features(of: input, into: UnsafeMutableBufferPointer(start: base + window * width, count: width),
                                           scratch: &scratch)
                    }
                }
            }
        }
    }

    /// Class logits [N, classes] for `encoded` windows [N, T, J, K].
    public func logits(encoded: Tensor, encoding: ActionInputEncoding) -> Tensor {
        let features = RandomConvolutionHead.features(
            of: RandomConvolutionHead.series(of: encoded, encoding: encoding, fillsGaps: fillsGaps, bones: bones),
            transform: transform)
        return Tensor.matmul(features, weight) + bias
    }

    /// The head as model-file tensors (integers stored exactly as float32).
    public var tensors: [String: Tensor] {
        func vector(_ values: [Int]) -> Tensor { Tensor(shape: [values.count], scalars: values.map(Float.init)) }
        let p = RandomConvolutionHead.tensorPrefix
        var tensors = [
            p + "kernels": vector(transform.kernelIndices),
            p + "dilations": vector(transform.dilations),
            p + "padded": vector(transform.padded.map { $0 ? 1 : 0 }),
            p + "channelCounts": vector(transform.channelCounts),
            p + "channels": vector(transform.channels),
            p + "biasCounts": vector(transform.biasCounts),
            p + "biases": Tensor(shape: [transform.biases.count], scalars: transform.biases),
            p + "weight": weight,
            p + "bias": bias,
        ]
        if !bones.isEmpty { tensors[p + "bones"] = vector(bones.flatMap { [$0.first, $0.second] }) }
        return tensors
    }

    /// Whether `name` is one of a head's tensors.
    public static func owns(_ name: String) -> Bool { name.hasPrefix(tensorPrefix) }

    /// A head from a model file's tensors, for windows of `encoding` and `classCount` classes.
    /// Throws `ModelFileError` naming the file and the tensor at fault.
    public init(file: ModelFile, encoding: ActionInputEncoding, classCount: Int, fillsGaps: Bool) throws {
        let p = RandomConvolutionHead.tensorPrefix
        func integers(_ name: String) throws -> [Int] {
            guard let tensor = file.tensors[p + name] else {
                throw ModelFileError.invalidTensor(path: file.sourcePath, name: p + name,
                                                   reason: "missing: the specification says the model has a random-convolution head")
            }
            guard tensor.shape.count == 1, tensor.scalars.allSatisfy({ $0.isFinite && $0 == $0.rounded() && abs($0) < 1e7 }) else {
                throw ModelFileError.invalidTensor(path: file.sourcePath, name: p + name, reason: "expected a vector of whole numbers")
            }
            return tensor.scalars.map { Int($0) }
        }
        let kernels = try integers("kernels")
        var bones: [SkeletonGraph.Edge] = []
        if file.tensors[p + "bones"] != nil {
            let ends = try integers("bones")
            guard ends.count % 2 == 0, ends.allSatisfy({ (0..<encoding.jointCount).contains($0) }) else {
                throw ModelFileError.invalidTensor(path: file.sourcePath, name: p + "bones",
                                                   reason: "expected pairs of joint indices in 0..<\(encoding.jointCount)")
            }
            bones = stride(from: 0, to: ends.count, by: 2).map { SkeletonGraph.Edge(ends[$0], ends[$0 + 1]) }
        }
        let biasCount = try integers("biasCounts").reduce(0, +)
        let biases = try file.tensor(p + "biases", shape: [biasCount]).scalars
        let result = RandomConvolutionTransform.validated(
            length: encoding.windowLength, channelCount: RandomConvolutionHead.seriesCount(of: encoding, boneCount: bones.count),
            kernelIndices: kernels, dilations: try integers("dilations"), padded: try integers("padded").map { $0 != 0 },
            channelCounts: try integers("channelCounts"), channels: try integers("channels"),
            biasCounts: try integers("biasCounts"), biases: biases)
        switch result {
        case .failure(let problem):
            throw ModelFileError.invalidTensor(path: file.sourcePath, name: p + "kernels", reason: problem.reason)
        case .success(let transform):
            let weight = try file.tensor(p + "weight", shape: [transform.featureCount, classCount])
            let bias = try file.tensor(p + "bias", shape: [classCount])
            guard weight.scalars.allSatisfy(\.isFinite), bias.scalars.allSatisfy(\.isFinite) else {
                throw ModelFileError.invalidTensor(path: file.sourcePath, name: p + "weight", reason: "contains NaN or infinity")
            }
            self.init(transform: transform, weight: weight, bias: bias, fillsGaps: fillsGaps, bones: bones)
        }
    }
}
