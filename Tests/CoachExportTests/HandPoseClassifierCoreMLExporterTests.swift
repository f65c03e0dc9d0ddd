import CoachData
import CoachExport
import CoachModels
import CoachRandom
import CoachSamples
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Exported Core ML hand-pose classifiers against independent references: Apple's validator
/// passes the file, and the interpreter written from the specification gives Coach's
/// probabilities for the same poses fed as Vision gives them (bottom-left origin, zeros for
/// missing joints, the hand's chirality as `VNChirality`'s raw value).
final class HandPoseClassifierCoreMLExporterTests: XCTestCase {
    /// Exports `model`, validates it and compares the interpreter's probabilities for `poses` with Coach's.
    private func check(_ model: HandPoseClassifierModel, poses: [PoseWindow], name: String, in directory: URL,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let python = try CoreMLPeer.python()
        let exported = try CoreMLPeer.exportAndValidate(try model.modelFile(), name: name, in: directory, file: file, line: line)

        let usesChirality = model.encoding.chirality != .ignore
        var runs: [[String: URL]] = []
        for (index, pose) in poses.enumerated() {
            let j = pose.jointCount
            var values = [Float](repeating: 0, count: 3 * j)
            for joint in 0..<j where pose.isDetected(frame: 0, joint: joint) {
                values[joint] = pose.x[joint]
                values[j + joint] = 1 - pose.y[joint]
                values[2 * j + joint] = pose.confidence[joint]
            }
            runs.append(try CoreMLPeer.poseRun(values, chirality: pose.chirality, usesChirality: usesChirality, name: name, index: index,
                                               in: directory))
        }
        let report = try CoreMLPeer.run(model: exported, runs: runs, python: python)
        try CoreMLPeer.checkCoreMLToolsLoads(exported, report: report, python: python)
        XCTAssertEqual(report.type, "neuralNetworkClassifier", file: file, line: line)
        XCTAssertEqual(report.description.inputs.map(\.name), usesChirality ? ["poses", "chirality"] : ["poses"], file: file, line: line)
        XCTAssertEqual(report.description.inputs.first?.shape, [1, 3, model.jointSet.count], file: file, line: line)
        XCTAssertEqual(Set(report.description.outputs.map(\.name)), ["label", "labelProbabilities"], file: file, line: line)
        XCTAssertEqual(report.classLabels, model.labels, file: file, line: line)

        let expected = model.probabilities(for: poses)
        var largest: Float = 0, agreed = 0
        for (result, coach) in zip(report.results, expected) {
            guard let probabilities = result["labelProbabilities"]?.probabilities else { continue }
            for (label, value) in zip(model.labels, coach) { largest = max(largest, abs(Float(probabilities[label] ?? -1) - value)) }
            let best = coach.indices.max { coach[$0] < coach[$1] }!
            if result["label"]?.string == model.labels[best] { agreed += 1 }
        }
        XCTAssertEqual(report.results.count, poses.count, file: file, line: line)
        try PoseONNXCheck.compare(modelURL: directory.appendingPathComponent("\(name).h5"), runs: runs, expected: expected, labels: model.labels,
                                  relaxed: false, name: name, in: directory, file: file, line: line)
        XCTAssertLessThanOrEqual(largest, 1e-4, "\(name): max |interpreter − Coach| probability", file: file, line: line)
        XCTAssertEqual(agreed, poses.count, "\(name): the predicted labels", file: file, line: line)
        print("HandPoseClassifierCoreMLExporterTests \(name): \(poses.count) poses, max |interpreter − Coach| probability \(largest)")
    }

    func testTrainedOnGeneratedHandsDefaultsMatch() throws {
        _ = try CoreMLPeer.python()
        _ = try CoreMLPeer.validator()
        let directory = try temporaryDirectory(self)
        let files = try HandPoseDatasetGenerator().generateSplits(into: directory, trainingSamplesPerClass: 20, testSamplesPerClass: 3, seed: 5)
        let training = try SinglePoseSet.load(files.training.file), test = try SinglePoseSet.load(files.test.file)
        var configuration = HandPoseClassifierTrainingConfiguration()
        configuration.maximumIterations = 5
        configuration.seed = 1
        let model = try HandPoseClassifierTrainer(configuration: configuration).train(on: training).model
        XCTAssertEqual(model.encoding.chirality, .mirrorLeftHands)
        let poses = try model.poses(of: test)
        XCTAssertTrue(poses.contains { $0.chirality == .left } && poses.contains { $0.chirality == .right })
        try check(model, poses: poses, name: "Hands", in: directory)
    }

    func testEveryEncodingAndBothNetworksMatch() throws {
        _ = try CoreMLPeer.python()
        let directory = try temporaryDirectory(self)
        // The same real-looking poses as left, right and unknown hands, some joints (and once the
        // wrist) missing, through freshly initialised networks of every encoding option.
        let files = try HandPoseDatasetGenerator().generateSplits(into: directory, trainingSamplesPerClass: 2, testSamplesPerClass: 1, seed: 8)
        let set = try SinglePoseSet.load(files.training.file)
        var generator = SeededGenerator(seed: 3)
        var poses: [PoseWindow] = []
        for (index, pose) in set.poses.prefix(6).enumerated() {
            var keypoints = pose.keypoints
            for joint in keypoints.indices where generator.nextBool(probability: 0.1) { keypoints[joint] = nil }
            if index == 2 { keypoints[0] = nil }   // no wrist: anchored on the mean
            for chirality in [Chirality.left, .right, nil] {
                poses.append(PoseWindow(keypoints: keypoints, hasDepth: false, chirality: chirality))
            }
        }
        let jointSet = JointSet.hand21
        let variants: [(String, HandPoseInputEncoding.Scale, HandPoseInputEncoding.Rotation, ChiralityHandling, HandPoseClassifierArchitecture)] = [
            ("PalmUprightMLP", .palm, .upright, .mirrorLeftHands, .multilayerPerceptron()),
            ("SpreadInputGraph", .spread, .none, .input, .graphConvolution()),
            ("PalmIgnoreGraph", .palm, .none, .ignore, .graphConvolution()),
            ("SpreadUprightInputMLP", .spread, .upright, .input, .multilayerPerceptron()),
        ]
        for (name, scale, rotation, chirality, architecture) in variants {
            let encoding = HandPoseInputEncoding(jointSet: jointSet, includesDepth: false, scale: scale, rotation: rotation, chirality: chirality)
            var modelGenerator = SeededGenerator(seed: 6)
            let model = HandPoseClassifierModel(labels: ["open", "fist", "one"], jointSet: jointSet, encoding: encoding,
                                                architecture: architecture, generator: &modelGenerator)
            try check(model, poses: poses, name: name, in: directory)
        }
    }
}
