import CoachData
import CoachRuntime
import CoachVision
import XCTest

final class TrajectoryDetectorTests: XCTestCase {
    /// A bag thrown left to right: 15 px a frame across, up at 14 px a frame, gravity 600 px/s²;
    /// visible from frame 3 (t = 0.1 s) to frame 36 (t = 1.2 s), apex near (355, 153).
    private let throwFlight = Flight(startX: 40, startY: 300, velocityX: 450, velocityY: -420,
                                     startTime: 0.1, endTime: 1.2)
    private let renderer = FrameSequenceRenderer()

    func testOneThrowIsFollowedWithItsParabolaPointsAndIdentity() throws {
        let detector = TrajectoryDetector(trajectoryLength: 10)
        let result = try runDetection(detector, renderer, frames: 44, flights: [throwFlight])

        // Seen from frame 3 (frame 0 set the background), so the 10th point comes in frame 12;
        // from then on every frame up to the last visible one (36) reports it, and no later one.
        for (frame, observations) in result.perFrame.enumerated() {
            XCTAssertEqual(observations.count, (12...36).contains(frame) ? 1 : 0, "frame \(frame)")
        }
        XCTAssertEqual(result.identifiers, [UUID(uuidString: "C0AC7A3E-0000-8000-8000-000000000001")])

        let truth = throwFlight.visionCoefficients(width: 640, height: 360)
        for frame in 12...36 {
            let observation = try XCTUnwrap(result.perFrame[frame].first)
            let frames = Array((frame - 9)...frame)
            XCTAssertEqual(observation.detectedPoints.count, 10)
            XCTAssertEqual(observation.detectedPointTimes.count, 10)
            for (pointTime, pointFrame) in zip(observation.detectedPointTimes, frames) {
                XCTAssertEqual(pointTime, renderer.time(ofFrame: pointFrame), accuracy: 1e-9)
            }
            XCTAssertLessThan(largestPixelError(observation, throwFlight, frames: frames, renderer: renderer), 1,
                              "frame \(frame)")
            XCTAssertGreaterThan(observation.confidence, 0.9)
            XCTAssertEqual(observation.timeRange.lowerBound, renderer.time(ofFrame: 3), accuracy: 1e-9)
            XCTAssertEqual(observation.timeRange.upperBound, renderer.time(ofFrame: frame), accuracy: 1e-9)

            // Coefficients in normalised bottom-left coordinates: a and b within 5 %; c (the value
            // at X = 0, far outside the window) within 0.02; on the window, within a pixel.
            let fitted = observation.equationCoefficients
            XCTAssertEqual(fitted.x, truth.a, accuracy: 0.05 * abs(truth.a))
            XCTAssertEqual(fitted.y, truth.b, accuracy: 0.05 * abs(truth.b))
            XCTAssertEqual(fitted.z, truth.c, accuracy: 0.02)
            for point in observation.detectedPoints {
                let trueY = (truth.a * point.x + truth.b) * point.x + truth.c
                XCTAssertEqual(observation.equationValue(at: point.x), trueY, accuracy: 1.0 / 360)
            }
            // Five projected points: on the fitted parabola at the last five detected x.
            XCTAssertEqual(observation.projectedPoints.count, 5)
            for (projected, detected) in zip(observation.projectedPoints, observation.detectedPoints.suffix(5)) {
                XCTAssertEqual(projected.x, detected.x, accuracy: 1e-12)
                XCTAssertEqual(projected.y, observation.equationValue(at: detected.x), accuracy: 1e-9)
            }
            // Radius 8 px rendered; measured on the 2× grid as the enclosing circle: 8…8 + 2·2 px.
            XCTAssertGreaterThanOrEqual(observation.movingAverageRadius * 640, 8)
            XCTAssertLessThanOrEqual(observation.movingAverageRadius * 640, 12)
        }

        // All 34 centres of the flight (the newest point of each report, plus the first nine)
        // pin the parabola down far better than one window: a, b, c within 1 %.
        let first = try XCTUnwrap(result.perFrame[12].first)
        var points = first.detectedPoints
        for frame in 13...36 { points.append(try XCTUnwrap(result.perFrame[frame].first?.detectedPoints.last)) }
        XCTAssertEqual(points.count, 34)
        let fit = try XCTUnwrap(ParabolaFit(x: points.map(\.x), y: points.map(\.y)))
        XCTAssertEqual(fit.a, truth.a, accuracy: 0.01 * abs(truth.a))
        XCTAssertEqual(fit.b, truth.b, accuracy: 0.01 * abs(truth.b))
        XCTAssertEqual(fit.c, truth.c, accuracy: 0.01 * abs(truth.c))
    }

    func testMotionBlurredThrowStaysWithinAPixel() throws {
        let blurred = FrameSequenceRenderer(shutter: 0.5)
        let result = try runDetection(TrajectoryDetector(trajectoryLength: 10), blurred, frames: 40, flights: [throwFlight])
        XCTAssertEqual(result.identifiers.count, 1)
        for frame in 12...36 {
            let observation = try XCTUnwrap(result.perFrame[frame].first, "frame \(frame)")
            XCTAssertLessThan(largestPixelError(observation, throwFlight, frames: Array((frame - 9)...frame),
                                                renderer: blurred), 1, "frame \(frame)")
            XCTAssertGreaterThan(observation.confidence, 0.8)
        }
    }

    func testTwoBagsInFlightAtOnceGiveTwoTrajectories() throws {
        // A second, blue bag thrown right to left lower down, visible frames 5…35; the two pass
        // each other around t = 0.8 s about 60 px apart.
        let second = Flight(startX: 600, startY: 340, velocityX: -400, velocityY: -380, radius: 7,
                            color: RGBColor(red: 40, green: 60, blue: 220), startTime: 5.0 / 30, endTime: 35.0 / 30)
        let result = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 40,
                                      flights: [throwFlight, second])
        XCTAssertEqual(result.identifiers.count, 2)
        for frame in 14...35 { XCTAssertEqual(result.perFrame[frame].count, 2, "frame \(frame)") }
        // Each identity stays on its own bag in every frame (no swap where they pass).
        for frame in 14...35 {
            for observation in result.perFrame[frame] {
                let frames = Array((frame - 9)...frame)
                let errorFirst = largestPixelError(observation, throwFlight, frames: frames, renderer: renderer)
                let errorSecond = largestPixelError(observation, second, frames: frames, renderer: renderer)
                let flightIndex = observation.uuid == result.identifiers[0] ? 0 : 1
                XCTAssertLessThan(flightIndex == 0 ? errorFirst : errorSecond, 1, "frame \(frame)")
                XCTAssertGreaterThan(flightIndex == 0 ? errorSecond : errorFirst, 20)
            }
        }
        let truth = second.visionCoefficients(width: 640, height: 360)
        let last = try XCTUnwrap(result.last(of: result.identifiers[1])).observation
        XCTAssertEqual(last.equationCoefficients.x, truth.a, accuracy: 0.05 * abs(truth.a))
        XCTAssertEqual(last.equationCoefficients.y, truth.b, accuracy: 0.05 * abs(truth.b))
    }

    func testStaticSceneReportsNothing() throws {
        let result = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 40)
        XCTAssertTrue(result.all.isEmpty)
    }

    func testPathShorterThanTheTrajectoryLengthIsNotReported() throws {
        // Visible in frames 3…10: eight points.
        var short = throwFlight
        short.endTime = 10.0 / 30
        let result = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 20, flights: [short])
        XCTAssertTrue(result.all.isEmpty)
        // Control: with trajectoryLength 8 the same path is reported, once (frame 10).
        let control = try runDetection(TrajectoryDetector(trajectoryLength: 8), renderer, frames: 20, flights: [short])
        XCTAssertEqual(control.all.count, 1)
        XCTAssertEqual(control.perFrame[10].count, 1)
    }

    func testRadiusFilterDropsTooLargeAndTooSmallObjects() throws {
        // The bag measures 8…12 px: 0.0125…0.019 of the 640-px side.
        let tooSmall = TrajectoryDetector(trajectoryLength: 10)
        tooSmall.objectMaximumNormalizedRadius = 0.01
        XCTAssertTrue(try runDetection(tooSmall, renderer, frames: 30, flights: [throwFlight]).all.isEmpty)

        let tooLarge = TrajectoryDetector(trajectoryLength: 10)
        tooLarge.objectMinimumNormalizedRadius = 0.03
        XCTAssertTrue(try runDetection(tooLarge, renderer, frames: 30, flights: [throwFlight]).all.isEmpty)

        let fits = TrajectoryDetector(trajectoryLength: 10)
        fits.objectMinimumNormalizedRadius = 0.008
        fits.objectMaximumNormalizedRadius = 0.03
        XCTAssertFalse(try runDetection(fits, renderer, frames: 30, flights: [throwFlight]).all.isEmpty)
    }

    func testRegionOfInterestExcludesFlightsOutsideItAndCoordinatesAreRelativeToIt() throws {
        // Left flight in x 20…290; right flight in x 380…620 (both keep y in 90…320).
        let left = Flight(startX: 20, startY: 300, velocityX: 240, velocityY: -480, startTime: 0.1, endTime: 1.2)
        let right = Flight(startX: 380, startY: 300, velocityX: 220, velocityY: -480,
                           color: RGBColor(red: 40, green: 60, blue: 220), startTime: 0.1, endTime: 1.2)
        let detector = TrajectoryDetector(trajectoryLength: 10)
        // Vision coordinates (y from the bottom): the left 48 % of the frame, above its bottom 5 %.
        detector.regionOfInterest = NormalizedRect(x: 0, y: 0.05, width: 0.48, height: 0.95)
        let result = try runDetection(detector, renderer, frames: 40, flights: [left, right])
        XCTAssertEqual(result.identifiers.count, 1)
        let (frame, observation) = try XCTUnwrap(result.last(of: result.identifiers[0]))
        XCTAssertEqual(observation.regionOfInterest, detector.regionOfInterest)
        // Converted back through the region, the points are the left bag's centres.
        XCTAssertLessThan(largestPixelError(observation, left, frames: Array((frame - 9)...frame), renderer: renderer), 1)
        // Relative to the region: x = pixelX / (0.48·640), y = (342 − pixelY) / (0.95·360).
        let newest = try XCTUnwrap(observation.detectedPoints.last)
        let truth = left.center(at: renderer.time(ofFrame: frame))
        XCTAssertEqual(newest.x, truth.x / (0.48 * 640), accuracy: 1.0 / 307)
        XCTAssertEqual(newest.y, (0.95 * 360 - truth.y) / (0.95 * 360), accuracy: 1.0 / 342)

        // Control: the whole frame sees both.
        let whole = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 40, flights: [left, right])
        XCTAssertEqual(whole.identifiers.count, 2)
    }

    func testFrameAnalysisSpacingSkipsFrames() throws {
        let detector = TrajectoryDetector(frameAnalysisSpacing: 2.0 / 30, trajectoryLength: 10)
        let result = try runDetection(detector, renderer, frames: 40, flights: [throwFlight])
        // Frames 0, 2, 4… are analysed; the bag is first seen in frame 4, its 10th point in frame 22.
        for (frame, observations) in result.perFrame.enumerated() {
            XCTAssertEqual(observations.count, frame >= 22 && frame <= 36 && frame % 2 == 0 ? 1 : 0, "frame \(frame)")
        }
        let observation = try XCTUnwrap(result.perFrame[30].first)
        // Points two frames (30 px) apart, at the even frames 12…30.
        XCTAssertLessThan(largestPixelError(observation, throwFlight, frames: Array(stride(from: 12, through: 30, by: 2)),
                                            renderer: renderer), 1)
        XCTAssertEqual(observation.timeRange.lowerBound, renderer.time(ofFrame: 4), accuracy: 1e-9)
        XCTAssertGreaterThan(observation.confidence, 0.9)
    }

    func testSameVideoGivesTheSameObservations() throws {
        let first = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 30, flights: [throwFlight])
        let second = try runDetection(TrajectoryDetector(trajectoryLength: 10), renderer, frames: 30, flights: [throwFlight])
        XCTAssertEqual(first.perFrame, second.perFrame)
        XCTAssertFalse(first.all.isEmpty)

        // Another namespace changes the UUIDs only.
        let namespace = try XCTUnwrap(UUID(uuidString: "12345678-9ABC-4DEF-8123-456789ABCDEF"))
        let other = try runDetection(TrajectoryDetector(trajectoryLength: 10, identifierNamespace: namespace),
                                     renderer, frames: 30, flights: [throwFlight])
        XCTAssertEqual(other.identifiers, [UUID(uuidString: "12345678-9ABC-8DEF-8123-456789ABCDEE")])
        XCTAssertEqual(other.all.map(\.detectedPoints), first.all.map(\.detectedPoints))
    }
}
