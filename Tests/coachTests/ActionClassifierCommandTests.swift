import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// `coach train action-classifier`, `coach evaluate` and `coach predict` on small pose datasets
/// written as FORMATS §3 files, run through the built executable.
final class ActionClassifierCommandTests: XCTestCase {
    /// One clip CSV of three custom joints: the hand circles, swipes, or stays ("other").
    static func clipCSV(label: String, index: Int, frames: Int) -> String {
        var lines = ["time,hand_x,hand_y,elbow_x,elbow_y,shoulder_x,shoulder_y"]
        let size = 0.1 + 0.02 * Double(index % 5), cx = 0.4 + 0.03 * Double(index % 4), phase = Double(index) * 0.7
        for t in 0..<frames {
            let angle = phase + Double(t) * 0.35
            var hand = (cx, 0.5)
            switch label {
            case "circle": hand = (cx + size * cos(angle), 0.5 + size * sin(angle))
            case "swipe": hand = (cx + size * sin(angle), 0.5 + 0.1 * size)
            default: hand = (cx + 0.004 * sin(Double(t * (index + 3))), 0.5 + 0.004 * cos(Double(t * 7)))
            }
            let values = [Double(t) / 30, hand.0, hand.1, cx, 0.5 + size, cx + size, 0.5 + 2 * size]
            lines.append(values.map { String(format: "%.5f", $0) }.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A folder per class with `clips` clips each (the first clip of each class is short); clips
    /// from `firstIndex` on vary as other people's would.
    static func writeDataset(in directory: URL, clips: Int = 10, frames: Int = 24, firstIndex: Int = 0) throws -> URL {
        let root = directory.appendingPathComponent("gestures")
        for label in ["circle", "swipe", "other"] {
            let folder = root.appendingPathComponent(label)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for index in firstIndex..<(firstIndex + clips) {
                let text = clipCSV(label: label, index: index, frames: index == firstIndex ? 10 : frames)
                try Data(text.utf8).write(to: folder.appendingPathComponent("clip-\(index).csv"))
            }
        }
        return root
    }

    /// A short run on toy clips (a fifth of the head's default features: the head's fit would take
    /// most of the time).
    func train(_ data: URL, output: URL, extra: [String] = [], threads: Int? = nil) throws -> CoachExecutable.Result {
        try CoachExecutable.run(["train", "action-classifier", "--data", data.path, "--output", output.path,
                                 "--prediction-window", "16", "--max-iterations", "12", "--batch-size", "8",
                                 "--random-convolution-features", "2000", "--seed", "3"] + extra,
                                environment: threads.map { ["COACH_THREADS": "\($0)"] } ?? [:])
    }

    /// `--validation-data`: clips of their own judge the run and every training clip trains; clips
    /// of a class the training data lacks are refused by name before any training.
    func testValidationClipsOfTheirOwn() throws {
        let directory = try temporaryDirectory(self)
        let data = try Self.writeDataset(in: directory)
        let validation = try Self.writeDataset(in: directory.appendingPathComponent("other-people"), clips: 3)
        let model = directory.appendingPathComponent("m.h5")
        let trained = try train(data, output: model, extra: ["--validation-data", validation.path, "--ensemble", "1"])
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        XCTAssertTrue(trained.standardError.contains("validation: 9 segments of 9 clips from \(validation.path) (circle 3, other 3, swipe 3); every training clip trains"),
                      trained.standardError)
        XCTAssertTrue(trained.standardOutput.contains("on 9 examples"), trained.standardOutput)
        XCTAssertFalse(trained.standardError.contains("are training clips too"), trained.standardError)
        let itself = try train(data, output: directory.appendingPathComponent("itself.h5"),
                               extra: ["--validation-data", data.path, "--ensemble", "1", "--max-iterations", "1"])
        XCTAssertEqual(itself.exitCode, 0, itself.standardError)
        XCTAssertTrue(itself.standardError.contains("warning: 30 of the 30 validation clip files are training clips too (clip-0.csv, …)"),
                      itself.standardError)

        let wave = validation.appendingPathComponent("wave")
        try FileManager.default.createDirectory(at: wave, withIntermediateDirectories: true)
        try Data(Self.clipCSV(label: "circle", index: 1, frames: 24).utf8).write(to: wave.appendingPathComponent("w.csv"))
        let refused = try train(data, output: directory.appendingPathComponent("n.h5"), extra: ["--validation-data", validation.path])
        XCTAssertNotEqual(refused.exitCode, 0)
        XCTAssertTrue(refused.standardError.contains("label 'wave' (1 validation segment) is not a class of the training data (circle, other, swipe)"),
                      refused.standardError)
        let both = try train(data, output: directory.appendingPathComponent("n.h5"),
                             extra: ["--validation-data", validation.path, "--validation-annotations", "a.csv"])
        XCTAssertNotEqual(both.exitCode, 0)
        XCTAssertTrue(both.standardError.contains("at most one of --validation-data"), both.standardError)
    }

    /// A folder of train/, validation/ and test/ splits (FORMATS §1's layout, as the image
    /// classifier reads it): train/ trains and validation/ validates, the same model bytes as
    /// naming both folders; `coach evaluate` on the root scores test/.
    func testAFolderOfSplitsTrainsOnTrainValidatesOnValidationAndEvaluatesTest() throws {
        let directory = try temporaryDirectory(self)
        let root = directory.appendingPathComponent("splits")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for (split, clips, firstIndex) in [("train", 10, 0), ("validation", 3, 10), ("test", 4, 13)] {
            let written = try Self.writeDataset(in: directory.appendingPathComponent("made-\(split)"), clips: clips, firstIndex: firstIndex)
            try FileManager.default.moveItem(at: written, to: root.appendingPathComponent(split))
        }
        let trainSplit = root.appendingPathComponent("train"), validation = root.appendingPathComponent("validation")
        let test = root.appendingPathComponent("test")
        // The same file name in two folders: a model file records its name.
        let model = directory.appendingPathComponent("splits.h5"), named = directory.appendingPathComponent("named/splits.h5")
        let trained = try train(root, output: model, extra: ["--ensemble", "1"])
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        XCTAssertTrue(trained.standardError.contains("\(root.path) holds splits: training on \(trainSplit.path); validating on \(validation.path); "
                                                     + "\(test.path) is left for `coach evaluate MODEL --data \(root.path)`"), trained.standardError)
        XCTAssertTrue(trained.standardError.contains("validation: 9 segments of 9 clips from \(validation.path)"), trained.standardError)
        XCTAssertTrue(trained.standardOutput.contains("on 9 examples"), trained.standardOutput)
        let both = try train(trainSplit, output: named, extra: ["--ensemble", "1", "--validation-data", validation.path])
        XCTAssertEqual(both.exitCode, 0, both.standardError)
        XCTAssertEqual(try Data(contentsOf: model), try Data(contentsOf: named), "the splits must train exactly as --data train --validation-data validation")

        let onRoot = try CoachExecutable.run(["evaluate", model.path, "--data", root.path, "--json"])
        XCTAssertEqual(onRoot.exitCode, 0, onRoot.standardError)
        XCTAssertTrue(onRoot.standardError.contains("\(root.path) holds splits: evaluating \(test.path)"), onRoot.standardError)
        let onTest = try CoachExecutable.run(["evaluate", model.path, "--data", test.path, "--json"])
        XCTAssertEqual(onTest.exitCode, 0, onTest.standardError)
        XCTAssertEqual(onRoot.standardOutput, onTest.standardOutput)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(onRoot.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual((object["confusionMatrix"] as? [[Int]])?.flatMap { $0 }.reduce(0, +), 12, "test/ holds 4 clips of each of 3 classes")

        // --validation-data (or --validation, as the image classifier spells it) wins over a
        // validation/ split, and says so.
        let other = try Self.writeDataset(in: directory.appendingPathComponent("other-people"), clips: 2, firstIndex: 20)
        let replaced = try train(root, output: directory.appendingPathComponent("replaced.h5"),
                                 extra: ["--ensemble", "1", "--max-iterations", "1", "--validation", other.path])
        XCTAssertEqual(replaced.exitCode, 0, replaced.standardError)
        XCTAssertTrue(replaced.standardError.contains("--validation-data replaces \(validation.path)"), replaced.standardError)
        XCTAssertTrue(replaced.standardError.contains("validation: 6 segments of 6 clips from \(other.path)"), replaced.standardError)
    }

    /// A clip in which no joint was ever detected is refused by predict (naming it) rather than
    /// given a confident label.
    func testClipsWithoutDetectedJointsAreRefused() throws {
        let directory = try temporaryDirectory(self)
        let data = try Self.writeDataset(in: directory)
        let model = directory.appendingPathComponent("m.h5")
        let trained = try train(data, output: model)
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        XCTAssertTrue(trained.standardError.contains(
            "augmentations: rotate, scale, jitter, interpolate, drop, occlude (the default; --augment none turns them off)"), trained.standardError)
        XCTAssertTrue(trained.standardError.contains(
            "occlude: every joint the data has is detected in every frame, so no training window loses joints"), trained.standardError)
        let empty = directory.appendingPathComponent("empty.csv")
        try Data("time,hand_x,hand_y,elbow_x,elbow_y,shoulder_x,shoulder_y\n0,,,,,,\n0.1,,,,,,\n".utf8).write(to: empty)
        let result = try CoachExecutable.run(["predict", model.path, empty.path])
        XCTAssertNotEqual(result.exitCode, 0)
        XCTAssertTrue(result.standardError.contains("no joint is detected in \(empty.path)"), result.standardError)
    }

    /// Progress and notes that cannot be written (stderr on a full device) are dropped: training
    /// still finishes, writes its model and exits 0 (it used to trap in Foundation's FileHandle).
    func testUnwritableStandardErrorDoesNotStopTraining() throws {
        let directory = try temporaryDirectory(self)
        let data = try Self.writeDataset(in: directory)
        let model = directory.appendingPathComponent("quiet.h5")
        let process = Process()
        process.executableURL = try CoachExecutable.location()
        process.arguments = ["train", "action-classifier", "--data", data.path, "--output", model.path,
                             "--prediction-window", "16", "--max-iterations", "3", "--seed", "3"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(try CoachExecutable.run(["inspect", model.path]).exitCode, 0)
    }

    /// A model trained on bottom-left (Vision) keypoints records that origin; `evaluate` reads new
    /// data the same way without being told, and warns when told an origin that turns the poses
    /// upside down relative to training.
    func testKeypointOriginIsRecordedAndUpsideDownDataIsWarnedAbout() throws {
        let directory = try temporaryDirectory(self)
        let data = try Self.writeDataset(in: directory)
        let model = directory.appendingPathComponent("vision.h5")
        let trained = try train(data, output: model, extra: ["--keypoint-origin", "bottom-left"])
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        let inspected = try CoachExecutable.run(["inspect", model.path, "--json"])
        XCTAssertTrue(inspected.standardOutput.contains("\"keypointOrigin\" : \"bottom-left\"")
                      || inspected.standardOutput.contains("\"keypointOrigin\":\"bottom-left\""), inspected.standardOutput)

        func accuracy(_ result: CoachExecutable.Result) throws -> Double {
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            return try XCTUnwrap(object?["accuracy"] as? Double, result.standardOutput)
        }
        let defaulted = try CoachExecutable.run(["evaluate", model.path, "--data", data.path, "--json"])
        XCTAssertEqual(defaulted.exitCode, 0, defaulted.standardError)
        XCTAssertFalse(defaulted.standardError.contains("upside down"), defaulted.standardError)
        let explicit = try CoachExecutable.run(["evaluate", model.path, "--data", data.path, "--json",
                                                "--keypoint-origin", "bottom-left"])
        XCTAssertEqual(try accuracy(defaulted), try accuracy(explicit))
        XCTAssertGreaterThan(try accuracy(defaulted), 0.8)

        let sheet = directory.appendingPathComponent("mistakes.png")
        let flipped = try CoachExecutable.run(["evaluate", model.path, "--data", data.path, "--keypoint-origin", "top-left",
                                               "--mistakes", sheet.path])
        XCTAssertEqual(flipped.exitCode, 0, flipped.standardError)
        XCTAssertTrue(flipped.standardError.contains("warning: these poses look upside down"), flipped.standardError)
        XCTAssertTrue(flipped.standardError.contains("trained on bottom-left keypoints"), flipped.standardError)
        // Upside down, many segments go wrong, and the most confident of them are listed with their clips.
        let listing = try XCTUnwrap(flipped.standardOutput.components(separatedBy: "segments predicted wrong, most confident first (").last,
                                    flipped.standardOutput)
        let listed = listing.split(separator: "\n").dropFirst().filter { $0.hasPrefix("  ") }
        XCTAssertFalse(listed.isEmpty, flipped.standardOutput)
        XCTAssertLessThanOrEqual(listed.count, 10)
        for line in listed {
            XCTAssertTrue(line.contains(data.path) && line.contains(", predicted ")
                          && (line.contains(" windows right") || line.contains(" window right")), String(line))
        }
        let percents = listed.compactMap { line in line.split(separator: "(").last?.split(separator: "%").first.flatMap { Double($0) } }
        XCTAssertEqual(percents.count, listed.count)
        XCTAssertEqual(percents, percents.sorted(by: >), "most confident first")

        // --mistakes draws those segments, one row each: a title over 8 stick figures of 150 × 190.
        let total = try XCTUnwrap(Int(listing.prefix { $0 != ")" && $0 != ";" }.split(separator: " ").last ?? ""), listing)
        XCTAssertTrue(flipped.standardError.contains("drew \(listed.count) of \(total) wrong segment\(total == 1 ? "" : "s") on \(sheet.path), most confident first"),
                      flipped.standardError)
        let picture = try ImageDecoder.decode(contentsOf: sheet).image
        let rowHeight = 11 + 190 + 4
        XCTAssertEqual(picture.width, 8 * 150 + 9 * 4)
        XCTAssertEqual(picture.height, listed.count * rowHeight + 4)
        for row in listed.indices {
            // Every tile shows its frame's joints (white: these custom joints are neither left nor right),
            // below the caption's tab.
            let top = 4 + row * rowHeight + 11
            for column in 0..<8 {
                let left = 4 + column * 154
                let drawn = (left..<(left + 150)).contains { x in ((top + 12)..<(top + 190)).contains { y in picture[x, y] == .white } }
                XCTAssertTrue(drawn, "row \(row + 1), tile \(column + 1) shows no joint")
            }
        }
        XCTAssertFalse(flipped.standardError.contains("add --mistakes"), flipped.standardError)
        let hinted = try CoachExecutable.run(["evaluate", model.path, "--data", data.path, "--keypoint-origin", "top-left"])
        XCTAssertTrue(hinted.standardError.contains("draw them as stick figures: add --mistakes FILE.png"), hinted.standardError)
        for (arguments, refusal) in [(["--mistakes", sheet.path], "exists: choose another path, or pass --overwrite"),
                                     (["--mistakes", directory.appendingPathComponent("m.gif").path], "must name a .jpg or .png picture")] {
            let refused = try CoachExecutable.run(["evaluate", model.path, "--data", data.path] + arguments)
            XCTAssertNotEqual(refused.exitCode, 0)
            XCTAssertTrue(refused.standardError.contains(refusal), refused.standardError)
        }
    }

    func testTrainEvaluateAndPredict() throws {
        let directory = try temporaryDirectory(self)
        let data = try Self.writeDataset(in: directory)
        let model = directory.appendingPathComponent("gestures.h5")
        // On one thread the ensemble's two members train one after the other.
        let trained = try train(data, output: model, extra: ["--augment", "rotate,jitter"], threads: 1)
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        let report = trained.standardError
        for fragment in ["dataset: 30 clips, 30 labeled segments", "joints: custom (3: hand, elbow, shoulder)",
                         "window: 16 frames at 30 fps (0.53 s)", "background class: 'other'",
                         "padded: 3 of 30 segments are shorter than the window", "(background)",
                         "iteration 12/12", "training windows", "augmentations: rotate, jitter\n"] {
            XCTAssertTrue(report.contains(fragment), "'\(fragment)' missing from:\n\(report)")
        }
        XCTAssertTrue(report.contains("warning: 3 of 30 examples are shorter than the 16-frame window"), report)
        // Standard error is a pipe here, as in CI logs: a progress line when the phase starts and
        // then one per 10 s (this run is shorter), plus the closing line with the total (the
        // ensemble's second member has a phase of its own).
        let progressLines = report.split(separator: "\n").filter { $0.hasPrefix("training windows: ") }
        XCTAssertEqual(progressLines.count, 2, report)
        XCTAssertTrue(report.contains("training windows, member 2 of 2: "), report)
        XCTAssertTrue(report.contains("ensemble member 2 of 2 (seed 1003)"), report)
        XCTAssertTrue(trained.standardOutput.contains("2 ensemble members"), trained.standardOutput)
        XCTAssertTrue(progressLines.last?.contains(" in ") == true && progressLines.last?.contains("/s") == true, report)
        XCTAssertTrue(trained.standardOutput.hasPrefix("wrote \(model.path): 3 classes"), trained.standardOutput)
        XCTAssertNotNil(trained.standardOutput.range(of: #"iterations, trained in ([0-9]+m )?[0-9.]+s"#, options: .regularExpression),
                        "the training time is reported: \(trained.standardOutput)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: model.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("gestures.checkpoint.h5").path),
                       "the checkpoint is removed once the model is written")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("gestures.checkpoint.member2.h5").path),
                       "so is the second member's")

        // On two threads they train side by side, one core each: the same model bytes, their
        // window progress summed in one phase, each member's iterations and notes named by it.
        let sideBySide = directory.appendingPathComponent("side-by-side.h5")
        let concurrent = try train(data, output: sideBySide, extra: ["--augment", "rotate,jitter"], threads: 2)
        XCTAssertEqual(concurrent.exitCode, 0, concurrent.standardError)
        let together = concurrent.standardError
        XCTAssertTrue(together.contains("ensemble: 2 members (seeds 3, 1003), 2 at a time side by side, one core each"), together)
        func windows(after prefix: String, in text: String) -> Int? {
            guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix(prefix) && $0.contains(" in ") }),
                  let slash = line.firstIndex(of: "/") else { return nil }
            return Int(line[line.index(line.startIndex, offsetBy: prefix.count)..<slash])
        }
        let first = try XCTUnwrap(windows(after: "training windows: ", in: report), report)
        let second = try XCTUnwrap(windows(after: "training windows, member 2 of 2: ", in: report), report)
        XCTAssertEqual(windows(after: "training windows, 2 members side by side: ", in: together), first + second,
                       "both members' windows in the closing line:\n\(together)")
        for member in 1...2 {
            XCTAssertTrue(together.contains("member \(member) · iteration 12/12 · loss"), together)
        }
        XCTAssertFalse(together.contains("\niteration "), "every iteration line names its member:\n\(together)")
        XCTAssertTrue(concurrent.standardOutput.contains("2 ensemble members"), concurrent.standardOutput)
        XCTAssertEqual(try ModelFile.read(from: sideBySide).tensors, try ModelFile.read(from: model).tensors,
                       "the same weights whether the members train one after the other or side by side")

        let evaluated = try CoachExecutable.run(["evaluate", model.path, "--data", data.path])
        XCTAssertEqual(evaluated.exitCode, 0, evaluated.standardError)
        for fragment in ["accuracy:", "(30 examples)", "precision  recall", "confusion matrix", "windows:", "padded: 3 of 30"] {
            XCTAssertTrue(evaluated.standardOutput.contains(fragment), "'\(fragment)' missing from:\n\(evaluated.standardOutput)")
        }
        let json = try CoachExecutable.run(["evaluate", model.path, "--data", data.path, "--json"])
        XCTAssertEqual(json.exitCode, 0, json.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["task"] as? String, "action-classifier")
        XCTAssertEqual(object["classes"] as? [String], ["circle", "other", "swipe"])
        XCTAssertEqual((object["confusionMatrix"] as? [[Int]])?.flatMap { $0 }.reduce(0, +), 30)
        XCTAssertEqual((object["perClass"] as? [[String: Any]])?.count, 3)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(object["accuracy"] as? Double), 0.8, "the gestures are easy")
        XCTAssertNotNil(object["windowAccuracy"] as? Double)
        XCTAssertEqual(object["paddedExampleCount"] as? Int, 3)
        try assertPredictionsMatchConfusion(object, count: 30, extraKeys: ["start", "end", "windowCount", "correctWindowCount"])

        let clip = data.appendingPathComponent("circle/clip-3.csv")
        let predicted = try CoachExecutable.run(["predict", model.path, clip.path])
        XCTAssertEqual(predicted.exitCode, 0, predicted.standardError)
        XCTAssertTrue(predicted.standardOutput.contains("\(clip.path): 3 windows of 16 frames at 30 fps"), predicted.standardOutput)
        XCTAssertTrue(predicted.standardOutput.contains("0.00–0.53"), predicted.standardOutput)
        let predictedJSON = try CoachExecutable.run(["predict", model.path, clip.path, "--json"])
        let clips = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(predictedJSON.standardOutput.utf8)) as? [[String: Any]])
        let windows = try XCTUnwrap(clips.first?["windows"] as? [[String: Any]])
        let starts = windows.map { $0["start"] as? Double ?? -1 }
        XCTAssertEqual(starts.count, 3)
        for (start, expected) in zip(starts, [0, 4.0 / 30, 8.0 / 30]) {
            XCTAssertEqual(start, expected, accuracy: 1e-9, "windows every quarter window, the last ending at the last frame")
        }
        XCTAssertEqual((windows.first?["probabilities"] as? [String: Double])?.count, 3)
    }

    func testTheSameSeedGivesTheSameModelFile() throws {
        let directory = try temporaryDirectory(self)
        let data = try Self.writeDataset(in: directory, clips: 5)
        // The model's name comes from the file's, so both runs write `model.h5`, in two folders.
        let a = directory.appendingPathComponent("a/model.h5"), b = directory.appendingPathComponent("b/model.h5")
        try FileManager.default.createDirectory(at: a.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: b.deletingLastPathComponent(), withIntermediateDirectories: true)
        XCTAssertEqual(try train(data, output: a, extra: ["--quiet"]).exitCode, 0)
        XCTAssertEqual(try train(data, output: b, extra: ["--quiet"]).exitCode, 0)
        XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b))
    }

    func testBadInputsGiveClearErrors() throws {
        let directory = try temporaryDirectory(self)
        let data = try Self.writeDataset(in: directory, clips: 3)
        let output = directory.appendingPathComponent("m.h5")
        // A non-numeric cell and a NaN in two clips: both reported with file and line.
        let bad = data.appendingPathComponent("swipe/clip-1.csv")
        var lines = try String(contentsOf: bad, encoding: .utf8).components(separatedBy: "\n")
        lines[3] = lines[3].replacingOccurrences(of: "0.", with: "x.", options: [], range: lines[3].range(of: "0."))
        try Data(lines.joined(separator: "\n").utf8).write(to: bad)
        let nan = data.appendingPathComponent("circle/clip-2.csv")
        var nanLines = try String(contentsOf: nan, encoding: .utf8).components(separatedBy: "\n")
        nanLines[5] = nanLines[5].components(separatedBy: ",").enumerated().map { $0.offset == 2 ? "NaN" : $0.element }.joined(separator: ",")
        try Data(nanLines.joined(separator: "\n").utf8).write(to: nan)
        let result = try train(data, output: output)
        XCTAssertEqual(result.exitCode, 1)
        XCTAssertTrue(result.standardError.contains("\(bad.path):4"), result.standardError)
        XCTAssertTrue(result.standardError.contains("\(nan.path):6"), result.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))

        // An annotation whose segment runs past its clip.
        let clean = try Self.writeDataset(in: directory.appendingPathComponent("clean"), clips: 3)
        let annotations = directory.appendingPathComponent("annotations.csv")
        try Data("file,label,start,end\n\(clean.path)/circle/clip-1.csv,circle,0,0.5\n\(clean.path)/swipe/clip-1.csv,swipe,0.2,9\n".utf8)
            .write(to: annotations)
        let segment = try CoachExecutable.run(["train", "action-classifier", "--annotations", annotations.path, "--output", output.path])
        XCTAssertEqual(segment.exitCode, 1)
        XCTAssertTrue(segment.standardError.contains("\(annotations.path):3"), segment.standardError)
        XCTAssertTrue(segment.standardError.contains("beyond the end of clip"), segment.standardError)

        let unknown = try train(clean, output: output, extra: ["--augment", "flip,spin"])
        XCTAssertEqual(unknown.exitCode, 64)
        XCTAssertTrue(unknown.standardError.contains("unknown augmentation 'spin'"), unknown.standardError)
        let both = try CoachExecutable.run(["train", "action-classifier", "--data", clean.path, "--annotations", annotations.path,
                                            "--output", output.path])
        XCTAssertEqual(both.exitCode, 64)
        let resume = try train(clean, output: output, extra: ["--resume"])
        XCTAssertEqual(resume.exitCode, 1)
        XCTAssertTrue(resume.standardError.contains("no checkpoint at '\(directory.appendingPathComponent("m.checkpoint.h5").path)'"),
                      resume.standardError)
        let missing = try CoachExecutable.run(["evaluate", directory.appendingPathComponent("none.h5").path, "--data", clean.path])
        XCTAssertEqual(missing.exitCode, 1)
        XCTAssertTrue(missing.standardError.contains("none.h5"), missing.standardError)
    }

    func testHelpTeachesWithExamples() throws {
        let help = try CoachExecutable.run(["train", "action-classifier", "--help"])
        XCTAssertEqual(help.exitCode, 0)
        let lines = help.standardOutput.components(separatedBy: "\n")
        XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, "no line is wrapped: \(lines.filter { $0.count > 80 })")
        for fragment in ["--prediction-window", "--augment", "--resume", "Examples:",
                         "coach train action-classifier --annotations throws/annotations.csv \\",
                         "flip         mirror left-right"] {
            XCTAssertTrue(help.standardOutput.contains(fragment), "'\(fragment)' missing from:\n\(help.standardOutput)")
        }
    }
}
