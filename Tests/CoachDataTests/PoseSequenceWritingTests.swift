import CoachData
import Foundation
import TestSupport
import XCTest

/// Clips written as FORMATS §3.2 CSV and §3.3 JSON read back to the same poses.
final class PoseSequenceWritingTests: XCTestCase {
    func clip(chirality: Chirality?) -> PoseSequence {
        let joints = JointSet.hand21
        var frames: [PoseFrame] = []
        for f in 0..<4 {
            var keypoints: [Keypoint?] = []
            for j in 0..<joints.count {
                let x = Float(j) / 21 + Float(f) * 0.01, y = 0.5 - Float(j) * 0.01, confidence = 0.25 + Float(j) / 40
                keypoints.append(f == 2 && j % 5 == 0 ? nil : Keypoint(x: x, y: y, confidence: confidence))
            }
            frames.append(PoseFrame(time: Double(f) / 30, keypoints: keypoints))
        }
        return PoseSequence(jointSet: joints, frames: frames, source: PoseSource(file: URL(fileURLWithPath: "x")),
                            chirality: chirality, nominalFrameRate: 30)
    }

    func assertSame(_ a: PoseSequence, _ b: PoseSequence, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.jointSet, b.jointSet, file: file, line: line)
        XCTAssertEqual(a.chirality ?? .unknown, b.chirality ?? .unknown, file: file, line: line)
        XCTAssertEqual(a.frames.count, b.frames.count, file: file, line: line)
        for (x, y) in zip(a.frames, b.frames) {
            XCTAssertEqual(x.time, y.time, accuracy: 1e-4, file: file, line: line)
            for (p, q) in zip(x.keypoints, y.keypoints) {
                XCTAssertEqual(p == nil, q == nil, file: file, line: line)
                guard let p, let q else { continue }
                XCTAssertEqual(p.x, q.x, accuracy: 1e-5, file: file, line: line)
                XCTAssertEqual(p.y, q.y, accuracy: 1e-5, file: file, line: line)
                XCTAssertEqual(p.confidence, q.confidence, accuracy: 1e-4, file: file, line: line)
            }
        }
    }

    func testCSVAndJSONReadBack() throws {
        let directory = try temporaryDirectory(self)
        for chirality in [Chirality.left, nil] {
            let original = clip(chirality: chirality)
            let csv = directory.appendingPathComponent("clip.csv"), json = directory.appendingPathComponent("clip.json")
            try Data(original.csvText().utf8).write(to: csv)
            try Data(original.jsonText().utf8).write(to: json)
            assertSame(original, try PoseClipReader.read(csv))
            assertSame(original, try PoseClipReader.read(json))
        }
    }
}
