import CoachData
import Foundation
import TestSupport
import XCTest

/// `coach train hand-pose-classifier` / `hand-action-classifier`, `coach evaluate` and `coach predict`
/// on the generated hand samples, run through the built executable.
final class HandPoseClassifierCommandTests: XCTestCase {
    /// Generates `sample` (hand-poses or hand-actions) into `directory` and returns its folder.
    func generate(_ sample: String, in directory: URL) throws -> URL {
        let result = try CoachExecutable.run(["generate-samples", "--only", sample, "--output", directory.path, "--seed", "4"])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        return directory.appendingPathComponent(sample)
    }

    func testTrainEvaluateAndPredictHandPoses() throws {
        let directory = try temporaryDirectory(self)
        let data = try generate("hand-poses", in: directory)
        let model = directory.appendingPathComponent("hands.h5")
        let trained = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", data.appendingPathComponent("train.csv").path,
                                               "--output", model.path, "--augment", "rotate,scale,jitter", "--max-iterations", "30",
                                               "--seed", "2"])
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        for fragment in ["dataset: 1000 poses in 5 classes", "joints: hand21 (21) with x, y", "background class: 'background'",
                         "(background)", "chirality: mirror", "iteration 30/30", "training poses"] {
            XCTAssertTrue(trained.standardError.contains(fragment), "'\(fragment)' missing from:\n\(trained.standardError)")
        }
        XCTAssertFalse(trained.standardError.contains("warning:"), trained.standardError)
        XCTAssertTrue(trained.standardOutput.hasPrefix("wrote \(model.path): 5 classes"), trained.standardOutput)
        XCTAssertTrue(trained.standardOutput.contains(" iterations, trained in "), trained.standardOutput)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("hands.checkpoint.h5").path))

        let test = data.appendingPathComponent("test.csv")
        let evaluated = try CoachExecutable.run(["evaluate", model.path, "--data", test.path])
        XCTAssertEqual(evaluated.exitCode, 0, evaluated.standardError)
        for fragment in ["accuracy:", "(250 examples)", "precision  recall", "confusion matrix", "peace"] {
            XCTAssertTrue(evaluated.standardOutput.contains(fragment), "'\(fragment)' missing from:\n\(evaluated.standardOutput)")
        }
        let json = try CoachExecutable.run(["evaluate", model.path, "--data", test.path, "--json"])
        XCTAssertEqual(json.exitCode, 0, json.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["task"] as? String, "hand-pose-classifier")
        XCTAssertEqual(object["classes"] as? [String], ["background", "fist", "one", "open", "peace"])
        XCTAssertEqual((object["confusionMatrix"] as? [[Int]])?.flatMap { $0 }.reduce(0, +), 250)
        XCTAssertEqual((object["perClass"] as? [[String: Any]])?.count, 5)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(object["accuracy"] as? Double), 0.9, "held-out generated hands")
        try assertPredictionsMatchConfusion(object, count: 250)

        // Three fists filed as "peace" are predicted wrong, listed by line and drawn by --mistakes.
        var csvRows = try String(contentsOf: test, encoding: .utf8).components(separatedBy: "\n")
        let fists = csvRows.indices.filter { csvRows[$0].hasPrefix("fist,") }.prefix(3)
        for row in fists { csvRows[row] = "peace," + csvRows[row].dropFirst("fist,".count) }
        let misfiled = directory.appendingPathComponent("misfiled.csv"), sheet = directory.appendingPathComponent("poses.png")
        try Data(csvRows.joined(separator: "\n").utf8).write(to: misfiled)
        let listed = try CoachExecutable.run(["evaluate", model.path, "--data", misfiled.path, "--mistakes", sheet.path])
        XCTAssertEqual(listed.exitCode, 0, listed.standardError)
        for row in fists {
            XCTAssertTrue(listed.standardOutput.contains("\(misfiled.path):\(row + 1): peace, predicted fist ("), listed.standardOutput)
        }
        XCTAssertFalse(listed.standardError.contains("add --mistakes"), listed.standardError)
        let hinted = try CoachExecutable.run(["evaluate", model.path, "--data", misfiled.path])
        XCTAssertTrue(hinted.standardError.contains("to see them, draw them: add --mistakes FILE.png"), hinted.standardError)
        let wrong = try XCTUnwrap(listed.standardOutput.components(separatedBy: "poses predicted wrong, most confident first (").last?
            .prefix { $0 != ")" }.split(separator: " ").last.flatMap { Int($0) }, listed.standardOutput)
        XCTAssertGreaterThanOrEqual(wrong, 3)
        let shown = min(wrong, 48), columns = min(shown, 6), sheetRows = (shown + 5) / 6
        XCTAssertTrue(listed.standardError.contains("drew \(shown) of \(wrong) wrong poses on \(sheet.path)"), listed.standardError)
        let picture = try RGBImage(contentsOf: sheet)
        XCTAssertEqual([picture.width, picture.height], [columns * 160 + (columns + 1) * 4, sheetRows * 160 + (sheetRows + 1) * 4])

        // Predict on poses without labels, one left and one right hand.
        let lines = try String(contentsOf: test, encoding: .utf8).split(separator: "\n").map(String.init)
        let unlabeled = directory.appendingPathComponent("poses.csv")
        let rows = lines.prefix(3).map { $0.split(separator: ",", omittingEmptySubsequences: false).dropFirst().joined(separator: ",") }
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: unlabeled)
        let predicted = try CoachExecutable.run(["predict", model.path, unlabeled.path, "--top", "2"])
        XCTAssertEqual(predicted.exitCode, 0, predicted.standardError)
        XCTAssertTrue(predicted.standardOutput.contains("\(unlabeled.path): 2 poses"), predicted.standardOutput)
        XCTAssertTrue(predicted.standardOutput.contains("line 2"), predicted.standardOutput)
        let predictedJSON = try CoachExecutable.run(["predict", model.path, unlabeled.path, "--json"])
        let files = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(predictedJSON.standardOutput.utf8)) as? [[String: Any]])
        let poses = try XCTUnwrap(files.first?["poses"] as? [[String: Any]])
        XCTAssertEqual(poses.count, 2)
        let trueLabels = lines[1...2].map { String($0.split(separator: ",")[0]) }
        let chiralities = lines[1...2].map { String($0.split(separator: ",")[1]) }
        XCTAssertEqual(poses.map { $0["chirality"] as? String }, chiralities)
        XCTAssertEqual((poses.first?["probabilities"] as? [String: Double])?.count, 5)
        print("predicted \(poses.map { $0["label"] as? String ?? "?" }) for \(trueLabels)")
    }

    func testMalformedRowsAndMissingBackgroundAreReported() throws {
        let directory = try temporaryDirectory(self)
        let data = try generate("hand-poses", in: directory)
        var lines = try String(contentsOf: data.appendingPathComponent("test.csv"), encoding: .utf8).split(separator: "\n").map(String.init)
        var fields = lines[4].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[5] = "abc"
        lines[4] = fields.joined(separator: ",")
        lines[7] = lines[7].split(separator: ",").dropLast().joined(separator: ",")
        let bad = directory.appendingPathComponent("bad.csv")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: bad)
        let output = directory.appendingPathComponent("m.h5")
        let result = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", bad.path, "--output", output.path])
        XCTAssertEqual(result.exitCode, 1)
        XCTAssertTrue(result.standardError.contains("\(bad.path):5: column 'thumbCMC_y': 'abc' is not a number"), result.standardError)
        XCTAssertTrue(result.standardError.contains("\(bad.path):8: has 43 fields: expected 44"), result.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))

        // Without a background class training warns, and goes on.
        let noBackground = directory.appendingPathComponent("no-background.csv")
        let kept = try String(contentsOf: data.appendingPathComponent("test.csv"), encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("background,") }
        try Data((kept.joined(separator: "\n") + "\n").utf8).write(to: noBackground)
        let warned = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", noBackground.path, "--output", output.path,
                                              "--max-iterations", "2", "--quiet"])
        XCTAssertEqual(warned.exitCode, 0, warned.standardError)
        XCTAssertTrue(warned.standardError.contains("warning: no background class"), warned.standardError)

        let time = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", noBackground.path, "--output", output.path,
                                            "--augment", "rotate,interpolate"])
        XCTAssertEqual(time.exitCode, 64)
        XCTAssertTrue(time.standardError.contains("cannot augment single poses"), time.standardError)
        let chirality = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", noBackground.path, "--output", output.path,
                                                 "--chirality", "both"])
        XCTAssertEqual(chirality.exitCode, 64)
        let resume = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", noBackground.path, "--output",
                                              directory.appendingPathComponent("fresh.h5").path, "--resume"])
        XCTAssertEqual(resume.exitCode, 1)
        XCTAssertTrue(resume.standardError.contains("no checkpoint at"), resume.standardError)
    }

    func testHandActionsTrainWithChiralityAndRefuseBodyPoses() throws {
        let directory = try temporaryDirectory(self)
        let data = try generate("hand-actions", in: directory)
        let model = directory.appendingPathComponent("hand-actions.h5")
        // A short run with a fifth of the head's features: on 160 clips the head's fit, not the
        // network, takes most of the time (39 s with 10,000 features, 20 s with 2,000).
        let trained = try CoachExecutable.run(["train", "hand-action-classifier", "--data", data.appendingPathComponent("train").path,
                                               "--output", model.path, "--chirality", "mirror", "--max-iterations", "8",
                                               "--random-convolution-features", "2000", "--seed", "1", "--quiet"])
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        for fragment in ["joints: hand21", "window: 45 frames at 30 fps (1.50 s)", "background class: 'background'",
                         "hands: 80 left, 80 right, 0 unknown clips", "chirality: mirror"] {
            XCTAssertTrue(trained.standardError.contains(fragment), "'\(fragment)' missing from:\n\(trained.standardError)")
        }
        let json = try CoachExecutable.run(["evaluate", model.path, "--data", data.appendingPathComponent("test").path, "--json"])
        XCTAssertEqual(json.exitCode, 0, json.standardError)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["classes"] as? [String], ["background", "grab", "swipe", "wave"])
        let accuracy = try XCTUnwrap(object["accuracy"] as? Double)
        print("hand actions (8 iterations, 2,000 head features): accuracy \(accuracy) on 60 held-out clips")
        XCTAssertGreaterThanOrEqual(accuracy, 0.8)
        let inspected = try CoachExecutable.run(["inspect", model.path, "--json"])
        XCTAssertTrue(inspected.standardOutput.contains("\"chirality\" : \"mirror\""), inspected.standardOutput)

        let clip = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("test/swipe").path).sorted().first)
        let predicted = try CoachExecutable.run(["predict", model.path, data.appendingPathComponent("test/swipe/\(clip)").path])
        XCTAssertEqual(predicted.exitCode, 0, predicted.standardError)
        XCTAssertTrue(predicted.standardOutput.contains("3 windows of 45 frames at 30 fps"), predicted.standardOutput)

        // Body poses belong to the action classifier.
        let body = directory.appendingPathComponent("body/wave")
        try FileManager.default.createDirectory(at: body, withIntermediateDirectories: true)
        let header = "time," + ["nose", "neck", "rightShoulder", "rightElbow", "rightWrist", "leftShoulder", "leftElbow", "leftWrist",
                                "rightHip", "rightKnee", "rightAnkle", "leftHip", "leftKnee", "leftAnkle", "rightEye", "leftEye",
                                "rightEar", "leftEar"].map { "\($0)_x,\($0)_y" }.joined(separator: ",")
        let row = "0," + [String](repeating: "0.5,0.5", count: 18).joined(separator: ",")
        try Data("\(header)\n\(row)\n".utf8).write(to: body.appendingPathComponent("a.csv"))
        let refused = try CoachExecutable.run(["train", "hand-action-classifier", "--data", body.deletingLastPathComponent().path,
                                               "--output", directory.appendingPathComponent("body.h5").path])
        XCTAssertEqual(refused.exitCode, 1)
        XCTAssertTrue(refused.standardError.contains("has body poses (body18): a hand-action classifier expects Vision's 21 hand joints"),
                      refused.standardError)
    }

    func testHelpTeachesWithExamples() throws {
        for command in ["hand-pose-classifier", "hand-action-classifier"] {
            let help = try CoachExecutable.run(["train", command, "--help"])
            XCTAssertEqual(help.exitCode, 0)
            let lines = help.standardOutput.components(separatedBy: "\n").filter { !$0.hasPrefix("USAGE:") }
            XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, "no line is wrapped: \(lines.filter { $0.count > 80 })")
            for fragment in ["--chirality", "--augment", "--resume", "Examples:", "coach train \(command) --data"] {
                XCTAssertTrue(help.standardOutput.contains(fragment), "'\(fragment)' missing from:\n\(help.standardOutput)")
            }
        }
        let train = try CoachExecutable.run(["train", "--help"])
        XCTAssertTrue(train.standardOutput.contains("hand-pose-classifier") && train.standardOutput.contains("hand-action-classifier"))
    }

    func testTheSameSeedGivesTheSameModelFile() throws {
        let directory = try temporaryDirectory(self)
        let data = try generate("hand-poses", in: directory).appendingPathComponent("test.csv")
        // The model's name comes from the file's, so both runs write `model.h5`, in two folders.
        var files: [Data] = []
        for folder in ["a", "b"] {
            let output = directory.appendingPathComponent("\(folder)/model.h5")
            let result = try CoachExecutable.run(["train", "hand-pose-classifier", "--data", data.path, "--output", output.path,
                                                  "--augment", "rotate,flip", "--max-iterations", "3", "--seed", "5", "--quiet"])
            XCTAssertEqual(result.exitCode, 0, result.standardError)
            files.append(try Data(contentsOf: output))
        }
        XCTAssertEqual(files[0], files[1])
    }
}
