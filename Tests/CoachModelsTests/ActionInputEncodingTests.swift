import CoachData
import CoachModels
import CoachRandom
import TestSupport
import XCTest

/// The input encoding normalises each window: position, size and unit drop out, motion stays.
final class ActionInputEncodingTests: XCTestCase {
    func window(seed: UInt64, frames: Int = 5, joints: Int = 4, depth: Bool = false,
                transform: (Float, Float, Float) -> (Float, Float, Float) = { ($0, $1, $2) }) -> PoseWindow {
        var generator = SeededGenerator(seed: seed)
        var window = PoseWindow(frameCount: frames, jointCount: joints, hasDepth: depth)
        for t in 0..<frames {
            for j in 0..<joints {
                let (x, y, z) = transform(generator.nextUniform(0.2, 0.8), generator.nextUniform(0.1, 0.9), generator.nextUniform(1, 2))
                window[t, j] = Keypoint(x: x, y: y, z: depth ? z : nil, confidence: generator.nextUniform(0.3, 1))
            }
        }
        window[1, 2] = nil
        window.paddedFrameCount = 0
        return window
    }

    func testTranslationAndScaleDropOutButNotMotion() {
        let encoding = ActionInputEncoding(windowLength: 5, jointCount: 4, includesDepth: true)
        XCTAssertEqual(encoding.normalization, .centreAndSpread)
        XCTAssertEqual(encoding.channelNames, ["x", "y", "z", "confidence", "dx", "dy", "dz"])
        let original = window(seed: 1, depth: true)
        // The same poses filmed further away in pixels: scaled by 640 and shifted.
        let moved = window(seed: 1, depth: true) { (640 * $0 + 100, 640 * $1 - 30, 640 * $2 + 5) }
        let a = encoding.encode([original]), b = encoding.encode([moved])
        XCTAssertEqual(a.shape, [1, 5, 4, 7])
        assertClose(b.scalars, a.scalars, absolute: 2e-4, "scale and position drop out")
        let other = encoding.encode([window(seed: 2, depth: true)])
        XCTAssertGreaterThan(maxAbsoluteDifference(a.scalars, other.scalars), 0.1)
    }

    func testMissingJointsAndPaddingAreZeroInEveryChannel() {
        let encoding = ActionInputEncoding(windowLength: 6, jointCount: 4, includesDepth: false)
        var sequence: [PoseFrame] = []
        for t in 0..<4 {
            var keypoints: [Keypoint?] = []
            for j in 0..<4 {
                let x = Float(t) + Float(j), y = Float(j) * 2
                keypoints.append(t == 2 && j == 1 ? nil : Keypoint(x: x, y: y, confidence: 0.8))
            }
            sequence.append(PoseFrame(time: Double(t) / 30, keypoints: keypoints))
        }
        let window = PoseWindow(frames: sequence[...], frameCount: 6, jointCount: 4, hasDepth: false, frameRate: 30)
        let encoded = encoding.encode([window])
        let k = encoding.channelCount
        XCTAssertEqual(k, 5)
        func value(_ t: Int, _ j: Int, _ c: Int) -> Float { encoded.scalars[(t * 4 + j) * k + c] }
        for c in 0..<k { XCTAssertEqual(value(2, 1, c), 0, "missing joint, channel \(c)") }
        for t in 4..<6 { for j in 0..<4 { for c in 0..<k { XCTAssertEqual(value(t, j, c), 0) } } }
        XCTAssertEqual(value(3, 1, 3), 0, "no velocity out of a missing joint")
        XCTAssertEqual(value(0, 0, 3), 0, "no velocity in the first frame")
        // The centre is the mean of the detected keypoints; the scale the pose's spread.
        let (centre, scale) = encoding.normalizer(for: window)
        XCTAssertEqual(value(0, 0, 0), (0 - centre.x) / scale, accuracy: 1e-5)
        XCTAssertEqual(value(3, 2, 1), (4 - centre.y) / scale, accuracy: 1e-5)
        XCTAssertEqual(value(1, 3, 2), 0.8, "confidence is kept")
        XCTAssertEqual(value(1, 0, 3), 1 / scale, accuracy: 1e-5, "dx of a joint moving one unit per frame")
        XCTAssertEqual(value(1, 0, 4), 0, accuracy: 1e-6)
    }

    func testSingleJointsAreCentredButNotScaled() {
        let encoding = ActionInputEncoding(windowLength: 5, jointCount: 1, includesDepth: false, includesVelocity: false)
        XCTAssertEqual(encoding.normalization, .centre)
        let small = window(seed: 3, joints: 1) { (0.01 * $0, 0.01 * $1, $2) }
        let large = window(seed: 3, joints: 1) { (0.1 * $0, 0.1 * $1, $2) }
        let a = encoding.encode([small]), b = encoding.encode([large])
        let ratio = b.scalars[0] / a.scalars[0]
        XCTAssertEqual(ratio, 10, accuracy: 1e-3, "a small gesture stays smaller than a large one")
    }
}
