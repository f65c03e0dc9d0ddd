import CoachData
import CoachRandom
import Foundation
import XCTest

/// Fixtures: a clip whose joint j in frame k sits at x = k + 0.1·j, y = j (easy to trace).
func tracedSequence(frames: Int, joints: Int = 3, frameRate: Double = 30, start: Double = 0,
                    missing: Set<[Int]> = []) -> PoseSequence {
    let jointSet = JointSet(names: (0..<joints).map { "joint\($0)" })!
    var poseFrames: [PoseFrame] = []
    for k in 0..<frames {
        var keypoints: [Keypoint?] = []
        for j in 0..<joints {
            let x = Float(k) + 0.1 * Float(j)
            keypoints.append(missing.contains([k, j]) ? nil : Keypoint(x: x, y: Float(j), confidence: 0.9))
        }
        poseFrames.append(PoseFrame(time: start + Double(k) / frameRate, keypoints: keypoints))
    }
    return PoseSequence(jointSet: jointSet, frames: poseFrames, source: PoseSource(file: URL(fileURLWithPath: "/traced.csv")),
                        nominalFrameRate: frameRate)
}

final class PoseWindowTests: XCTestCase {
    func testWindowFromFramesPadsWithZeroPosesAtTheEnd() {
        let sequence = tracedSequence(frames: 5, missing: [[1, 2]])
        let window = PoseWindow(frames: sequence.frames[...], frameCount: 8, jointCount: 3, hasDepth: false, frameRate: 30)
        XCTAssertEqual(window.paddedFrameCount, 3)
        XCTAssertEqual(window.observedFrameCount, 5)
        XCTAssertEqual(window[4, 1], Keypoint(x: 4.1, y: 1, confidence: 0.9))
        XCTAssertNil(window[1, 2], "a joint missing in the clip is undetected in the window")
        for t in 5..<8 { for j in 0..<3 { XCTAssertNil(window[t, j]); XCTAssertEqual(window.x[t * 3 + j], 0) } }
        XCTAssertEqual(window.x[1 * 3 + 2], 0, "undetected joints have zero coordinates")
        XCTAssertEqual(window.startTime, 0)
        XCTAssertEqual(window.endTime, 5.0 / 30, accuracy: 1e-12)
        XCTAssertEqual(window.detectedCount, 14)
    }

    func testCentroidSpreadAndExtent() {
        var window = PoseWindow(frameCount: 2, jointCount: 2)
        // Frame 0: joints at (0, 0) and (2, 0); frame 1: (4, 0) and (6, 0).
        window[0, 0] = Keypoint(x: 0, y: 0); window[0, 1] = Keypoint(x: 2, y: 0)
        window[1, 0] = Keypoint(x: 4, y: 0); window[1, 1] = Keypoint(x: 6, y: 0)
        XCTAssertEqual(window.centroid.x, 3)
        XCTAssertEqual(window.centroid.y, 0)
        XCTAssertEqual(window.spread, 1, "each frame's joints lie 1 from their frame's mean")
        XCTAssertEqual(window.extent, (5 as Float).squareRoot(), accuracy: 1e-6, "RMS of 3, 1, 1, 3")
        window[1, 1] = nil
        XCTAssertEqual(window.spread, 1, "frames with a single joint do not count towards the size")
    }

    func testEvaluationWindowsCoverTheSegmentAndEndAtItsLastFrame() {
        let sampler = PoseWindowSampler(windowLength: 10, frameRate: 30)
        XCTAssertEqual(sampler.windowStarts(frameCount: 10, stride: 3), [0])
        XCTAssertEqual(sampler.windowStarts(frameCount: 4, stride: 3), [0])
        XCTAssertEqual(sampler.windowStarts(frameCount: 17, stride: 3), [0, 3, 6, 7])
        XCTAssertEqual(sampler.windowStarts(frameCount: 16, stride: 3), [0, 3, 6])
        let windows = sampler.windows(covering: tracedSequence(frames: 17), stride: 3)
        XCTAssertEqual(windows.map(\.startTime), [0, 3, 6, 7].map { Double($0) / 30 })
        XCTAssertEqual(windows.last?[9, 0]?.x, 16, "the last window ends at the last frame")
        let short = sampler.windows(covering: tracedSequence(frames: 4), stride: 3)
        XCTAssertEqual(short.count, 1)
        XCTAssertEqual(short[0].paddedFrameCount, 6)
        XCTAssertTrue(sampler.needsPadding(frameCount: 4))
        XCTAssertFalse(sampler.needsPadding(frameCount: 10))
    }

    func testPreparedSequencesAreResampledToTheSamplersRate() {
        let sampler = PoseWindowSampler(windowLength: 10, frameRate: 30)
        let sixty = tracedSequence(frames: 61, frameRate: 60)
        let prepared = sampler.prepared(sixty)
        XCTAssertEqual(prepared.frames.count, 31, "2 s at 60 fps → 31 frames at 30 fps")
        XCTAssertEqual(sampler.preparedFrameCount(of: sixty), 31)
        XCTAssertEqual(prepared.frames[1].keypoints[0]?.x, 2, "every other frame of the 60 fps clip")
        let already = tracedSequence(frames: 12, frameRate: 30)
        XCTAssertEqual(sampler.prepared(already), already)
        XCTAssertEqual(sampler.trainingWindowCount(frameCount: 4), 1)
        XCTAssertEqual(sampler.trainingWindowCount(frameCount: 26), 3)
    }

    func testRandomTrainingWindowsLieWithinTheSegment() {
        let sampler = PoseWindowSampler(windowLength: 10, frameRate: 30)
        let sequence = tracedSequence(frames: 25)
        var generator = SeededGenerator(seed: 4)
        var starts = Set<Float>()
        for _ in 0..<200 {
            let window = sampler.randomWindow(from: sequence, augmenter: nil, generator: &generator)
            XCTAssertEqual(window.paddedFrameCount, 0)
            let first = window[0, 0]!.x
            starts.insert(first)
            for t in 0..<10 { XCTAssertEqual(window[t, 0]!.x, first + Float(t), "consecutive frames") }
            XCTAssertEqual(window.startTime, Double(first) / 30, accuracy: 1e-9)
        }
        XCTAssertEqual(starts, Set((0...15).map(Float.init)), "every start that keeps the window inside is drawn")

        let short = sampler.randomWindow(from: tracedSequence(frames: 6), augmenter: nil, generator: &generator)
        XCTAssertEqual(short.paddedFrameCount, 4, "a short segment is padded at the end")
        XCTAssertEqual(short[0, 0]!.x, 0)

        var again = SeededGenerator(seed: 4)
        var first = SeededGenerator(seed: 4)
        XCTAssertEqual(sampler.randomWindow(from: sequence, augmenter: nil, generator: &again),
                       sampler.randomWindow(from: sequence, augmenter: nil, generator: &first), "seeded")
    }

    func testStratifiedFoldsHoldOutEveryItemOnceAndKeepClassProportions() {
        let labels = (0..<50).map { $0 % 5 == 0 ? "rare" : "common" }
        var generator = SeededGenerator(seed: 1)
        let folds = PoseDatasetSplit.stratifiedFolds(labels: labels, foldCount: 5, generator: &generator)
        XCTAssertEqual(folds.count, 5)
        XCTAssertEqual(folds.flatMap(\.testIndices).sorted(), Array(0..<50))
        for fold in folds {
            XCTAssertEqual(fold.testIndices.count, 10)
            XCTAssertEqual(fold.testIndices.filter { labels[$0] == "rare" }.count, 2)
            XCTAssertEqual(Set(fold.trainIndices).intersection(fold.testIndices), [])
            XCTAssertEqual(fold.trainIndices.count + fold.testIndices.count, 50)
        }
        var other = SeededGenerator(seed: 1)
        XCTAssertEqual(PoseDatasetSplit.stratifiedFolds(labels: labels, foldCount: 5, generator: &other), folds)
    }
}
