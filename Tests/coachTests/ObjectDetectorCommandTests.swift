import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// `coach train object-detector`, `evaluate` and `predict` (with `--draw`) on small
/// generated board photos, and bad data reported in full.
final class ObjectDetectorCommandTests: XCTestCase {
    func boards(in folder: URL, images: Int, seed: UInt64) throws -> URL {
        var configuration = BoardSceneConfiguration()
        configuration.imageSizes = [(200, 160), (160, 200)]
        configuration.distanceRange = 1.8...3
        return try BoardDatasetGenerator(configuration: configuration).generate(into: folder, images: images, seed: seed).annotationFile
    }

    func testTrainEvaluatePredictAndDraw() throws {
        _ = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let train = try boards(in: directory.appendingPathComponent("train"), images: 16, seed: 1)
        let test = try boards(in: directory.appendingPathComponent("test"), images: 6, seed: 2)
        let model = directory.appendingPathComponent("board.h5").path
        let environment = ["COACH_BACKBONE": BackboneFixture.url.path]
        let trained = try CoachExecutable.run(["train", "object-detector", "--annotations", train.path, "--output", model,
                                               "--validation-annotations", test.path, "--input-size", "128", "--max-iterations", "40",
                                               "--batch-size", "4", "--views-per-image", "2", "--seed", "3"], environment: environment)
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        for fragment in ["Training data", "16 images", "boxes  images  median size", "board", "anchors (k-means, input pixels)",
                         "caching backbone maps", "training: 160/160", "iteration 40/40 · loss", "validation loss"] {
            XCTAssertTrue(trained.standardError.contains(fragment), "'\(fragment)' missing from:\n\(trained.standardError)")
        }
        XCTAssertTrue(trained.standardOutput.contains("wrote \(model)"), trained.standardOutput)
        XCTAssertTrue(trained.standardOutput.contains("mAP@0.5"), trained.standardOutput)

        let evaluated = try CoachExecutable.run(["evaluate", model, "--annotations", test.path, "--json"], environment: environment)
        XCTAssertEqual(evaluated.exitCode, 0, evaluated.standardError)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(evaluated.standardOutput.utf8)) as? [String: Any])
        for key in ["task", "classes", "meanAveragePrecision50", "meanAveragePrecision", "perClass", "confusionMatrix"] {
            XCTAssertNotNil(json[key], "missing \(key) in \(evaluated.standardOutput)")
        }
        XCTAssertEqual(json["task"] as? String, "object-detector")
        XCTAssertEqual(json["classes"] as? [String], ["blue_bag", "board", "hole", "red_bag"])
        XCTAssertEqual((json["confusionMatrix"] as? [[Int]])?.count, 5, "four classes and background")
        let perClass = try XCTUnwrap(json["perClass"] as? [[String: Any]])
        XCTAssertTrue(Set(perClass[0].keys).isSuperset(of: ["label", "ap50", "ap", "precision", "recall"]))
        // `images` holds every test image's right, wrong and missed boxes; per class they add up to
        // the metrics' recall, prediction and true-box counts.
        let outcomes = try XCTUnwrap(json["images"] as? [[String: Any]])
        XCTAssertEqual(outcomes.count, 6)
        func boxes(_ key: String) -> [[String: Any]] { outcomes.flatMap { $0[key] as? [[String: Any]] ?? [] } }
        for box in boxes("correct") + boxes("wrong") + boxes("missed") {
            XCTAssertTrue(Set(box.keys).isSuperset(of: ["label", "x", "y", "width", "height"]), "\(box)")
            XCTAssertGreaterThan(box["width"] as? Double ?? 0, 0, "\(box)")
        }
        XCTAssertTrue(boxes("missed").allSatisfy { $0["confidence"] == nil }, "a missed true box has no confidence")
        XCTAssertTrue((boxes("correct") + boxes("wrong")).allSatisfy { ($0["confidence"] as? Double ?? 0) >= 0.5 })
        for entry in perClass {
            let label = try XCTUnwrap(entry["label"] as? String)
            func count(_ key: String) -> Int { boxes(key).filter { $0["label"] as? String == label }.count }
            let truths = try XCTUnwrap(entry["groundTruthCount"] as? Int)
            XCTAssertEqual(count("correct") + count("missed"), truths, label)
            XCTAssertEqual(count("correct") + count("wrong"), entry["predictionCount"] as? Int, label)
            XCTAssertEqual(Double(count("correct")), (entry["recall"] as? Double ?? -1) * Double(truths), accuracy: 1e-9, label)
        }

        // --mistakes draws the images with missed or wrong boxes, listed with their counts, which add
        // up to the JSON's per-class recall and precision (all six images fit on the picture).
        let sheet = directory.appendingPathComponent("mistakes.png")
        let sheetRun = try CoachExecutable.run(["evaluate", model, "--annotations", test.path, "--json", "--mistakes", sheet.path],
                                            environment: environment)
        XCTAssertEqual(sheetRun.exitCode, 0, sheetRun.standardError)
        XCTAssertEqual(sheetRun.standardOutput, evaluated.standardOutput, "stdout stays the same JSON")
        let listed = sheetRun.standardError.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.contains(" missed, ") }
        XCTAssertFalse(listed.isEmpty, sheetRun.standardError)
        XCTAssertTrue(sheetRun.standardError.contains("drew \(listed.count) of \(listed.count) image\(listed.count == 1 ? "" : "s") with mistakes on \(sheet.path)"),
                      sheetRun.standardError)
        func counts(_ word: String) -> Int {
            listed.compactMap { line in
                line.components(separatedBy: ", ").compactMap { part -> Int? in
                    let words = part.split(separator: " ")
                    return words.last.map(String.init) == word ? Int(words[words.count - 2]) : nil
                }.first
            }.reduce(0, +)
        }
        let found = perClass.map { Int((($0["recall"] as? Double ?? 0) * Double($0["groundTruthCount"] as? Int ?? 0)).rounded()) }.reduce(0, +)
        let truths = perClass.map { $0["groundTruthCount"] as? Int ?? 0 }.reduce(0, +)
        let predictions = perClass.map { $0["predictionCount"] as? Int ?? 0 }.reduce(0, +)
        XCTAssertEqual(counts("missed"), truths - found, sheetRun.standardError)
        // The listing and the JSON's images agree image by image.
        for line in listed {
            let path = try XCTUnwrap(line.split(separator: " ").dropFirst().first.map { String($0.dropLast()) })
            let outcome = try XCTUnwrap(outcomes.first { $0["source"] as? String == path }, "\(path) not in the JSON's images")
            let described = ["missed", "wrong", "correct"].map { "\(((outcome[$0] as? [Any]) ?? []).count)" }
            XCTAssertTrue(line.hasSuffix(": \(described[0]) missed, \(described[1]) wrong, \(described[2]) right"), "\(line) against \(outcome)")
        }
        XCTAssertEqual(counts("wrong"), predictions - found, sheetRun.standardError)
        let picture = try RGBImage(contentsOf: sheet)
        let columns = min(3, listed.count), rows = (listed.count + 2) / 3
        XCTAssertEqual([picture.width, picture.height], [columns * 400 + (columns + 1) * 4, rows * 300 + (rows + 1) * 4])
        let inside = try CoachExecutable.run(["evaluate", model, "--annotations", test.path, "--mistakes",
                                              test.deletingLastPathComponent().appendingPathComponent("m.png").path],
                                             environment: environment)
        XCTAssertNotEqual(inside.exitCode, 0)
        XCTAssertTrue(inside.standardError.contains("beside the evaluated images"), inside.standardError)

        let text = try CoachExecutable.run(["evaluate", model, "--annotations", test.path], environment: environment)
        XCTAssertTrue(text.standardOutput.contains("mAP@0.5 (I/O 50)"), text.standardOutput)
        XCTAssertTrue(text.standardOutput.contains("background"), text.standardOutput)

        // An annotation file that names no images is an error, not a table of zeros.
        let empty = directory.appendingPathComponent("empty.json")
        try Data("[]".utf8).write(to: empty)
        let nothing = try CoachExecutable.run(["evaluate", model, "--annotations", empty.path], environment: environment)
        XCTAssertNotEqual(nothing.exitCode, 0)
        XCTAssertTrue(nothing.standardError.contains("no images"), nothing.standardError)

        let image = test.deletingLastPathComponent().appendingPathComponent("0001.jpg").path
        let drawing = directory.appendingPathComponent("boxes.png").path
        let predicted = try CoachExecutable.run(["predict", model, image, "--json", "--confidence-threshold", "0.05", "--draw", drawing],
                                                environment: environment)
        XCTAssertEqual(predicted.exitCode, 0, predicted.standardError)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(predicted.standardOutput.utf8)) as? [[String: Any]])
        let objects = try XCTUnwrap(reports.first?["objects"] as? [[String: Any]])
        XCTAssertFalse(objects.isEmpty)
        let confidences = objects.compactMap { $0["confidence"] as? Double }
        XCTAssertEqual(confidences, confidences.sorted(by: >), "objects are sorted by confidence")
        let box = try XCTUnwrap(objects.first?["boundingBox"] as? [String: Double])
        XCTAssertEqual(Set(box.keys), ["x", "y", "width", "height"])
        let original = try RGBImage(contentsOf: URL(fileURLWithPath: image))
        let drawn = try RGBImage(contentsOf: URL(fileURLWithPath: drawing))
        XCTAssertEqual([drawn.width, drawn.height], [original.width, original.height])
        XCTAssertNotEqual(drawn.pixels, original.pixels, "boxes were drawn")

        // The picture's format follows its name (issue 14: PNG bytes were written under .jpg).
        let jpegDrawing = directory.appendingPathComponent("boxes.jpg").path
        XCTAssertEqual(try CoachExecutable.run(["predict", model, image, "--draw", jpegDrawing], environment: environment).exitCode, 0)
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: jpegDrawing)).prefix(3)), [0xFF, 0xD8, 0xFF])
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: drawing)).prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        let unknown = try CoachExecutable.run(["predict", model, image, "--draw", directory.appendingPathComponent("boxes.gif").path],
                                              environment: environment)
        XCTAssertTrue(unknown.standardError.contains("--draw must name a .png or .jpg picture"), unknown.standardError)

        let twoInputs = try CoachExecutable.run(["predict", model, image, image, "--draw", drawing], environment: environment)
        XCTAssertNotEqual(twoInputs.exitCode, 0)
        XCTAssertTrue(twoInputs.standardError.contains("--draw"), twoInputs.standardError)

        // --draw never replaces a file unasked, and never the model or the input even when asked.
        let again = try CoachExecutable.run(["predict", model, image, "--draw", drawing], environment: environment)
        XCTAssertNotEqual(again.exitCode, 0)
        XCTAssertTrue(again.standardError.contains("--overwrite"), again.standardError)
        XCTAssertEqual(try CoachExecutable.run(["predict", model, image, "--draw", drawing, "--overwrite"], environment: environment).exitCode, 0)
        let modelBytes = try Data(contentsOf: URL(fileURLWithPath: model)), imageBytes = try Data(contentsOf: URL(fileURLWithPath: image))
        for target in [model, image] {
            let refused = try CoachExecutable.run(["predict", model, image, "--draw", target, "--overwrite"], environment: environment)
            XCTAssertNotEqual(refused.exitCode, 0)
            XCTAssertTrue(refused.standardError.contains("one of this command's inputs"), refused.standardError)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: model)), modelBytes)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: image)), imageBytes)
    }

    func testBadAnnotationsListEveryProblem() throws {
        let directory = try temporaryDirectory(self)
        try ImageEncoder.pngData(RGBImage(width: 40, height: 30, color: .white)).write(to: directory.appendingPathComponent("a.png"))
        let json = directory.appendingPathComponent("bad.json")
        try Data("""
        [{"image": "a.png", "annotations": [{"label": "board", "coordinates": {"x": 20, "y": 15, "width": -3, "height": 4}},
                                           {"label": "board", "coordinates": {"x": 60, "y": 15, "width": 10, "height": 4}}]},
         {"image": "gone.png", "annotations": []}]
        """.utf8).write(to: json)
        let result = try CoachExecutable.run(["train", "object-detector", "--annotations", json.path, "--output",
                                              directory.appendingPathComponent("m.h5").path])
        XCTAssertEqual(result.exitCode, 1, result.standardError)
        for fragment in ["3 problems", "$[0].annotations[0].coordinates", "must be positive", "$[0].annotations[1]",
                         "outside the 40×30 image", "$[1]", "gone.png"] {
            XCTAssertTrue(result.standardError.contains(fragment), "'\(fragment)' missing from:\n\(result.standardError)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("m.h5").path))
    }
}
