import CoachData
import TestSupport
import XCTest

final class PoseSinglePoseTests: XCTestCase {
    func testSinglePosesWithLabelsContainingSpacesQuotesAndCommas() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "poses.csv", """
        label,chirality,wrist_x,wrist_y,thumbTip_x,thumbTip_y
        Open,left,0.0,0.0,-0.21,-0.14
        "Thumbs ""up"", maybe",right,0.1,0.2,,
        "two
        lines",,1,2,3,4
        Open,,5,6,7,8
        """)
        let set = try SinglePoseSet.read(file)
        XCTAssertEqual(set.jointSet.names, ["wrist", "thumbTip"])
        XCTAssertEqual(set.labels, ["Open", "Thumbs \"up\", maybe", "two\nlines", "Open"])
        XCTAssertEqual(set.poses.map(\.source.line), [2, 3, 4, 6], "a quoted line break moves later rows down")
        XCTAssertEqual(set.poses.map(\.chirality), [.left, .right, .unknown, .unknown])
        XCTAssertEqual(set.poses[0].keypoints[1], Keypoint(x: -0.21, y: -0.14))
        XCTAssertNil(set.poses[1].keypoints[1])
        XCTAssertEqual(set.classCounts, ["Open": 2, "Thumbs \"up\", maybe": 1, "two\nlines": 1])
    }

    func testProblemsCarryTheirLinesAfterAQuotedLineBreak() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "poses.csv", """
        label,a_x,a_y
        "multi
        line label",1,2
        Open,abc,2
        Open,1,nan
        Open,1
        ,1,2
        Open,1,2,3
        Open,1,-inf
        """)
        expectPoseError([
            "\(file.path):4: column 'a_x': 'abc' is not a number: expected a decimal number",
            "\(file.path):5: column 'a_y': 'nan' is not finite",
            "\(file.path):6: has 2 fields: expected 3",
            "\(file.path):7: column 'label' is empty",
            "\(file.path):8: has 4 fields: expected 3",
            "\(file.path):9: column 'a_y': '-inf' is not finite",
        ]) { _ = try SinglePoseSet.read(file) }
    }
}
