import CoachData
import CoachModels
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// Action-classifier models survive a trip through a model file, and bad files are refused clearly.
final class ActionClassifierModelTests: XCTestCase {
    func model(_ kind: ActionClassifierArchitecture.Kind, jointSet: JointSet = .body18, depth: Bool = false,
               seed: UInt64 = 1) -> ActionClassifierModel {
        var generator = SeededGenerator(seed: seed)
        let encoding = ActionInputEncoding(windowLength: 12, jointCount: jointSet.count, includesDepth: depth)
        let architecture = kind == .graphConvolution
            ? ActionClassifierArchitecture.graphConvolution(for: SkeletonGraph(jointSet: jointSet))
            : ActionClassifierArchitecture.temporalConvolution()
        return ActionClassifierModel(labels: ["none", "overhand", "underhand"], jointSet: jointSet, frameRate: 30,
                                     encoding: encoding, architecture: architecture, backgroundLabel: "none",
                                     generator: &generator)
    }

    func windows(jointCount: Int, count: Int, depth: Bool = false) -> [PoseWindow] {
        var generator = SeededGenerator(seed: 9)
        return (0..<count).map { n in
            var window = PoseWindow(frameCount: 12, jointCount: jointCount, hasDepth: depth, startTime: Double(n))
            for t in 0..<(n == 0 ? 5 : 12) {
                for j in 0..<jointCount where generator.nextBool(probability: 0.9) {
                    window[t, j] = Keypoint(x: generator.nextUniform(), y: generator.nextUniform(),
                                            z: depth ? generator.nextUniform() : nil, confidence: 0.9)
                }
            }
            return window
        }
    }

    /// Writes `file` into `directory` and expects reading it to fail with an error naming the
    /// file and containing every fragment.
    func expectRefusal(of file: ModelFile, _ fragments: [String], in directory: URL, line: UInt) {
        let url = directory.appendingPathComponent("bad.h5")
        do {
            try file.write(to: url)
            _ = try ActionClassifierModel(contentsOf: url)
            XCTFail("expected an error", line: line)
        } catch {
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            for fragment in fragments { XCTAssertTrue(text.contains(fragment), "'\(fragment)' not in: \(text)", line: line) }
            XCTAssertTrue(text.contains(url.path), "names the file: \(text)", line: line)
        }
    }

    func testSaveThenLoadGivesTheSameWeightsAndPredictions() throws {
        let directory = try temporaryDirectory(self)
        for (kind, jointSet, depth) in [(ActionClassifierArchitecture.Kind.graphConvolution, JointSet.body18, false),
                                        (.graphConvolution, JointSet.hand21, false),
                                        (.temporalConvolution, JointSet(names: ["a", "b", "c"])!, true)] {
            let original = model(kind, jointSet: jointSet, depth: depth)
            // Move the batch-norm statistics away from their initial values with a training pass.
            _ = original.logits(for: windows(jointCount: jointSet.count, count: 4, depth: depth), tape: Tape(mode: .training))
            let url = directory.appendingPathComponent("\(kind.rawValue)-\(jointSet.count).h5")
            try original.modelFile(name: "test", training: ["seed": "1"], metrics: ["validation.accuracy": 0.5]).write(to: url)
            let loaded = try ActionClassifierModel(contentsOf: url)
            XCTAssertEqual(loaded.labels, original.labels)
            XCTAssertEqual(loaded.jointSet, jointSet)
            XCTAssertEqual(loaded.frameRate, 30)
            XCTAssertEqual(loaded.encoding, original.encoding)
            XCTAssertEqual(loaded.architecture, original.architecture)
            XCTAssertEqual(loaded.backgroundLabel, "none")
            XCTAssertEqual(loaded.network.stateDictionary, original.network.stateDictionary)
            let probe = windows(jointCount: jointSet.count, count: 3, depth: depth)
            XCTAssertEqual(loaded.probabilities(for: probe), original.probabilities(for: probe))
            for row in original.probabilities(for: probe) { XCTAssertEqual(row.reduce(0, +), 1, accuracy: 1e-5) }
        }
    }

    func testParametersHaveStableDottedNames() {
        let graph = Set(model(.graphConvolution).network.namedParameters.map(\.name))
        for name in ["inputNorm.scale", "inputNorm.runningMean", "blocks.0.adjacency", "blocks.0.spatial.weight",
                     "blocks.0.spatialNorm.offset", "blocks.0.temporalDepthwise.weight", "blocks.0.temporalPointwise.weight",
                     "blocks.0.temporalNorm.runningVariance", "blocks.0.residual.weight", "blocks.1.residualNorm.scale",
                     "blocks.2.temporalDepthwise.weight", "classifier.weight", "classifier.bias"] {
            XCTAssertTrue(graph.contains(name), name)
        }
        XCTAssertFalse(graph.contains("blocks.2.residual.weight"), "same-shape blocks add their input directly")
        let temporal = Set(model(.temporalConvolution).network.namedParameters.map(\.name))
        for name in ["blocks.0.first.weight", "blocks.0.secondNorm.scale", "blocks.1.residual.weight", "classifier.bias"] {
            XCTAssertTrue(temporal.contains(name), name)
        }
    }

    func testFilesThatAreNotValidActionClassifiersAreRefusedNamingTheProblem() throws {
        let directory = try temporaryDirectory(self)
        let good = try model(.graphConvolution).modelFile()
        func expect(_ file: ModelFile, _ fragments: [String], line: UInt = #line) {
            expectRefusal(of: file, fragments, in: directory, line: line)
        }
        var wrongTask = good
        wrongTask.metadata.task = .imageClassifier
        expect(wrongTask, ["$.task", "not an action classifier"])
        var noSpecification = good
        noSpecification.metadata.extra = [:]
        expect(noSpecification, ["$.extra.actionClassifier", "missing"])
        var badWindow = good
        badWindow.metadata.input?.pose?.windowLength = 0
        expect(badWindow, ["$.input.pose.windowLength"])
        var missingWeights = good
        missingWeights.tensors["classifier.weight"] = nil
        missingWeights.tensors["blocks.0.adjacency"] = Tensor.zeros([2, 18, 18])
        expect(missingWeights, ["classifier.weight", "blocks.0.adjacency", "[3, 18, 18]"])
        var fullConvolutions = good
        var specification = try XCTUnwrap(try good.metadata.extraValue("actionClassifier", as: ActionClassifierSpecification.self))
        specification.architecture.separableTemporalConvolution = false
        fullConvolutions.metadata.extra["actionClassifier"] = try JSONValue(encoding: specification)
        expect(fullConvolutions, ["blocks.0.temporal.weight", "blocks.0.temporalDepthwise.weight"])
    }

    func testEnsembleMembersSurviveTheFileAndAverageTheirProbabilities() throws {
        let directory = try temporaryDirectory(self)
        let probe = windows(jointCount: 18, count: 3)
        let first = model(.graphConvolution, seed: 1), second = model(.graphConvolution, seed: 2), third = model(.graphConvolution, seed: 3)
        for member in [first, second, third] { _ = member.logits(for: windows(jointCount: 18, count: 4), tape: Tape(mode: .training)) }
        let alone = [first, second, third].map { $0.probabilities(for: probe) }
        first.additionalMembers = [second, third]
        let ensemble = first.probabilities(for: probe)
        for n in probe.indices {
            for c in 0..<3 {
                XCTAssertEqual(ensemble[n][c], (alone[0][n][c] + alone[1][n][c] + alone[2][n][c]) / 3, accuracy: 1e-6)
            }
        }
        let file = try first.modelFile(name: "ensemble")
        XCTAssertEqual(Set(file.tensors.keys).count, 3 * first.network.stateDictionary.count)
        XCTAssertNotNil(file.tensors["member2.classifier.weight"])
        XCTAssertEqual(file.tensors["member3.blocks.0.adjacency"], third.network.stateDictionary["blocks.0.adjacency"])
        let url = directory.appendingPathComponent("ensemble.h5")
        try file.write(to: url)
        let loaded = try ActionClassifierModel(contentsOf: url)
        XCTAssertEqual(loaded.additionalMembers.count, 2)
        XCTAssertEqual(loaded.additionalMembers[1].network.stateDictionary, third.network.stateDictionary)
        XCTAssertEqual(loaded.probabilities(for: probe), ensemble)

        func expect(_ file: ModelFile, _ fragments: [String], line: UInt = #line) {
            expectRefusal(of: file, fragments, in: directory, line: line)
        }
        var stray = file
        stray.tensors["member4.classifier.bias"] = Tensor.zeros([3])
        expect(stray, ["member4.classifier.bias", "2 additional members"])
        var missing = file
        for name in missing.tensors.keys where name.hasPrefix("member3.") { missing.tensors[name] = nil }
        expect(missing, ["member3.", "member 3"])
        var otherEncoding = file
        var specification = try XCTUnwrap(try file.metadata.extraValue("actionClassifier", as: ActionClassifierSpecification.self))
        specification.additionalMembers?[0].encoding.includesVelocity = false
        otherEncoding.metadata.extra["actionClassifier"] = try JSONValue(encoding: specification)
        expect(otherEncoding, ["additionalMembers[0]", "same input encoding"])
    }

    func testClipsWithOtherJointsOrWithoutDepthAreRefused() throws {
        let body = model(.graphConvolution)
        let source = PoseSource(file: URL(fileURLWithPath: "/data/clip.csv"))
        let hand = PoseSequence(jointSet: .hand21, frames: [PoseFrame(time: 0, keypoints: Array(repeating: nil, count: 21))], source: source)
        XCTAssertThrowsError(try body.windows(covering: hand)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(text.contains("/data/clip.csv") && text.contains("nose") && text.contains("thumbTip"), text)
        }
        let depthModel = model(.temporalConvolution, jointSet: JointSet(names: ["a", "b", "c"])!, depth: true)
        let flat = PoseSequence(jointSet: JointSet(names: ["c", "b", "a"])!, frames: [PoseFrame(time: 0, keypoints: [nil, nil, nil])],
                                source: source)
        XCTAssertThrowsError(try depthModel.windows(covering: flat)) { error in
            XCTAssertEqual(error as? ActionClassifierError, .depthMissing(source: "/data/clip.csv"))
        }
        // Joints in another order are reordered; z the model does not use is dropped.
        let reordered = PoseSequence(jointSet: JointSet(names: ["c", "b", "a"])!, frames: (0..<3).map { t in
            PoseFrame(time: Double(t) / 30, keypoints: [Keypoint(x: 3, y: 0, z: 1), Keypoint(x: 2, y: 0, z: 1), Keypoint(x: 1, y: 0, z: 1)])
        }, source: source, hasDepth: true)
        let windows = try depthModel.windows(covering: reordered)
        XCTAssertEqual(windows.count, 1)
        XCTAssertEqual(windows[0][0, 0]?.x, 1)
        XCTAssertEqual(windows[0].paddedFrameCount, 9)
    }
}
