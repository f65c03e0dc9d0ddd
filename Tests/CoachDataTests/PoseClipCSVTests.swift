import CoachData
import TestSupport
import XCTest

final class PoseClipCSVTests: XCTestCase {
    func testTimeColumnConfidenceAndMissingJoints() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "clip.csv", """
        time,nose_x,nose_y,nose_confidence,neck_x,neck_y,neck_confidence
        0.000,0.512,0.803,0.91,0.508,0.741,0.95
        0.040,0.520,0.800,0,0.509,0.742,0.96
        0.080,,,,0.510,0.743,0.97

        """)
        let clip = try PoseClipReader.read(file)
        XCTAssertEqual(clip.jointSet.names, ["nose", "neck"])
        XCTAssertEqual(clip.jointSet.kind, .custom)
        XCTAssertEqual(clip.frames.map(\.time), [0, 0.04, 0.08])
        XCTAssertNil(clip.nominalFrameRate, "times come from the file")
        XCTAssertFalse(clip.hasDepth)
        XCTAssertEqual(clip.frames[0].keypoints[0], Keypoint(x: 0.512, y: 0.803, confidence: 0.91))
        XCTAssertEqual(clip.frames[0].keypoints[1], Keypoint(x: 0.508, y: 0.741, confidence: 0.95))
        XCTAssertNil(clip.frames[1].keypoints[0], "confidence 0 means not detected")
        XCTAssertNil(clip.frames[2].keypoints[0], "empty cells mean not detected")
        XCTAssertEqual(clip.frames[2].keypoints[1]?.x, 0.510)
        XCTAssertEqual(clip.frames.map(\.detectedCount), [2, 1, 1])
        XCTAssertEqual(clip.source.file, file)
        XCTAssertEqual(clip.source.line, 2)
        XCTAssertNil(clip.chirality)
        XCTAssertEqual(clip.endTime, 0.12, accuracy: 1e-12, "last frame + median step")
    }

    /// A body18 clip without eye and ear columns is body18 with those joints never detected:
    /// the same clip as one whose eye and ear cells are empty.
    func testBody18WithoutEyeAndEarColumnsIsBody18() throws {
        let folder = try temporaryDirectory(self)
        let present = JointSet.body18.names.prefix(14), absent = JointSet.body18.names.suffix(4)
        func row(_ frame: Int, empty: Bool) -> String {
            var cells = present.indices.map { j in "\(frame).\(j),\(j).\(frame),\(-j)" }
            if empty { cells += absent.map { _ in ",," } }  // three empty cells per joint
            return cells.joined(separator: ",")
        }
        let header = present.map { "\($0)_x,\($0)_y,\($0)_z" }.joined(separator: ",")
        let without = try writePoseFixture(folder, "without.csv", ([header] + (0..<3).map { row($0, empty: false) }).joined(separator: "\n") + "\n")
        let withEmpty = try writePoseFixture(folder, "empty.csv", ([header + "," + absent.map { "\($0)_x,\($0)_y,\($0)_z" }.joined(separator: ",")]
            + (0..<3).map { row($0, empty: true) }).joined(separator: "\n") + "\n")
        let clip = try PoseClipReader.read(without)
        XCTAssertEqual(clip.jointSet, JointSet.body18)
        XCTAssertTrue(clip.hasDepth)
        for frame in clip.frames {
            XCTAssertEqual(frame.keypoints.suffix(4).compactMap { $0 }.count, 0, "eyes and ears never detected")
        }
        XCTAssertEqual(clip.frames[2].keypoints[JointSet.body18.index(of: "leftAnkle")!], Keypoint(x: 2.13, y: 13.2, z: -13, confidence: 1))
        XCTAssertEqual(clip.frames.map(\.keypoints), try PoseClipReader.read(withEmpty).frames.map(\.keypoints))

        // A model trained before such files were read as body18 has the 14 joints as a custom
        // set: the clip still fits it, its never-detected eyes and ears left out…
        let fourteen = try XCTUnwrap(JointSet(names: Array(present)))
        let fitted = try XCTUnwrap(clip.reordered(to: fourteen))
        XCTAssertEqual(fitted.jointSet, fourteen)
        XCTAssertEqual(fitted.frames.map(\.keypoints), clip.frames.map { Array($0.keypoints.prefix(14)) })
        // …but not when a frame detects one of them, and never when the model needs a joint the clip lacks.
        var seeing = clip
        seeing.frames[1].keypoints[JointSet.body18.index(of: "leftEar")!] = Keypoint(x: 1, y: 1, confidence: 1)
        XCTAssertNil(seeing.reordered(to: fourteen))
        XCTAssertNil(fitted.reordered(to: JointSet.body18))
    }

    func testNoTimeUsesFrameRateAndFrameColumn() throws {
        let folder = try temporaryDirectory(self)
        let plain = try writePoseFixture(folder, "plain.csv", "a_x,a_y\n1,2\n3,4\n5,6\n")
        let clip = try PoseClipReader.read(plain, options: PoseReadingOptions(frameRate: 10))
        XCTAssertEqual(clip.frames.map(\.time), [0, 0.1, 0.2])
        XCTAssertEqual(clip.nominalFrameRate, 10)
        XCTAssertEqual(clip.frames[1].keypoints[0], Keypoint(x: 3, y: 4, confidence: 1), "confidence 1 when absent")

        let defaultRate = try PoseClipReader.read(plain)
        XCTAssertEqual(defaultRate.frames[2].time, 2.0 / 30, accuracy: 1e-12)

        let framed = try writePoseFixture(folder, "framed.csv", "frame,a_x,a_y\n3,1,2\n4,3,4\n6,5,6\n")
        let framedClip = try PoseClipReader.read(framed, options: PoseReadingOptions(frameRate: 20))
        XCTAssertEqual(framedClip.frames.map(\.time), [0.15, 0.2, 0.3])

        // time wins when both are present.
        let both = try writePoseFixture(folder, "both.csv", "frame,time,a_x,a_y\n0,0.5,1,2\n1,0.75,3,4\n")
        XCTAssertEqual(try PoseClipReader.read(both).frames.map(\.time), [0.5, 0.75])

        // …but frame numbers that count down while time counts up are an error at their line
        // (issue 14: such a clip was read with no word).
        let disagree = try writePoseFixture(folder, "disagree.csv", "frame,time,a_x,a_y\n5,0.5,1,2\n4,0.75,3,4\n3,1.0,5,6\n")
        XCTAssertThrowsError(try PoseClipReader.read(disagree)) { error in
            let message = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(message.contains("disagree.csv:3") && message.contains("frame 4 is not after frame 5 on line 2"), message)
            XCTAssertTrue(message.contains("disagree.csv:4"), "every such row is listed: \(message)")
        }
    }

    func testDepthBottomLeftOriginAndChirality() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "hand.csv", """
        time,chirality,wrist_x,wrist_y,wrist_z\r
        0,Left,0.25,0.125,-1.5\r
        0.5,left,0.5,0.75,2\r

        """)
        let top = try PoseClipReader.read(file)
        XCTAssertTrue(top.hasDepth)
        XCTAssertEqual(top.chirality, .left)
        XCTAssertEqual(top.frames[0].keypoints[0], Keypoint(x: 0.25, y: 0.125, z: -1.5, confidence: 1))
        let bottom = try PoseClipReader.read(file, options: PoseReadingOptions(keypointOrigin: .bottomLeft))
        XCTAssertEqual(bottom.frames[0].keypoints[0], Keypoint(x: 0.25, y: 0.875, z: -1.5, confidence: 1))
        XCTAssertEqual(bottom.frames[1].keypoints[0]?.y, 0.25)
    }

    func testBody18HeaderInAnyOrderIsReorderedToCanonicalOrder() throws {
        let folder = try temporaryDirectory(self)
        let names = Array(JointSet.body18.names.reversed())
        let header = names.flatMap { ["\($0)_x", "\($0)_y", "\($0)_confidence"] }.joined(separator: ",")
        // Joint k of the file (reversed order) gets x = k, y = k + 100.
        let row = names.indices.flatMap { ["\($0)", "\($0 + 100)", "0.5"] }.joined(separator: ",")
        let file = try writePoseFixture(folder, "body.csv", header + "\n" + row + "\n")
        let clip = try PoseClipReader.read(file)
        XCTAssertEqual(clip.jointSet, JointSet.body18)
        for (j, name) in JointSet.body18.names.enumerated() {
            let k = Float(names.firstIndex(of: name)!)
            XCTAssertEqual(clip.frames[0].keypoints[j], Keypoint(x: k, y: k + 100, confidence: 0.5), name)
        }
    }

    func testQuotedFieldsSpacesAndBlankLines() throws {
        let folder = try temporaryDirectory(self)
        // A quoted header cell, spaces around numbers, a blank line in the middle: all accepted.
        let file = try writePoseFixture(folder, "quoted.csv", "\u{FEFF}\"time\",\"a_x\",a_y\n0, 1.5 ,2\n\n\"0.1\",3,4\n")
        let clip = try PoseClipReader.read(file)
        XCTAssertEqual(clip.frames.count, 2)
        XCTAssertEqual(clip.frames[0].keypoints[0]?.x, 1.5)
        XCTAssertEqual(clip.frames[1].time, 0.1)
    }
}
