import CoachData
import CoachRandom
import Foundation
import XCTest

/// The streaming resampler gives exactly the frames the whole-clip resampler gives.
final class PoseStreamResamplerTests: XCTestCase {
    func streamed(_ sequence: PoseSequence, rate: Double) -> [PoseFrame] {
        var resampler = PoseStreamResampler(frameRate: rate)
        return sequence.frames.flatMap { resampler.append($0) }
    }

    func testMatchesWholeClipResamplingAtManyRates() {
        var generator = SeededGenerator(seed: 3)
        for (sourceRate, targetRate) in [(60.0, 30.0), (24, 30), (30, 30), (25, 12.5), (90, 30)] {
            var sequence = tracedSequence(frames: 90, frameRate: sourceRate, start: 1.25,
                                          missing: [[3, 1], [4, 1], [10, 0], [11, 2]])
            sequence.nominalFrameRate = nil
            // Jitter the capture times a little (cameras do not tick exactly).
            for k in 1..<sequence.frames.count {
                sequence.frames[k].time += Double(generator.nextUniform(-0.2, 0.2)) / sourceRate
            }
            let expected = sequence.resampled(toFrameRate: targetRate).frames
            let actual = streamed(sequence, rate: targetRate)
            XCTAssertEqual(actual.count, expected.count, "\(sourceRate) → \(targetRate) fps")
            for (a, e) in zip(actual, expected) {
                XCTAssertEqual(a.time, e.time, accuracy: 1e-9)
                XCTAssertEqual(a.keypoints, e.keypoints, "\(sourceRate) → \(targetRate) fps at \(e.time)")
            }
        }
    }

    func testHalvesSixtyFramesPerSecondAndIgnoresOutOfOrderPoses() {
        var resampler = PoseStreamResampler(frameRate: 30)
        let sequence = tracedSequence(frames: 7, frameRate: 60)
        var produced: [PoseFrame] = []
        for (k, frame) in sequence.frames.enumerated() {
            let output = resampler.append(frame)
            XCTAssertEqual(output.count, k % 2 == 0 ? 1 : 0, "one frame out for every two in")
            produced += output
            XCTAssertEqual(resampler.append(frame), [], "a repeated time is ignored")
        }
        XCTAssertEqual(produced.map { $0.keypoints[0]!.x }, [0, 2, 4, 6])
        XCTAssertEqual(resampler.nextFrameTime!, 4.0 / 30, accuracy: 1e-12)
        resampler.reset()
        XCTAssertNil(resampler.nextFrameTime)
    }
}
