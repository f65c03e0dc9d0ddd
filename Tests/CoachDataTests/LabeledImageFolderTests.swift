import CoachData
import Foundation
import TestSupport
import XCTest

/// FORMATS §1: class folders, splits, ignored files and every problem listed.
final class LabeledImageFolderTests: XCTestCase {
    private func touch(_ path: String, in root: URL) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([1]).write(to: url)
    }

    func testReadsClassFoldersAndIgnoresHiddenAndOtherFiles() throws {
        let root = try temporaryDirectory(self)
        for path in ["cone/a.jpg", "cone/B.JPEG", "cone/nested/c.png", "ball/x.png", "ball/.hidden.png", "ball/readme.txt",
                     "notes.md", ".git/config"] { try touch(path, in: root) }
        let folder = try LabeledImageFolder.read(root)
        XCTAssertEqual(folder.labels, ["ball", "cone"])
        XCTAssertEqual(folder.images.map { "\($0.label)/\($0.url.lastPathComponent)" }, ["ball/x.png", "cone/B.JPEG", "cone/a.jpg", "cone/c.png"])
        XCTAssertEqual(Set(folder.ignoredFiles.map(\.lastPathComponent)), [".hidden.png", "readme.txt", "notes.md", ".git"])
        XCTAssertEqual(folder.countsByLabel, ["ball": 1, "cone": 3])
    }

    func testEveryProblemIsListed() throws {
        let root = try temporaryDirectory(self)
        try touch("cone/a.jpg", in: root)
        try touch("empty1/notes.txt", in: root)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("empty2"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try LabeledImageFolder.read(root)) { error in
            XCTAssertEqual(error as? ImageFolderError, .invalidDataset(path: root.path, problems: [
                .emptyClass(label: "empty1", path: root.appendingPathComponent("empty1").path),
                .emptyClass(label: "empty2", path: root.appendingPathComponent("empty2").path)]))
            XCTAssertTrue(error.localizedDescription.contains("2 problems"), error.localizedDescription)
        }
        let bare = try temporaryDirectory(self)
        try touch("loose.jpg", in: bare)
        XCTAssertThrowsError(try LabeledImageFolder.read(bare)) { error in
            XCTAssertEqual(error as? ImageFolderError, .invalidDataset(path: bare.path, problems: [.noClasses(path: bare.path)]))
        }
    }

    func testUnreadableFolderIsReported() throws {
        guard geteuid() != 0 else { throw skipTest("SKIPPED: running as root, which can read any folder; permissions cannot be tested") }
        let root = try temporaryDirectory(self)
        try touch("cone/a.jpg", in: root)
        try touch("ball/b.jpg", in: root)
        let locked = root.appendingPathComponent("ball")
        XCTAssertEqual(chmod(locked.path, 0), 0)
        defer { chmod(locked.path, 0o755) }
        XCTAssertThrowsError(try LabeledImageFolder.read(root)) { error in
            XCTAssertTrue(error.localizedDescription.contains(locked.path), error.localizedDescription)
        }
    }

    /// A zip made by macOS's Finder unpacks elsewhere with `__MACOSX/` beside the data, full of
    /// `._name` resource forks: neither a class nor a split.
    func testMacOSArchiveFolderIsNotAClassOrASplit() throws {
        let root = try temporaryDirectory(self)
        for path in ["train/ants/a.jpg", "train/bees/b.jpg", "test/ants/c.jpg", "__MACOSX/train/ants/._a.jpg",
                     "__MACOSX/._train", "train/ants/._a.jpg"] { try touch(path, in: root) }
        let dataset = try ImageFolderDataset.read(root)
        XCTAssertEqual(dataset.training.labels, ["ants", "bees"])
        XCTAssertEqual(dataset.training.images.map(\.url.lastPathComponent), ["a.jpg", "b.jpg"])
        XCTAssertEqual(dataset.test?.images.map(\.url.lastPathComponent), ["c.jpg"])
        // Class folders: not a class at the top or inside one, and listed among the ignored.
        try touch("ants/__MACOSX/._x.jpg", in: root.appendingPathComponent("flat"))
        try touch("ants/x.jpg", in: root.appendingPathComponent("flat"))
        try touch("__MACOSX/ants/._x.jpg", in: root.appendingPathComponent("flat"))
        let flat = try LabeledImageFolder.read(root.appendingPathComponent("flat"))
        XCTAssertEqual(flat.labels, ["ants"])
        XCTAssertEqual(flat.images.map(\.url.lastPathComponent), ["x.jpg"])
        XCTAssertEqual(Set(flat.ignoredFiles.map(\.lastPathComponent)), ["__MACOSX"])
    }

    /// Photos in formats Coach does not read are named where they matter: a class of only those
    /// says what it held, and the warning counts them by format.
    func testPhotosInOtherFormatsAreNamed() throws {
        let root = try temporaryDirectory(self)
        for path in ["ants/a.jpg", "ants/b.webp", "ants/c.TIFF", "bees/IMG_1.HEIC", "bees/IMG_2.heic", "bees/notes.txt"] {
            try touch(path, in: root)
        }
        XCTAssertThrowsError(try LabeledImageFolder.read(root)) { error in
            let text = error.localizedDescription
            XCTAssertTrue(text.contains("class 'bees' has no images it can read (not read: IMG_1.HEIC: HEIC, which Coach does not read; "
                                        + "IMG_2.heic: HEIC, which Coach does not read)"), text)
        }
        try FileManager.default.removeItem(at: root.appendingPathComponent("bees"))
        try touch("bees/d.png", in: root)
        let folder = try LabeledImageFolder.read(root)
        XCTAssertEqual(LabeledImageFolder.unreadPhotosWarning(folder.ignoredFiles),
                       "2 photos are left out, in formats Coach does not read (TIFF: 1, WebP: 1; e.g. \(root.path)/ants/b.webp): convert them "
                       + "to JPEG or PNG (HEIC: heif-convert from Debian's libheif-examples; others: ImageMagick's convert)")
        XCTAssertNil(LabeledImageFolder.unreadPhotosWarning([root.appendingPathComponent("ants/notes.txt")]))
    }

    func testSplitLayoutAndSeparateValidationFolder() throws {
        let root = try temporaryDirectory(self)
        for path in ["train/cone/a.jpg", "train/ball/b.jpg", "validation/cone/c.jpg", "test/ball/d.png"] { try touch(path, in: root) }
        let dataset = try ImageFolderDataset.read(root)
        XCTAssertEqual(dataset.training.labels, ["ball", "cone"])
        XCTAssertEqual(dataset.validation?.images.map(\.url.lastPathComponent), ["c.jpg"])
        XCTAssertEqual(dataset.test?.images.map(\.url.lastPathComponent), ["d.png"])
        // A folder with a class called "train" beside others is plain class folders.
        let plain = try temporaryDirectory(self)
        for path in ["train/a.jpg", "cone/b.jpg"] { try touch(path, in: plain) }
        XCTAssertEqual(try ImageFolderDataset.read(plain).training.labels, ["cone", "train"])
        // Problems in several splits are listed together.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("test/empty"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("train/none"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try ImageFolderDataset.read(root)) { error in
            let message = error.localizedDescription
            XCTAssertTrue(message.contains("'none'") && message.contains("'empty'"), message)
        }
    }
}
