import CoachData
import CoachRuntime
import XCTest

final class TrajectoryDetectorRobustnessTests: XCTestCase {
    private let renderer = FrameSequenceRenderer()

    func testRandomFlickerIsNeverLinkedIntoATrajectory() throws {
        // Twelve discs a frame at random places, each visible for one frame only.
        var random = SplitMix(state: 99)
        var discs: [[(x: Double, y: Double, radius: Double, color: RGBColor)]] = []
        for _ in 0..<60 {
            discs.append((0..<12).map { _ in
                (20 + random.uniform() * 600, 20 + random.uniform() * 320, 6, RGBColor(red: 220, green: 220, blue: 230))
            })
        }
        let result = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 60,
                                      extraDiscs: { discs[$0] })
        XCTAssertTrue(result.all.isEmpty)
    }

    func testJitteringClutterIsFollowedButNotReportedWithHighConfidence() throws {
        // Three discs (radius 6) drifting 8 px a frame to the right, each frame jumping up to
        // ±10 px at random in x and y around the drift: leaves or flags in the wind, not a throw.
        var random = SplitMix(state: 5)
        var discs: [[(x: Double, y: Double, radius: Double, color: RGBColor)]] = []
        for frame in 0..<60 {
            discs.append((0..<3).map { row in
                (60 + 8 * Double(frame) + 10 * (2 * random.uniform() - 1),
                 80 + 90 * Double(row) + 10 * (2 * random.uniform() - 1), 6, RGBColor(red: 220, green: 220, blue: 230))
            })
        }
        let result = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 60,
                                      extraDiscs: { discs[$0] })
        XCTAssertFalse(result.all.isEmpty, "the clutter is followed and reported")
        for observation in result.all { XCTAssertLessThan(observation.confidence, 0.5) }
    }

    func testSwingingLimbIsFollowedButNotReportedWithHighConfidence() throws {
        // A hand-sized disc on a 120-px pendulum swinging ±50° every 1.2 s: a ∪-shaped arc with
        // non-uniform horizontal speed, like a forearm swinging at the elbow.
        let swing = Pendulum(pivotX: 320, pivotY: 60, length: 120, amplitude: 50 * Double.pi / 180, period: 1.2)
        let result = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 72, pendulums: [swing])
        XCTAssertFalse(result.all.isEmpty, "the swing is followed and reported")
        for observation in result.all { XCTAssertLessThan(observation.confidence, 0.5) }
    }

    func testTinyEmptyAndResizedFramesDoNotCrash() throws {
        // 1 × 1 frames: nothing can be analysed.
        let detector = TrajectoryDetector()
        for index in 0..<20 {
            let color = index % 2 == 0 ? RGBColor.white : RGBColor.black
            XCTAssertEqual(try detector.processStrictly(RGBImage(width: 1, height: 1, color: color), at: Double(index) / 30), [])
        }
        // Strictly, a change of size is a typed error and leaves the detector as it was.
        XCTAssertThrowsError(try detector.processStrictly(RGBImage(width: 2, height: 2, color: .white), at: 1)) { error in
            XCTAssertEqual(error as? TrajectoryDetectionError,
                           .frameSizeChanged(expectedWidth: 1, expectedHeight: 1, width: 2, height: 2))
            XCTAssertNotNil((error as? TrajectoryDetectionError)?.errorDescription)
        }
        XCTAssertEqual(try detector.processStrictly(RGBImage(width: 1, height: 1, color: .white), at: 1), [])
        // After reset() another size (even 0 × 0) is a new video.
        detector.reset()
        XCTAssertEqual(try detector.processStrictly(RGBImage(width: 0, height: 0, color: .white), at: 0), [])
        XCTAssertEqual(try detector.processStrictly(RGBImage(width: 0, height: 0, color: .white), at: 0.1), [])

        // An empty sequence: nothing processed, nothing reported, reset is harmless.
        let unused = TrajectoryDetector()
        unused.reset()
        XCTAssertEqual(unused.trajectoryLength, 10)
        unused.trajectoryLength = 3                       // a parabola needs more: clamped to 5
        XCTAssertEqual(unused.trajectoryLength, 5)
        XCTAssertEqual(TrajectoryDetector(trajectoryLength: 0).trajectoryLength, 5)
    }

    func testStrictSizeChangeMidFlightIsRejectedAndTheFlightGoesOn() throws {
        let flight = Flight(startX: 40, startY: 300, velocityX: 450, velocityY: -420, startTime: 0.1, endTime: 1.2)
        let detector = TrajectoryDetector(trajectoryLength: 10)
        var reported = 0
        for index in 0..<30 {
            if index == 15 {
                XCTAssertThrowsError(try detector.processStrictly(RGBImage(width: 320, height: 180, color: .black), at: 0.49))
            }
            reported += try detector.processStrictly(renderer.frame(index, flights: [flight]),
                                                     at: renderer.time(ofFrame: index)).count
        }
        XCTAssertEqual(reported, 30 - 12)   // frames 12…29, as without the stray frame
    }

    func testLenientSizeChangeMidFlightStartsANewVideoWithFreshIdentities() {
        let flight = Flight(startX: 40, startY: 300, velocityX: 450, velocityY: -420, startTime: 0.1, endTime: 1.2)
        let detector = TrajectoryDetector(trajectoryLength: 10)
        var identifiers: [UUID] = []
        var reportingFrames: [Int] = []
        for index in 0..<40 {
            // Frame 15 is half size: the 640 × 360 frames after it are a new video.
            let image = index == 15 ? RGBImage(width: 320, height: 180, color: .black) : renderer.frame(index, flights: [flight])
            let observations = detector.process(image, at: renderer.time(ofFrame: index))
            if !observations.isEmpty { reportingFrames.append(index) }
            for observation in observations where !identifiers.contains(observation.uuid) { identifiers.append(observation.uuid) }
        }
        // First video: frames 12…14. The second starts at frame 16 with the bag already in the
        // air, so frame 16 becomes the background, bag included, which leaves a ghost there. In
        // frame 17 the bag (15 px on, radius 8) still touches its ghost: one blob. From frame 18
        // the bag is a blob of its own, so its 10th point comes in frame 27; it is reported up to
        // frame 36 under the next UUID (the still ghost is never reported).
        XCTAssertEqual(reportingFrames, Array(12...14) + Array(27...36))
        XCTAssertEqual(identifiers, [UUID(uuidString: "C0AC7A3E-0000-8000-8000-000000000001"),
                                     UUID(uuidString: "C0AC7A3E-0000-8000-8000-000000000002")])
    }

    func testLenientProcessIgnoresBadTimes() {
        let detector = TrajectoryDetector()
        let image = RGBImage(width: 64, height: 36, color: .white)
        XCTAssertEqual(detector.process(image, at: .nan), [])
        XCTAssertEqual(detector.process(image, at: 1), [])
        XCTAssertEqual(detector.process(image, at: 1), [])        // repeated time: ignored
        XCTAssertEqual(detector.process(image, at: .infinity), [])
        // The ignored frames changed nothing: 1.5 s is still after the last accepted frame (1 s).
        XCTAssertNoThrow(try detector.processStrictly(image, at: 1.5))
    }

    func testInvalidTimesAndRegionsAreTypedErrors() throws {
        let detector = TrajectoryDetector()
        let image = RGBImage(width: 64, height: 36, color: .white)
        XCTAssertThrowsError(try detector.processStrictly(image, at: .nan)) { error in
            guard case .invalidTime? = error as? TrajectoryDetectionError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try detector.processStrictly(image, at: 1), [])
        XCTAssertThrowsError(try detector.processStrictly(image, at: 1)) { error in
            XCTAssertEqual(error as? TrajectoryDetectionError, .timeNotIncreasing(previous: 1, current: 1))
        }
        XCTAssertThrowsError(try detector.processStrictly(image, at: 0.5))
        detector.regionOfInterest = NormalizedRect(x: 1.2, y: 0, width: 0.5, height: 1)
        XCTAssertThrowsError(try detector.processStrictly(image, at: 2)) { error in
            XCTAssertEqual(error as? TrajectoryDetectionError, .emptyRegionOfInterest(detector.regionOfInterest))
        }
        XCTAssertEqual(detector.process(image, at: 2), [])                                 // lenient: ignored
        detector.regionOfInterest = NormalizedRect(x: 0.5, y: 0.5, width: 2, height: 2)   // clamped: fine
        XCTAssertEqual(try detector.processStrictly(image, at: 2), [])
    }

    func testDownscaleFactorFollowsFrameSizeAndMinimumRadius() {
        XCTAssertEqual(TrajectoryDetector.downscaleFactor(frameWidth: 1280, frameHeight: 720), 4)
        XCTAssertEqual(TrajectoryDetector.downscaleFactor(frameWidth: 640, frameHeight: 360), 2)
        XCTAssertEqual(TrajectoryDetector.downscaleFactor(frameWidth: 1080, frameHeight: 1920), 6)
        XCTAssertEqual(TrajectoryDetector.downscaleFactor(frameWidth: 1, frameHeight: 1), 1)
        // Objects of 0.004 × 1280 = 5.1 px radius must keep 1.5 analysis pixels: factor 3.
        XCTAssertEqual(TrajectoryDetector.downscaleFactor(frameWidth: 1280, frameHeight: 720,
                                                          minimumNormalizedRadius: 0.004), 3)
        XCTAssertEqual(TrajectoryDetector.downscaleFactor(frameWidth: 1280, frameHeight: 720,
                                                          minimumNormalizedRadius: 0.05), 4)
    }

    func testNormalizedPointConversions() {
        let point = NormalizedPoint(x: 0.25, y: 0.75)
        let pixel = point.imagePoint(imageWidth: 640, imageHeight: 360)
        XCTAssertEqual(pixel.x, 160, accuracy: 1e-12)
        XCTAssertEqual(pixel.y, 90, accuracy: 1e-12)        // 75 % up from the bottom = 90 px from the top
        let back = NormalizedPoint(imagePoint: pixel, imageWidth: 640, imageHeight: 360)
        XCTAssertEqual(back.x, 0.25, accuracy: 1e-12)
        XCTAssertEqual(back.y, 0.75, accuracy: 1e-12)
        let observation = TrajectoryObservation(uuid: UUID(), detectedPoints: [], projectedPoints: [],
                                                equationCoefficients: SIMD3(1, 2, 3), movingAverageRadius: 0,
                                                timeRange: 1...1.5, confidence: 1,
                                                regionOfInterest: NormalizedRect(x: 0.5, y: 0.2, width: 0.5, height: 0.5))
        // (0.5, 0.5) of the region → frame (0.75, 0.45) → pixels (480, 198).
        let inFrame = observation.imagePoint(NormalizedPoint(x: 0.5, y: 0.5), imageWidth: 640, imageHeight: 360)
        XCTAssertEqual(inFrame.x, 480, accuracy: 1e-9)
        XCTAssertEqual(inFrame.y, 198, accuracy: 1e-9)
        XCTAssertEqual(observation.equationValue(at: 2), 11, accuracy: 1e-12)   // 4 + 4 + 3
        XCTAssertEqual(observation.duration, 0.5, accuracy: 1e-12)
    }
}
