import CoachData
import Foundation
import TestSupport
import XCTest

/// Class folders read only regular files, and links only to files of their own class or outside
/// the dataset (issue 14: a FIFO hung training, a link loop relabelled every photo; split folders
/// built from links to one collection are read, as other tools read them).
final class DataFilesTests: XCTestCase {
    private func link(_ path: URL, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path.path, withDestinationPath: destination)
    }

    func testPipesLoopsAndLinksIntoAnotherClassAreNotRead() throws {
        let root = try temporaryDirectory(self)
        let ball = root.appendingPathComponent("ball"), bat = root.appendingPathComponent("bat")
        try FileManager.default.createDirectory(at: ball, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: bat, withIntermediateDirectories: true)
        for url in [ball.appendingPathComponent("a.jpg"), bat.appendingPathComponent("b.jpg")] { try Data([0xFF, 0xD8]).write(to: url) }
        XCTAssertEqual(mkfifo(ball.appendingPathComponent("pipe.jpg").path, 0o644), 0)
        try link(ball.appendingPathComponent("loop"), to: "..")
        try link(ball.appendingPathComponent("stolen.jpg"), to: "../bat/b.jpg")
        try link(ball.appendingPathComponent("alias.jpg"), to: "a.jpg")
        try link(ball.appendingPathComponent("gone.jpg"), to: "nowhere.jpg")

        let folder = try LabeledImageFolder.read(root)
        XCTAssertEqual(folder.images.filter { $0.label == "ball" }.map(\.url.lastPathComponent), ["a.jpg", "alias.jpg"])
        XCTAssertEqual(folder.images.filter { $0.label == "bat" }.map(\.url.lastPathComponent), ["b.jpg"])
        let ignored = Set(folder.ignoredFiles.map(\.lastPathComponent))
        XCTAssertTrue(ignored.isSuperset(of: ["pipe.jpg", "loop", "stolen.jpg", "gone.jpg"]), "\(ignored)")

        func reason(_ name: String) -> String? { DataFiles.skipReason(ball.appendingPathComponent(name), inClassFolder: ball, datasetRoot: root) }
        XCTAssertNil(reason("a.jpg"))
        XCTAssertNil(reason("alias.jpg"))
        XCTAssertEqual(reason("pipe.jpg"), "not a regular file (a named pipe, socket or device)")
        XCTAssertEqual(reason("loop"), "a link to a folder (links to folders are not followed)")
        XCTAssertEqual(reason("gone.jpg"), "a symbolic link to nothing")
        XCTAssertTrue(reason("stolen.jpg")?.contains("in another class folder") == true, "\(reason("stolen.jpg") ?? "nil")")
        XCTAssertFalse(DataFiles.isRealFolder(ball.appendingPathComponent("loop")))
    }

    /// `train/<label>/` and `test/<label>/` made of links into one collection, as people split data.
    func testSplitFoldersOfLinksToFilesOutsideTheDatasetAreRead() throws {
        let base = try temporaryDirectory(self)
        let all = base.appendingPathComponent("all"), train = base.appendingPathComponent("train")
        try writePoseFixture(all, "wave/1.csv", "a_x,a_y\n0,0\n1,1\n")
        try writePoseFixture(all, "clap/2.csv", "a_x,a_y\n0,1\n1,0\n")
        for label in ["wave", "clap"] {
            try FileManager.default.createDirectory(at: train.appendingPathComponent(label), withIntermediateDirectories: true)
        }
        try link(train.appendingPathComponent("wave/1.csv"), to: all.appendingPathComponent("wave/1.csv").path)
        try link(train.appendingPathComponent("clap/2.csv"), to: "../../all/clap/2.csv")
        let dataset = try PoseDataset.load(train)
        XCTAssertEqual(dataset.clips.map { $0.segments[0].label }.sorted(), ["clap", "wave"])
        XCTAssertTrue(dataset.ignoredFiles.isEmpty, "\(dataset.ignoredFiles)")

        // Images likewise.
        try Data([0xFF, 0xD8]).write(to: all.appendingPathComponent("wave/photo.jpg"))
        let photos = base.appendingPathComponent("photos/wave")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try link(photos.appendingPathComponent("photo.jpg"), to: all.appendingPathComponent("wave/photo.jpg").path)
        XCTAssertEqual(try LabeledImageFolder.read(photos.deletingLastPathComponent()).images.map(\.label), ["wave"])
    }

    /// The `__MACOSX` folder a Finder zip unpacks beside pose clips is neither a class nor a split.
    func testMacOSArchiveFolderBesidePoseClipsIsIgnored() throws {
        let root = try temporaryDirectory(self)
        try writePoseFixture(root, "wave/1.csv", "a_x,a_y\n0,0\n1,1\n")
        try writePoseFixture(root, "clap/2.csv", "a_x,a_y\n0,1\n1,0\n")
        try writePoseFixture(root, "__MACOSX/wave/._1.csv", "\u{0}\u{5}\u{16}\u{7}")
        let dataset = try PoseDataset.load(root)
        XCTAssertEqual(dataset.clips.map { $0.segments[0].label }.sorted(), ["clap", "wave"])
        XCTAssertEqual(dataset.ignoredFiles.map(\.lastPathComponent), ["__MACOSX"])
        XCTAssertFalse(DataFiles.isIgnoredName("MACOSX"))
        XCTAssertTrue(DataFiles.isIgnoredName("._1.csv"))
    }

    /// A class whose only files are links it may not read says which and why, not just "no clips".
    func testAClassOfUnreadableLinksSaysWhy() throws {
        let root = try temporaryDirectory(self)
        try writePoseFixture(root, "wave/1.csv", "a_x,a_y\n0,0\n1,1\n")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("clap"), withIntermediateDirectories: true)
        try link(root.appendingPathComponent("clap/copy.csv"), to: "../wave/1.csv")
        expectPoseError(["class folder 'clap' has no .csv or .json clips", "copy.csv: a link to", "in another class folder"]) {
            _ = try PoseDataset.load(root)
        }

        try Data([0xFF, 0xD8]).write(to: root.appendingPathComponent("wave/w.jpg"))
        try link(root.appendingPathComponent("clap/w.jpg"), to: "../wave/w.jpg")
        XCTAssertThrowsError(try LabeledImageFolder.read(root)) { error in
            let text = error.localizedDescription
            XCTAssertTrue(text.contains("class 'clap' has no images it can read (not read: w.jpg: a link to"), text)
        }
    }
}
