import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// Datasets that name photos and videos instead of pose clips, read with extracted (and cached) poses.
final class MediaPosesTests: XCTestCase {
    func handPhoto(_ name: String) throws -> URL {
        try SharedData.require("reference/mediapipe/hands/\(name)")
    }

    /// A folder per class of hand photos loads as labeled hand21 poses (Create ML's hand-pose
    /// classifier input); a second read comes from the cache with the same poses; a photo with no
    /// hand is skipped and listed as ignored.
    func testHandPhotoFoldersLoadAsPoses() throws {
        let models = try PoseEstimatorTests.modelFolder()
        let root = try temporaryDirectory(self)
        let cache = root.appendingPathComponent("cache")
        let data = root.appendingPathComponent("data")
        for (label, photos) in [("fist", ["digit0-img_1118.jpg"]), ("open", ["digit5-img_1123.jpg", "digit4-img_1122.jpg"])] {
            let folder = data.appendingPathComponent(label)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for photo in photos { try FileManager.default.copyItem(at: try handPhoto(photo), to: folder.appendingPathComponent(photo)) }
        }
        let grey = try RGBImage(width: 64, height: 64, pixels: [UInt8](repeating: 120, count: 64 * 64 * 3))
        try grey.writePNG(to: data.appendingPathComponent("open/blank.png"))

        var options = PoseReadingOptions()
        options.media = try MediaPoses.reader(joints: .hand21, modelFolder: models, cacheFolder: cache)
        let set = try SinglePoseSet.load(data, options: options)
        XCTAssertEqual(set.jointSet, .hand21)
        XCTAssertEqual(set.poses.map(\.label), ["fist", "open", "open"])
        XCTAssertTrue(set.poses.allSatisfy { $0.keypoints.allSatisfy { $0 != nil } && $0.chirality == .right })
        let cached = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        XCTAssertEqual(cached.filter { $0.hasSuffix(".json") }.count, 4, "one cached clip per photo, the blank one included")

        let again = try SinglePoseSet.load(data, options: options)
        for (a, b) in zip(set.poses, again.poses) {
            for (p, q) in zip(a.keypoints, b.keypoints) {
                XCTAssertEqual(p!.x, q!.x, accuracy: 1e-5)
                XCTAssertEqual(p!.y, q!.y, accuracy: 1e-5)
            }
        }
        let dataset = try PoseDataset.loadClassFolders(data, options: options)
        XCTAssertEqual(dataset.ignoredFiles.map(\.lastPathComponent), ["blank.png"])
    }

    /// Without a media reader a photo where a clip is expected is an error that says how to get poses.
    func testMediaWithoutModelsIsAnActionableError() throws {
        let root = try temporaryDirectory(self)
        let folder = root.appendingPathComponent("wave")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try handPhoto("digit0-img_1118.jpg"), to: folder.appendingPathComponent("a.jpg"))
        XCTAssertThrowsError(try PoseDataset.loadClassFolders(root)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.contains("a.jpg") && text.contains("is a photo") && text.contains("coach extract-poses"), text)
        }
    }
}
