import CoachModels
import Foundation
import TestSupport
import XCTest

/// Commands never write their model over their own data or other files (issue 14's data loss).
final class OutputGuardTests: XCTestCase {
    /// `--output` naming the training data is refused and the data is untouched; `--overwrite`
    /// would be needed. A folder as output is refused even with `--overwrite`.
    func testTrainingRefusesToOverwriteItsData() throws {
        let folder = try temporaryDirectory(self)
        let table = folder.appendingPathComponent("poses.csv")
        let text = "label,wrist_x,wrist_y\nopen,0.1,0.2\nfist,0.3,0.4\n"
        try Data(text.utf8).write(to: table)
        // The training data itself: refused, even with --overwrite.
        for extra in [[], ["--overwrite"]] {
            let result = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", table.path, "--output", table.path, "--quiet"] + extra)
            XCTAssertNotEqual(result.exitCode, 0)
            XCTAssertTrue(result.standardError.contains("is one of this command's inputs"), result.standardError)
            XCTAssertEqual(try String(contentsOf: table, encoding: .utf8), text)
        }
        // Another file: refused, naming --overwrite.
        let notes = folder.appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: notes)
        let result = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", table.path, "--output", notes.path, "--quiet"])
        XCTAssertNotEqual(result.exitCode, 0)
        XCTAssertTrue(result.standardError.contains("is not a Coach model") && result.standardError.contains("--overwrite"), result.standardError)
        XCTAssertEqual(try String(contentsOf: notes, encoding: .utf8), "keep me")

        // A clip inside the training folder: refused even with --overwrite.
        let clips = try ActionClassifierCommandTests.writeDataset(in: folder)
        let clip = clips.appendingPathComponent("circle/clip-1.csv")
        let clipText = try String(contentsOf: clip, encoding: .utf8)
        let intoData = try CoachExecutable.run(["train", "action-classifier", "--data", clips.path, "--output", clip.path,
                                                "--overwrite", "--quiet"])
        XCTAssertNotEqual(intoData.exitCode, 0)
        XCTAssertTrue(intoData.standardError.contains("inside this command's data"), intoData.standardError)
        XCTAssertEqual(try String(contentsOf: clip, encoding: .utf8), clipText)

        // Something that is not a checkpoint where the checkpoint goes: refused, kept.
        let victim = folder.appendingPathComponent("victim.checkpoint.h5")
        try Data("keep me".utf8).write(to: victim)
        let overCheckpoint = try CoachExecutable.run(["train", "action-classifier", "--data", clips.path, "--output",
                                                      folder.appendingPathComponent("victim.h5").path, "--prediction-window", "16",
                                                      "--max-iterations", "2", "--quiet"])
        XCTAssertNotEqual(overCheckpoint.exitCode, 0)
        XCTAssertTrue(overCheckpoint.standardError.contains("is where this run keeps its checkpoint"), overCheckpoint.standardError)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "keep me")

        let directory = folder.appendingPathComponent("out.h5")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let second = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", table.path, "--output", directory.path, "--overwrite", "--quiet"])
        XCTAssertNotEqual(second.exitCode, 0)
        XCTAssertTrue(second.standardError.contains("not a regular file"), second.standardError)
    }

    /// generate-samples writes only into folders it made (or empty ones): a user's folder of the
    /// same name is refused untouched unless `--overwrite`; its own output is rewritten freely.
    func testGenerateSamplesKeepsOutOfOtherFolders() throws {
        let root = try temporaryDirectory(self)
        let theirs = root.appendingPathComponent("hand-poses")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: true)
        let mine = theirs.appendingPathComponent("train.csv")
        try Data("my own data\n".utf8).write(to: mine)
        let refused = try CoachExecutable.run(["generate-samples", "--only", "hand-poses", "--output", root.path])
        XCTAssertNotEqual(refused.exitCode, 0)
        XCTAssertTrue(refused.standardError.contains("not made by generate-samples") && refused.standardError.contains("--overwrite"),
                      refused.standardError)
        XCTAssertEqual(try String(contentsOf: mine, encoding: .utf8), "my own data\n")

        let other = root.appendingPathComponent("fresh")
        XCTAssertEqual(try CoachExecutable.run(["generate-samples", "--only", "hand-poses", "--output", other.path]).exitCode, 0)
        let again = try CoachExecutable.run(["generate-samples", "--only", "hand-poses", "--output", other.path])
        XCTAssertEqual(again.exitCode, 0, again.standardError)
        XCTAssertEqual(try CoachExecutable.run(["generate-samples", "--only", "hand-poses", "--output", root.path, "--overwrite"]).exitCode, 0)
        XCTAssertNotEqual(try String(contentsOf: mine, encoding: .utf8), "my own data\n")
    }

    /// The model writer replaces only regular files, and clears temporaries that an interrupted
    /// write of the same file left (their process is gone) while keeping a live writer's.
    func testModelWriterRefusesDevicesAndClearsStaleTemporaries() throws {
        let folder = try temporaryDirectory(self)
        let file = ModelFile(metadata: ModelMetadata(task: "graph-test"))
        XCTAssertThrowsError(try file.write(to: URL(fileURLWithPath: "/dev/null"))) { error in
            XCTAssertTrue(((error as? LocalizedError)?.errorDescription ?? "").contains("not a regular file"), "\(error)")
        }
        let target = folder.appendingPathComponent("m.h5")
        let stale = folder.appendingPathComponent("m.h5.tmp-2147483000-AAAA"), live = folder.appendingPathComponent("m.h5.tmp-\(getpid())-BBBB")
        try Data("partial".utf8).write(to: stale)
        try Data("in progress".utf8).write(to: live)
        try file.write(to: target)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live.path))
        XCTAssertEqual(try ModelFile.read(from: target).metadata.task, "graph-test")
    }
}

/// Thresholds outside 0…1 (2, NaN) are refused, not silently used.
final class ThresholdValidationTests: XCTestCase {
    func testPredictThresholdsAreProbabilities() throws {
        for arguments in [["--confidence-threshold", "2"], ["--confidence-threshold", "nan"], ["--iou-threshold", "2"], ["--iou-threshold", "nan"]] {
            let result = try CoachExecutable.run(["predict", "model.h5", "image.jpg"] + arguments)
            XCTAssertNotEqual(result.exitCode, 0, "\(arguments)")
            XCTAssertTrue(result.standardError.contains("must be a number in 0…1"), result.standardError)
        }
    }
}

/// `coach extract-poses` end to end on a real photo: the clip, the drawing, and no overwriting.
final class ExtractPosesCommandTests: XCTestCase {
    /// Two inputs that would write one clip (same name, other folder or extension) are refused
    /// before any work, naming both, instead of the second silently replacing the first.
    func testInputsWithOneNameAreRefused() throws {
        let directory = try temporaryDirectory(self)
        let inputs = ["a/x.png", "b/x.png", "b/y.png", "b/y.jpg"].map { directory.appendingPathComponent($0) }
        for url in inputs {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("a photo".utf8).write(to: url)
        }
        let result = try CoachExecutable.run(["extract-poses"] + inputs.map(\.path) + ["--output", directory.appendingPathComponent("clips").path])
        XCTAssertNotEqual(result.exitCode, 0)
        for fragment in ["would write the same clip", "x.csv <- ", "y.csv <- ", inputs[2].path, inputs[3].path] {
            XCTAssertTrue(result.standardError.contains(fragment), "\(fragment): \(result.standardError)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("clips").path))

        // An --output named like a file of another kind would have become a folder (a.txt/x.csv).
        let named = try CoachExecutable.run(["extract-poses", inputs[0].path, "--output", directory.appendingPathComponent("a.txt").path])
        XCTAssertNotEqual(named.exitCode, 0)
        XCTAssertTrue(named.standardError.contains("name a .csv or .json file for one clip, or a folder"), named.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("a.txt").path))
    }

    func testPhotoToClipAndNoOverwriting() throws {
        let models = try SharedData.poseModels(holding: "body-landmarks.h5")
        let photo = try SharedData.require("reference/efficientnet-lite0/images/astronaut.png")
        let folder = try temporaryDirectory(self)
        let clip = folder.appendingPathComponent("astronaut.csv"), picture = folder.appendingPathComponent("astronaut.png")
        let run = try CoachExecutable.run(["extract-poses", photo.path, "--output", clip.path, "--draw", picture.path, "--models", models.path])
        XCTAssertEqual(run.exitCode, 0, run.standardError)
        let lines = try String(contentsOf: clip, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasPrefix("time,nose_x,nose_y,nose_confidence,neck_x"))
        let cells = lines[1].split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
        XCTAssertEqual(cells[1]!, 0.435, accuracy: 0.02)   // MediaPipe's nose: 0.43503, 0.24993
        XCTAssertEqual(cells[2]!, 0.250, accuracy: 0.02)
        XCTAssertTrue(FileManager.default.fileExists(atPath: picture.path))

        let again = try CoachExecutable.run(["extract-poses", photo.path, "--output", clip.path, "--models", models.path])
        XCTAssertNotEqual(again.exitCode, 0)
        XCTAssertTrue(again.standardError.contains("--overwrite"), again.standardError)
        XCTAssertEqual(try CoachExecutable.run(["extract-poses", photo.path, "--output", clip.path, "--models", models.path, "--overwrite"]).exitCode, 0)
        // The drawing is guarded the same way, and is checked before any work.
        let drawAgain = try CoachExecutable.run(["extract-poses", photo.path, "--draw", picture.path, "--models", models.path])
        XCTAssertNotEqual(drawAgain.exitCode, 0)
        XCTAssertTrue(drawAgain.standardError.contains("--draw") && drawAgain.standardError.contains("--overwrite"), drawAgain.standardError)
        let onInput = try CoachExecutable.run(["extract-poses", photo.path, "--draw", photo.path, "--models", models.path, "--overwrite"])
        XCTAssertNotEqual(onInput.exitCode, 0)
        XCTAssertTrue(onInput.standardError.contains("one of this command's inputs"), onInput.standardError)
        let bad = try CoachExecutable.run(["extract-poses", photo.path, "--joints", "feet", "--models", models.path])
        XCTAssertNotEqual(bad.exitCode, 0)
        XCTAssertTrue(bad.standardError.contains("body18 or hand21"), bad.standardError)
    }
}

/// A result that cannot be written is an error, not a silent success (issue 14: `coach inspect > /dev/full` exited 0).
final class WriteErrorTests: XCTestCase {
    /// A file system error names the file and the problem in words, never Foundation's
    /// "Error Domain=NSCocoaErrorDomain Code=512".
    func testFileErrorsNameTheFile() throws {
        let result = try CoachExecutable.run(["generate-samples", "--only", "throws", "--output", "/dev/full"])
        XCTAssertNotEqual(result.exitCode, 0)
        XCTAssertFalse(result.standardError.contains("NSCocoaErrorDomain"), result.standardError)
        XCTAssertTrue(result.standardError.contains("'/dev/full"), result.standardError)
    }

    func testFullStandardOutputFails() throws {
        let folder = try temporaryDirectory(self)
        let model = folder.appendingPathComponent("m.h5")
        try ModelFile(metadata: ModelMetadata(task: "graph-test")).write(to: model)
        guard let full = FileHandle(forWritingAtPath: "/dev/full") else { throw skipTest("SKIPPED: no /dev/full on this machine") }
        // Results, and help text too (ArgumentParser printed it and exited 0).
        for arguments in [["inspect", model.path], ["--help"], ["train", "--help"]] {
            let process = Process()
            process.executableURL = try CoachExecutable.location()
            process.arguments = arguments
            process.standardOutput = full
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 74, "\(arguments)")
            XCTAssertTrue(message.contains("cannot write the results"), message)
        }
    }

    /// Inputs that cannot be used are named: standard input for predict, a file as
    /// generate-samples' output folder.
    func testStandardInputAndAFileAsOutputFolderAreNamed() throws {
        let stdin = try CoachExecutable.run(["predict", "model.h5", "-"])
        XCTAssertTrue(stdin.standardError.contains("predict reads files, not standard input"), stdin.standardError)
        let file = try temporaryDirectory(self).appendingPathComponent("notes.txt")
        try Data("notes".utf8).write(to: file)
        let output = try CoachExecutable.run(["generate-samples", "--only", "hand-poses", "--output", file.path])
        XCTAssertNotEqual(output.exitCode, 0)
        XCTAssertTrue(output.standardError.contains("is not a folder: generate-samples writes a folder per sample"), output.standardError)
        XCTAssertEqual(try Data(contentsOf: file), Data("notes".utf8))
        let models = try CoachExecutable.run(["import-pose-models", file.deletingLastPathComponent().path, "--output", file.path])
        XCTAssertTrue(models.standardError.contains("is not a folder: import-pose-models writes a folder of model files"),
                      models.standardError)
        let motion = try CoachExecutable.run(["generate-samples", "--only", "throws", "--output", file.deletingLastPathComponent().path + "/s",
                                              "--motion-capture", "/nonexistent"])
        XCTAssertTrue(motion.standardError.contains("--motion-capture '/nonexistent' is not a folder"), motion.standardError)
        XCTAssertEqual(try Data(contentsOf: file), Data("notes".utf8))
    }
}

extension ExtractPosesCommandTests {
    /// `--draw` naming a video writes every frame with its skeleton, as a video FFmpeg reads back.
    func testFramesToAnOverlayVideo() throws {
        let models = try SharedData.poseModels(holding: "body-landmarks.h5")
        let photo = try SharedData.require("reference/efficientnet-lite0/images/astronaut.png")
        let folder = try temporaryDirectory(self)
        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        for index in 0..<6 {
            try FileManager.default.copyItem(at: photo, to: frames.appendingPathComponent(String(format: "frame-%02d.png", index)))
        }
        let video = folder.appendingPathComponent("overlay.mp4")
        let run = try CoachExecutable.run(["extract-poses", frames.path, "--draw", video.path, "--frame-rate", "10",
                                           "--output", folder.appendingPathComponent("clip.csv").path, "--models", models.path])
        XCTAssertEqual(run.exitCode, 0, run.standardError)
        XCTAssertTrue(run.standardError.contains("drew 6 frames"), run.standardError)
        let decoded = try CoachExecutable.run(["extract-poses", video.path, "--output", folder.appendingPathComponent("again.csv").path,
                                               "--models", models.path])
        XCTAssertEqual(decoded.exitCode, 0, decoded.standardError)
        let lines = try String(contentsOf: folder.appendingPathComponent("again.csv"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 7, "a header and the 6 frames written")
        let photoToVideo = try CoachExecutable.run(["extract-poses", photo.path, "--draw", folder.appendingPathComponent("x.mp4").path,
                                                    "--models", models.path])
        XCTAssertNotEqual(photoToVideo.exitCode, 0)
        XCTAssertTrue(photoToVideo.standardError.contains("not a video"), photoToVideo.standardError)
    }
}
