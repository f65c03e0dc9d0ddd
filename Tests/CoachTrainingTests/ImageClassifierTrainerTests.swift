import CoachData
import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// The trainer on small generated folders: determinism, reports, bad inputs.
final class ImageClassifierTrainerTests: XCTestCase {
    /// A small sports-gear set (generated once per directory).
    private func gearFolder(in directory: URL, perClass: Int = 12) throws -> URL {
        let root = directory.appendingPathComponent("gear")
        _ = try SportsGearImageGenerator().generate(into: root, trainingPerClass: perClass, testPerClass: 0, seed: 4)
        return root.appendingPathComponent("train")
    }

    /// The backbone, a fresh temporary folder and the small sports-gear set inside it.
    private func gearSetup() throws -> (Backbone, URL, URL) {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        return (backbone, directory, try gearFolder(in: directory))
    }

    func testSameSeedGivesTheSameModelBytesAndAugmentationsAddViews() throws {
        let (backbone, directory, data) = try gearSetup()
        var configuration = ImageClassifierTrainingConfiguration()
        configuration.seed = 3
        configuration.augmentations = ["flip", "exposure"]
        func train(_ name: String, cache: FeatureCache?) throws -> (Data, ImageClassifierTrainingResult) {
            let trainer = try ImageClassifierTrainer(configuration: configuration, backbone: backbone, featureCache: cache)
            let result = try trainer.train(data: data)
            let url = directory.appendingPathComponent(name)
            try result.model.modelFile().write(to: url)
            return (try Data(contentsOf: url), result)
        }
        let (first, firstResult) = try train("a.h5", cache: ImageClassifierFixtures.featureCache)
        // In memory only (no cache): the features are recomputed and the bytes still agree.
        let (second, secondResult) = try train("b.h5", cache: nil)
        XCTAssertEqual(first, second, "the same seed must give the same model bytes")
        XCTAssertEqual(secondResult.computedViews, 3 * 40 + 8, "40 training images × 3 views + 8 validation images")
        XCTAssertEqual(firstResult.report.trainingCounts.values.reduce(0, +), 40)
        XCTAssertEqual(firstResult.model.training["augmentations"], ["flip", "exposure"])
        // Another seed gives another validation split and augmented views, so another model.
        configuration.seed = 4
        let (third, _) = try train("c.h5", cache: ImageClassifierFixtures.featureCache)
        XCTAssertNotEqual(first, third)
    }

    /// With one training image per class, every image cross-validation holds out is of a class
    /// its fold's fit never saw: its loss could only favour the largest penalty, so none is scored
    /// and the head takes the fallback penalty, saying why.
    func testOneImagePerClassTakesTheFallbackPenalty() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let data = try gearFolder(in: directory, perClass: 1)
        var notes: [String] = []
        let trainer = try ImageClassifierTrainer(configuration: ImageClassifierTrainingConfiguration(), backbone: backbone,
                                                 featureCache: ImageClassifierFixtures.featureCache) { event in
            if case let .note(text) = event { notes.append(text) }
        }
        let result = try trainer.train(data: data)
        XCTAssertEqual(result.model.training["l2Penalty"], .number(ImageClassifierTrainingConfiguration.fallbackL2Penalty))
        XCTAssertTrue(notes.contains { $0.contains("cross-validation has nothing to judge by") }, "\(notes)")
        XCTAssertTrue(notes.contains("validation: none held out (a class needs 2 or more training images to lend one)"), "\(notes)")
        // Two per class, one of them held out for validation: still one per class to cross-validate.
        notes = []
        _ = try trainer.train(data: try gearFolder(in: directory.appendingPathComponent("two"), perClass: 2))
        XCTAssertTrue(notes.contains { $0.contains("cross-validation has nothing to judge by") }, "\(notes)")
        XCTAssertTrue(notes.contains("validation: a seeded, stratified hold-out of the training folder"), "\(notes)")
        // Four per class: the penalty is chosen by cross-validation again.
        notes = []
        _ = try trainer.train(data: try gearFolder(in: directory.appendingPathComponent("four"), perClass: 4))
        XCTAssertTrue(notes.contains { $0.contains("chosen by") && $0.contains("-fold cross-validation") }, "\(notes)")
    }

    /// Few images in many classes make one short warning, not a list of every class.
    func testManySmallClassesAreWarnedInOneLine() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        for (index, label) in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].enumerated() {
            let level = UInt8(index * 25)
            try ImageClassifierFixtures.writeSolidImages(label: label, color: RGBColor(red: level, green: 255 - level, blue: level / 2),
                                                         count: index == 0 ? 3 : 2, in: directory, size: 32)
        }
        var configuration = ImageClassifierTrainingConfiguration()
        configuration.maximumIterations = 5
        var warnings: [String] = []
        _ = try ImageClassifierTrainer(configuration: configuration, backbone: backbone, featureCache: nil) { event in
            if case let .warning(text) = event { warnings.append(text) }
        }.train(data: directory, validation: directory)
        XCTAssertTrue(warnings.contains("every one of the 10 classes has fewer than 10 training images (2–3 each); add more images for a reliable classifier"),
                      "\(warnings)")
    }

    func testTheHeadsFeaturesAloneStillTrainAndAreRecorded() throws {
        let (backbone, directory, data) = try gearSetup()
        var configuration = ImageClassifierTrainingConfiguration()
        configuration.maximumIterations = 30
        var shapes: [ImageFeatureLayers: [Int]] = [:]
        for layers in ImageFeatureLayers.allCases {
            configuration.featureLayers = layers
            let result = try ImageClassifierTrainer(configuration: configuration, backbone: backbone,
                                                    featureCache: ImageClassifierFixtures.featureCache).train(data: data)
            XCTAssertEqual(result.model.featureLayers, layers)
            XCTAssertEqual(result.model.training["features"], .string(layers.rawValue))
            XCTAssertGreaterThanOrEqual(result.model.metrics["training.accuracy"] ?? 0, 0.9, layers.rawValue)
            shapes[layers] = result.model.head.layers[0].weight.shape
            let url = directory.appendingPathComponent("\(layers.rawValue).h5")
            try result.model.modelFile().write(to: url)
            XCTAssertEqual(try ImageClassifierModel.read(from: url), result.model)
        }
        XCTAssertEqual(shapes, [.head: [1280, 4], .headAndStride16: [1392, 4]])
    }

    func testMLPHeadTrainsAndRoundTrips() throws {
        let (backbone, directory, data) = try gearSetup()
        var configuration = ImageClassifierTrainingConfiguration()
        configuration.classifier = .mlp
        configuration.maximumIterations = 15
        let result = try ImageClassifierTrainer(configuration: configuration, backbone: backbone,
                                                featureCache: ImageClassifierFixtures.featureCache).train(data: data)
        XCTAssertEqual(result.model.head.kind, "mlp")
        XCTAssertEqual(result.model.head.layers.map(\.weight.shape), [[1392, 256], [256, 4]])   // head+stride16 features
        XCTAssertGreaterThanOrEqual(result.model.metrics["training.accuracy"] ?? 0, 0.9)
        let url = directory.appendingPathComponent("mlp.h5")
        try result.model.modelFile().write(to: url)
        XCTAssertEqual(try ImageClassifierModel.read(from: url), result.model)
    }

    func testCorruptImagesAreSkippedByNameAndSmallClassesWarned() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        try ImageClassifierFixtures.writeSolidImages(label: "red", color: RGBColor(red: 220, green: 30, blue: 30), count: 12, in: directory)
        try ImageClassifierFixtures.writeSolidImages(label: "blue", color: RGBColor(red: 30, green: 30, blue: 220), count: 6, in: directory)
        let corrupt = directory.appendingPathComponent("red/broken.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 1, 2, 3]).write(to: corrupt)
        let notAnImage = directory.appendingPathComponent("blue/notes.txt")
        try Data("hello".utf8).write(to: notAnImage)
        try Data().write(to: directory.appendingPathComponent("blue/.DS_Store"))
        try Data([0, 0, 0, 24]).write(to: directory.appendingPathComponent("blue/IMG_0001.HEIC"))
        var warnings: [String] = [], notes: [String] = []
        let trainer = try ImageClassifierTrainer(configuration: ImageClassifierTrainingConfiguration(), backbone: backbone,
                                                 featureCache: nil, observer: { event in
            if case let .warning(text) = event { warnings.append(text) }
            if case let .note(text) = event { notes.append(text) }
        })
        let result = try trainer.train(data: directory)
        XCTAssertEqual(result.report.skippedFiles.count, 1)
        XCTAssertTrue(result.report.skippedFiles[0].contains(corrupt.path), result.report.skippedFiles[0])
        XCTAssertTrue(warnings.contains { $0.contains("skipped") && $0.contains(corrupt.path) }, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.contains("fewer than 10") && $0.contains("blue") }, "\(warnings)")
        XCTAssertEqual(Set(result.report.ignoredFiles.map { URL(fileURLWithPath: $0).lastPathComponent }), ["notes.txt", ".DS_Store", "IMG_0001.HEIC"])
        XCTAssertTrue(warnings.contains { $0.hasPrefix("1 photo is left out, in formats Coach does not read (HEIC: 1; e.g. \(directory.path)/blue/IMG_0001.HEIC)") },
                      "\(warnings)")
        XCTAssertTrue(notes.contains { $0.contains("notes.txt") })
        XCTAssertEqual(result.report.trainingCounts.values.reduce(0, +) + result.report.validationCounts.values.reduce(0, +), 18)
        // The broken file's row leaves the features and the rows after it move up with their labels:
        // a row left behind would pair every later image with its neighbour's label.
        XCTAssertEqual(result.model.metrics["training.accuracy"], 1, "\(result.model.metrics)")
        XCTAssertEqual(result.model.metrics["validation.accuracy"], 1, "\(result.model.metrics)")
    }

    func testImbalanceAndDuplicatesBetweenTrainingAndValidationAreWarned() throws {
        let backbone = try BackboneFixture.load()
        let directory = try temporaryDirectory(self)
        let train = directory.appendingPathComponent("train"), validation = directory.appendingPathComponent("validation")
        try ImageClassifierFixtures.writeSolidImages(label: "red", color: RGBColor(red: 220, green: 30, blue: 30), count: 44, in: train)
        try ImageClassifierFixtures.writeSolidImages(label: "blue", color: RGBColor(red: 30, green: 30, blue: 220), count: 4, in: train)
        try ImageClassifierFixtures.writeSolidImages(label: "blue", color: RGBColor(red: 30, green: 30, blue: 220), count: 2, in: validation)
        var warnings: [String] = []
        let result = try ImageClassifierTrainer(configuration: ImageClassifierTrainingConfiguration(), backbone: backbone,
                                                featureCache: ImageClassifierFixtures.featureCache,
                                                observer: { if case let .warning(text) = $0 { warnings.append(text) } })
            .train(data: directory)
        XCTAssertFalse(result.report.validationIsHeldOut)
        XCTAssertEqual(result.report.duplicates.count, 2, "validation/blue/blue-0.png and -1.png equal train's")
        XCTAssertTrue(warnings.contains { $0.contains("imbalanced more than 10:1") && $0.contains("red: 44") }, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.contains("byte-for-byte identical") && $0.contains("blue-0.png") }, "\(warnings)")
    }

    func testBadFoldersAreClearErrors() throws {
        let backbone = try BackboneFixture.load()
        let trainer = try ImageClassifierTrainer(configuration: ImageClassifierTrainingConfiguration(), backbone: backbone)
        let directory = try temporaryDirectory(self)
        // No class folders at all.
        XCTAssertThrowsError(try trainer.train(data: directory)) { error in
            XCTAssertTrue(error.localizedDescription.contains("no class folders found"), error.localizedDescription)
        }
        // One usable class, one empty: the empty class is named.
        try ImageClassifierFixtures.writeSolidImages(label: "red", color: RGBColor(red: 220, green: 30, blue: 30), count: 3, in: directory)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("green"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try trainer.train(data: directory)) { error in
            XCTAssertTrue(error.localizedDescription.contains("class 'green' has no images"), error.localizedDescription)
        }
        // A single class is not a classifier.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("green"))
        XCTAssertThrowsError(try trainer.train(data: directory)) { error in
            XCTAssertEqual(error as? ImageClassifierTrainingError, .tooFewClasses(path: directory.path, labels: ["red"]))
        }
        // A class whose only images are corrupt.
        let blue = directory.appendingPathComponent("blue")
        try FileManager.default.createDirectory(at: blue, withIntermediateDirectories: true)
        try Data("not a png".utf8).write(to: blue.appendingPathComponent("b.png"))
        XCTAssertThrowsError(try trainer.train(data: directory)) { error in
            XCTAssertEqual(error as? ImageClassifierTrainingError, .classesWithoutImages(path: directory.path, labels: ["blue"]))
        }
        // Missing folder and a file instead of a folder.
        XCTAssertThrowsError(try trainer.train(data: directory.appendingPathComponent("nope"))) { error in
            XCTAssertEqual(error as? ImageFolderError, .notFound(path: directory.appendingPathComponent("nope").path))
        }
        XCTAssertThrowsError(try trainer.train(data: blue.appendingPathComponent("b.png"))) { error in
            XCTAssertEqual(error as? ImageFolderError, .notAFolder(path: blue.appendingPathComponent("b.png").path))
        }
        // Bad options are listed together.
        var configuration = ImageClassifierTrainingConfiguration()
        configuration.maximumIterations = 0
        configuration.augmentations = ["flip", "sparkle"]
        XCTAssertThrowsError(try ImageClassifierTrainer(configuration: configuration, backbone: backbone)) { error in
            guard case let .invalidConfiguration(problems)? = error as? ImageClassifierTrainingError else { return XCTFail("\(error)") }
            XCTAssertEqual(problems.count, 2, "\(problems)")
        }
    }
}
