import CoachData
import Foundation
import TestSupport
import XCTest

/// Class folders read only regular files of their own (issue 14: a FIFO hung training, a link
/// loop relabelled every photo).
final class DataFilesTests: XCTestCase {
    func testPipesLoopsAndLinksOutOfAClassAreNotRead() throws {
        let root = try temporaryDirectory(self)
        let ball = root.appendingPathComponent("ball"), bat = root.appendingPathComponent("bat")
        try FileManager.default.createDirectory(at: ball, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: bat, withIntermediateDirectories: true)
        for url in [ball.appendingPathComponent("a.jpg"), bat.appendingPathComponent("b.jpg")] { try Data([0xFF, 0xD8]).write(to: url) }
        XCTAssertEqual(mkfifo(ball.appendingPathComponent("pipe.jpg").path, 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: ball.appendingPathComponent("loop").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: ball.appendingPathComponent("stolen.jpg").path, withDestinationPath: "../bat/b.jpg")
        try FileManager.default.createSymbolicLink(atPath: ball.appendingPathComponent("alias.jpg").path, withDestinationPath: "a.jpg")

        let folder = try LabeledImageFolder.read(root)
        XCTAssertEqual(folder.images.filter { $0.label == "ball" }.map(\.url.lastPathComponent), ["a.jpg", "alias.jpg"])
        XCTAssertEqual(folder.images.filter { $0.label == "bat" }.map(\.url.lastPathComponent), ["b.jpg"])
        let ignored = Set(folder.ignoredFiles.map(\.lastPathComponent))
        XCTAssertTrue(ignored.isSuperset(of: ["pipe.jpg", "loop", "stolen.jpg"]), "\(ignored)")

        XCTAssertTrue(DataFiles.isReadableFile(ball.appendingPathComponent("a.jpg"), inClassFolder: ball))
        XCTAssertFalse(DataFiles.isReadableFile(ball.appendingPathComponent("pipe.jpg"), inClassFolder: ball))
        XCTAssertFalse(DataFiles.isRealFolder(ball.appendingPathComponent("loop")))
    }
}
