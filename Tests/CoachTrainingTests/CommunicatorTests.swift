import CoachData
import CoachModels
import CoachTraining
import Foundation
import XCTest

/// The parts of `Communicator` a single process can check (the ranks themselves run under
/// `mpirun` in coachTests' MPIJobTests): shares, the launcher test, the single process, and the
/// bytes values travel in.
final class CommunicatorTests: XCTestCase {
    func testSharesCoverEveryItemOnceInOrder() {
        for size in 1...7 {
            for count in 0...40 {
                var covered: [Int] = []
                for rank in 0..<size {
                    let share = Communicator.share(of: count, rank: rank, size: size)
                    XCTAssertEqual(share.lowerBound, covered.count, "rank \(rank) of \(size), \(count) items: not contiguous")
                    XCTAssertLessThanOrEqual(share.count, (count + size - 1) / size)
                    covered += share
                }
                XCTAssertEqual(covered, Array(0..<count), "\(size) ranks, \(count) items")
            }
        }
    }

    func testLaunchersAreRecognisedByTheirEnvironment() {
        XCTAssertFalse(Communicator.launchedByMPI([:]))
        XCTAssertFalse(Communicator.launchedByMPI(["PATH": "/usr/bin", "OMPI_MCA_something": "1"]))
        XCTAssertTrue(Communicator.launchedByMPI(["OMPI_COMM_WORLD_SIZE": "2"]))
        XCTAssertTrue(Communicator.launchedByMPI(["PMIX_RANK": "0"]))
        XCTAssertTrue(Communicator.launchedByMPI(["PMI_SIZE": "4"]))
    }

    func testTheSingleProcessRunsEverythingItselfAndKeepsItsErrors() throws {
        let single = Communicator.single
        XCTAssertEqual([single.rank, single.size], [0, 1])
        XCTAssertTrue(single.isRoot)
        XCTAssertEqual(try single.gatherShares(count: 5) { $0.map { $0 * 10 } }, [0, 10, 20, 30, 40])
        XCTAssertEqual(try single.allGather([1, 2, 3]), [[1, 2, 3]])
        struct Own: Error {}
        XCTAssertThrowsError(try single.gatherShares(count: 3) { _ -> [Int] in throw Own() }) { XCTAssertTrue($0 is Own) }
    }

    func testValuesTravelExactly() throws {
        var writer = WireWriter()
        let strings: [String?] = ["board", nil, "", "höle ✓"]
        strings.write(to: &writer)
        writer.write([Float.pi, -0.0, .infinity, .leastNonzeroMagnitude, .nan])
        writer.write(-7)
        writer.write(0.1 as Double)
        var reader = WireReader(writer.bytes)
        XCTAssertEqual(try [String?](from: &reader), strings)
        let floats = try reader.readFloats()
        XCTAssertEqual(floats.map(\.bitPattern), [Float.pi, -0.0, .infinity, .leastNonzeroMagnitude, .nan].map(\.bitPattern))
        XCTAssertEqual(try reader.readInt(), -7)
        XCTAssertEqual(try reader.readDouble(), 0.1)
        XCTAssertTrue(reader.isAtEnd)
        // Bytes that end early, or lie about a length, are an error, never a crash.
        for cut in [1, 9, writer.bytes.count / 2, writer.bytes.count - 1] {
            var short = WireReader(Array(writer.bytes.prefix(cut)))
            XCTAssertThrowsError(try {
                _ = try [String?](from: &short)
                _ = try short.readFloats()
                _ = try short.readInt()
                _ = try short.readDouble()
            }(), "cut at \(cut)")
        }
        var lying = WireWriter()
        lying.write(Int.max)
        var liar = WireReader(lying.bytes)
        XCTAssertThrowsError(try [Int](from: &liar))
        var liar2 = WireReader(lying.bytes)
        XCTAssertThrowsError(try liar2.readFloats())
    }

    func testDetectorViewsTravelBitForBit() throws {
        let values: [Float] = (0..<96).map { Float($0) * 0.37 - 5 }
        let maps = values.withUnsafeBufferPointer { DetectorFeatureMaps(stride32: CompactFloats($0), stride16: CompactFloats(UnsafeBufferPointer(rebasing: $0[10..<70]))) }
        let view = DetectorTrainingView(
            imageIndex: 17, viewIndex: 3, maps: maps,
            target: DetectionTarget(boxes: [BoundingBox(minX: 1.5, minY: 2.25, maxX: 30.125, maxY: 40)], classIndices: [2]),
            transform: LetterboxTransform(originalWidth: 640, originalHeight: 480, width: 320, height: 320, contentWidth: 320,
                                          contentHeight: 240, offsetX: 0, offsetY: 40),
            fullScaleX: 2.5, fullScaleY: 1 / 3)
        var writer = WireWriter()
        [view, view].write(to: &writer)
        var reader = WireReader(writer.bytes)
        let back = try [DetectorTrainingView](from: &reader)
        XCTAssertTrue(reader.isAtEnd)
        XCTAssertEqual(back.count, 2)
        XCTAssertEqual(back[1].imageIndex, 17)
        XCTAssertEqual(back[1].viewIndex, 3)
        XCTAssertEqual(back[1].maps.stride32, maps.stride32)
        XCTAssertEqual(back[1].maps.stride16, maps.stride16)
        XCTAssertEqual(back[1].target, view.target)
        XCTAssertEqual(back[1].transform, view.transform)
        XCTAssertEqual(back[1].fullScaleY, 1 / 3)
    }
}
