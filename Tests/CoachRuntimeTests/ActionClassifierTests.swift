import CoachModels
import CoachRuntime
import Foundation
import TestSupport
import XCTest

/// The runtime's sliding-window classifier: resampling, stride, threshold, time ranges, and
/// agreement with whole-clip classification.
final class ActionClassifierTests: XCTestCase {
    /// An (untrained) body18 model file: predictions are arbitrary but deterministic.
    func writeModel(in directory: URL, window: Int = 12) throws -> URL {
        var generator = SeededGenerator(seed: 5)
        let encoding = ActionInputEncoding(windowLength: window, jointCount: 18, includesDepth: false)
        let model = ActionClassifierModel(labels: ["none", "overhand", "underhand"], jointSet: .body18, frameRate: 30,
                                          encoding: encoding,
                                          architecture: .temporalConvolution(), generator: &generator)
        let url = directory.appendingPathComponent("throws.h5")
        try model.modelFile().write(to: url)
        return url
    }

    /// A body pose at time `t` (seconds): the right wrist circles, the rest stands.
    func pose(at t: Double) -> [Keypoint?] {
        (0..<18).map { j in
            let angle = Float(t) * 4 + Float(j)
            let radius: Float = j == 4 ? 0.15 : 0.01
            return Keypoint(x: 0.5 + 0.01 * Float(j) + radius * cos(angle), y: 0.3 + 0.03 * Float(j) + radius * sin(angle),
                            confidence: 0.9)
        }
    }

    func testTheDocumentedExampleRuns() throws {
        let directory = try temporaryDirectory(self)
        let modelURL = try writeModel(in: directory)
        let names = JointSet.body18.names
        let cameraPoses: [(Double, [String: Keypoint])] = (0..<90).map { k in
            let t = Double(k) / 60
            return (t, Dictionary(uniqueKeysWithValues: zip(names, pose(at: t)).compactMap { name, p in p.map { (name, $0) } }))
        }
        var printed: [String] = []
        // The example from ActionClassifier's documentation:
        let classifier = try ActionClassifier(contentsOf: modelURL)
        classifier.confidenceThreshold = 0.6
        for (time, joints) in cameraPoses {            // joints: [String: Keypoint] by joint name
            for prediction in classifier.append(joints: joints, at: time) {
                if let label = prediction.label {
                    printed.append("\(label) \(prediction.confidence) \(prediction.startTime)–\(prediction.endTime) s")
                }
            }
        }
        // 1.5 s at 60 fps → 45 frames at 30 fps: full at frame 12, then every 3 frames.
        classifier.confidenceThreshold = 0
        classifier.reset()
        var all: [ActionPrediction] = []
        for (time, joints) in cameraPoses { all += classifier.append(joints: joints, at: time) }
        XCTAssertEqual(all.count, 1 + (45 - 12) / 3)
        XCTAssertEqual(printed.count, all.filter { $0.confidence >= 0.6 }.count)
    }

    func testStreamingGivesTheWholeClipWindowsAtTheSameTimes() throws {
        let directory = try temporaryDirectory(self)
        let classifier = try ActionClassifier(contentsOf: try writeModel(in: directory))
        classifier.stride = 4
        var streamed: [ActionPrediction] = []
        var frames: [PoseFrame] = []
        for k in 0..<41 {
            let t = 2.0 + Double(k) / 30
            frames.append(PoseFrame(time: t, keypoints: pose(at: t)))
            streamed += classifier.append(pose(at: t), at: t)
        }
        let sequence = PoseSequence(jointSet: .body18, frames: frames, source: PoseSource(file: URL(fileURLWithPath: "/clip.csv")),
                                    nominalFrameRate: 30)
        let offline = try classifier.predictions(for: sequence, stride: 4)
        XCTAssertEqual(streamed.map(\.startTime), (0..<8).map { 2.0 + Double(4 * $0) / 30 })
        XCTAssertEqual(offline.count, 9, "starts 0, 4, …, 28 and the window ending at the last frame")
        for (a, b) in zip(streamed, offline) {
            XCTAssertEqual(a.startTime, b.startTime, accuracy: 1e-9)
            XCTAssertEqual(a.endTime, b.endTime, accuracy: 1e-9)
            XCTAssertEqual(a.endTime - a.startTime, 12.0 / 30, accuracy: 1e-9)
            assertClose(a.probabilities.map(\.probability), b.probabilities.map(\.probability), absolute: 1e-6)
        }
        for prediction in streamed {
            XCTAssertEqual(prediction.probabilities.map(\.label), ["none", "overhand", "underhand"])
            XCTAssertEqual(prediction.probabilities.map(\.probability).reduce(0, +), 1, accuracy: 1e-5)
            XCTAssertEqual(prediction.confidence, prediction.probabilities.map(\.probability).max())
            XCTAssertEqual(prediction.probability(of: prediction.topLabel), prediction.confidence)
        }
    }

    func testSixtyFramesPerSecondAreHalvedToTheModelsRate() throws {
        let directory = try temporaryDirectory(self)
        let url = try writeModel(in: directory)
        let thirty = try ActionClassifier(contentsOf: url), sixty = try ActionClassifier(contentsOf: url)
        var a: [ActionPrediction] = [], b: [ActionPrediction] = []
        for k in 0..<60 {
            let t = Double(k) / 60
            if k % 2 == 0 { a += thirty.append(pose(at: t), at: t) }
            b += sixty.append(pose(at: t), at: t)
        }
        XCTAssertFalse(a.isEmpty)
        XCTAssertEqual(a, b, "a 60 fps feed gives the predictions of the same motion at 30 fps")
    }

    func testThresholdGapsOriginAndNamedJoints() throws {
        let directory = try temporaryDirectory(self)
        let url = try writeModel(in: directory)
        let classifier = try ActionClassifier(contentsOf: url)
        classifier.confidenceThreshold = 1.01
        var predictions: [ActionPrediction] = []
        for k in 0..<12 { predictions += classifier.append(pose(at: Double(k) / 30), at: Double(k) / 30) }
        XCTAssertEqual(predictions.count, 1, "the first prediction comes when the window is full")
        XCTAssertNil(predictions[0].label, "below the threshold")
        XCTAssertTrue(classifier.labels.contains(predictions[0].topLabel))
        XCTAssertEqual(classifier.bufferedFrameCount, 12)

        // A pose after a gap longer than maximumGap starts a new window.
        XCTAssertEqual(classifier.append(pose(at: 5), at: 5), [])
        XCTAssertEqual(classifier.bufferedFrameCount, 1)
        XCTAssertEqual(classifier.currentWindow().paddedFrameCount, 11)

        // Vision's bottom-left coordinates are flipped to top-left.
        let topLeft = try ActionClassifier(contentsOf: url), bottomLeft = try ActionClassifier(contentsOf: url)
        bottomLeft.keypointOrigin = .bottomLeft
        var p: [ActionPrediction] = [], q: [ActionPrediction] = []
        for k in 0..<12 {
            let t = Double(k) / 30
            p += topLeft.append(pose(at: t), at: t)
            q += bottomLeft.append(pose(at: t).map { $0.map { Keypoint(x: $0.x, y: 1 - $0.y, confidence: $0.confidence) } }, at: t)
        }
        XCTAssertEqual(p.count, 1)
        assertClose(q[0].probabilities.map(\.probability), p[0].probabilities.map(\.probability), absolute: 1e-5)

        // Joints by name: unknown names are ignored, missing ones are undetected.
        let named = try ActionClassifier(contentsOf: url), ordered = try ActionClassifier(contentsOf: url)
        var r: [ActionPrediction] = [], s: [ActionPrediction] = []
        for k in 0..<12 {
            let t = Double(k) / 30
            var keypoints = pose(at: t)
            keypoints[3] = nil
            var joints = Dictionary(uniqueKeysWithValues: zip(JointSet.body18.names, keypoints).compactMap { n, p in p.map { (n, $0) } })
            joints["tail"] = Keypoint(x: 9, y: 9)
            r += named.append(joints: joints, at: t)
            s += ordered.append(keypoints, at: t)
        }
        XCTAssertEqual(r, s)
    }
}
