import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// `coach train image-classifier`, `evaluate`, `predict` and `inspect` on generated sample images.
final class ImageClassifierCommandTests: XCTestCase {
    func testTrainEvaluatePredictInspect() throws {
        _ = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let cache = SharedData.repositoryRoot.appendingPathComponent(".build/test-cache").path
        let generated = try CoachExecutable.run(["generate-samples", "--only", "sports-gear", "--output", directory.path])
        XCTAssertEqual(generated.exitCode, 0, generated.standardError)
        let data = directory.appendingPathComponent("sports-gear")
        let model = directory.appendingPathComponent("gear.h5").path
        let environment = ["COACH_BACKBONE": BackboneFixture.url.path, "COACH_CACHE_DIR": cache]
        let trained = try run(["train", "image-classifier", "--data", data.path, "--output", model, "--augment", "flip", "--seed", "2"],
                              environment: environment)
        XCTAssertEqual(trained.exitCode, 0, trained.standardError)
        XCTAssertTrue(trained.standardError.contains("extracting features") || trained.standardError.contains("read from the feature cache"),
                      trained.standardError)
        for fragment in ["classes: 4", "bean_bag", "iteration 1/500", "validation accuracy", "chosen by 5-fold cross-validation",
                         "refitted on the training and validation images together"] {
            XCTAssertTrue(trained.standardError.contains(fragment), "'\(fragment)' missing from:\n\(trained.standardError)")
        }
        XCTAssertTrue(trained.standardOutput.contains("wrote \(model)"), trained.standardOutput)
        XCTAssertTrue(trained.standardOutput.contains("confusion matrix (rows: true class, columns: predicted class)"))

        let evaluated = try run(["evaluate", model, "--data", data.appendingPathComponent("test").path, "--json"], environment: environment)
        XCTAssertEqual(evaluated.exitCode, 0, evaluated.standardError)
        let json = try JSONSerialization.jsonObject(with: Data(evaluated.standardOutput.utf8)) as! [String: Any]
        XCTAssertEqual(json["task"] as? String, "image-classifier")
        XCTAssertEqual(json["classes"] as? [String], ["ball", "bean_bag", "cone", "disc"])
        XCTAssertEqual((json["confusionMatrix"] as? [[Int]])?.flatMap { $0 }.reduce(0, +), 60)
        XCTAssertGreaterThanOrEqual(json["accuracy"] as? Double ?? 0, 0.9)
        let perClass = try XCTUnwrap(json["perClass"] as? [[String: Any]])
        XCTAssertEqual(Set(perClass[0].keys), ["label", "precision", "recall", "f1", "support"])
        try assertPredictionsMatchConfusion(json, count: 60)

        // evaluate, too, refuses options the model would ignore, and names a file given as --data.
        let origin = try run(["evaluate", model, "--data", data.appendingPathComponent("test").path, "--keypoint-origin", "bottom-left"],
                             environment: environment)
        XCTAssertTrue(origin.standardError.contains("--keypoint-origin applies to action-classifier and hand-pose-classifier models only"),
                      origin.standardError)
        let cone0 = data.appendingPathComponent("test/cone/cone-0000.jpg").path
        let fileAsData = try run(["evaluate", model, "--data", cone0], environment: environment)
        XCTAssertTrue(fileAsData.standardError.contains("--data \(cone0): it is a file"), fileAsData.standardError)

        let text = try run(["evaluate", model, "--data", data.appendingPathComponent("test").path], environment: environment)
        XCTAssertTrue(text.standardOutput.contains("true \\ predicted  ball  bean_bag  cone  disc"), text.standardOutput)

        // --mistakes draws the images predicted wrong: here 3 cones and 2 discs filed under the wrong labels.
        let swapped = directory.appendingPathComponent("swapped")
        var misfiled: [String] = []
        for (from, to, count) in [("cone", "ball", 3), ("disc", "cone", 2)] {
            try FileManager.default.createDirectory(at: swapped.appendingPathComponent(to), withIntermediateDirectories: true)
            for index in 0..<count {
                let name = String(format: "\(from)-%04d.jpg", index), target = swapped.appendingPathComponent("\(to)/\(name)")
                try FileManager.default.copyItem(at: data.appendingPathComponent("test/\(from)/\(name)"), to: target)
                misfiled.append(target.path)
            }
        }
        let sheet = directory.appendingPathComponent("mistakes.png")
        let drawn = try run(["evaluate", model, "--data", swapped.path, "--mistakes", sheet.path, "--json"], environment: environment)
        XCTAssertEqual(drawn.exitCode, 0, drawn.standardError)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(drawn.standardOutput.utf8)), "stdout stays one JSON object")
        XCTAssertTrue(drawn.standardError.contains("drew 5 of 5 mistakes on \(sheet.path), most confident first:"), drawn.standardError)
        for path in misfiled { XCTAssertTrue(drawn.standardError.contains(path), "\(path) not listed:\n\(drawn.standardError)") }
        XCTAssertTrue(drawn.standardError.contains("/swapped/ball/cone-0000.jpg: ball, predicted cone ("), drawn.standardError)
        let picture = try ImageDecoder.decode(contentsOf: sheet).image
        XCTAssertEqual([picture.width, picture.height], [5 * 192 + 6 * 4, 192 + 2 * 4], "five square tiles in one row")
        // It never lands in the data, never replaces a file unasked, and names a picture format.
        let refusals = [(["--mistakes", swapped.appendingPathComponent("ball/sheet.png").path], "inside the evaluated folder"),
                        (["--mistakes", sheet.path], "exists: choose another path, or pass --overwrite"),
                        (["--mistakes", directory.appendingPathComponent("m.gif").path], "must name a .jpg or .png picture")]
        for (arguments, fragment) in refusals {
            let refused = try run(["evaluate", model, "--data", swapped.path] + arguments, environment: environment)
            XCTAssertNotEqual(refused.exitCode, 0)
            XCTAssertTrue(refused.standardError.contains(fragment), "'\(fragment)' missing from:\n\(refused.standardError)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: swapped.appendingPathComponent("ball/sheet.png").path))
        let none = try run(["evaluate", model, "--data", data.appendingPathComponent("test").path, "--mistakes", sheet.path, "--overwrite"],
                           environment: environment)
        XCTAssertTrue(none.standardError.contains("no image was predicted wrong") || none.standardError.contains("drew "), none.standardError)

        let cone = data.appendingPathComponent("test/cone/cone-0000.jpg").path
        let predicted = try run(["predict", model, cone, "--top", "2", "--json"], environment: environment)
        XCTAssertEqual(predicted.exitCode, 0, predicted.standardError)
        let predictions = try JSONSerialization.jsonObject(with: Data(predicted.standardOutput.utf8)) as! [[String: Any]]
        let top = try XCTUnwrap(predictions.first?["predictions"] as? [[String: Any]])
        XCTAssertEqual(top.count, 2)
        XCTAssertEqual(top.first?["label"] as? String, "cone")

        // Options a classifier would ignore are refused, all of them named (issue 14: --draw
        // and --iou-threshold were silently ignored); a negative number is read as a number.
        let drawing = directory.appendingPathComponent("boxes.png")
        let ignored = try run(["predict", model, cone, "--draw", drawing.path, "--iou-threshold", "0.3"], environment: environment)
        XCTAssertNotEqual(ignored.exitCode, 0)
        for fragment in ["task 'image-classifier'", "--draw applies to object-detector models only",
                         "--iou-threshold applies to object-detector models only"] {
            XCTAssertTrue(ignored.standardError.contains(fragment), "'\(fragment)' missing from:\n\(ignored.standardError)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: drawing.path))
        let negative = try run(["predict", model, cone, "--top", "-1"], environment: environment)
        XCTAssertTrue(negative.standardError.contains("--top must be at least 1 (got -1)"), negative.standardError)

        let missing = try run(["predict", model, directory.appendingPathComponent("nope.jpg").path], environment: environment)
        XCTAssertEqual(missing.exitCode, 1)
        XCTAssertTrue(missing.standardError.contains("nope.jpg"), missing.standardError)

        let inspected = try run(["inspect", model], environment: environment)
        for fragment in ["image-classifier", "4: ball, bean_bag, cone, disc", "requires efficientnet-lite0", "short side 256",
                         "augmentations", "[flip]", "validation.accuracy", "l2Penalty"] {
            XCTAssertTrue(inspected.standardOutput.contains(fragment), "'\(fragment)' missing from:\n\(inspected.standardOutput)")
        }
    }

    func testBadDataAndAnotherBackboneAreClearErrors() throws {
        _ = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let environment = ["COACH_BACKBONE": BackboneFixture.url.path, "COACH_CACHE_DIR": directory.path]
        let empty = try run(["train", "image-classifier", "--data", directory.path, "--output", directory.appendingPathComponent("m.h5").path],
                            environment: environment)
        XCTAssertEqual(empty.exitCode, 1)
        XCTAssertTrue(empty.standardError.contains("no class folders found"), empty.standardError)
        let badAugment = try run(["train", "image-classifier", "--data", directory.path, "--output", "m.h5", "--augment", "flip,twirl"],
                                 environment: environment)
        XCTAssertEqual(badAugment.exitCode, 1)
        XCTAssertTrue(badAugment.standardError.contains("'twirl'"), badAugment.standardError)

        // A model trained on another backbone (another SHA-256) is refused, naming both.
        let head = ImageClassifierHead(layers: [ImageClassifierHead.Layer(weight: Tensor.zeros([1280, 2]), bias: Tensor.zeros([2]))])
        let model = ImageClassifierModel(labels: ["a", "b"], head: head,
                                         backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "1", count: 64)))
        let url = directory.appendingPathComponent("other.h5")
        try model.modelFile().write(to: url)
        let image = directory.appendingPathComponent("x.png")
        try RGBImage(width: 8, height: 8, color: .white).writePNG(to: image)
        let refused = try run(["predict", url.path, image.path], environment: environment)
        XCTAssertEqual(refused.exitCode, 1)
        XCTAssertTrue(refused.standardError.contains(String(repeating: "1", count: 64)), refused.standardError)
    }

    private func run(_ arguments: [String], environment: [String: String]) throws -> CoachExecutable.Result {
        try CoachExecutable.run(arguments, environment: environment)
    }
}
