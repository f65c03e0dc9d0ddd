import CoachData
import CoachExport
import CoachModels
import CoachRandom
import CoachSamples
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Exported Core ML action classifiers against independent references: Apple's validator passes
/// the file, its interface is the one of Apple's own throw classifier, and the NeuralNetwork
/// interpreter written from the specification gives Coach's probabilities for the same windows,
/// fed as Vision gives poses (bottom-left origin, zeros for missing joints).
final class ActionClassifierCoreMLExporterTests: XCTestCase {
    /// `window` as the Core ML input: [T, channels, J] (x, y, [z,] confidence), y = 1 − Coach's
    /// top-left y, zeros where a joint was not detected.
    private func visionInput(_ window: PoseWindow, channels: Int) -> [Float] {
        let t = window.frameCount, j = window.jointCount
        var block = [Float](repeating: 0, count: t * channels * j)
        for frame in 0..<t {
            for joint in 0..<j where window.isDetected(frame: frame, joint: joint) {
                let source = frame * j + joint
                var row = [window.x[source], 1 - window.y[source]]
                if let z = window.z { row.append(z[source]) }
                row.append(window.confidence[source])
                for (c, value) in row.enumerated() { block[(frame * channels + c) * j + joint] = value }
            }
        }
        return block
    }

    /// Exports `model`, checks the file with Apple's validator, runs `windows` through the
    /// interpreter one by one and compares with `model.probabilities(for:)`; returns the largest difference.
    @discardableResult
    private func check(_ model: ActionClassifierModel, windows: [PoseWindow], name: String, in directory: URL,
                       file: StaticString = #filePath, line: UInt = #line) throws -> Float {
        let python = try CoreMLPeer.python()
        let exported = try CoreMLPeer.exportAndValidate(try model.modelFile(), name: name, in: directory, file: file, line: line)

        let channels = model.encoding.keypointChannels.count
        var runs: [[String: URL]] = []
        for (index, window) in windows.enumerated() {
            runs.append(try CoreMLPeer.poseRun(visionInput(window, channels: channels), chirality: window.chirality,
                                               usesChirality: model.encoding.chirality != .ignore, name: name, index: index, in: directory))
        }
        let report = try CoreMLPeer.run(model: exported, runs: runs, python: python)
        try CoreMLPeer.checkCoreMLToolsLoads(exported, report: report, python: python)
        XCTAssertEqual(report.specificationVersion, 4, file: file, line: line)
        XCTAssertEqual(report.type, "neuralNetworkClassifier", file: file, line: line)
        XCTAssertEqual(report.description.inputs.map(\.name), model.encoding.chirality == .ignore ? ["poses"] : ["poses", "chirality"],
                       file: file, line: line)
        XCTAssertEqual(report.description.inputs.first?.shape, [model.windowLength, channels, model.jointSet.count], file: file, line: line)
        XCTAssertEqual(Set(report.description.outputs.map(\.name)), ["label", "labelProbabilities"], file: file, line: line)
        XCTAssertEqual(report.description.predictedFeatureName, "label", file: file, line: line)
        XCTAssertEqual(report.description.predictedProbabilitiesName, "labelProbabilities", file: file, line: line)
        XCTAssertEqual(report.classLabels, model.labels, file: file, line: line)
        XCTAssertEqual(report.description.metadata?.shortDescription, "\(name), for the export test", file: file, line: line)

        let expected = model.probabilities(for: windows)
        var largest: Float = 0, total: Float = 0, exact = 0, agreed = 0
        XCTAssertEqual(report.results.count, windows.count, file: file, line: line)
        for (index, (result, coach)) in zip(report.results, expected).enumerated() {
            guard let probabilities = result["labelProbabilities"]?.probabilities else {
                XCTFail("window \(index): no labelProbabilities", file: file, line: line)
                continue
            }
            var windowLargest: Float = 0
            for (label, value) in zip(model.labels, coach) {
                let difference = abs(Float(probabilities[label] ?? -1) - value)
                windowLargest = max(windowLargest, difference)
                total += difference / Float(coach.count)
            }
            largest = max(largest, windowLargest)
            if windowLargest <= 1e-4 { exact += 1 }
            let best = coach.indices.max { coach[$0] < coach[$1] }!
            if result["label"]?.string == model.labels[best] { agreed += 1 }
        }
        let mean = total / Float(max(windows.count, 1))
        try PoseONNXCheck.compare(modelURL: directory.appendingPathComponent("\(name).h5"), runs: runs, expected: expected, labels: model.labels,
                                  relaxed: model.randomConvolution != nil, name: name, in: directory, file: file, line: line)
        if model.randomConvolution == nil {
            XCTAssertLessThanOrEqual(largest, 1e-4, "\(name): max |interpreter − Coach| probability", file: file, line: line)
        } else {
            // The random-convolution member compares convolution outputs with fitted biases: float32
            // sums in another order put a handful of its ~450,000 comparisons per window on the other
            // side (each moves one PPV by 1/T), so windows may differ by a few thousandths.
            XCTAssertLessThanOrEqual(largest, 0.02, "\(name): max |interpreter − Coach| probability", file: file, line: line)
            XCTAssertLessThanOrEqual(mean, 2e-3, "\(name): mean |interpreter − Coach| probability", file: file, line: line)
            XCTAssertGreaterThan(exact, 0, "\(name): some windows should agree to 1e-4", file: file, line: line)
        }
        XCTAssertEqual(agreed, windows.count, "\(name): the predicted labels", file: file, line: line)
        print("ActionClassifierCoreMLExporterTests \(name): \(windows.count) windows (\(exact) within 1e-4), |interpreter − Coach| "
              + "probability max \(largest), mean \(mean)" + (model.randomConvolution == nil ? "" : " (with the random-convolution member)"))
        return largest
    }

    /// Some windows of each clip: whole ones, ones with undetected joints, ones padded at the end.
    private func windows(of dataset: PoseDataset, model: ActionClassifierModel, perClip: Int, clips: Int) throws -> [PoseWindow] {
        var result: [PoseWindow] = []
        for example in dataset.clips.prefix(clips) {
            let all = try model.windows(covering: example.sequence, stride: max(1, model.windowLength / 3))
            result += all.prefix(perClip)
        }
        return result
    }

    func testThrowClassifierMatchesAppleInterfaceAndCoachsProbabilities() throws {
        _ = try CoreMLPeer.python()
        _ = try CoreMLPeer.validator()
        let directory = try temporaryDirectory(self)
        let summary = try ThrowDatasetGenerator().generateSplits(into: directory, trainingClips: 24, testClips: 4, seed: 3)
        var configuration = ActionClassifierTrainingConfiguration()
        configuration.maximumIterations = 3
        configuration.seed = 2
        let model = try ActionClassifierTrainer(configuration: configuration)
            .train(on: PoseDataset.load(summary.training.annotationFile)).model
        XCTAssertEqual(model.architecture.kind, .graphConvolution)
        XCTAssertNotNil(model.randomConvolution, "the default ensemble")
        XCTAssertEqual(model.randomConvolution?.fillsGaps, true)
        XCTAssertEqual(model.randomConvolution?.bones, SkeletonGraph(jointSet: model.jointSet).edges, "body18's bones feed the head")
        XCTAssertFalse(model.randomConvolution?.bones.isEmpty ?? true)
        XCTAssertEqual(model.additionalMembers.count, 1, "two members by default, both exported")
        XCTAssertNotNil(model.additionalMembers.first?.randomConvolution)
        let test = try PoseDataset.load(summary.test.annotationFile)
        let windows = try windows(of: test, model: model, perClip: 3, clips: 4)
        XCTAssertTrue(windows.contains { $0.confidence.contains(0) }, "some windows should miss joints")
        try check(model, windows: windows, name: "Throws", in: directory)

        // Apple's own model's interface, exactly.
        let reference = SharedData.root.appendingPathComponent("reference/coreml/PlayerActionClassifier.mlmodel")
        if FileManager.default.fileExists(atPath: reference.path) {
            let apple = try CoreMLPeer.describe(model: reference, python: try CoreMLPeer.python())
            let ours = try CoreMLPeer.describe(model: directory.appendingPathComponent("Throws.mlmodel"), python: try CoreMLPeer.python())
            XCTAssertEqual(ours.description.inputs.map(\.name), apple.description.inputs.map(\.name))
            XCTAssertEqual(ours.description.inputs.map(\.shape), apple.description.inputs.map(\.shape))
            XCTAssertEqual(ours.description.inputs.map(\.dataType), apple.description.inputs.map(\.dataType))
            XCTAssertEqual(ours.description.outputs.map(\.name).sorted(), apple.description.outputs.map(\.name).sorted())
            XCTAssertEqual(ours.description.outputs.map(\.type).sorted(), apple.description.outputs.map(\.type).sorted())
            XCTAssertEqual(ours.classLabels, apple.classLabels)
            XCTAssertEqual(ours.specificationVersion, apple.specificationVersion)
        }
    }

    func testNATOPSThreeDimensionalTemporalNetworkMatches() throws {
        let dataset = try PoseDataset.load(try SharedData.require("data/natops/train"))
        let directory = try temporaryDirectory(self)
        var configuration = ActionClassifierTrainingConfiguration()
        configuration.maximumIterations = 3
        let model = try ActionClassifierTrainer(configuration: configuration).train(on: dataset).model
        XCTAssertEqual(model.architecture.kind, .temporalConvolution)
        XCTAssertNotNil(model.randomConvolution, "the default ensemble")
        XCTAssertEqual(model.randomConvolution?.bones.count, 7, "a custom set's head reads a spanning tree of its 8 joints")
        XCTAssertEqual(model.additionalMembers.count, 1, "two members by default, both exported")
        XCTAssertTrue(model.encoding.includesDepth)
        try check(model, windows: try windows(of: dataset, model: model, perClip: 2, clips: 6), name: "NATOPS", in: directory)
    }

    func testOtherEncodingsAndArchitecturesMatch() throws {
        _ = try CoreMLPeer.python()
        let directory = try temporaryDirectory(self)
        // Freshly initialised networks (batch norms at their initial statistics) on toy clips with
        // missing joints and short clips, compared strictly (no random-convolution member): the
        // default encoding and graph network, the extent and centre-only encodings, no velocity,
        // separable temporal convolutions, strides.
        let jointSet = JointSet.body18
        var generator = SeededGenerator(seed: 9)
        var frames: [PoseFrame] = []
        for t in 0..<30 {
            frames.append(PoseFrame(time: Double(t) / 30, keypoints: (0..<jointSet.count).map { j in
                generator.nextBool(probability: 0.15) ? nil
                    : Keypoint(x: 0.3 + 0.02 * Float(j) + 0.1 * sin(Float(t) * 0.2 + Float(j)), y: 0.2 + 0.03 * Float(j) + 0.05 * cos(Float(t) * 0.3),
                               confidence: generator.nextUniform(0.2, 1))
            }))
        }
        let sequence = PoseSequence(jointSet: jointSet, frames: frames, source: PoseSource(file: URL(fileURLWithPath: "/toy.csv")),
                                    nominalFrameRate: 30)
        let graph = SkeletonGraph(jointSet: jointSet)
        var separable = ActionClassifierArchitecture.graphConvolution(for: graph)
        separable.separableTemporalConvolution = true
        let cases: [(String, ActionInputEncoding, ActionClassifierArchitecture)] = [
            ("Extent", ActionInputEncoding(windowLength: 20, jointCount: jointSet.count, includesDepth: false, normalization: .centreAndExtent),
             separable),
            ("Spread", ActionInputEncoding(windowLength: 20, jointCount: jointSet.count, includesDepth: false),
             ActionClassifierArchitecture.graphConvolution(for: graph)),
            ("CentreOnly", ActionInputEncoding(windowLength: 20, jointCount: jointSet.count, includesDepth: false, includesVelocity: false,
                                               normalization: .centre), ActionClassifierArchitecture.temporalConvolution()),
        ]
        for (name, encoding, architecture) in cases {
            var modelGenerator = SeededGenerator(seed: 4)
            let model = ActionClassifierModel(labels: ["a", "b", "c"], jointSet: jointSet, frameRate: 30, encoding: encoding,
                                              architecture: architecture, generator: &modelGenerator)
            var short = sequence
            short.frames = Array(sequence.frames.prefix(12))
            let windows = try model.windows(covering: sequence, stride: 5) + model.windows(covering: short, stride: 5)
            XCTAssertTrue(windows.contains { $0.paddedFrameCount > 0 }, "\(name): a padded window")
            try check(model, windows: windows, name: name, in: directory)
            if name == "Spread" {
                // Two members without heads: the mean of two networks' probabilities.
                var otherGenerator = SeededGenerator(seed: 5)
                model.additionalMembers = [ActionClassifierModel(labels: ["a", "b", "c"], jointSet: jointSet, frameRate: 30, encoding: encoding,
                                                                 architecture: architecture, generator: &otherGenerator)]
                try check(model, windows: windows, name: "SpreadPair", in: directory)
            }
        }
    }

    func testHandActionsWithChiralityMatch() throws {
        _ = try CoreMLPeer.python()
        let directory = try temporaryDirectory(self)
        // Hand poses of every chirality through freshly initialised hand-action networks that
        // mirror left hands or take the hand as two channels.
        let jointSet = JointSet.hand21
        var generator = SeededGenerator(seed: 12)
        var frames: [PoseFrame] = []
        for t in 0..<16 {
            frames.append(PoseFrame(time: Double(t) / 30, keypoints: (0..<jointSet.count).map { j in
                generator.nextBool(probability: 0.1) ? nil
                    : Keypoint(x: 0.5 + 0.01 * Float(j) + 0.05 * sin(Float(t) * 0.4 + Float(j)), y: 0.4 + 0.015 * Float(j), confidence: 0.9)
            }))
        }
        // The same poses as a left, a right and an unknown hand.
        let windows = [Chirality.left, .right, .unknown].map { chirality in
            var window = PoseWindow(frames: frames[...], frameCount: 16, jointCount: jointSet.count, hasDepth: false,
                                    frameRate: 30, chirality: chirality)
            window.chirality = chirality
            return window
        }
        for handling in [ChiralityHandling.mirrorLeftHands, .input] {
            let encoding = ActionInputEncoding(windowLength: 16, jointCount: jointSet.count, includesDepth: false, chirality: handling)
            var modelGenerator = SeededGenerator(seed: 1)
            let model = ActionClassifierModel(labels: ["wave", "grab", "other"], jointSet: jointSet, frameRate: 30, encoding: encoding,
                                              architecture: .graphConvolution(for: SkeletonGraph(jointSet: jointSet)), generator: &modelGenerator)
            let coach = model.probabilities(for: windows)
            XCTAssertGreaterThan(zip(coach[0], coach[1]).map { abs($0 - $1) }.max()!, 1e-3,
                                 "\(handling): a left and a right hand should be classified differently, so chirality is exercised")
            try check(model, windows: windows, name: "Hands-\(handling.rawValue)", in: directory)
        }
    }
}
