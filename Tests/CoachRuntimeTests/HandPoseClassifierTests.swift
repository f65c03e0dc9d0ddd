import CoachModels
import CoachRuntime
import Foundation
import TestSupport
import XCTest

/// The runtime's hand-pose classifier: the documented example, chirality, names and origins, and
/// hand actions with chirality through `ActionClassifier`.
final class HandPoseClassifierTests: XCTestCase {
    /// An (untrained) hand-pose model file: predictions are arbitrary but deterministic.
    func writeModel(in directory: URL, chirality: ChiralityHandling = .mirrorLeftHands) throws -> URL {
        var generator = SeededGenerator(seed: 9)
        let encoding = HandPoseInputEncoding(jointSet: .hand21, includesDepth: false, chirality: chirality)
        let model = HandPoseClassifierModel(labels: ["background", "open", "peace"], jointSet: .hand21, encoding: encoding,
                                            architecture: .multilayerPerceptron(), generator: &generator)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("hand-poses.h5")
        try model.modelFile().write(to: url)
        return url
    }

    /// A right hand, fingers up, with the thumb turned out; `spread` opens it.
    func hand(spread: Float = 1) -> [Keypoint?] {
        var points = [Keypoint(x: 0.5, y: 0.8)]
        for finger in 0..<5 {
            let angle = (Float(finger) - 1.5) * 0.2 * spread + (finger == 0 ? 0.6 : 0)
            for segment in 1...4 {
                let length = 0.05 * Float(segment) + 0.1
                points.append(Keypoint(x: 0.5 + length * sin(angle), y: 0.8 - length * cos(angle) + 0.01 * Float(finger),
                                       confidence: 0.9))
            }
        }
        return points
    }

    func mirrored(_ keypoints: [Keypoint?]) -> [Keypoint?] {
        keypoints.map { $0.map { Keypoint(x: 1 - $0.x, y: $0.y, confidence: $0.confidence) } }
    }

    func testTheDocumentedExampleRuns() throws {
        let directory = try temporaryDirectory(self)
        let modelURL = try writeModel(in: directory)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("models"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: modelURL, to: directory.appendingPathComponent("models/hand-poses.h5"))
        let joints = Dictionary(uniqueKeysWithValues: zip(JointSet.hand21.names, mirrored(hand())).map {
            ($0, Keypoint(x: $1!.x, y: 1 - $1!.y, confidence: $1!.confidence))
        })
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // The example from HandPoseClassifier's documentation:
        let classifier = try HandPoseClassifier(contentsOf: directory.appendingPathComponent("models/hand-poses.h5"))
        classifier.keypointOrigin = .bottomLeft                 // Vision's coordinates
        let prediction = classifier.prediction(for: joints, chirality: .left)   // joints: [String: Keypoint]
        print(prediction.label, prediction.confidence)          // e.g. "peace 0.97"
        for (label, probability) in prediction.probabilities { print(label, probability) }

        XCTAssertEqual(printed.count, 4)
        XCTAssertEqual(prediction.probabilities.map(\.label), ["background", "open", "peace"])
        XCTAssertEqual(prediction.probabilities.map(\.probability).reduce(0, +), 1, accuracy: 1e-5)
        XCTAssertEqual(prediction.confidence, prediction.probabilities.map(\.probability).max())
        XCTAssertEqual(prediction.chirality, .left)
        // Vision's left hand, mirrored by the model, is this right hand in top-left coordinates.
        let same = HandPoseClassifier(model: classifier.model).prediction(for: hand(), chirality: .right)
        assertClose(prediction.probabilities.map(\.probability), same.probabilities.map(\.probability), absolute: 1e-5)
    }

    func testChiralityIsUsedAsTheModelWasTrained() throws {
        let directory = try temporaryDirectory(self)
        let mirror = try HandPoseClassifier(contentsOf: try writeModel(in: directory))
        let pose = hand(spread: 1.5)
        let left = mirror.prediction(for: mirrored(pose), chirality: .left), right = mirror.prediction(for: pose, chirality: .right)
        assertClose(left.probabilities.map(\.probability), right.probabilities.map(\.probability), absolute: 1e-5)
        XCTAssertNotEqual(mirror.prediction(for: pose, chirality: .left), mirror.prediction(for: pose, chirality: .right))
        XCTAssertEqual(mirror.prediction(for: pose).probabilities.map(\.probability), right.probabilities.map(\.probability),
                       "an unknown hand is taken as it is")

        let input = try HandPoseClassifier(contentsOf: try writeModel(in: directory.appendingPathComponent("input"), chirality: .input))
        let batch = input.predictions(for: [pose, pose, pose], chiralities: [.left, .right, nil])
        XCTAssertEqual(batch.map(\.chirality), [.left, .right, nil])
        XCTAssertNotEqual(batch[0].probabilities.map(\.probability), batch[1].probabilities.map(\.probability))
        XCTAssertEqual(batch[1], input.prediction(for: pose, chirality: .right))

        // Joints by name: unknown names are ignored, missing ones are undetected.
        var keypoints = pose
        keypoints[7] = nil
        var joints = Dictionary(uniqueKeysWithValues: zip(JointSet.hand21.names, keypoints).compactMap { n, p in p.map { (n, $0) } })
        joints["elbow"] = Keypoint(x: 9, y: 9)
        XCTAssertEqual(mirror.prediction(for: joints, chirality: .right), mirror.prediction(for: keypoints, chirality: .right))
    }

    func testHandActionsTakeChiralityWithEachObservation() throws {
        let directory = try temporaryDirectory(self)
        var generator = SeededGenerator(seed: 4)
        let encoding = ActionInputEncoding(windowLength: 6, jointCount: 21, includesDepth: false, chirality: .mirrorLeftHands)
        let model = ActionClassifierModel(labels: ["background", "wave"], jointSet: .hand21, frameRate: 30, encoding: encoding,
                                          architecture: .graphConvolution(for: SkeletonGraph(jointSet: .hand21)),
                                          generator: &generator)
        let url = directory.appendingPathComponent("hand-actions.h5")
        try model.modelFile().write(to: url)
        let left = try ActionClassifier(contentsOf: url), right = try ActionClassifier(contentsOf: url)
        let unknown = try ActionClassifier(contentsOf: url)
        var a: [ActionPrediction] = [], b: [ActionPrediction] = [], c: [ActionPrediction] = []
        for k in 0..<12 {   // 60 fps, halved to the model's 30
            let t = Double(k) / 60
            let pose = hand(spread: 1 + 0.5 * Float(sin(t * 12)))
            a += left.append(mirrored(pose), at: t, chirality: .left)
            b += right.append(pose, at: t, chirality: .right)
            c += unknown.append(mirrored(pose), at: t)
        }
        XCTAssertEqual(a.count, 1, "6 frames at 30 fps fill the window once")
        assertClose(a[0].probabilities.map(\.probability), b[0].probabilities.map(\.probability), absolute: 1e-5,
                    "a left hand's motion is classified as the mirrored right hand's")
        XCTAssertGreaterThan(zip(a[0].probabilities, c[0].probabilities).map { abs($0.probability - $1.probability) }.max() ?? 0, 0,
                             "without chirality the same poses are not mirrored")
        XCTAssertEqual(left.currentWindow().chirality, .left)
    }
}
