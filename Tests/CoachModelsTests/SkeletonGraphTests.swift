import CoachData
import CoachModels
import XCTest

final class SkeletonGraphTests: XCTestCase {
    /// Checks a skeleton's partitions: each row averages over the joint and its neighbours.
    func checkPartitions(_ graph: SkeletonGraph, file: StaticString = #filePath, line: UInt = #line) {
        let j = graph.jointCount, partitions = graph.partitions()
        XCTAssertEqual(partitions.shape, [graph.partitionCount, j, j], file: file, line: line)
        var neighbours = [Set<Int>](repeating: [], count: j)
        for edge in graph.edges { neighbours[edge.first].insert(edge.second); neighbours[edge.second].insert(edge.first) }
        for i in 0..<j {
            var rowSum: Float = 0
            for p in 0..<graph.partitionCount { for k in 0..<j { rowSum += partitions[p, i, k] } }
            // A skeleton averages each joint's neighbourhood (rows sum to 1); a fully connected graph has
            // the joint itself and the mean of the others (rows sum to one per partition).
            XCTAssertEqual(rowSum, graph.isFullyConnected ? Float(graph.partitionCount) : 1, accuracy: 1e-5,
                           "row \(i)", file: file, line: line)
            XCTAssertEqual(partitions[0, i, i], 1 / Float(neighbours[i].count + 1), accuracy: 1e-6, file: file, line: line)
            for k in 0..<j where k != i {
                let total = (0..<graph.partitionCount).reduce(Float(0)) { $0 + partitions[$1, i, k] }
                XCTAssertEqual(total > 0, neighbours[i].contains(k) || graph.isFullyConnected, "\(i)–\(k)", file: file, line: line)
            }
        }
    }

    func testBody18SkeletonIsTheOpenPoseTreeCentredOnTheNeck() {
        let graph = SkeletonGraph(jointSet: .body18)
        XCTAssertEqual(graph.edges.count, 17, "a tree over 18 joints")
        XCTAssertEqual(graph.centre, JointSet.body18.index(of: "neck"))
        XCTAssertEqual(graph.partitionCount, 3)
        let hops = graph.hopsFromCentre
        XCTAssertFalse(hops.contains(Int.max), "connected")
        let body = JointSet.body18
        XCTAssertEqual(hops[body.index(of: "rightWrist")!], 3)
        XCTAssertEqual(hops[body.index(of: "leftAnkle")!], 4, "neck → shoulder → hip → knee → ankle")
        XCTAssertEqual(hops[body.index(of: "rightEar")!], 3)
        checkPartitions(graph)
        // Partition 1 (nearer the centre) of the right elbow is the right shoulder.
        let elbow = body.index(of: "rightElbow")!, shoulder = body.index(of: "rightShoulder")!, wrist = body.index(of: "rightWrist")!
        let p = graph.partitions()
        XCTAssertGreaterThan(p[1, elbow, shoulder], 0)
        XCTAssertGreaterThan(p[2, elbow, wrist], 0)
        XCTAssertEqual(p[1, elbow, wrist], 0)
    }

    func testHand21SkeletonHasFingersAndKnuckles() {
        let graph = SkeletonGraph(jointSet: .hand21)
        XCTAssertEqual(graph.edges.count, 23, "20 bones plus 3 knuckle links")
        XCTAssertEqual(graph.centre, 0)
        XCTAssertEqual(graph.hopsFromCentre[JointSet.hand21.index(of: "littleTip")!], 4)
        checkPartitions(graph)
    }

    func testCustomJointSetsAreFullyConnected() {
        let natops = JointSet(names: ["leftHandTip", "rightHandTip", "leftElbow", "rightElbow"])!
        let graph = SkeletonGraph(jointSet: natops)
        XCTAssertTrue(graph.isFullyConnected)
        XCTAssertEqual(graph.partitionCount, 2)
        checkPartitions(graph)
        let single = SkeletonGraph(jointSet: JointSet(names: ["indexTip"])!)
        XCTAssertEqual(single.partitionCount, 1)
        XCTAssertEqual(single.partitions().scalars, [1])
    }
}
