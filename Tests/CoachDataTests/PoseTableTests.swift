import CoachData
import TestSupport
import XCTest

final class PoseTableTests: XCTestCase {
    func testRowsGroupBySequenceInRowOrder() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "tracks.csv", """
        sequence,label,time,indexTip_x,indexTip_y
        17,Clockwise,0.000,0.0,0.0
        17,Clockwise,0.033,0.004,-0.011
        clip-b,"Counter Clockwise",0.5,1,2
        17,Clockwise,0.066,0.008,-0.02
        clip-b,"Counter Clockwise",0.6,3,4

        """)
        let clips = try PoseTableReader.read(file)
        XCTAssertEqual(clips.count, 2)
        XCTAssertEqual(clips.map { $0.segments.map(\.label) }, [["Clockwise"], ["Counter Clockwise"]])
        XCTAssertEqual(clips[0].sequence.source.sequence, "17")
        XCTAssertEqual(clips[0].sequence.source.line, 2)
        XCTAssertEqual(clips[1].sequence.source.line, 4)
        XCTAssertEqual(clips[1].sequence.source.description, file.path + ":4 (sequence clip-b)")
        XCTAssertEqual(clips[1].sequence.source.shortDescription, "tracks.csv:4 (sequence clip-b)", "for captions")
        XCTAssertEqual(clips[0].sequence.frames.map(\.time), [0, 0.033, 0.066])
        XCTAssertEqual(clips[0].sequence.frames[2].keypoints[0], Keypoint(x: 0.008, y: -0.02))
        XCTAssertEqual(clips[1].sequence.frames.map { $0.keypoints[0]?.x }, [1, 3])
        XCTAssertEqual(clips[0].sequence.jointSet.names, ["indexTip"])
        XCTAssertNil(clips[0].segments[0].start)

        let dataset = try PoseDataset.load(file)
        XCTAssertEqual(dataset.clips.count, 2)
        XCTAssertEqual(dataset.classCounts, ["Clockwise": 1, "Counter Clockwise": 1])
    }

    func testFrameColumnAndNoTime() throws {
        let folder = try temporaryDirectory(self)
        let framed = try writePoseFixture(folder, "framed.csv", "sequence,label,frame,a_x,a_y\n1,x,0,0,0\n1,x,1,1,1\n2,y,0,5,5\n")
        let clips = try PoseTableReader.read(framed, options: PoseReadingOptions(frameRate: 10))
        XCTAssertEqual(clips.map { $0.sequence.frames.map(\.time) }, [[0, 0.1], [0]])
        XCTAssertEqual(clips[0].sequence.nominalFrameRate, 10)

        let untimed = try writePoseFixture(folder, "untimed.csv", "label,sequence,a_x,a_y\nx,1,0,0\nx,1,1,1\nx,1,2,2\n")
        XCTAssertEqual(try PoseTableReader.read(untimed).first?.sequence.frames.count, 3)
    }

    func testLabelChangingWithinASequenceIsReportedWithItsLine() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "tracks.csv", """
        sequence,label,a_x,a_y
        1,Stop,0,0
        1,Stop,0,0
        1,Move,0,0
        2,Move,0,0
        2,,0,0
        """)
        expectPoseError([
            "\(file.path):4: label 'Move' differs from 'Stop' on line 2 in sequence 1: expected one label per sequence",
            "\(file.path):6: column 'label' is empty",
        ]) { _ = try PoseTableReader.read(file) }
    }

    func testMissingSequenceOrLabelColumn() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "t.csv", "sequence,a_x,a_y\n1,0,0\n")
        expectPoseError(["\(file.path):1: has no 'label' column"]) { _ = try PoseTableReader.read(file) }
    }
}
