import CoachSamples
import Foundation
import TestSupport
import XCTest

/// The motion-capture reader: the shipped files, the body18 mapping, and typed errors for damage.
final class MocapReaderTests: XCTestCase {
    private var header: String {
        "frame,time," + MocapClip.jointNames.flatMap { ["\($0)_x", "\($0)_y", "\($0)_z"] }.joined(separator: ",")
    }
    private func row(_ frame: Int) -> String {
        "\(frame),\(Double(frame) / 30)," + (0..<45).map { _ in "0.10" }.joined(separator: ",")
    }
    private func write(_ text: String, _ name: String = "01_01.csv") throws -> URL {
        let url = try temporaryDirectory(self).appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func testShippedLibraryLoads() throws {
        let library = try MotionCaptureLibrary(directory: MotionCaptureLibrary.bundledDirectory)
        XCTAssertEqual(library.clips.count, 61)
        XCTAssertEqual(Set(library.clips.map(\.subject)), [1, 2, 3, 5, 6, 7])
        XCTAssertTrue(library.clips.allSatisfy { abs($0.frameRate - 30) < 0.1 })
        // The capture stands upright: head base above the root, above the ankles.
        let first = library.clips[0].frames[0]
        XCTAssertGreaterThan(first[0].y, first[14].y)
        XCTAssertGreaterThan(first[14].y, first[12].y)
    }

    func testBody18MappingPlacesNeckAndFace() {
        // Standing facing +z: left shoulder at +x.
        var capture = [SIMD3<Float>](repeating: .zero, count: 15)
        capture[0] = SIMD3(0, 1.55, 0); capture[1] = SIMD3(0, 1.45, 0)
        capture[2] = SIMD3(0.2, 1.42, 0); capture[3] = SIMD3(-0.2, 1.40, 0)
        capture[12] = SIMD3(0.1, 0.07, 0); capture[13] = SIMD3(-0.1, 0.07, 0)
        let body = MocapClip.body18(from: capture, height: 1.8)
        XCTAssertEqual(body[.neck].y, 1.41, accuracy: 1e-5)
        XCTAssertEqual(body[.neck].x, 0, accuracy: 1e-6)
        XCTAssertEqual(body[.leftShoulder], capture[2])
        XCTAssertEqual(body[.rightAnkle], capture[13])
        XCTAssertGreaterThan(body[.nose].z, 0.05, "the face points forward, perpendicular to the shoulders")
        XCTAssertGreaterThan(body[.nose].y, capture[0].y, "Vision's nose is above the head base")
        XCTAssertGreaterThan(body[.leftEye].x, body[.rightEye].x)
        XCTAssertGreaterThan(body[.leftEar].x, body[.leftEye].x)
    }

    func testTruncatedFileNamesFileAndLine() throws {
        var text = header + "\n" + row(0) + "\n" + row(1) + "\n"
        text += String(row(2).prefix(40))  // cut off mid-row
        let url = try write(text)
        XCTAssertThrowsError(try MocapReader.load(url)) { error in
            guard case MocapError.wrongCellCount(let path, let line, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, url.path)
            XCTAssertEqual(line, 4)
            XCTAssertTrue(error.localizedDescription.contains("01_01.csv:4"))
        }
    }

    func testMissingJointColumnIsNamed() throws {
        let url = try write(header.replacingOccurrences(of: "leftKnee_y", with: "leftKnee_w") + "\n" + row(0) + "\n")
        XCTAssertThrowsError(try MocapReader.load(url)) { error in
            XCTAssertEqual(error as? MocapError, .missingColumn(path: url.path, column: "leftKnee_y"))
            XCTAssertTrue(error.localizedDescription.contains("leftKnee_y"))
        }
    }

    func testNaNAndNonNumericCellsNameLineAndColumn() throws {
        for bad in ["nan", "NaN", "abc", "inf", ""] {
            var cells = row(1).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            cells[2 + 7] = bad  // leftShoulder_y
            let url = try write(header + "\n" + row(0) + "\n" + cells.joined(separator: ",") + "\n")
            XCTAssertThrowsError(try MocapReader.load(url), bad) { error in
                XCTAssertEqual(error as? MocapError, .badNumber(path: url.path, line: 3, column: "leftShoulder_y", text: bad))
                XCTAssertTrue(error.localizedDescription.contains(url.path + ":3"))
            }
        }
    }

    func testEmptyFileAndMissingFolder() throws {
        let url = try write(header + "\n")
        XCTAssertEqual(try? { () throws -> MocapClip in try MocapReader.load(url) }(), nil)
        XCTAssertThrowsError(try MocapReader.load(url)) { XCTAssertEqual($0 as? MocapError, .empty(path: url.path)) }
        XCTAssertThrowsError(try MocapReader.loadLibrary(URL(fileURLWithPath: "/nonexistent/mocap"))) { error in
            XCTAssertTrue(error.localizedDescription.contains("/nonexistent/mocap"))
        }
    }
}
