import CoachData
import Foundation
import TestSupport
import XCTest

/// The synthetic hand-pose dataset: deterministic FORMATS.md §3.5 files with a chirality
/// column, balanced classes, finger shapes that separate the classes, and left hands that
/// are mirror images of right hands.
final class SyntheticHandPoseDatasetTests: XCTestCase {
    private let hand21 = ["wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip", "indexMCP", "indexPIP",
                          "indexDIP", "indexTip", "middleMCP", "middlePIP", "middleDIP", "middleTip", "ringMCP",
                          "ringPIP", "ringDIP", "ringTip", "littleMCP", "littlePIP", "littleDIP", "littleTip"]

    private func rows(of file: URL) throws -> [[String]] {
        String(decoding: try Data(contentsOf: file), as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    func testSameSeedWritesIdenticalBytesAndAnotherSeedDoesNot() throws {
        let directory = try temporaryDirectory(self)
        let generator = HandPoseDatasetGenerator()
        let files = ["a.csv", "b.csv", "c.csv"].map { directory.appendingPathComponent($0) }
        _ = try generator.generate(into: files[0], samplesPerClass: 30, seed: 4)
        _ = try generator.generate(into: files[1], samplesPerClass: 30, seed: 4)
        _ = try generator.generate(into: files[2], samplesPerClass: 30, seed: 5)
        let contents = try files.map { try Data(contentsOf: $0) }
        XCTAssertEqual(contents[0], contents[1])
        XCTAssertNotEqual(contents[0], contents[2])
    }

    func testFileFollowsTheSinglePoseFormatWithBalancedClasses() throws {
        let file = try temporaryDirectory(self).appendingPathComponent("hands/poses.csv")
        let summary = try HandPoseDatasetGenerator().generate(into: file, samplesPerClass: 40, seed: 6)
        XCTAssertEqual(summary.sampleCount, 200)
        XCTAssertEqual(summary.samplesPerLabel, ["open": 40, "fist": 40, "one": 40, "peace": 40, "background": 40])
        XCTAssertEqual(summary.leftHandCount, 100)
        let table = try rows(of: file)
        XCTAssertEqual(table.first, ["label", "chirality"] + hand21.flatMap { ["\($0)_x", "\($0)_y"] })
        var labels: [String: Int] = [:], chirality: [String: Int] = [:]
        for (index, row) in table.dropFirst().enumerated() {
            XCTAssertEqual(row.count, 2 + 42, "line \(index + 2)")
            guard row.count == 44 else { continue }
            labels[row[0], default: 0] += 1
            chirality[row[1], default: 0] += 1
            for cell in row.dropFirst(2) {
                let value = try XCTUnwrap(Double(cell), "line \(index + 2): '\(cell)'")
                XCTAssertTrue((0...1).contains(value), "line \(index + 2): \(value) outside the image")
            }
        }
        XCTAssertEqual(labels, summary.samplesPerLabel)
        XCTAssertEqual(chirality, ["left": 100, "right": 100])
    }

    func testWithoutChiralityAndWristRelative() throws {
        var configuration = HandPoseDatasetConfiguration()
        configuration.writesChirality = false
        configuration.coordinates = .wristRelative
        configuration.classes = [.fist, .open]
        let file = try temporaryDirectory(self).appendingPathComponent("poses.csv")
        _ = try HandPoseDatasetGenerator(configuration: configuration).generate(into: file, samplesPerClass: 10, seed: 7)
        let table = try rows(of: file)
        XCTAssertEqual(table.first?.prefix(3), ["label", "wrist_x", "wrist_y"])
        XCTAssertEqual(table.count, 21)
        for row in table.dropFirst() {
            let values = row.dropFirst().compactMap(Float.init)
            XCTAssertEqual(values.count, 42)
            XCTAssertEqual(values[0], 0, accuracy: 1e-9, "the wrist is the origin")
            XCTAssertEqual(values[1], 0, accuracy: 1e-9)
            let middleKnuckle = SIMD2(values[18], values[19])
            XCTAssertEqual((middleKnuckle * middleKnuckle).sum().squareRoot(), 1, accuracy: 0.001,
                           "the wrist-to-middle-knuckle distance is the unit")
        }
    }

    /// How far each finger reaches: wrist-to-tip over wrist-to-knuckle (about 2 extended, below 1 curled).
    private func reach(of sample: SyntheticHandPose) -> [Float] {
        let aspect = sample.specification.aspectRatio
        let p = sample.keypoints.map { SIMD2($0.x * aspect, $0.y) }
        func distance(_ i: Int, _ j: Int) -> Float { ((p[i] - p[j]) * (p[i] - p[j])).sum().squareRoot() }
        return [(8, 5), (12, 9), (16, 13), (20, 17)].map { distance($0.0, 0) / distance($0.1, 0) }
    }

    func testFingerShapesSeparateTheClasses() throws {
        // With the default rotations, tilts, backs of hands, both chiralities and noise.
        let samples = try HandPoseDatasetGenerator().makeSamples(samplesPerClass: 150, seed: 8)
        let expected: [String: [Bool]] = ["open": [true, true, true, true], "fist": [false, false, false, false],
                                          "one": [true, false, false, false], "peace": [true, true, false, false]]
        var backgroundPatterns = Set<[Bool]>()
        var thumbSpread: [String: [Float]] = [:]
        for sample in samples {
            let extended = reach(of: sample).map { $0 > 1.3 }
            if let pattern = expected[sample.label] {
                XCTAssertEqual(extended, pattern, "\(sample.label): reach \(reach(of: sample))")
            } else {
                backgroundPatterns.insert(extended)
            }
            let aspect = sample.specification.aspectRatio
            let p = sample.keypoints.map { SIMD2($0.x * aspect, $0.y) }
            let palm = ((p[9] - p[0]) * (p[9] - p[0])).sum().squareRoot()
            thumbSpread[sample.label, default: []].append(((p[4] - p[5]) * (p[4] - p[5])).sum().squareRoot() / palm)
        }
        XCTAssertGreaterThanOrEqual(backgroundPatterns.count, 5, "background hands come in many shapes")
        let median = { (values: [Float]) in values.sorted()[values.count / 2] }
        XCTAssertGreaterThan(median(thumbSpread["open"]!), 1.4 * median(thumbSpread["fist"]!), "the open thumb sticks out")
    }

    func testLeftHandIsTheMirrorImageOfTheRightHand() throws {
        var configuration = HandPoseDatasetConfiguration()
        configuration.leftHandShare = 0
        let generator = HandPoseDatasetGenerator(configuration: configuration)
        for specification in try generator.makeSpecifications(samplesPerClass: 4, seed: 9) {
            XCTAssertEqual(specification.chirality, .right)
            let right = generator.render(specification)
            let left = generator.render(specification.mirrored)
            XCTAssertEqual(left.chirality, .left)
            var worst: Float = 0
            for (r, l) in zip(right.truePositions, left.truePositions) {
                worst = max(worst, abs(l.x - (1 - r.x)), abs(l.y - r.y))
            }
            XCTAssertLessThan(worst, 1e-5, "\(specification.handClass)")
            XCTAssertNotEqual(left.truePositions, right.truePositions)
        }
        // The chirality column follows the hand.
        let pair = try generator.makeSpecifications(samplesPerClass: 1, seed: 10).prefix(1)
        let text = String(decoding: generator.csvText(of: pair.map(generator.render) + pair.map { generator.render($0.mirrored) }),
                          as: UTF8.self)
        let lines = text.split(separator: "\n")
        XCTAssertTrue(lines[1].hasPrefix("\(pair[0].handClass.rawValue),right,"))
        XCTAssertTrue(lines[2].hasPrefix("\(pair[0].handClass.rawValue),left,"))
    }

    func testNoiseFollowsTheConfiguredLevel() throws {
        var configuration = HandPoseDatasetConfiguration()
        configuration.keypointNoise = 0.02
        let samples = try HandPoseDatasetGenerator(configuration: configuration).makeSamples(samplesPerClass: 20, seed: 11)
        var squared: Float = 0, scale: Float = 0, count = 0
        for sample in samples {
            for (noisy, clean) in zip(sample.keypoints, sample.truePositions) where noisy.y > 0 && noisy.y < 1 {
                squared += (noisy.y - clean.y) * (noisy.y - clean.y)
                count += 1
            }
            scale += sample.specification.size
        }
        let rootMeanSquare = (squared / Float(count)).squareRoot()
        let meanSize = scale / Float(samples.count)
        XCTAssertEqual(rootMeanSquare / meanSize, 0.02, accuracy: 0.005, "noise ≈ 2% of hand length")
    }

    func testHeldOutSplitAndInvalidConfiguration() throws {
        let directory = try temporaryDirectory(self)
        let (training, test) = try HandPoseDatasetGenerator().generateSplits(
            into: directory, trainingSamplesPerClass: 20, testSamplesPerClass: 5, seed: 12)
        XCTAssertEqual(training.file.lastPathComponent, "train.csv")
        XCTAssertEqual(test.file.lastPathComponent, "test.csv")
        XCTAssertEqual(training.sampleCount, 100)
        XCTAssertEqual(test.sampleCount, 25)

        var configuration = HandPoseDatasetConfiguration()
        configuration.classes = []
        configuration.leftHandShare = -1
        configuration.sizeRange = 0...2
        XCTAssertThrowsError(try HandPoseDatasetGenerator(configuration: configuration)
            .makeSpecifications(samplesPerClass: 0, seed: 1)) { error in
            guard case SyntheticDataError.invalidConfiguration(let problems) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(problems.count, 4, problems.joined(separator: "\n"))
        }
    }
}
