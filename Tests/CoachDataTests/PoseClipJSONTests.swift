import CoachData
import TestSupport
import XCTest

final class PoseClipJSONTests: XCTestCase {
    func testThreeAndFourChannelKeypointsAndNull() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "clip.json", """
        { "frameRate": 30, "joints": ["nose", "neck"], "chirality": "right",
          "frames": [ { "time": 0.0, "keypoints": [[0.512, 0.803, 0.91], [0.508, 0.741, 0.95]] },
                      { "time": 0.1, "keypoints": [null, [0.5, 0.7, 0.0]] } ] }
        """)
        let clip = try PoseClipReader.read(file)
        XCTAssertEqual(clip.jointSet.names, ["nose", "neck"])
        XCTAssertEqual(clip.frames.map(\.time), [0, 0.1])
        XCTAssertEqual(clip.frames[0].keypoints[0], Keypoint(x: 0.512, y: 0.803, confidence: 0.91))
        XCTAssertNil(clip.frames[1].keypoints[0], "null = not detected")
        XCTAssertNil(clip.frames[1].keypoints[1], "confidence 0 = not detected")
        XCTAssertEqual(clip.nominalFrameRate, 30)
        XCTAssertEqual(clip.chirality, .right)
        XCTAssertFalse(clip.hasDepth)

        let deep = try writePoseFixture(folder, "deep.json", """
        {"joints": ["a"], "frames": [{"keypoints": [[1, 2, 3, 0.5]]}, {"keypoints": [[4, 0.25, 6, 1]]}]}
        """)
        let deepClip = try PoseClipReader.read(deep, options: PoseReadingOptions(frameRate: 4, keypointOrigin: .bottomLeft))
        XCTAssertTrue(deepClip.hasDepth)
        XCTAssertEqual(deepClip.frames.map(\.time), [0, 0.25], "no time: frames at the reading frame rate")
        XCTAssertEqual(deepClip.frames[0].keypoints[0], Keypoint(x: 1, y: -1, z: 3, confidence: 0.5))
        XCTAssertEqual(deepClip.frames[1].keypoints[0], Keypoint(x: 4, y: 0.75, z: 6, confidence: 1))
    }

    func testHand21JointsInAnyOrder() throws {
        try assertReadsAs(JointSet.hand21, names: Array(JointSet.hand21.names.shuffledDeterministically()))
    }

    /// Thirteen body18 joints (no neck, eyes or ears), as sports annotations have them: body18
    /// with the other five never detected.
    func testBody18SubsetIsBody18() throws {
        try assertReadsAs(JointSet.body18, names: JointSet.body18.names.filter { !["neck", "rightEye", "leftEye", "rightEar", "leftEar"].contains($0) })
    }

    /// A one-frame clip of `names` (joint i at x = i) reads as `layout`, each joint where it belongs
    /// and the layout's joints `names` lack undetected.
    private func assertReadsAs(_ layout: JointSet, names: [String], line: UInt = #line) throws {
        let folder = try temporaryDirectory(self)
        let keypoints = names.indices.map { "[\($0), 0, 1]" }.joined(separator: ",")
        let file = try writePoseFixture(folder, "clip.json", """
        {"joints": [\(names.map { "\"\($0)\"" }.joined(separator: ","))], "frames": [{"time": 0, "keypoints": [\(keypoints)]}]}
        """)
        let clip = try PoseClipReader.read(file)
        XCTAssertEqual(clip.jointSet, layout, line: line)
        for (j, name) in layout.names.enumerated() {
            XCTAssertEqual(clip.frames[0].keypoints[j]?.x, names.firstIndex(of: name).map(Float.init), name, line: line)
        }
    }

    func testProblemsNameTheirJSONPaths() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "bad.json", """
        {"joints": ["a", "b", "a"], "frameRate": "fast",
         "frames": [{"time": 0, "keypoints": [[1, 2, 1], [1, 2], [1, 2, 1]]},
                    {"time": 0, "keypoints": [[1, "x", 1], null, [1, true, 1]]},
                    {"time": 0.2, "keypoints": [[1, 2, 3, 1], null, null]},
                    {"time": 0.3, "keypoints": [null]},
                    {"time": 0.4, "keypoints": [[1, 2, 7], null, null]},
                    "frame"]}
        """)
        let path = file.path
        expectPoseError([
            "\(path): joints[2]: repeats joint 'a' (also joints[0])",
            "\(path): frameRate: is the string \"fast\": expected a positive number",
            "\(path): frames[0].keypoints[1]: is an array of 2 values: expected [x, y, confidence]",
            "\(path): frames[1].time: 0.0 is not after the previous frame's 0.0",
            "\(path): frames[1].keypoints[0][1]: is the string \"x\": expected a finite number",
            "\(path): frames[1].keypoints[2][1]: is a boolean: expected a finite number",
            "\(path): frames[2].keypoints[0]: has 4 values but frames[0].keypoints[0] has 3",
            "\(path): frames[3].keypoints: has 1 entries: expected 3, one per joint",
            "\(path): frames[4].keypoints[0][2]: confidence 7.0 is outside 0…1",
            "\(path): frames[5]: is the string \"frame\": expected an object",
        ]) { _ = try PoseClipReader.read(file) }
    }

    func testMissingKeysEmptyAndInvalidJSON() throws {
        let folder = try temporaryDirectory(self)
        let noJoints = try writePoseFixture(folder, "nojoints.json", #"{"frames": []}"#)
        expectPoseError(["\(noJoints.path): joints: is missing", "\(noJoints.path): frames: is empty"]) {
            _ = try PoseClipReader.read(noJoints)
        }
        let empty = try writePoseFixture(folder, "empty.json", "  \n")
        expectPoseError(["\(empty.path): is empty: expected a JSON document"]) { _ = try PoseClipReader.read(empty) }
        let broken = try writePoseFixture(folder, "broken.json", "{\"joints\": [\"a\"],\n \"frames\": [1,,2]}")
        expectPoseError(["\(broken.path):2: is not valid JSON at column 15 ($.frames[1]): expected a value, found ','"]) {
            _ = try PoseClipReader.read(broken)
        }
        let array = try writePoseFixture(folder, "array.json", "[1]")
        expectPoseError(["\(array.path): $: is an array: expected an object"]) { _ = try PoseClipReader.read(array) }
    }
}

extension Array {
    /// A fixed permutation (reverse the odd positions, then rotate) that needs no generator.
    func shuffledDeterministically() -> [Element] {
        let even = stride(from: 0, to: count, by: 2).map { self[$0] }
        let odd = stride(from: 1, to: count, by: 2).map { self[$0] }.reversed()
        let mixed = Array(odd) + even
        return Array(mixed[3...] + mixed[..<3])
    }
}
