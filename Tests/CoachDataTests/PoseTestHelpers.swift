import CoachData
import Foundation
import XCTest

/// Writes `text` to `name` (which may contain folders) inside `folder` and returns its URL.
@discardableResult
func writePoseFixture(_ folder: URL, _ name: String, _ text: String) throws -> URL {
    let url = folder.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
    return url
}

/// Runs `body`, expecting a `PoseDataError`; fails unless every fragment occurs in some problem's
/// description. Returns the error for further checks.
@discardableResult
func expectPoseError(_ fragments: [String], file: StaticString = #filePath, line: UInt = #line,
                     _ body: () throws -> Void) -> PoseDataError? {
    do {
        try body()
        XCTFail("expected a PoseDataError containing \(fragments)", file: file, line: line)
        return nil
    } catch let error as PoseDataError {
        let descriptions = error.problems.map(\.description)
        for fragment in fragments where !descriptions.contains(where: { $0.contains(fragment) }) {
            XCTFail("no problem contains \"\(fragment)\"; problems:\n" + descriptions.joined(separator: "\n"), file: file, line: line)
        }
        return error
    } catch {
        XCTFail("expected a PoseDataError, got \(error)", file: file, line: line)
        return nil
    }
}

/// A compact description of a keypoint for comparisons in messages.
func describe(_ keypoint: Keypoint?) -> String {
    guard let k = keypoint else { return "nil" }
    return "(\(k.x), \(k.y), \(k.z.map { "\($0)" } ?? "-"), \(k.confidence))"
}
