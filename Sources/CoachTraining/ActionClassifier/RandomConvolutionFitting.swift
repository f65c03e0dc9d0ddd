import CoachData
import CoachModels
import Foundation

/// Fits an action classifier's random-convolution head: windows cut evenly from the training
/// segments (plus augmented windows when augmentations are on: one per window, and up to four
/// when the data is small), MiniRocket
/// biases from those windows (each joint's undetected frames filled from its detected ones), then a class-balanced multinomial logistic regression on the
/// standardised features whose L2 penalty is chosen by cross-validation over folds of whole clips
/// (segments of one clip never sit on both sides), and refitted on every training window.
struct RandomConvolutionFitting {
    /// Windows cut from one segment at most.
    static let maximumWindowsPerSegment = 16
    /// Windows used in all at most (the feature matrix is windows × features floats).
    static let maximumWindows = 8_000
    /// Augmented windows per cut window at most. Small data gets more of them while all its
    /// windows stay within `maximumWindows` (NATOPS's 162 training clips: four, 1,620 windows in
    /// all): the head then learns the augmentations' variety from more than one draw per window.
    static let maximumAugmentedCopies = 4
    /// The penalties tried, largest first (each fit starts from the previous one's weights).
    static let penalties: [Double] = [1, 0.1, 0.01]
    /// Cross-validation folds.
    static let foldCount = 3
    /// L-BFGS steps per fit at most (per cross-validation fit: fewer, each starts warm).
    static let maximumSolverIterations = 100
    static let maximumCrossValidationIterations = 50

    var featureCount: Int
    var sampler: PoseWindowSampler
    var encoding: ActionInputEncoding
    var augmenter: PoseAugmenter?
    /// The skeleton's bones, whose vectors the transform reads beside the joints (empty: none).
    var bones: [SkeletonGraph.Edge] = []
    /// Whether, when `bones` is empty, the head reads the bones `rigidBones` finds in the
    /// training windows instead (a custom joint set, whose skeleton is not known).
    var infersBones = false
    /// The joints' names, for the note that lists inferred bones.
    var jointNames: [String] = []
    var observer: TrainingObserver?
    /// The ranks that share the features' rows and the cross-validation folds (the fitted head is
    /// the same bits for any number of ranks).
    var communicator: Communicator = .single

    /// The windows cut from `sequence`: evenly spaced starts, about one every ninth of a window
    /// (at most `perSegment`).
    func windows(of sequence: PoseSequence, perSegment: Int) -> [PoseWindow] {
        let length = sampler.windowLength
        let frames = sequence.frames.count
        let span = max(0, frames - length)
        let wanted = min(perSegment, span / max(1, length / 9) + 1)
        let starts = wanted <= 1 ? [span / 2] : (0..<wanted).map { Int((Double($0) * Double(span) / Double(wanted - 1)).rounded()) }
        return starts.map { sampler.window(of: sequence, startingAt: $0) }
    }

    /// The fitted head for `sequences` (prepared at the model's frame rate) with class `targets`,
    /// clip `groups`, `classCount` classes; every random choice comes from `generator`.
    func fit(sequences: [PoseSequence], targets: [Int], groups: [Int], classCount: Int,
             generator: inout SeededGenerator) throws -> RandomConvolutionHead {
        // Windows, at most `maximumWindows` (fewer per segment when the data is large), each with
        // one augmented copy or, while they fit, up to `maximumAugmentedCopies`.
        var perSegment = RandomConvolutionFitting.maximumWindowsPerSegment
        let cutCount = { (perSegment: Int) in sequences.map { self.windows(of: $0, perSegment: perSegment).count }.reduce(0, +) }
        let copies = augmenter == nil ? 0 : max(1, min(RandomConvolutionFitting.maximumAugmentedCopies,
                                                       RandomConvolutionFitting.maximumWindows / max(cutCount(perSegment), 1) - 1))
        while perSegment > 1 && cutCount(perSegment) * (1 + copies) > RandomConvolutionFitting.maximumWindows {
            perSegment -= 1
        }
        var windows: [PoseWindow] = [], windowTargets: [Int] = [], windowGroups: [Int] = []
        var plainWindows: [PoseWindow] = []
        for (index, sequence) in sequences.enumerated() {
            var cut = self.windows(of: sequence, perSegment: perSegment)
            plainWindows += cut
            if let augmenter {
                let plain = cut.count
                for _ in 0..<copies {
                    cut += (0..<plain).map { _ in sampler.randomWindow(from: sequence, augmenter: augmenter, generator: &generator) }
                }
            }
            windows += cut
            windowTargets += [Int](repeating: targets[index], count: cut.count)
            windowGroups += [Int](repeating: groups[index], count: cut.count)
        }
        observer?(.note("random-convolution head: \(featureCount) features of \(windows.count) windows"
                        + (copies > 1 ? " (\(windows.count / (1 + copies)) cut from the training segments, each with \(copies) augmented copies)" : "")))

        // The transform and its features.
        let encoded = encoding.encode(windows)
        var bones = self.bones
        if bones.isEmpty && infersBones {
            // From the data's own poses: jitter and uneven stretching would make every pair less rigid.
            bones = RandomConvolutionFitting.rigidBones(of: augmenter == nil ? encoded : encoding.encode(plainWindows), encoding: encoding)
            if !bones.isEmpty {
                let name = { (joint: Int) in joint < jointNames.count ? jointNames[joint] : "joint \(joint)" }
                observer?(.note("random-convolution head: reads \(bones.count) bones found as the training poses' most rigid joint pairs: "
                                + bones.map { "\(name($0.first))–\(name($0.second))" }.joined(separator: ", ")))
            }
        }
        let series = RandomConvolutionHead.series(of: encoded, encoding: encoding, fillsGaps: true, bones: bones)
        let channelCount = RandomConvolutionHead.seriesCount(of: encoding, boneCount: bones.count)
        let varying = RandomConvolutionFitting.varyingChannels(of: series, channelCount: channelCount, length: sampler.windowLength)
        if varying.count < channelCount {
            observer?(.note("random-convolution head: \(channelCount - varying.count) of \(channelCount) series never vary "
                            + "in training (joints never detected) and are left out of its kernels"))
        }
        var transform = RandomConvolutionTransform(length: sampler.windowLength, channelCount: channelCount,
                                                   biasCount: max(1, featureCount / 2), availableChannels: varying,
                                                   generator: &generator)
        transform.fitBiases(series: series, generator: &generator)
        let raw = Tensor(shape: [series.count, transform.featureCount], scalars: try communicator.gatherRows(count: series.count) {
            RandomConvolutionHead.features(of: Array(series[$0]), transform: transform).scalars
        })
        let standardization = FeatureStandardization(fitting: raw)
        let features = standardization.apply(raw)

        // Class-balanced weights.
        var counts = [Int](repeating: 0, count: classCount)
        for target in windowTargets { counts[target] += 1 }
        let present = counts.filter { $0 > 0 }.count
        let weights = windowTargets.map { Float(windowTargets.count) / Float(present * counts[$0]) }

        let penalty = try choosePenalty(features: features, targets: windowTargets, groups: windowGroups, weights: weights,
                                    classCount: classCount, generator: &generator)
        observer?(.note("random-convolution head: L2 penalty \(penalty) chosen by \(RandomConvolutionFitting.foldCount)-fold cross-validation over clips"))
        let regression = SoftmaxRegression(l2Penalty: penalty)
        let fitted = regression.fit(features: features, labels: windowTargets, classCount: classCount,
                                    maximumIterations: RandomConvolutionFitting.maximumSolverIterations,
                                    sampleWeights: weights).parameters
        let layer = standardization.folded(weight: fitted.weight, bias: fitted.bias)
        return RandomConvolutionHead(transform: transform, weight: layer.weight, bias: layer.bias, fillsGaps: true, bones: bones)
    }

    /// A skeleton for joints whose bones are not known, read from `encoded` windows [N, T, J, K]:
    /// the spanning tree (Kruskal) of the joint pairs whose distance varies least relative to its
    /// mean (coefficient of variation over the frames where both are detected), as a bone's length
    /// stays while other pairs' distances change with the pose. Pairs seen together in fewer than
    /// a tenth of the frames are left out (the tree is then a forest). Each bone's first joint is
    /// the one nearer the tree's centre (its joint of most bones, the lowest index on a tie); bones
    /// are listed breadth first. Empty for fewer than two joints.
    static func rigidBones(of encoded: Tensor, encoding: ActionInputEncoding) -> [SkeletonGraph.Edge] {
        let n = encoded.shape[0], t = encoded.shape[1], j = encoded.shape[2], k = encoded.shape[3]
        guard j >= 2, n > 0 else { return [] }
        let positions = encoding.positionCount, confidence = encoding.keypointChannels.count - 1
        let pairCount = j * (j - 1) / 2
        var sum = [Double](repeating: 0, count: pairCount), squares = sum, counts = [Int](repeating: 0, count: pairCount)
        encoded.withUnsafeBufferPointer { values in
            for frame in 0..<(n * t) {
                let base = frame * j * k
                var pair = 0
                for a in 0..<j {
                    let first = base + a * k
                    guard values[first + confidence] > 0 else { pair += j - 1 - a; continue }
                    for b in (a + 1)..<j {
                        defer { pair += 1 }
                        let second = base + b * k
                        guard values[second + confidence] > 0 else { continue }
                        var squared: Float = 0
                        for c in 0..<positions {
                            let d = values[second + c] - values[first + c]
                            squared += d * d
                        }
                        let distance = Double(squared.squareRoot())
                        sum[pair] += distance
                        squares[pair] += distance * distance
                        counts[pair] += 1
                    }
                }
            }
        }
        var candidates: [(variation: Double, a: Int, b: Int)] = []
        var pair = 0
        for a in 0..<j {
            for b in (a + 1)..<j {
                defer { pair += 1 }
                let count = Double(counts[pair])
                guard count >= 0.1 * Double(n * t), count > 1 else { continue }
                let mean = sum[pair] / count
                guard mean > 1e-6 else { continue }
                let variance = max(0, squares[pair] / count - mean * mean)
                candidates.append((variance.squareRoot() / mean, a, b))
            }
        }
        candidates.sort { ($0.variation, $0.a, $0.b) < ($1.variation, $1.a, $1.b) }
        var parent = Array(0..<j)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        var neighbours = [[Int]](repeating: [], count: j)
        for candidate in candidates {
            let ra = root(candidate.a), rb = root(candidate.b)
            guard ra != rb else { continue }
            parent[ra] = rb
            neighbours[candidate.a].append(candidate.b)
            neighbours[candidate.b].append(candidate.a)
        }
        // Breadth first from each component's joint of most bones.
        var visited = [Bool](repeating: false, count: j)
        var bones: [SkeletonGraph.Edge] = []
        let order = (0..<j).sorted { (neighbours[$0].count, -$0) > (neighbours[$1].count, -$1) }
        for start in order where !visited[start] && !neighbours[start].isEmpty {
            visited[start] = true
            var queue = [start], head = 0
            while head < queue.count {
                let joint = queue[head]
                head += 1
                for next in neighbours[joint].sorted() where !visited[next] {
                    visited[next] = true
                    bones.append(SkeletonGraph.Edge(joint, next))
                    queue.append(next)
                }
            }
        }
        return bones
    }

    /// The channels of `series` (windows, channel-major, `length` frames each) whose value is not
    /// the same in every frame of every window; a channel that never varies (a joint never
    /// detected, a depth that is always zero) carries nothing a kernel could use.
    static func varyingChannels(of series: [[Float]], channelCount: Int, length: Int) -> [Int] {
        (0..<channelCount).filter { channel in
            guard let first = series.first?[channel * length] else { return false }
            return series.contains { window in
                window[(channel * length)..<((channel + 1) * length)].contains { $0 != first }
            }
        }
    }

    /// The penalty with the lowest weighted held-out log loss over folds of whole clips (the
    /// largest penalty when there are too few clips to fold). The penalties go from largest to
    /// smallest, each fold's fit starting from its fit at the previous one, and the search stops at
    /// the first penalty that does not lower the loss summed over the folds (`PenaltySearch`).
    func choosePenalty(features: Tensor, targets: [Int], groups: [Int], weights: [Float], classCount: Int,
                       generator: inout SeededGenerator) throws -> Double {
        let penalties = RandomConvolutionFitting.penalties
        var distinctGroups = Array(Set(groups)).sorted()
        guard distinctGroups.count >= RandomConvolutionFitting.foldCount * 2 else { return 0.1 }
        generator.shuffle(&distinctGroups)
        var foldOf: [Int: Int] = [:]
        for (position, group) in distinctGroups.enumerated() { foldOf[group] = position % RandomConvolutionFitting.foldCount }
        // This rank's folds' last fits (the ranks share the folds; the losses are summed in fold order).
        var starts: [Int: SoftmaxRegression.Parameters] = [:]
        let search = try PenaltySearch.lowest(count: penalties.count) { index in
            let foldLosses: [[Double]] = try communicator.gatherShares(count: RandomConvolutionFitting.foldCount) { folds in
                folds.map { fold in
                    guard let fit = foldFit(fold: fold, penalty: penalties[index], start: starts[fold], foldOf: foldOf,
                                            features: features, targets: targets, groups: groups, weights: weights,
                                            classCount: classCount)
                    else { return [] }
                    starts[fold] = fit.parameters
                    return [fit.loss]
                }
            }
            return foldLosses.reduce(0) { $0 + ($1.first ?? 0) }
        }
        return penalties[search.index]
    }

    /// Fold `fold`'s fit at `penalty` from `start` (zero weights when nil) and its weighted held-out
    /// log loss (nil when the fold cannot be fitted).
    func foldFit(fold: Int, penalty: Double, start: SoftmaxRegression.Parameters?, foldOf: [Int: Int], features: Tensor,
                 targets: [Int], groups: [Int], weights: [Float], classCount: Int)
        -> (parameters: SoftmaxRegression.Parameters, loss: Double)? {
        let training = groups.indices.filter { foldOf[groups[$0]] != fold }
        let held = groups.indices.filter { foldOf[groups[$0]] == fold }
        guard Set(training.map { targets[$0] }).count >= 2, !held.isEmpty else { return nil }
        let fit = SoftmaxRegression(l2Penalty: penalty).fit(
            features: features.rows(training), labels: training.map { targets[$0] }, classCount: classCount,
            maximumIterations: RandomConvolutionFitting.maximumCrossValidationIterations,
            sampleWeights: training.map { weights[$0] }, start: start)
        let probabilities = fit.parameters.logits(features.rows(held)).softmax(axis: -1)
        var loss = 0.0, total = 0.0
        for (row, item) in held.enumerated() {
            loss -= Double(weights[item]) * log(max(Double(probabilities.scalars[row * classCount + targets[item]]), 1e-12))
            total += Double(weights[item])
        }
        return (fit.parameters, loss / max(total, 1e-12))
    }
}
