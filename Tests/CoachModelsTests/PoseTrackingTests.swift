import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

final class PoseTrackingTests: XCTestCase {
    /// With β = 0 the One-Euro filter is an exponential smoother with α = 1 / (1 + τ/Tₑ),
    /// τ = 1/(2π·f_c): for f_c = 1 Hz at 1 s steps α = 0.862697 (worked by hand).
    func testOneEuroFilterWithoutSpeedTermIsExponentialSmoothing() {
        var filter = OneEuroFilter(minimumCutoff: 1, beta: 0, derivativeCutoff: 1)
        XCTAssertEqual(filter.filter(0, time: 0), 0)
        XCTAssertEqual(filter.filter(1, time: 1), 0.862697, accuracy: 1e-6)
        XCTAssertEqual(filter.filter(1, time: 2), 0.981148, accuracy: 1e-6)
        XCTAssertEqual(filter.filter(5, time: 2), 5, "a repeated time passes the value through")
        var constant = OneEuroFilter()
        for step in 0..<10 { XCTAssertEqual(constant.filter(3.5, time: Double(step) / 30), 3.5, accuracy: 1e-12) }
    }

    /// A large β lets fast motion through: after a jump the output is much nearer the new value
    /// than with β = 0.
    func testOneEuroFilterFollowsFastMotion() {
        var slow = OneEuroFilter(minimumCutoff: 0.05, beta: 0), fast = OneEuroFilter(minimumCutoff: 0.05, beta: 80)
        for step in 0..<5 {
            _ = slow.filter(0, time: Double(step) / 30, scale: 0.01)
            _ = fast.filter(0, time: Double(step) / 30, scale: 0.01)
        }
        let a = slow.filter(100, time: 5.0 / 30, scale: 0.01), b = fast.filter(100, time: 5.0 / 30, scale: 0.01)
        XCTAssertLessThan(a, 5)
        XCTAssertGreaterThan(b, 90)
    }

    func astronaut() throws -> RGBImage {
        try ImageDecoder.decode(contentsOf: try SharedData.require("reference/efficientnet-lite0/images/astronaut.png")).image
    }

    /// `image` on a wider grey canvas, `offset` pixels from the left.
    func shifted(_ image: RGBImage, by offset: Int, canvasWidth: Int) throws -> RGBImage {
        var canvas = try RGBImage(width: canvasWidth, height: image.height,
                                  pixels: [UInt8](repeating: 128, count: canvasWidth * image.height * 3))
        for y in 0..<image.height { for x in 0..<image.width { canvas[x + offset, y] = image[x, y] } }
        return canvas
    }

    /// A person moving right 6 px a frame is followed frame to frame (the region comes from the
    /// previous landmarks, not the detector): her face moves with her. (The photo shows her from the
    /// chest up, so the hip points the region hangs on are guesses and the region drifts; the face,
    /// fully seen, stays within a few pixels.)
    func testTrackerFollowsAMovingPerson() throws {
        let folder = try PoseEstimatorTests.modelFolder()
        var tracker = BodyPoseTracker(estimator: try BodyPoseEstimator(folder: folder), smoothing: true)
        let photo = try astronaut()
        var poses: [BodyLandmarks] = []
        for frame in 0..<10 {
            let image = try shifted(photo, by: 6 * frame, canvasWidth: 660)
            poses.append(try XCTUnwrap(tracker.process(image, time: Double(frame) / 30), "lost the person in frame \(frame)"))
        }
        let seen = Array(0..<11)
        XCTAssertTrue(seen.allSatisfy { poses[0].landmarks[$0].confidence > 0.9 })
        var horizontal: Float = 0, vertical: Float = 0, count: Float = 0
        for frame in 1..<poses.count {
            for index in seen {
                horizontal += abs((poses[frame].landmarks[index].x - poses[0].landmarks[index].x) * 660 - Float(6 * frame))
                vertical += abs((poses[frame].landmarks[index].y - poses[0].landmarks[index].y) * 512)
                count += 1
            }
        }
        print("tracking a moving person: mean horizontal error \(horizontal / count) px, vertical \(vertical / count) px")
        XCTAssertLessThan(horizontal / count, 5)
        XCTAssertLessThan(vertical / count, 5)
    }

    /// A hand moving across the frame 5 px a frame is tracked from its own landmarks (the palm
    /// detector is not needed again) and every landmark moves with it.
    func testHandTrackerFollowsAMovingHand() throws {
        let folder = try PoseEstimatorTests.modelFolder()
        var tracker = HandPoseTracker(estimator: try HandPoseEstimator(folder: folder), smoothing: false)
        let photo = try ImageDecoder.decode(contentsOf: try SharedData.require("reference/mediapipe/hands/digit5-img_1123.jpg")).image
        var hands: [HandLandmarks] = []
        for frame in 0..<10 {
            let image = try shifted(photo, by: 5 * frame, canvasWidth: 160)
            let found = tracker.process(image, time: Double(frame) / 30)
            XCTAssertEqual(found.count, 1, "frame \(frame)")
            hands += found.prefix(1)
        }
        guard hands.count == 10 else { return }
        var error: Float = 0
        for frame in 1..<10 {
            for index in 0..<21 {
                error += abs((hands[frame].landmarks[index].x - hands[0].landmarks[index].x) * 160 - Float(5 * frame))
                error += abs((hands[frame].landmarks[index].y - hands[0].landmarks[index].y) * Float(photo.height))
            }
        }
        print("tracking a moving hand: mean error \(error / Float(9 * 21 * 2)) px (photo \(photo.width) px wide)")
        XCTAssertLessThan(error / Float(9 * 21 * 2), 2)
    }

    /// Smoothing steadies landmarks that jitter on a still person (the same photo with fresh
    /// pixel noise each frame).
    func testSmoothingSteadiesAStillPerson() throws {
        let folder = try PoseEstimatorTests.modelFolder()
        let estimator = try BodyPoseEstimator(folder: folder)
        let photo = try astronaut()
        var generator = SeededGenerator(seed: 11)
        var raw = BodyPoseTracker(estimator: estimator, smoothing: false), smooth = BodyPoseTracker(estimator: estimator, smoothing: true)
        var rawTrack: [Float] = [], smoothTrack: [Float] = []
        for frame in 0..<12 {
            var noisy = photo
            for y in 0..<photo.height {
                for x in 0..<photo.width {
                    let p = photo[x, y]
                    func jitter(_ v: UInt8) -> UInt8 { UInt8(max(0, min(255, Int(v) + generator.nextInt(in: -12...12)))) }
                    noisy[x, y] = RGBColor(red: jitter(p.red), green: jitter(p.green), blue: jitter(p.blue))
                }
            }
            let time = Double(frame) / 30
            rawTrack.append(try XCTUnwrap(raw.process(noisy, time: time)).landmarks[15].x)
            smoothTrack.append(try XCTUnwrap(smooth.process(noisy, time: time)).landmarks[15].x)
        }
        func wobble(_ track: [Float]) -> Float { zip(track.dropFirst(), track).map { abs($0 - $1) }.reduce(0, +) }
        XCTAssertLessThan(wobble(smoothTrack), wobble(rawTrack), "smoothed \(smoothTrack) raw \(rawTrack)")
    }

    /// A frame without anyone gives no pose and no hands — never a failure — and the extractor
    /// writes it as a frame with every joint missing.
    func testEmptyFramesGiveNoPose() throws {
        let folder = try PoseEstimatorTests.modelFolder()
        let grey = try RGBImage(width: 320, height: 240, pixels: [UInt8](repeating: 90, count: 320 * 240 * 3))
        XCTAssertNil(try BodyPoseEstimator(folder: folder).estimate(grey))
        XCTAssertTrue(try HandPoseEstimator(folder: folder).estimate(grey).isEmpty)
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("grey.png")
        try grey.writePNG(to: url)
        let clip = try PoseExtractor(joints: .body18, modelFolder: folder).extract(from: url)
        XCTAssertEqual(clip.frames.count, 1)
        XCTAssertEqual(clip.frames[0].detectedCount, 0)
        XCTAssertThrowsError(try PoseExtractor(joints: .hand21, modelFolder: folder).extract(from: directory.appendingPathComponent("notes.txt")))
    }
}
