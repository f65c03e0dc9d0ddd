import CoachData
import TestSupport
import XCTest

/// Every class of bad input gets a problem naming the file, the line and what was expected, and
/// all problems are reported together.
final class PoseErrorTests: XCTestCase {
    func testHeaderProblems() throws {
        let folder = try temporaryDirectory(self)
        let xWithoutY = try writePoseFixture(folder, "xy.csv", "time,nose_x,neck_x,neck_y\n0,1,2,3\n")
        expectPoseError(["\(xWithoutY.path):1: joint 'nose' has nose_x but no nose_y: expected both nose_x and nose_y"]) {
            _ = try PoseClipReader.read(xWithoutY)
        }
        let noJoints = try writePoseFixture(folder, "nojoints.csv", "time\n0\n")
        expectPoseError(["\(noJoints.path):1: has no joint columns: expected <joint>_x and <joint>_y"]) {
            _ = try PoseClipReader.read(noJoints)
        }
        let duplicate = try writePoseFixture(folder, "dup.csv", "a_x,a_y,a_x\n0,1,2\n")
        expectPoseError(["\(duplicate.path):1: duplicate column name 'a_x' (columns 1 and 3): expected each column once"]) {
            _ = try PoseClipReader.read(duplicate)
        }
        let unknown = try writePoseFixture(folder, "unknown.csv", "\ntime,a_x,a_y,a_w,notes,sequence\n0,1,2,3,x,1\n")
        expectPoseError([
            "\(unknown.path):2: column 'a_w' has suffix '_w': expected 'time', 'frame', 'chirality' or <joint>_x",
            "\(unknown.path):2: column 'notes' is not a pose column",
            "\(unknown.path):2: column 'sequence' is not allowed in this kind of file",
        ]) { _ = try PoseClipReader.read(unknown) }
        let mixedDepth = try writePoseFixture(folder, "depth.csv", "a_x,a_y,a_z,b_x,b_y\n0,1,2,3,4\n")
        expectPoseError(["\(mixedDepth.path):1: joints a have a _z column but b do not: expected _z for all joints or none"]) {
            _ = try PoseClipReader.read(mixedDepth)
        }
    }

    func testEmptyAndHeaderOnlyFiles() throws {
        let folder = try temporaryDirectory(self)
        let empty = try writePoseFixture(folder, "empty.csv", "")
        expectPoseError(["\(empty.path): is empty: expected a header line"]) { _ = try PoseClipReader.read(empty) }
        let blank = try writePoseFixture(folder, "blank.csv", "\n \n")
        expectPoseError(["\(blank.path): is empty"]) { _ = try SinglePoseSet.read(blank) }
        let headerOnly = try writePoseFixture(folder, "header.csv", "time,a_x,a_y\n")
        expectPoseError(["\(headerOnly.path):1: has a header but no rows: expected one row per frame"]) {
            _ = try PoseClipReader.read(headerOnly)
        }
        let tableHeaderOnly = try writePoseFixture(folder, "table.csv", "sequence,label,a_x,a_y\n")
        expectPoseError(["\(tableHeaderOnly.path):1: has a header but no rows"]) { _ = try PoseTableReader.read(tableHeaderOnly) }
        let annotationsHeaderOnly = try writePoseFixture(folder, "annotations.csv", "file,label\n")
        expectPoseError(["\(annotationsHeaderOnly.path):1: has a header but no rows"]) { _ = try PoseAnnotationReader.read(annotationsHeaderOnly) }
        let emptyFolder = try temporaryDirectory(self)
        expectPoseError(["\(emptyFolder.path): has no class folders"]) { _ = try PoseDataset.load(emptyFolder) }
        let missing = folder.appendingPathComponent("nowhere")
        expectPoseError(["\(missing.path): does not exist"]) { _ = try PoseDataset.load(missing) }
    }

    func testCellProblemsAreAllListedWithTheirLines() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "cells.csv", """
        time,chirality,a_x,a_y,a_confidence
        0,left,0.1,0.2,0.9
        0.1,left,abc,0.2,0.9
        0.2,left,0.1,NaN,0.9
        0.3,left,0.1,inf,0.9
        0.3,left,0.1,0.2,1.5
        0.5,right,0.1,0.2,0.9
        ,left,0.1,0.2,0.9
        0.7,sideways,0.1,0.2,0.9
        0.8,left,"0.1",0.2,"oops
        """)
        let path = file.path
        let error = expectPoseError([
            "\(path):3: column 'a_x': 'abc' is not a number: expected a decimal number such as 0.25, or an empty cell",
            "\(path):4: column 'a_y': 'NaN' is not finite",
            "\(path):5: column 'a_y': 'inf' is not finite",
            "\(path):6: time 0.3 is not after the previous row's (line 5): expected frames in increasing time",
            "\(path):6: column 'a_confidence': confidence 1.5 is outside 0…1",
            "\(path):7: chirality 'right' differs from 'left' on line 2: expected one chirality per clip",
            "\(path):8: column 'time' is empty: expected a time in seconds",
            "\(path):9: column 'chirality': 'sideways' is not a chirality",
            "\(path):10: quoted field never closed",
        ]) { _ = try PoseClipReader.read(file) }
        XCTAssertEqual(error?.problems.count, 9, error?.problems.map(\.description).joined(separator: "\n") ?? "")
    }

    func testStrayQuoteIsReportedAndTheNextRowsKeepTheirLines() throws {
        let folder = try temporaryDirectory(self)
        let file = try writePoseFixture(folder, "stray.csv", "label,a_x,a_y\n\"Open\"x,1,2\nOpen,1,zz\n")
        expectPoseError([
            "\(file.path):2: unexpected character after a closing quote",
            "\(file.path):3: column 'a_y': 'zz' is not a number",
        ]) { _ = try SinglePoseSet.read(file) }
    }

    func testErrorDescriptionCapsTheListAndCountsTheRest() throws {
        let folder = try temporaryDirectory(self)
        let rows = (0..<30).map { "\($0),x,1" }.joined(separator: "\n")
        let file = try writePoseFixture(folder, "many.csv", "time,a_x,a_y\n" + rows + "\n")
        let error = try XCTUnwrap(expectPoseError(["\(file.path):2: column 'a_x': 'x' is not a number"]) {
            _ = try PoseClipReader.read(file)
        })
        XCTAssertEqual(error.problems.count, 30)
        let text = try XCTUnwrap(error.errorDescription)
        XCTAssertTrue(text.hasPrefix("30 problems in pose data:"), text)
        XCTAssertTrue(text.contains("\(file.path):21:"), "the 20th problem is shown")
        XCTAssertFalse(text.contains("\(file.path):22:"), "the 21st is not")
        XCTAssertTrue(text.hasSuffix("… and 10 more problems not shown"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 22)
        XCTAssertEqual(error.localizedDescription, text)
    }

    func testLineNumbersWithCRLFBareCRAndQuotedLineBreaks() throws {
        let folder = try temporaryDirectory(self)
        // Line 2 holds a label spanning lines 2–3 (quoted CRLF); line 4 ends with a bare CR.
        let text = "label,a_x,a_y\r\n\"two\r\nlines\",1,2\r\nOpen,1,2\rOpen,x,2\r\nOpen,1,-0.5e0\n"
        let file = try writePoseFixture(folder, "crlf.csv", text)
        expectPoseError(["\(file.path):5: column 'a_x': 'x' is not a number"]) { _ = try SinglePoseSet.read(file) }
        let fixed = try writePoseFixture(folder, "crlf-ok.csv", text.replacingOccurrences(of: "x,2", with: "3,2"))
        let set = try SinglePoseSet.read(fixed)
        XCTAssertEqual(set.labels, ["two\r\nlines", "Open", "Open", "Open"])
        XCTAssertEqual(set.poses.map(\.source.line), [2, 4, 5, 6])
        XCTAssertEqual(set.poses[3].keypoints[0], Keypoint(x: 1, y: -0.5))
    }

    func testWrongKindOfFileAndOutOfRangeConfidence() throws {
        let root = try temporaryDirectory(self)
        let table = try writePoseFixture(root, "Wave/table.csv", "sequence,label,a_x,a_y\n1,Wave,0,0\n")
        expectPoseError(["\(table.path):1: column 'sequence' is not allowed in this kind of file", "is a table of clips, FORMATS §3.4"]) {
            _ = try PoseDataset.load(root)
        }
        let neither = try writePoseFixture(root, "neither.csv", "a_x,a_y\n0,0\n")
        expectPoseError(["\(neither.path):1: is neither a table of clips nor an annotation file"]) { _ = try PoseDataset.load(neither) }
        let negative = try writePoseFixture(root, "negative.csv", "a_x,a_y,a_confidence\n0,0,-0.1\n")
        expectPoseError(["\(negative.path):2: column 'a_confidence': confidence -0.1 is outside 0…1"]) { _ = try PoseClipReader.read(negative) }
        let badChirality = try writePoseFixture(root, "hand.json", #"{"joints": ["wrist"], "chirality": "both", "frames": [{"keypoints": [null]}]}"#)
        expectPoseError(["\(badChirality.path): chirality: is the string \"both\": expected \"left\", \"right\" or \"unknown\""]) {
            _ = try PoseClipReader.read(badChirality)
        }
    }

    func testJSONAnnotationSegmentProblemsNameTheirPath() throws {
        let root = try temporaryDirectory(self)
        try writePoseFixture(root, "clip.csv", "time,a_x,a_y\n0,0,0\n0.5,1,1\n1.0,2,2\n")
        let annotations = try writePoseFixture(root, "labels.json", """
        [{"file": "clip.csv", "label": "ok"},
         {"file": "clip.csv", "label": "late", "start": 0.2, "end": 3},
         {"file": "clip.csv", "label": "reversed", "start": 0.8, "end": 0.4}]
        """)
        expectPoseError([
            "\(annotations.path): [1]: segment ends at 3.0 s, beyond the end of clip 'clip.csv' (0.000–1.500 s)",
            "\(annotations.path): [2]: end 0.4 is not after start 0.8",
        ]) { _ = try PoseDataset.load(annotations) }
    }
}
