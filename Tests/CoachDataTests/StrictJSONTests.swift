import CoachData
import Foundation
import TestSupport
import XCTest

/// Strict JSON syntax: what Foundation's parser lets through or reports without a place is
/// caught with its line, column and JSON path (issue 14: trailing commas were accepted).
final class StrictJSONTests: XCTestCase {
    func problem(_ text: String) -> StrictJSON.Problem? { StrictJSON.check(Data(text.utf8)) }

    func testValidDocumentsPass() {
        for text in ["[]", "{}", "0", "-0.5e-3", "\"a\\u00e9\\n\"", "true", " null ", "[1, [2, {\"a\": [false]}], {}]",
                     "{\"image\": \"a.jpg\", \"annotations\": [{\"label\": \"board\", \"coordinates\": {\"x\": 1.5E2}}]}",
                     String(repeating: "[", count: 512) + String(repeating: "]", count: 512)] {
            XCTAssertNil(problem(text), text)
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]), "Foundation agrees on \(text)")
        }
    }

    func testEachProblemIsPlacedAndNamed() throws {
        let cases: [(String, Int, Int, String, String)] = [
            ("[1, 2,]", 1, 7, "$[1]", "trailing comma before ']'"),
            ("{\"a\": {\"b\": 1,\n  }}", 2, 3, "$.a.b", "trailing comma before '}'"),
            ("[{\"x\": 1e400}]", 1, 8, "$[0].x", "1e400 is out of range"),
            ("{\"a\": [1, 2 3]}", 1, 13, "$.a[1]", "expected ',' or ']'"),
            ("[01]", 1, 2, "$[0]", "leading zeros"),
            ("[1.]", 1, 4, "$[0]", "decimal point"),
            ("{\"a\" 1}", 1, 6, "$.a", "expected ':'"),
            ("{a: 1}", 1, 2, "$", "expected a quoted key"),
            ("[True]", 1, 2, "$[0]", "lower case"),
            ("[\"tab\there\"]", 1, 6, "$[0]", "control character"),
            ("[\"\\x\"]", 1, 4, "$[0]", "unknown escape"),
            ("[\"open]", 1, 2, "$[0]", "never ends"),
            ("[1] [2]", 1, 5, "$", "after the JSON value"),
            ("[1, 2", 1, 6, "$[1]", "ends inside an array"),
            ("", 1, 1, "$", "no JSON value"),
            (String(repeating: "[", count: 513), 1, 513, "$" + String(repeating: "[0]", count: 512), "nested more than 512"),
        ]
        for (text, line, column, path, message) in cases {
            let found = try XCTUnwrap(problem(text), text)
            XCTAssertEqual([found.line, found.column], [line, column], "\(text): \(found)")
            XCTAssertEqual(found.path, path, text)
            XCTAssertTrue(found.message.contains(message), "\(text): \(found.message)")
        }
    }

    /// The readers report it with the file: a Create ML annotation file with a trailing comma.
    func testAnnotationFileWithATrailingCommaIsRefused() throws {
        let folder = try temporaryDirectory(self)
        try ImageEncoder.pngData(RGBImage(width: 40, height: 30, color: .white)).write(to: folder.appendingPathComponent("a.png"))
        let file = folder.appendingPathComponent("annotations.json")
        try Data("[{\"image\": \"a.png\", \"annotations\": [{\"label\": \"board\", \"coordinates\": {\"x\": 20, \"y\": 15, \"width\": 4, \"height\": 4}},]}]".utf8)
            .write(to: file)
        XCTAssertThrowsError(try DetectionDataset.load(from: file)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("annotations.json:1:") && text.contains("$[0].annotations[0]") && text.contains("trailing comma"), text)
        }
    }

    /// A UTF-8 byte-order mark (Windows editors write one) is read past in JSON as it is in CSV,
    /// by both JSON readers; a mark anywhere else is still an error with its place.
    func testByteOrderMarkIsReadPast() throws {
        let folder = try temporaryDirectory(self)
        let mark = "\u{FEFF}"
        XCTAssertEqual(StrictJSON.droppingByteOrderMark(Data((mark + "[1]").utf8)), Data("[1]".utf8))
        XCTAssertEqual(StrictJSON.droppingByteOrderMark(Data("[1]".utf8)), Data("[1]".utf8))
        XCTAssertNotNil(problem("[1, " + mark + "2]"), "a mark inside the document is not white space")

        try ImageEncoder.pngData(RGBImage(width: 40, height: 30, color: .white)).write(to: folder.appendingPathComponent("a.png"))
        let annotations = folder.appendingPathComponent("annotations.json")
        try Data((mark + "[{\"image\": \"a.png\", \"annotations\": [{\"label\": \"board\", \"coordinates\": {\"x\": 20, \"y\": 15, \"width\": 4, \"height\": 4}}]}]").utf8)
            .write(to: annotations)
        let dataset = try DetectionDataset.load(from: annotations)
        XCTAssertEqual(dataset.images.count, 1)

        let clip = try writePoseFixture(folder, "clip.json", mark + "{\"joints\": [\"a\"], \"frames\": [{\"keypoints\": [[0.5, 0.5, 1]]}]}")
        XCTAssertEqual(try PoseClipReader.read(clip).frames.count, 1)
    }
}
