import CoachData
import CoachRuntime
import CoachRandom
import CoachVision
import Foundation
import XCTest

/// A smooth random RGB texture (binomially blurred noise, slightly tinted per channel).
func smoothColourTexture(width: Int, height: Int, seed: UInt64) -> RGBImage {
    var generator = SeededGenerator(seed: seed)
    var values = (0..<(width * height)).map { _ in generator.nextUniform(0, 255) }
    for _ in 0..<2 {
        var blurred = values
        for y in 0..<height {
            for x in 0..<width {
                blurred[y * width + x] = (values[y * width + max(0, x - 1)] + 2 * values[y * width + x]
                    + values[y * width + min(width - 1, x + 1)]) / 4
            }
        }
        for y in 0..<height {
            for x in 0..<width {
                values[y * width + x] = (blurred[max(0, y - 1) * width + x] + 2 * blurred[y * width + x]
                    + blurred[min(height - 1, y + 1) * width + x]) / 4
            }
        }
    }
    var samples = [UInt8](repeating: 0, count: width * height * 3)
    for index in 0..<(width * height) {
        let value = values[index]
        samples[3 * index] = UInt8(max(0, min(255, value * 1.1)))
        samples[3 * index + 1] = UInt8(max(0, min(255, value)))
        samples[3 * index + 2] = UInt8(max(0, min(255, value * 0.8 + 20)))
    }
    return (try? RGBImage(width: width, height: height, pixels: samples)) ?? RGBImage(width: 0, height: 0, color: .black)
}

final class SceneStabilityMonitorTests: XCTestCase {
    func testBecomesStableAfterShakeAndNotBefore() throws {
        let frameWidth = 640, frameHeight = 360
        var generator = SeededGenerator(seed: 31)
        // Camera positions (top-left of the frame in the texture): a first frame, 30 frames
        // (1 s at 30 fps) of shake — each step 12…28 px right and −20…20 px vertically — then rest.
        var positions: [SIMD2<Int>] = [SIMD2(10, 60)]
        for _ in 0..<30 {
            let last = positions[positions.count - 1]
            positions.append(last &+ SIMD2(generator.nextInt(in: 12...28), generator.nextInt(in: -20...20)))
        }
        let restStart = positions.count
        positions += Array(repeating: positions[positions.count - 1], count: 20)
        let maximumX = positions.map(\.x).max()!, maximumY = positions.map(\.y).max()!
        let texture = smoothColourTexture(width: maximumX + frameWidth + 1, height: maximumY + frameHeight + 1, seed: 32)

        let monitor = SceneStabilityMonitor()
        var stableFrames: [Bool] = []
        var largestError = 0.0
        for (index, position) in positions.enumerated() {
            let frame = try texture.cropped(x: position.x, y: position.y, width: frameWidth, height: frameHeight)
            let shift = monitor.update(with: frame)
            if index == 0 {
                XCTAssertNil(shift)
            } else {
                // The camera moving right by d moves the content left by d.
                let truth = positions[index - 1] &- position
                let measured = try XCTUnwrap(shift)
                largestError = max(largestError, abs(measured.x - Double(truth.x)), abs(measured.y - Double(truth.y)))
            }
            stableFrames.append(monitor.isStable)
        }
        XCTAssertLessThan(largestError, 1.0, "shifts measured at half resolution should be within a pixel")

        // The rule applied to the true shifts: frame i is stable once 15 shifts exist and their
        // mean length is below 10 px.
        var expected: [Bool] = [false]
        for index in 1..<positions.count {
            guard index >= 15 else { expected.append(false); continue }
            var sum = 0.0
            for back in (index - 14)...index {
                let step = positions[back - 1] &- positions[back]
                sum += (Double(step.x * step.x + step.y * step.y)).squareRoot()
            }
            expected.append(sum / 15 < 10)
        }
        XCTAssertEqual(stableFrames, expected)
        // Frames 0…14 have fewer than 15 shifts; frames 15…30 average 15 shake steps, each ≥ 12 px
        // sideways, so ≥ 12 px: no frame before the rest is stable.
        XCTAssertFalse(stableFrames[0..<restStart].contains(true), "stable before the shake ended")
        // After k rest frames the window holds 15 − k shake steps: the mean is ≥ 12·(15 − k)/15
        // (unstable for k ≤ 2) and ≤ √(28² + 20²)·(15 − k)/15 (stable for k ≥ 11).
        let firstStable = try XCTUnwrap(stableFrames.firstIndex(of: true))
        print("SceneStabilityMonitor: stable \(firstStable - restStart + 1) frames into the rest (frame \(firstStable)); "
              + "largest shift error \(largestError) px")
        XCTAssertGreaterThanOrEqual(firstStable, restStart + 2)
        XCTAssertLessThanOrEqual(firstStable, restStart + 10)
        XCTAssertFalse(stableFrames[firstStable...].contains(false), "stays stable at rest")
    }

    /// A hand-held camera jittering ±15 px about one spot never counts as still, though its shifts'
    /// mean vector is near zero.
    func testJitterAboutOneSpotIsNotStable() throws {
        let texture = smoothColourTexture(width: 400, height: 300, seed: 34)
        let monitor = SceneStabilityMonitor()
        var generator = SeededGenerator(seed: 35)
        var sum = SIMD2<Double>(0, 0)
        for index in 0..<40 {
            let offset = SIMD2(30 + (index % 2 == 0 ? 15 : -15), 30 + generator.nextInt(in: -3...3))
            let frame = try texture.cropped(x: offset.x, y: offset.y, width: 320, height: 200)
            if let shift = monitor.update(with: frame), index >= 25 { sum += SIMD2(shift.x, shift.y) }
            XCTAssertFalse(monitor.isStable, "frame \(index)")
        }
        XCTAssertLessThan((sum * sum).sum().squareRoot() / 15, 10, "the mean vector alone would have called it stable")
        XCTAssertGreaterThan(try XCTUnwrap(monitor.meanShiftLength), 25)
    }

    func testFirstFrameHasNoShiftAndIsNotStable() throws {
        let monitor = SceneStabilityMonitor(historyLength: 3, threshold: 10)
        let texture = smoothColourTexture(width: 200, height: 120, seed: 33)
        XCTAssertNil(monitor.update(with: texture))
        XCTAssertFalse(monitor.isStable)
        XCTAssertNil(monitor.movingAverage)
        XCTAssertEqual(monitor.update(with: texture), .zero)
        XCTAssertEqual(monitor.update(with: texture), .zero)
        XCTAssertFalse(monitor.isStable, "two shifts are not yet a history of three")
        XCTAssertEqual(monitor.update(with: texture), .zero)
        XCTAssertTrue(monitor.isStable)
        // A frame of another size starts over.
        XCTAssertNil(monitor.update(with: try texture.cropped(x: 0, y: 0, width: 100, height: 100)))
        XCTAssertFalse(monitor.isStable)
        XCTAssertEqual(monitor.recentShifts, [])
    }

    func testTinyAndEmptyFramesGiveNoShift() {
        let monitor = SceneStabilityMonitor(historyLength: 1)
        XCTAssertNil(monitor.update(with: RGBImage(width: 9, height: 8, color: .white)))
        XCTAssertEqual(monitor.update(with: RGBImage(width: 9, height: 8, color: .white)), .zero)
        XCTAssertTrue(monitor.isStable)
        XCTAssertNil(monitor.update(with: RGBImage(width: 1, height: 1, color: .white)))
        XCTAssertFalse(monitor.isStable, "a frame too small to register starts over")
        XCTAssertNil(monitor.update(with: RGBImage(width: 0, height: 0, color: .white)))
        XCTAssertNil(monitor.update(with: RGBImage(width: 9, height: 8, color: .white)))
        XCTAssertEqual(monitor.meanShiftLength, nil)
        XCTAssertEqual(monitor.update(with: RGBImage(width: 9, height: 8, color: .white)), .zero)
        XCTAssertEqual(monitor.meanShiftLength, 0)
    }

    /// Prints the per-frame cost on 1280×720 (run with `swift test -c release --filter Timing`);
    /// no assertion on time.
    func testPrintsPerFrameTiming() throws {
        let texture = smoothColourTexture(width: 1320, height: 760, seed: 34)
        let frames = try (0..<8).map { try texture.cropped(x: 5 * $0, y: 3 * $0, width: 1280, height: 720) }
        let monitor = SceneStabilityMonitor()
        monitor.update(with: frames[0])
        #if DEBUG
        let repetitions = 2
        print("SceneStabilityMonitor timing: build with -c release for a meaningful number")
        #else
        let repetitions = 60
        #endif
        let start = Date()
        for index in 0..<repetitions { monitor.update(with: frames[1 + index % 7]) }
        let perFrame = Date().timeIntervalSince(start) / Double(repetitions) * 1000
        print(String(format: "SceneStabilityMonitor: %.2f ms per 1280×720 frame", perFrame))
        XCTAssertEqual(monitor.recentShifts.count, min(15, repetitions))
    }
}
