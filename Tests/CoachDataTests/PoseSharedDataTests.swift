import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// The real datasets under `../shared/data`, read in place and checked against a naive,
/// independent split of their text (they contain no quoted fields).
final class PoseSharedDataTests: XCTestCase {
    /// Rows of a quote-free CSV as split by hand: header, then the data rows.
    private func naiveRows(_ url: URL) throws -> (header: [String], rows: [[String]]) {
        let lines = try String(contentsOf: url, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
        let split = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return (split[0], Array(split.dropFirst()))
    }

    func testNATOPSClassFolders() throws {
        let root = try SharedData.require("data/natops/train")
        let dataset = try PoseDataset.load(root)
        XCTAssertEqual(dataset.clips.count, 180)
        XCTAssertEqual(dataset.labels, ["All clear", "Fold wings", "I have command", "Lock wings", "Not clear", "Spread wings"])
        XCTAssertEqual(Set(dataset.classCounts.values), [30])
        XCTAssertEqual(dataset.jointSet.kind, .custom)
        XCTAssertEqual(dataset.jointSet.names, ["leftHandTip", "rightHandTip", "leftElbow", "rightElbow",
                                                "leftWrist", "rightWrist", "leftThumb", "rightThumb"])
        XCTAssertEqual(dataset.jointSet.mirroredIndices, [1, 0, 3, 2, 5, 4, 7, 6])
        XCTAssertTrue(dataset.hasDepth)
        XCTAssertTrue(dataset.ignoredFiles.isEmpty)
        XCTAssertNil(dataset.backgroundLabel)
        for example in dataset.examples {
            XCTAssertEqual(example.sequence.frames.count, 51, example.sequence.source.description)
            XCTAssertTrue(example.sequence.frames.allSatisfy { $0.detectedCount == 8 })
        }
        let first = dataset.examples[0].sequence
        XCTAssertEqual(first.source.file.lastPathComponent, "train-009.csv")
        XCTAssertEqual(first.frames[50].time, 50.0 / 30, accuracy: 1e-12)
        XCTAssertEqual(first.nominalFrameRate, 30)

        // Every value of one clip against the naive split.
        let (header, rows) = try naiveRows(first.source.file)
        XCTAssertEqual(header.count, 24)
        XCTAssertEqual(rows.count, 51)
        for (f, row) in rows.enumerated() {
            let expected = row.map { Float($0)! }
            let actual = first.frames[f].keypoints.flatMap { k -> [Float] in [k!.x, k!.y, k!.z!] }
            assertClose(actual, expected, absolute: 0, relative: 0, "frame \(f)")
        }

        // Block split: the last 8 (⌈30 · 0.25⌉) files of each class, in name order.
        let split = dataset.blockSplit()
        XCTAssertEqual(split.testIndices.count, 48)
        XCTAssertEqual(split.trainIndices.count, 132)
        for label in dataset.labels {
            let folder = root.appendingPathComponent(label)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".csv") }.sorted()
            let testNames = split.testIndices.filter { dataset.examples[$0].label == label }
                .map { dataset.examples[$0].sequence.source.file.lastPathComponent }
            XCTAssertEqual(testNames, Array(names.suffix(8)), label)
        }

        // Resampling 30 → 15 fps keeps every other frame exactly.
        let half = first.resampled(toFrameRate: 15)
        XCTAssertEqual(half.frames.count, 26)
        XCTAssertEqual(half.frames[3].keypoints, first.frames[6].keypoints)
    }

    func testFingertipTracksTable() throws {
        let file = try SharedData.require("data/hand-gestures/fingertip-tracks.csv")
        let dataset = try PoseDataset.load(file)
        let (header, rows) = try naiveRows(file)
        XCTAssertEqual(header, ["sequence", "label", "frame", "indexTip_x", "indexTip_y"])

        // Independent grouping: sequences in order of first appearance, with their labels.
        var order: [String] = [], labelOf: [String: String] = [:], rowsOf: [String: [[String]]] = [:]
        for row in rows {
            if labelOf[row[0]] == nil { order.append(row[0]); labelOf[row[0]] = row[1] }
            rowsOf[row[0], default: []].append(row)
        }
        XCTAssertEqual(order.count, 5296)
        XCTAssertEqual(dataset.clips.count, 5296)
        XCTAssertEqual(dataset.classCounts, ["Clockwise": 1234, "Counter Clockwise": 1279, "Move": 1302, "Stop": 1481])
        XCTAssertEqual(dataset.classCounts, PoseClasses.counts(of: order.map { labelOf[$0]! }))
        XCTAssertEqual(dataset.jointSet.names, ["indexTip"])
        XCTAssertFalse(dataset.hasDepth)
        XCTAssertEqual(dataset.examples.map { $0.sequence.source.sequence! }, order)
        XCTAssertTrue(dataset.examples.allSatisfy { $0.sequence.frames.count == 16 })
        let last = dataset.examples[5295].sequence
        XCTAssertEqual(last.frames.map(\.time), (0..<16).map { Double($0) / 30 })
        let expected = rowsOf[order[5295]]!.flatMap { [Float($0[3])!, Float($0[4])!] }
        assertClose(last.frames.flatMap { [$0.keypoints[0]!.x, $0.keypoints[0]!.y] }, expected, absolute: 0, relative: 0)
        XCTAssertEqual(last.source.line, rows.count + 1 - 15, "the sequence's first row")

        // Block split: the last ⌈n/4⌉ sequences of each class in file order.
        let split = dataset.blockSplit()
        for (label, count) in dataset.classCounts {
            let sequences = order.filter { labelOf[$0] == label }
            let testCount = Int((Double(count) / 4).rounded(.up))
            let testSequences = split.testIndices.filter { dataset.examples[$0].label == label }
                .map { dataset.examples[$0].sequence.source.sequence! }
            XCTAssertEqual(testSequences, Array(sequences.suffix(testCount)), label)
        }
        XCTAssertEqual(split.testIndices.count, 309 + 320 + 326 + 371)
    }

    func testHandPosesSinglePoseCSV() throws {
        let file = try SharedData.require("data/hand-gestures/hand-poses.csv")
        let set = try SinglePoseSet.read(file)
        let (header, rows) = try naiveRows(file)
        XCTAssertEqual(set.poses.count, 4450)
        XCTAssertEqual(set.jointSet, JointSet.hand21)
        XCTAssertFalse(set.hasDepth)
        XCTAssertEqual(set.classCounts, ["Close": 1572, "Open": 1522, "Pointer": 1356])
        XCTAssertEqual(set.labels, rows.map { $0[0] })
        // Header order is hand21 order here, so column 1 + 2j is joint j's x.
        XCTAssertEqual(header.dropFirst().enumerated().filter { $0.offset % 2 == 0 }.map { String($0.element.dropLast(2)) }, JointSet.hand21.names)
        for index in [0, 1234, 4449] {
            let expected = rows[index].dropFirst().map { Float($0)! }
            let actual = set.poses[index].keypoints.flatMap { [$0!.x, $0!.y] }
            assertClose(actual, expected, absolute: 0, relative: 0, "row \(index)")
            XCTAssertEqual(set.poses[index].source.line, index + 2)
        }
        var generator = SeededGenerator(seed: 42)
        let split = PoseDatasetSplit.stratified(labels: set.labels, testFraction: 0.2, generator: &generator)
        XCTAssertEqual(PoseClasses.counts(of: split.testIndices.map { set.labels[$0] }), ["Close": 315, "Open": 305, "Pointer": 272])
    }
}
