import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// `PoseDatasetSplit.startingPoseGroups`: the smaller of two clusters of starting poses held out.
final class StartingPoseSplitTests: XCTestCase {
    /// `count` noisy copies of `centre` (normal noise of `spread` per coordinate).
    private func cloud(_ centre: [Float], count: Int, spread: Float, generator: inout SeededGenerator) -> [[Float]] {
        (0..<count).map { _ in centre.map { $0 + spread * generator.nextNormal() } }
    }

    func testHoldsOutTheSmallerOfTwoPlantedClusters() throws {
        var noise = SeededGenerator(seed: 3)
        // 30 items around one pose and 12 around another, interleaved so that position says nothing.
        let big = cloud([0, 0, 1, 1], count: 30, spread: 0.2, generator: &noise)
        let small = cloud([0, 1.5, 1, 2.5], count: 12, spread: 0.2, generator: &noise)
        var starts: [[Float]] = [], planted: [Int] = []
        var b = 0, s = 0
        for index in 0..<42 {
            if index % 7 == 3 || index % 7 == 5, s < small.count {
                planted.append(index); starts.append(small[s]); s += 1
            } else {
                starts.append(big[b]); b += 1
            }
        }
        var generator = SeededGenerator(seed: 0)
        let split = try XCTUnwrap(PoseDatasetSplit.startingPoseGroups(starts, generator: &generator))
        XCTAssertEqual(split.testIndices, planted)
        XCTAssertEqual(split.trainIndices, (0..<42).filter { !planted.contains($0) })

        // The same seed gives the same split; another seed finds the same clusters here.
        var again = SeededGenerator(seed: 0), other = SeededGenerator(seed: 99)
        XCTAssertEqual(PoseDatasetSplit.startingPoseGroups(starts, generator: &again), split)
        XCTAssertEqual(PoseDatasetSplit.startingPoseGroups(starts, generator: &other), split)
    }

    func testNoSplitWithoutTwoDistinctStarts() {
        var generator = SeededGenerator(seed: 0)
        XCTAssertNil(PoseDatasetSplit.startingPoseGroups([], generator: &generator))
        XCTAssertNil(PoseDatasetSplit.startingPoseGroups([[1, 2], [1, 2], [1, 2]], generator: &generator))
        XCTAssertNil(PoseDatasetSplit.startingPoseGroups([[1, 2], [1, 2, 3]], generator: &generator))
        let two = PoseDatasetSplit.startingPoseGroups([[0, 0], [5, 5]], generator: &generator)
        XCTAssertEqual(two.map { $0.trainIndices.count + $0.testIndices.count }, 2)
        XCTAssertEqual(two?.testIndices.count, 1)
    }

    /// The real NATOPS clips: one cluster of starting poses stands apart, holding every class about
    /// equally (another person or session, not another gesture) and starting with the right hand in
    /// another place (as scikit-learn's KMeans(2) on the same first frames found: 36 clips, 5–7 a class).
    func testNATOPSClipsOfAnotherRestPose() throws {
        let dataset = try PoseDataset.load(try SharedData.require("data/natops/train"))
        let split = try XCTUnwrap(dataset.startingPoseSplit())
        XCTAssertEqual(split.testIndices.count, 36)
        XCTAssertEqual(split.trainIndices.count + split.testIndices.count, 180)
        var perClass: [String: Int] = [:]
        for index in split.testIndices { perClass[dataset.exampleLabels[index], default: 0] += 1 }
        XCTAssertEqual(perClass.count, 6)
        XCTAssertTrue(perClass.values.allSatisfy { (5...7).contains($0) }, "\(perClass)")
        let wrist = try XCTUnwrap(dataset.jointSet.names.firstIndex(of: "rightWrist"))
        func meanStartingDepth(_ indices: [Int]) -> Float {
            indices.map { dataset.examples[$0].sequence.frames[0].keypoints[wrist]?.z ?? 0 }.reduce(0, +) / Float(indices.count)
        }
        XCTAssertGreaterThan(abs(meanStartingDepth(split.testIndices) - meanStartingDepth(split.trainIndices)), 0.3)
    }
}
