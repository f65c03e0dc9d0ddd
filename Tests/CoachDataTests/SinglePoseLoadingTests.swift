import CoachData
import TestSupport
import XCTest

/// Single poses from every form FORMATS allows: tables, folders of clips, unlabeled files.
final class SinglePoseLoadingTests: XCTestCase {
    func testClipFoldersGiveOnePosePerFrameWithTheirChirality() throws {
        let folder = try temporaryDirectory(self)
        try writePoseFixture(folder, "poses/open/a.csv", """
        time,chirality,wrist_x,wrist_y,indexTip_x,indexTip_y
        0.0,left,0.1,0.2,0.3,0.4
        0.1,left,0.1,0.2,,
        """)
        try writePoseFixture(folder, "poses/fist/b.json", """
        {"frameRate": 30, "chirality": "right", "joints": ["wrist", "indexTip"],
         "frames": [{"time": 0, "keypoints": [[0.5, 0.5, 0.9], [0.52, 0.45, 0.8]]}]}
        """)
        let set = try SinglePoseSet.load(folder.appendingPathComponent("poses"))
        XCTAssertEqual(set.labels, ["fist", "open", "open"])
        XCTAssertEqual(set.poses.map(\.chirality), [.right, .left, .left])
        XCTAssertEqual(set.poses.map(\.source.line), [nil, 2, 3], "CSV frames keep their lines")
        XCTAssertNil(set.poses[2].keypoints[1])
        XCTAssertEqual(set.poses[0].keypoints[1], Keypoint(x: 0.52, y: 0.45, confidence: 0.8))

        // A table CSV reads as single poses; a table of clips (with `sequence`) as frames.
        let table = try writePoseFixture(folder, "table.csv", "label,wrist_x,wrist_y\nOpen,0,0\nClose,1,1\n")
        XCTAssertEqual(try SinglePoseSet.load(table).labels, ["Open", "Close"])
        let clips = try writePoseFixture(folder, "clips.csv", "sequence,label,chirality,wrist_x,wrist_y\n1,wave,left,0,0\n1,wave,left,1,1\n2,still,,0,0\n")
        let frames = try SinglePoseSet.load(clips)
        XCTAssertEqual(frames.labels, ["wave", "wave", "still"])
        XCTAssertEqual(frames.poses.map(\.chirality), [.left, .left, .unknown])
    }

    func testPosesToClassifyNeedNoLabels() throws {
        let folder = try temporaryDirectory(self)
        let unlabeled = try writePoseFixture(folder, "poses.csv", "chirality,wrist_x,wrist_y,indexTip_x,indexTip_y\nleft,0,0,1,1\n,0.5,0.5,0.1,0.2\n")
        let set = try SinglePoseSet.readPoses(unlabeled)
        XCTAssertEqual(set.labels, ["", ""])
        XCTAssertEqual(set.poses.map(\.chirality), [.left, .unknown])
        XCTAssertEqual(set.poses.map(\.source.line), [2, 3])
        let clip = try writePoseFixture(folder, "clip.csv", "frame,wrist_x,wrist_y\n0,0,0\n1,0.1,0.1\n2,0.2,0.2\n")
        XCTAssertEqual(try SinglePoseSet.readPoses(clip).poses.count, 3)
        expectPoseError(["has no 'label' column"]) { _ = try SinglePoseSet.read(unlabeled) }
        let bad = try writePoseFixture(folder, "bad.csv", "wrist_x,wrist_y\n0,zero\n1\n")
        expectPoseError(["\(bad.path):2: column 'wrist_y': 'zero' is not a number", "\(bad.path):3: has 1 field"]) {
            _ = try SinglePoseSet.readPoses(bad)
        }
        expectPoseError(["does not exist"]) { _ = try SinglePoseSet.load(folder.appendingPathComponent("none.csv")) }
    }

    func testOneFrameWindowsHoldTheirPose() {
        let window = PoseWindow(keypoints: [Keypoint(x: 1, y: 2, z: 3, confidence: 0.5), nil], hasDepth: true, chirality: .left)
        XCTAssertEqual(window.frameCount, 1)
        XCTAssertEqual(window.jointCount, 2)
        XCTAssertEqual(window[0, 0], Keypoint(x: 1, y: 2, z: 3, confidence: 0.5))
        XCTAssertNil(window[0, 1])
        XCTAssertEqual(window.chirality, .left)
    }

    func testGeneratedHandActionsAreSeededAndSwipeOutward() throws {
        let generator = HandActionDatasetGenerator()
        let a = try generator.makeClips(clipsPerClass: 4, seed: 3), b = try generator.makeClips(clipsPerClass: 4, seed: 3)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, try generator.makeClips(clipsPerClass: 4, seed: 4))
        XCTAssertEqual(a.map(\.label), Array(repeating: HandActionDatasetGenerator.labels, count: 4).flatMap { $0 })
        XCTAssertEqual(a.filter { $0.chirality == .left }.count, 8)
        for clip in a {
            XCTAssertEqual(clip.frames.count, 60)
            XCTAssertTrue(clip.frames.allSatisfy { $0.count == 21 })
            let wristTravel = clip.frames[59][0].x - clip.frames[0][0].x
            if clip.label == "swipe" {
                XCTAssertGreaterThan(clip.chirality == .right ? wristTravel : -wristTravel, 0.3, "right hands swipe right, left hands left")
            } else if clip.label == "background" {
                XCTAssertLessThan(abs(wristTravel), 0.15)
            }
        }
        let folder = try temporaryDirectory(self)
        let summary = try generator.generate(into: folder, clipsPerClass: 2, seed: 1)
        XCTAssertEqual(summary.clipsPerLabel, ["wave": 2, "grab": 2, "swipe": 2, "background": 2])
        let dataset = try PoseDataset.load(folder)
        XCTAssertEqual(dataset.jointSet, .hand21)
        XCTAssertEqual(dataset.clips.count, 8)
        XCTAssertTrue(dataset.clips.allSatisfy { $0.sequence.chirality != nil })
    }
}
