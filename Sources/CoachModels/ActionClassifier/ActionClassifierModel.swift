import CoachData
import CoachNN
import Foundation

/// A trained (or freshly initialised) action classifier: labels, joint set, window, input
/// encoding and network — everything needed to turn pose windows into class probabilities.
///
/// Training, evaluation and `CoachRuntime.ActionClassifier` all go through
/// `probabilities(for:)` / `logits(for:tape:)`, so windows are always encoded the same way.
public final class ActionClassifierModel: PoseClassifierModel {
    /// The task of its model files.
    public static let task = ModelTask.actionClassifier
    /// Where its model files keep the specification under `extra`.
    public static let specificationKey = ActionClassifierSpecification.metadataKey
    /// What it is, for messages.
    public static let kindDescription = "an action classifier"

    /// Class labels in output order.
    public let labels: [String]
    /// The joints the model expects, in tensor order.
    public let jointSet: JointSet
    /// Frames per second windows are sampled at.
    public let frameRate: Double
    /// How windows become the network's input.
    public let encoding: ActionInputEncoding
    /// The network's shape.
    public let architecture: ActionClassifierArchitecture
    /// The class treated as background during training, if any.
    public let backgroundLabel: String?
    /// The network.
    public let network: ActionClassifierNetwork
    /// The random-convolution head whose probabilities are averaged with the network's (nil:
    /// the network alone). Training fits it after the network.
    public var randomConvolution: RandomConvolutionHead?
    /// The head's share of the averaged probabilities (training keeps 0.5 unless the validation clips clearly favour another;
    /// 0 or 1 measure one member alone).
    public var randomConvolutionWeight: Float = 0.5
    /// The origin of the keypoints the model was trained on, as its training files gave them
    /// (inside Coach poses are always top-left; evaluation and prediction default to this).
    public var keypointOrigin: KeypointOrigin = .topLeft
    /// Each joint's mean height in the training windows as the encoding normalises them (top-left
    /// origin: negative is up), for telling when new poses are upside down (nil: not recorded).
    public var referenceJointHeights: [Float]?
    /// Further members of the ensemble: whole models (network and head) over the same labels and
    /// encoding, trained from other seeds. A window's probabilities are the mean of every member's
    /// (this one's network and head mixed at its share, then each additional member's likewise).
    public var additionalMembers: [ActionClassifierModel] = []

    /// A freshly initialised model for `labels` over `jointSet`.
    public init(labels: [String], jointSet: JointSet, frameRate: Double, encoding: ActionInputEncoding,
                architecture: ActionClassifierArchitecture, backgroundLabel: String? = nil,
                generator: inout SeededGenerator) {
        precondition(encoding.jointCount == jointSet.count, "the encoding's joints must match the joint set")
        self.labels = labels
        self.jointSet = jointSet
        self.frameRate = frameRate
        self.encoding = encoding
        self.architecture = architecture
        self.backgroundLabel = backgroundLabel
        network = ActionClassifierNetwork(architecture: architecture, graph: SkeletonGraph(jointSet: jointSet),
                                          inputChannels: encoding.channelCount, classCount: labels.count,
                                          generator: &generator)
    }

    /// Frames per window (T).
    public var windowLength: Int { encoding.windowLength }

    /// A sampler cutting windows the way this model expects them.
    public var windowSampler: PoseWindowSampler { PoseWindowSampler(windowLength: windowLength, frameRate: frameRate) }

    /// The specification stored in the model file.
    public var specification: ActionClassifierSpecification {
        var specification = memberSpecification
        specification.referenceJointHeights = referenceJointHeights
        if !additionalMembers.isEmpty { specification.additionalMembers = additionalMembers.map(\.memberSpecification) }
        return specification
    }

    /// This member's own part of the specification: network, encoding and head.
    var memberSpecification: ActionClassifierSpecification {
        ActionClassifierSpecification(architecture: architecture, encoding: encoding, jointSetKind: jointSet.kind,
                                      backgroundLabel: backgroundLabel,
                                      randomConvolutionFeatures: randomConvolution?.transform.featureCount,
                                      randomConvolutionWeight: randomConvolution == nil ? nil : randomConvolutionWeight,
                                      randomConvolutionFillsGaps: randomConvolution?.fillsGaps)
    }

    /// Every member of the ensemble: this model, then `additionalMembers`.
    public var members: [ActionClassifierModel] { [self] + additionalMembers }

    /// The model-file prefix of additional member `index`'s tensors (`index` from 0: `member2.`).
    public static func memberTensorPrefix(_ index: Int) -> String { "member\(index + 2)." }

    /// Whether `name` belongs to an additional member (`member<digits>.`).
    static func ownedByAdditionalMember(_ name: String) -> Bool {
        guard name.hasPrefix("member") else { return false }
        let rest = name.dropFirst("member".count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        return !digits.isEmpty && rest.dropFirst(digits.count).first == "."
    }

    /// The model's input description for the model file.
    public var inputSpecification: InputSpecification {
        InputSpecification(pose: PoseInputSpecification(windowLength: windowLength, frameRate: frameRate,
                                                        jointNames: jointSet.names, keypointOrigin: keypointOrigin,
                                                        keypointChannels: encoding.keypointChannels))
    }

    // MARK: - Prediction

    /// Logits [N, classes] for `windows` on `tape` (training or inference mode).
    public func logits(for windows: [PoseWindow], tape: Tape) -> Variable {
        network(tape.constant(encoding.encode(windows)))
    }

    /// Class probabilities for each window (inference mode), in `labels` order; `batchSize`
    /// windows are run together. With a random-convolution head, the mean of its probabilities
    /// and the network's at the head's share; with additional members, the mean of every member's.
    public func probabilities(for windows: [PoseWindow], batchSize: Int = 64) -> [[Float]] {
        var mean = memberProbabilities(for: windows, batchSize: batchSize)
        guard !additionalMembers.isEmpty else { return mean }
        for member in additionalMembers {
            let rows = member.memberProbabilities(for: windows, batchSize: batchSize)
            for n in mean.indices { for c in mean[n].indices { mean[n][c] += rows[n][c] } }
        }
        let scale = 1 / Float(additionalMembers.count + 1)
        return mean.map { $0.map { $0 * scale } }
    }

    /// This member's probabilities alone: its network's and its head's at the head's share.
    public func memberProbabilities(for windows: [PoseWindow], batchSize: Int = 64) -> [[Float]] {
        let network = batchedProbabilities(for: windows, batchSize: batchSize)
        guard let head = randomConvolution, !windows.isEmpty else { return network }
        let classes = labels.count
        let headProbabilities = head.logits(encoded: encoding.encode(windows), encoding: encoding).softmax(axis: -1)
        return headProbabilities.withUnsafeBufferPointer { p in
            network.enumerated().map { n, row in
                (0..<classes).map { c in (1 - randomConvolutionWeight) * row[c] + randomConvolutionWeight * p[n * classes + c] }
            }
        }
    }

    // MARK: - Keypoint orientation

    /// Each joint's mean height (normalised y, top-left origin) over the detected joints of
    /// `windows`, or nil for joints never detected.
    public func jointHeights(of windows: [PoseWindow]) -> [Float?] {
        var sums = [Double](repeating: 0, count: jointSet.count), counts = [Int](repeating: 0, count: jointSet.count)
        for window in windows {
            let (centre, scale) = encoding.normalizer(for: window)
            for t in 0..<window.frameCount {
                for j in 0..<window.jointCount where window.confidence[t * window.jointCount + j] > 0 {
                    sums[j] += Double((window.y[t * window.jointCount + j] - centre.y) / scale)
                    counts[j] += 1
                }
            }
        }
        return zip(sums, counts).map { $1 == 0 ? nil : Float($0 / Double($1)) }
    }

    /// How `windows`' joint heights compare with the training data's: the correlation of the
    /// two profiles over joints seen in both (near 1: same way up; clearly negative: the poses
    /// are upside down relative to training, as when the keypoint origin is wrong). Nil when the
    /// model recorded no profile, or fewer than three joints vary.
    public func orientationAgreement(with windows: [PoseWindow]) -> Double? {
        guard let reference = referenceJointHeights, reference.count == jointSet.count else { return nil }
        let heights = jointHeights(of: windows)
        var pairs: [(Double, Double)] = []
        for (r, h) in zip(reference, heights) { if let h { pairs.append((Double(r), Double(h))) } }
        guard pairs.count >= 3 else { return nil }
        let meanA = pairs.map(\.0).reduce(0, +) / Double(pairs.count), meanB = pairs.map(\.1).reduce(0, +) / Double(pairs.count)
        var covariance = 0.0, varianceA = 0.0, varianceB = 0.0
        for (a, b) in pairs {
            covariance += (a - meanA) * (b - meanB)
            varianceA += (a - meanA) * (a - meanA)
            varianceB += (b - meanB) * (b - meanB)
        }
        guard varianceA > 1e-9, varianceB > 1e-9 else { return nil }
        return covariance / (varianceA * varianceB).squareRoot()
    }

    // MARK: - Model files

    /// Rebuilds a model from a model file, checking task, input, specification and every weight's
    /// name and shape. Throws `ModelFileError` naming the file and the JSON path or tensor at fault.
    public convenience init(file: ModelFile) throws {
        let header = try PoseModelFileHeader<ActionClassifierModel>(file)
        let (pose, jointSet, specification) = (header.pose, header.jointSet, header.specification)
        guard let windowLength = pose.windowLength, PoseLimits.windowLengths.contains(windowLength) else {
            throw header.problem("$.input.pose.windowLength", "expected \(PoseLimits.windowLengths.lowerBound)…\(PoseLimits.windowLengths.upperBound) frames")
        }
        guard let frameRate = pose.frameRate, PoseLimits.frameRates.contains(frameRate) else {
            throw header.problem("$.input.pose.frameRate", "expected a frame rate in \(PoseLimits.frameRates.lowerBound)…\(Int(PoseLimits.frameRates.upperBound))")
        }
        let encoding = specification.encoding
        guard encoding.windowLength == windowLength, encoding.jointCount == jointSet.count,
              encoding.keypointChannels == pose.keypointChannels else {
            throw header.specificationProblem("encoding",
                          "window \(encoding.windowLength)×\(encoding.jointCount) with channels \(encoding.keypointChannels) does not match the input (\(windowLength)×\(jointSet.count), \(pose.keypointChannels))")
        }
        let architecture = specification.architecture
        guard !architecture.channels.isEmpty, architecture.channels.count == architecture.strides.count,
              architecture.channels.allSatisfy({ $0 > 0 }), architecture.strides.allSatisfy({ $0 > 0 }),
              architecture.temporalKernelSize > 0, architecture.dropout >= 0, architecture.dropout < 1,
              architecture.kind != .graphConvolution || architecture.partitionCount == SkeletonGraph(jointSet: jointSet).partitionCount
        else {
            throw header.specificationProblem("architecture",
                          "not a valid network shape for \(jointSet.count) joints")
        }
        if let heights = specification.referenceJointHeights, heights.count != jointSet.count || !heights.allSatisfy(\.isFinite) {
            throw header.specificationProblem("referenceJointHeights", "expected \(jointSet.count) finite numbers, one per joint")
        }
        var generator = SeededGenerator(seed: 0)
        self.init(labels: file.metadata.classLabels, jointSet: jointSet, frameRate: frameRate, encoding: encoding,
                  architecture: architecture, backgroundLabel: specification.backgroundLabel, generator: &generator)
        keypointOrigin = pose.keypointOrigin
        referenceJointHeights = specification.referenceJointHeights
        var networkFile = file
        networkFile.tensors = file.tensors.filter { !RandomConvolutionHead.owns($0.key) && !ActionClassifierModel.ownedByAdditionalMember($0.key) }
        try loadWeights(from: networkFile)
        if let features = specification.randomConvolutionFeatures {
            let head = try RandomConvolutionHead(file: file, encoding: encoding, classCount: labels.count,
                                                 fillsGaps: specification.randomConvolutionFillsGaps ?? false)
            guard head.transform.featureCount == features else {
                throw header.specificationProblem("randomConvolutionFeatures",
                                                  "says \(features) features but the stored head has \(head.transform.featureCount)")
            }
            randomConvolution = head
            if let weight = specification.randomConvolutionWeight {
                guard weight >= 0 && weight <= 1 else {
                    throw header.specificationProblem("randomConvolutionWeight", "expected a number in 0…1, found \(weight)")
                }
                randomConvolutionWeight = weight
            }
        } else if let stray = file.tensors.keys.sorted().first(where: RandomConvolutionHead.owns) {
            throw ModelFileError.invalidTensor(path: file.sourcePath, name: stray,
                                               reason: "unexpected: the specification has no random-convolution head")
        }
        additionalMembers = try ActionClassifierModel.additionalMembers(of: file, specification: specification, header: header)
    }

    /// The additional members a model file lists under `additionalMembers`, each read from its
    /// `member<i>.` tensors with the checks of a whole model.
    private static func additionalMembers(of file: ModelFile, specification: ActionClassifierSpecification,
                                          header: PoseModelFileHeader<ActionClassifierModel>) throws -> [ActionClassifierModel] {
        let listed = specification.additionalMembers ?? []
        let known = Set(listed.indices.map(memberTensorPrefix))
        if let stray = file.tensors.keys.sorted().first(where: { name in
            ownedByAdditionalMember(name) && !known.contains(where: { name.hasPrefix($0) })
        }) {
            throw ModelFileError.invalidTensor(path: file.sourcePath, name: stray,
                                               reason: "unexpected: the specification lists \(listed.count) additional members")
        }
        return try listed.enumerated().map { index, member in
            let field = "additionalMembers[\(index)]"
            guard member.encoding == specification.encoding, member.jointSetKind == specification.jointSetKind else {
                throw header.specificationProblem(field, "a member must read the same input encoding and joints as the model")
            }
            guard member.additionalMembers == nil else {
                throw header.specificationProblem(field, "a member cannot have members of its own")
            }
            let prefix = memberTensorPrefix(index)
            var memberFile = file
            memberFile.metadata.extra[specificationKey] = try JSONValue(encoding: member)
            memberFile.tensors = [:]
            for (name, tensor) in file.tensors where name.hasPrefix(prefix) { memberFile.tensors[String(name.dropFirst(prefix.count))] = tensor }
            guard !memberFile.tensors.isEmpty else {
                throw ModelFileError.invalidTensor(path: file.sourcePath, name: prefix + "*",
                                                   reason: "missing: the specification lists member \(index + 2) but the file has none of its weights")
            }
            let model = try ActionClassifierModel(file: memberFile)
            guard model.labels == file.metadata.classLabels else {
                throw header.specificationProblem(field, "a member must have the model's labels")
            }
            return model
        }
    }

    /// The model as a model file: the network's weights plus the random-convolution head's.
    public func modelFile(name: String? = nil, training: [String: JSONValue] = [:], metrics: [String: Double] = [:],
                          extra: [String: JSONValue] = [:]) throws -> ModelFile {
        var file = try poseModelFile(name: name, training: training, metrics: metrics, extra: extra)
        if let randomConvolution { file.tensors.merge(randomConvolution.tensors) { $1 } }
        for (index, member) in additionalMembers.enumerated() {
            precondition(member.encoding == encoding && member.labels == labels, "a member must share the model's encoding and labels")
            let prefix = ActionClassifierModel.memberTensorPrefix(index)
            for (name, tensor) in try member.modelFile().tensors { file.tensors[prefix + name] = tensor }
        }
        return file
    }

    /// Reads a model file and rebuilds the model (see `init(file:)`).
    public convenience init(contentsOf url: URL) throws {
        try self.init(file: try ModelFile.read(from: url))
    }
}
