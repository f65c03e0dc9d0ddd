import CoachData
import CoachModels
import TestSupport
import XCTest

/// The hand-pose encoding: wrist-relative, scale-free, chirality, rotation, missing joints.
final class HandPoseInputEncodingTests: XCTestCase {
    /// A right hand (x, y top-left) with fingers up, spread, plus its 21 joints' z.
    static func hand(offset: (Float, Float) = (0.5, 0.6), size: Float = 0.2, angle: Float = 0) -> [Keypoint?] {
        var points: [(Float, Float)] = [(0, 0)]
        for finger in 0..<5 {
            let spreadAngle = Float(finger - 2) * 0.25 + (finger == 0 ? -0.5 : 0)
            for segment in 1...4 {
                let length = Float(segment) * 0.22 + (finger == 0 ? -0.05 : 0)
                points.append((length * sin(spreadAngle) + 0.02 * Float(finger * segment % 3),
                               -length * cos(spreadAngle) - (finger == 3 ? 0.03 * Float(segment) : 0)))
            }
        }
        let c = cos(angle), s = sin(angle)
        return points.enumerated().map { index, p in
            Keypoint(x: offset.0 + size * (c * p.0 - s * p.1), y: offset.1 + size * (s * p.0 + c * p.1),
                     z: 0.01 * Float(index), confidence: 0.5 + 0.02 * Float(index))
        }
    }

    func window(_ keypoints: [Keypoint?], chirality: Chirality? = nil, depth: Bool = false) -> PoseWindow {
        PoseWindow(keypoints: keypoints, hasDepth: depth, chirality: chirality)
    }

    func testPosesAreWristRelativeAndScaleFree() {
        let encoding = HandPoseInputEncoding(jointSet: .hand21, includesDepth: false)
        XCTAssertEqual(encoding.channelNames, ["x", "y", "confidence"])
        XCTAssertEqual(encoding.anchorJoint, 0)
        XCTAssertEqual(encoding.palmJoints, [5, 9, 13, 17], "the finger knuckles (MCP joints)")
        let a = encoding.encoded(window(Self.hand()))
        let b = encoding.encoded(window(Self.hand(offset: (0.1, 0.2), size: 0.05)))
        assertClose(a, b, absolute: 1e-5, "moving and shrinking the hand does not change its encoding")
        XCTAssertEqual(a[0], 0); XCTAssertEqual(a[1], 0)
        XCTAssertEqual(a[2], 0.5, "confidence is kept")
        // The joints' RMS distance from their mean is 1.
        var mx: Float = 0, my: Float = 0
        for j in 0..<21 { mx += a[j * 3] / 21; my += a[j * 3 + 1] / 21 }
        let rms = ((0..<21).map { j in pow(a[j * 3] - mx, 2) + pow(a[j * 3 + 1] - my, 2) }.reduce(0, +) / 21).squareRoot()
        XCTAssertEqual(rms, 1, accuracy: 1e-5)
        // The hand's angle reaches the network unless it is turned upright.
        let turned = encoding.encoded(window(Self.hand(angle: 0.7)))
        XCTAssertGreaterThan(zip(a, turned).map { abs($0 - $1) }.max() ?? 0, 0.3)
        var upright = encoding
        upright.rotation = .upright
        assertClose(upright.encoded(window(Self.hand(angle: 0.7))), upright.encoded(window(Self.hand(angle: -1.2))),
                    absolute: 1e-4, "upright poses do not depend on the hand's angle")
    }

    func testLeftHandsAreMirroredOrGivenAsChannels() {
        let right = Self.hand()
        let mirrored = right.map { $0.map { Keypoint(x: 1 - $0.x, y: $0.y, z: $0.z, confidence: $0.confidence) } }
        let encoding = HandPoseInputEncoding(jointSet: .hand21, includesDepth: false)
        XCTAssertEqual(encoding.chirality, .mirrorLeftHands)
        assertClose(encoding.encoded(window(mirrored, chirality: .left)), encoding.encoded(window(right, chirality: .right)),
                    absolute: 1e-5, "a left hand is the mirror image of a right hand")
        assertClose(encoding.encoded(window(right, chirality: nil)), encoding.encoded(window(right, chirality: .right)))
        XCTAssertNotEqual(encoding.encoded(window(right, chirality: .left)), encoding.encoded(window(right, chirality: .right)))

        var input = encoding
        input.chirality = .input
        XCTAssertEqual(input.channelNames, ["x", "y", "confidence", "left", "right"])
        let left = input.encoded(window(right, chirality: .left)), unknown = input.encoded(window(right))
        XCTAssertEqual(Array(left[3..<5]), [1, 0])
        XCTAssertEqual(Array(input.encoded(window(right, chirality: .right))[3..<5]), [0, 1])
        XCTAssertEqual(Array(unknown[3..<5]), [0, 0])
        var ignore = encoding
        ignore.chirality = .ignore
        XCTAssertEqual(ignore.encoded(window(right, chirality: .left)), ignore.encoded(window(right, chirality: .right)))
    }

    func testMissingJointsAndDepth() {
        var keypoints = Self.hand()
        keypoints[8] = nil
        let encoding = HandPoseInputEncoding(jointSet: .hand21, includesDepth: true)
        XCTAssertEqual(encoding.channelNames, ["x", "y", "z", "confidence"])
        let encoded = encoding.encoded(window(keypoints, depth: true))
        XCTAssertEqual(Array(encoded[(8 * 4)..<(9 * 4)]), [0, 0, 0, 0], "an undetected joint is zero in every channel")
        XCTAssertEqual(encoded[2], 0, "z is relative to the wrist")
        XCTAssertGreaterThan(encoded[4 * 4 + 2], 0)

        // Without the wrist, the mean of the detected joints is the centre.
        var noWrist = Self.hand()
        noWrist[0] = nil
        let flat = HandPoseInputEncoding(jointSet: .hand21, includesDepth: false).encoded(window(noWrist))
        var meanX: Float = 0, meanY: Float = 0
        for joint in 1..<21 {
            meanX += flat[joint * 3] / 20
            meanY += flat[joint * 3 + 1] / 20
        }
        XCTAssertEqual(meanX, 0, accuracy: 1e-5)
        XCTAssertEqual(meanY, 0, accuracy: 1e-5)
        XCTAssertEqual(HandPoseInputEncoding(jointSet: .hand21, includesDepth: false).encoded(window([Keypoint?](repeating: nil, count: 21))),
                       [Float](repeating: 0, count: 63), "a pose with nothing detected is all zeros")
    }

    func testModelFilesRoundTripForBothNetworks() throws {
        let directory = try temporaryDirectory(self)
        for architecture in [HandPoseClassifierArchitecture.multilayerPerceptron(), .graphConvolution()] {
            var generator = SeededGenerator(seed: 3)
            let encoding = HandPoseInputEncoding(jointSet: .hand21, includesDepth: false, chirality: .input)
            let model = HandPoseClassifierModel(labels: ["background", "fist", "open"], jointSet: .hand21, encoding: encoding,
                                                architecture: architecture, backgroundLabel: "background", generator: &generator)
            let url = directory.appendingPathComponent("\(architecture.kind.rawValue).h5")
            try model.modelFile(name: "hands").write(to: url)
            let loaded = try HandPoseClassifierModel(contentsOf: url)
            XCTAssertEqual(loaded.labels, model.labels)
            XCTAssertEqual(loaded.encoding, encoding)
            XCTAssertEqual(loaded.architecture, architecture)
            XCTAssertEqual(loaded.backgroundLabel, "background")
            let poses = [window(Self.hand(), chirality: .left), window(Self.hand(angle: 1), chirality: .right)]
            let before = model.probabilities(for: poses), after = loaded.probabilities(for: poses)
            assertClose(before.flatMap { $0 }, after.flatMap { $0 }, absolute: 1e-6)
            XCTAssertEqual(before[0].reduce(0, +), 1, accuracy: 1e-5)
            let summary = try ModelFile.read(from: url).metadata
            XCTAssertEqual(summary.task, .handPoseClassifier)
            XCTAssertNil(summary.input?.pose?.windowLength, "a single pose has no window")
            XCTAssertEqual(summary.input?.pose?.jointNames, JointSet.hand21.names)
        }
        // An action classifier is not a hand-pose classifier.
        var generator = SeededGenerator(seed: 1)
        let action = ActionClassifierModel(labels: ["a", "b"], jointSet: .hand21, frameRate: 30,
                                           encoding: ActionInputEncoding(windowLength: 4, jointCount: 21, includesDepth: false),
                                           architecture: .temporalConvolution(), generator: &generator)
        let actionURL = directory.appendingPathComponent("action.h5")
        try action.modelFile().write(to: actionURL)
        XCTAssertThrowsError(try HandPoseClassifierModel(contentsOf: actionURL)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.contains("$.task") && text.contains("not a hand-pose classifier"), text)
        }
    }

    func testActionEncodingMirrorsLeftHandWindows() {
        var left = PoseWindow(frameCount: 3, jointCount: 21, chirality: .left)
        var right = PoseWindow(frameCount: 3, jointCount: 21, chirality: .right)
        for t in 0..<3 {
            let pose = Self.hand(offset: (0.4 + 0.05 * Float(t), 0.6), angle: 0.2 * Float(t))
            for j in 0..<21 {
                right[t, j] = pose[j]
                left[t, j] = pose[j].map { Keypoint(x: 1 - $0.x, y: $0.y, confidence: $0.confidence) }
            }
        }
        let mirror = ActionInputEncoding(windowLength: 3, jointCount: 21, includesDepth: false, chirality: .mirrorLeftHands)
        assertClose(mirror.encode([left]).scalars, mirror.encode([right]).scalars, absolute: 1e-5)
        let input = ActionInputEncoding(windowLength: 3, jointCount: 21, includesDepth: false, chirality: .input)
        XCTAssertEqual(input.channelNames, ["x", "y", "confidence", "dx", "dy", "left", "right"])
        let encoded = input.encode([left]).scalars
        XCTAssertEqual(Array(encoded[5..<7]), [1, 0])
        let plain = ActionInputEncoding(windowLength: 3, jointCount: 21, includesDepth: false)
        XCTAssertEqual(plain.chirality, .ignore, "body and hand actions ignore chirality unless asked")
        // Files written before the chirality field existed still decode (as .ignore).
        let old = #"{"windowLength":3,"jointCount":21,"includesDepth":false,"includesVelocity":true,"normalization":"centre-and-spread"}"#
        XCTAssertEqual(try JSONDecoder().decode(ActionInputEncoding.self, from: Data(old.utf8)), plain)
    }
}
