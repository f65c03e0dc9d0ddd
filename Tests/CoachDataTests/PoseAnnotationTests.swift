import CoachData
import TestSupport
import XCTest

final class PoseAnnotationTests: XCTestCase {
    /// `clips/a.csv`: 11 frames at 0.0…1.0 s (x = time); `clips/b.json`: 20 untimed frames at 30 fps.
    private func writeClips(_ root: URL) throws {
        let rows = (0...10).map { "\(Double($0) / 10),\(Double($0) / 10),0.5" }.joined(separator: "\n")
        try writePoseFixture(root, "clips/a.csv", "time,a_x,a_y\n" + rows + "\n")
        let frames = (0..<20).map { "{\"keypoints\": [[\($0), 0, 1]]}" }.joined(separator: ",")
        try writePoseFixture(root, "clips/b.json", "{\"frameRate\": 30, \"joints\": [\"a\"], \"frames\": [\(frames)]}")
    }

    func testCSVAnnotationsWithVideoAliasStemsAndSeveralSegments() throws {
        let root = try temporaryDirectory(self)
        try writeClips(root)
        let annotationFile = try writePoseFixture(root, "annotations.csv", """
        video,label,start,end,comment
        clips/a.mov,"Jumping \"\"high\"\"",0,0.5,first half
        clips/a.csv,"Other, idle",0.5,,"rest of clip a"
        clips/b.mp4,none,,,
        """)
        let annotations = try PoseAnnotationReader.read(annotationFile)
        XCTAssertEqual(annotations.map(\.poseFile.lastPathComponent), ["a.csv", "a.csv", "b.json"])
        XCTAssertEqual(annotations.map(\.reference), ["clips/a.mov", "clips/a.csv", "clips/b.mp4"])
        XCTAssertEqual(annotations.map(\.line), [2, 3, 4])
        XCTAssertEqual(annotations.map(\.start), [0, 0.5, nil])
        XCTAssertEqual(annotations.map(\.end), [0.5, nil, nil])

        let dataset = try PoseDataset.loadAnnotations(annotationFile)
        XCTAssertEqual(dataset.clips.count, 2, "clip a is read once for both of its segments")
        XCTAssertEqual(dataset.clips[0].segments.count, 2)
        XCTAssertEqual(dataset.examples.map(\.label), ["Jumping \"high\"", "Other, idle", "none"])
        XCTAssertEqual(dataset.examples[0].sequence.frames.map(\.time), [0, 0.1, 0.2, 0.3, 0.4])
        XCTAssertEqual(dataset.examples[1].sequence.frames.map(\.time), [0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
        XCTAssertEqual(dataset.examples[2].sequence.frames.count, 20)
        XCTAssertEqual(dataset.examples.map(\.clipIndex), [0, 0, 1])
        XCTAssertEqual(dataset.examples.map(\.segmentIndex), [0, 1, 0])
        XCTAssertEqual(dataset.backgroundLabel, "none")
        XCTAssertEqual(dataset.jointSet.names, ["a"])
        // load(_:) recognises an annotation CSV by its columns.
        XCTAssertEqual(try PoseDataset.load(annotationFile).examples.count, 3)
    }

    func testJSONAnnotationsRelativeToTheirFolder() throws {
        let root = try temporaryDirectory(self)
        try writeClips(root)
        let annotationFile = try writePoseFixture(root, "clips/labels.json", """
        [ {"file": "a.csv", "label": "wave", "start": 0.2, "end": 0.45},
          {"video": "b.mov", "label": "Background", "start": null},
          {"file": "a.csv", "label": "wave", "start": 0.9} ]
        """)
        let dataset = try PoseDataset.load(annotationFile)
        XCTAssertEqual(dataset.examples.map(\.label), ["wave", "wave", "Background"])
        XCTAssertEqual(dataset.examples[0].sequence.frames.map(\.time), [0.2, 0.3, 0.4])
        XCTAssertEqual(dataset.examples[1].sequence.frames.map(\.time), [0.9, 1.0])
        XCTAssertEqual(dataset.classCounts, ["wave": 2, "Background": 1])
        XCTAssertEqual(dataset.backgroundLabel, "Background")
        let annotations = try PoseAnnotationReader.read(annotationFile)
        XCTAssertEqual(annotations.map(\.jsonPath), ["[0]", "[1]", "[2]"])
    }

    func testAnnotationProblemsWithLines() throws {
        let root = try temporaryDirectory(self)
        try writeClips(root)
        let annotationFile = try writePoseFixture(root, "annotations.csv", """
        file,label,start,end
        clips/a.csv,wave,0,5
        clips/a.csv,wave,0.5,0.5
        clips/missing.csv,wave,,
        clips/ghost.mov,wave,,
        clips/a.csv,wave,2.0,
        clips/a.csv,,0,1
        clips/a.csv,wave,soon,1
        clips/b.json,wave,0.61,0.62
        """)
        let path = annotationFile.path
        expectPoseError([
            "\(path):2: segment ends at 5.0 s, beyond the end of clip 'a.csv' (0.000–1.100 s)",
            "\(path):3: end 0.5 is not after start 0.5: expected end > start",
            "\(path):4: file 'clips/missing.csv' does not exist",
            "\(path):5: file 'clips/ghost.mov' has no pose clip (looked for ghost.csv and ghost.json",
            "\(path):6: segment starts at 2.0 s, at or after the end of clip 'a.csv'",
            "\(path):7: the label is empty",
            "\(path):8: column 'start': 'soon' is not a time",
            "\(path):9: segment 0.61–0.62 s holds no frame of clip 'b.json'",
        ]) { _ = try PoseDataset.loadAnnotations(annotationFile) }

        // A row naming the annotation file's own folder (".", a folder of no photos): the reason is
        // given at the row too (issue 14: only the folder was named, with no file or line).
        let dot = try writePoseFixture(root, "dot.csv", "file,label\nclips/a.csv,wave\n.,wave\n")
        XCTAssertThrowsError(try PoseDataset.loadAnnotations(dot)) { error in
            let message = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(message.contains("\(dot.path):3: names '.', which cannot be read as a pose clip"), message)
        }

        let noLabel = try writePoseFixture(root, "nolabel.csv", "file,start\nclips/a.csv,0\n")
        expectPoseError(["\(noLabel.path):1: has no 'label' column"]) { _ = try PoseAnnotationReader.read(noLabel) }
        let jsonProblems = try writePoseFixture(root, "bad.json", #"[{"file": "clips/a.csv", "label": 3}, {"label": "x"}, {"file": "clips/a.csv", "label": "x", "end": "late"}]"#)
        expectPoseError([
            "\(jsonProblems.path): [0].label: is the number 3: expected the class label as a string",
            "\(jsonProblems.path): [1]: has no \"file\" (or \"video\")",
            "\(jsonProblems.path): [2].end: is the string \"late\": expected a time in seconds",
        ]) { _ = try PoseAnnotationReader.read(jsonProblems) }
    }

    /// Segments of one clip with different labels may meet but not overlap by more than a frame
    /// (issue 14: they were accepted, and a window inside both was taught two labels); every
    /// overlapping pair is listed, at the later annotation's line.
    func testOverlappingSegmentsWithDifferentLabelsAreRefused() throws {
        let root = try temporaryDirectory(self)
        try writeClips(root)
        let meeting = try writePoseFixture(root, "meeting.csv", """
        file,label,start,end
        clips/a.csv,wave,0,0.5
        clips/a.csv,idle,0.5,
        clips/a.csv,wave,0.2,0.4
        clips/b.json,idle,0,0.3
        clips/b.json,wave,0.29,
        """)
        XCTAssertEqual(try PoseDataset.loadAnnotations(meeting).examples.count, 5,
                       "meeting at a boundary, sharing less than a frame, or overlapping with the same label is fine")

        let overlapping = try writePoseFixture(root, "overlapping.csv", """
        file,label,start,end
        clips/a.csv,wave,0,0.6
        clips/a.csv,idle,0.4,
        clips/b.json,idle,,
        clips/b.json,wave,0.2,0.4
        """)
        let path = overlapping.path
        expectPoseError([
            "\(path):3: segment 'idle' 0.400–1.100 s overlaps segment 'wave' 0.000–0.600 s (line 2) of clip 'a.csv' by 0.200 s",
            "\(path):5: segment 'wave' 0.200–0.400 s overlaps segment 'idle' 0.000–0.667 s (line 4) of clip 'b.json' by 0.200 s",
        ]) { _ = try PoseDataset.loadAnnotations(overlapping) }
    }
}
