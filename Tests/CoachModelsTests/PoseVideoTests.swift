import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// Poses from video files (decoded with FFmpeg's libraries): against per-frame extraction, and
/// with the rotation a phone records honoured.
final class PoseVideoTests: XCTestCase {
    /// Runs the ffmpeg CLI (used only to make test clips), skipping loudly when it is missing.
    func ffmpeg(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-v", "error", "-y"] + arguments
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw skipTest("SKIPPED: no ffmpeg CLI to make test clips (make deps installs it)") }
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw skipTest("SKIPPED: the ffmpeg CLI could not make a test clip") }
    }

    /// An upright clip of the astronaut photo, and the same clip stored turned 90° counter-clockwise
    /// with rotation metadata that displays it upright (as phones record portrait video).
    func clips() throws -> (upright: URL, rotated: URL) {
        let folder = try temporaryDirectory(self)
        let photo = try SharedData.require("reference/efficientnet-lite0/images/astronaut.png").path
        let upright = folder.appendingPathComponent("upright.mp4"), sideways = folder.appendingPathComponent("sideways.mp4")
        let rotated = folder.appendingPathComponent("rotated.mp4")
        try ffmpeg(["-loop", "1", "-i", photo, "-vf", "scale=320:320,format=yuv420p", "-t", "0.5", "-r", "30", "-c:v", "libx264", upright.path])
        try ffmpeg(["-i", upright.path, "-vf", "transpose=2", "-c:v", "libx264", sideways.path])
        // FFmpeg 5.1 writes this tag as the display matrix that turns the sideways frames upright.
        try ffmpeg(["-i", sideways.path, "-c", "copy", "-metadata:s:v:0", "rotate=270", rotated.path])
        return (upright, rotated)
    }

    func testVideoPosesMatchPerFrameExtraction() throws {
        let models = try PoseEstimatorTests.modelFolder()
        let (upright, _) = try clips()
        let clip = try PoseExtractor(joints: .body18, modelFolder: models).extract(from: upright)
        let frames = try VideoDecoder.frames(of: upright)
        XCTAssertEqual(clip.frames.count, frames.count)
        XCTAssertEqual(clip.frames.count, 15)
        let estimator = try BodyPoseEstimator(folder: models)
        for (index, (extracted, frame)) in zip(clip.frames, frames).enumerated() {
            XCTAssertEqual(extracted.time, frame.time, accuracy: 1e-6)
            let single = try XCTUnwrap(estimator.estimate(frame.image)).body18Keypoints
            // Face and shoulders: well seen, so tracking and smoothing move them little.
            for joint in ["nose", "neck", "rightShoulder", "leftShoulder", "rightEye", "leftEye"] {
                let j = JointSet.body18.names.firstIndex(of: joint)!
                XCTAssertEqual(extracted.keypoints[j]!.x, single[j]!.x, accuracy: 0.03, "\(joint) frame \(index)")
                XCTAssertEqual(extracted.keypoints[j]!.y, single[j]!.y, accuracy: 0.03, "\(joint) frame \(index)")
            }
        }
    }

    func testRotationMetadataIsHonoured() throws {
        let models = try PoseEstimatorTests.modelFolder()
        let (upright, rotated) = try clips()
        let decoder = try VideoDecoder(contentsOf: rotated)
        XCTAssertNotEqual(decoder.rotation, 0, "the test clip must carry rotation metadata")
        let extractor = try PoseExtractor(joints: .body18, modelFolder: models)
        let a = try extractor.extract(from: upright), b = try extractor.extract(from: rotated)
        XCTAssertEqual(a.frames.count, b.frames.count)
        let nose = JointSet.body18.names.firstIndex(of: "nose")!, neck = JointSet.body18.names.firstIndex(of: "neck")!
        for (x, y) in zip(a.frames, b.frames) {
            XCTAssertLessThan(y.keypoints[nose]!.y, y.keypoints[neck]!.y, "upright: the nose above the neck")
            for j in [nose, neck] {
                XCTAssertEqual(x.keypoints[j]!.x, y.keypoints[j]!.x, accuracy: 0.02)
                XCTAssertEqual(x.keypoints[j]!.y, y.keypoints[j]!.y, accuracy: 0.02)
            }
        }
    }

    /// A damaged video is a typed error naming the file, never a crash; extraction stops there.
    func testDamagedVideoIsAnError() throws {
        let models = try PoseEstimatorTests.modelFolder()
        let folder = try temporaryDirectory(self)
        let bad = folder.appendingPathComponent("broken.mp4")
        try Data("not a video at all".utf8).write(to: bad)
        XCTAssertThrowsError(try PoseExtractor(joints: .body18, modelFolder: models).extract(from: bad)) { error in
            XCTAssertTrue(((error as? LocalizedError)?.errorDescription ?? "").contains("broken.mp4"), "\(error)")
        }
    }

    /// An entry of a folder of frames named like a photo that is not a readable file — a named pipe,
    /// a folder, a broken link — is refused by name (issue 14: it was skipped silently, a hole in the video).
    func testFramesThatAreNotFilesAreRefusedByName() throws {
        let folder = try temporaryDirectory(self).appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try RGBImage(width: 64, height: 48, color: .white).writePNG(to: folder.appendingPathComponent("0001.png"))
        try RGBImage(width: 64, height: 48, color: .white).writePNG(to: folder.appendingPathComponent("0003.png"))
        XCTAssertEqual(try PoseExtractor.photos(in: folder).map(\.lastPathComponent), ["0001.png", "0003.png"])
        let odd: [(String, String, () throws -> Void)] = [
            ("0002.png", "named pipe", { XCTAssertEqual(mkfifo(folder.appendingPathComponent("0002.png").path, 0o644), 0) }),
            ("0002.png", "folder", { try FileManager.default.createDirectory(at: folder.appendingPathComponent("0002.png"),
                                                                              withIntermediateDirectories: false) }),
            ("0002.png", "symbolic link to nothing", {
                try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("0002.png").path, withDestinationPath: "/nonexistent.png")
            }),
        ]
        for (name, reason, make) in odd {
            try make()
            XCTAssertThrowsError(try PoseExtractor.photos(in: folder), reason) { error in
                XCTAssertEqual((error as? PoseExtractionError).map { if case .unreadableFrame = $0 { return true } else { return false } }, true, "\(error)")
                let message = (error as? LocalizedError)?.errorDescription ?? ""
                XCTAssertTrue(message.contains(folder.appendingPathComponent(name).path) && message.contains(reason), message)
            }
            try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// A folder of frames whose photos differ in size is refused, naming the odd one and the first
    /// (issue 14: it was read, and poses measured against two sizes made one track).
    func testFramesOfDifferentSizesAreRefused() throws {
        let models = try PoseEstimatorTests.modelFolder()
        let folder = try temporaryDirectory(self).appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try RGBImage(width: 64, height: 48, color: .white).writePNG(to: folder.appendingPathComponent("0001.png"))
        try RGBImage(width: 64, height: 48, color: .white).writePNG(to: folder.appendingPathComponent("0002.png"))
        try RGBImage(width: 48, height: 64, color: .white).writePNG(to: folder.appendingPathComponent("0003.png"))
        XCTAssertThrowsError(try PoseExtractor(joints: .body18, modelFolder: models).extract(from: folder)) { error in
            XCTAssertEqual(error as? PoseExtractionError,
                           .mixedFrameSizes(path: folder.appendingPathComponent("0003.png").path, width: 48, height: 64,
                                            expectedWidth: 64, expectedHeight: 48, first: "0001.png"))
        }
    }
}
