import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// `CoachRuntime.ObjectDetector`: the documented example runs, a detector trained on
/// synthetic board photos finds the boards of new photos, coordinates convert to Vision's.
final class ObjectDetectorTests: XCTestCase {
    /// Small synthetic board photos (fast to render and to run at a 160-pixel input).
    static func generator() -> BoardDatasetGenerator {
        var configuration = BoardSceneConfiguration()
        configuration.imageSizes = [(200, 160), (160, 200)]
        configuration.distanceRange = 1.8...3
        configuration.negativeShare = 0
        return BoardDatasetGenerator(configuration: configuration)
    }

    /// A board detector trained on 40 small synthetic photos, written to `folder/board.h5`.
    func trainBoardDetector(in folder: URL) throws -> URL {
        let backbone = try BackboneFixture.load()
        let summary = try Self.generator().generate(into: folder.appendingPathComponent("train"), images: 60, seed: 21)
        let training = try DetectionDataset.load(from: summary.annotationFile)
        let configuration = ObjectDetectorTrainingConfiguration(inputSize: 224, maximumIterations: 400, batchSize: 8,
                                                                viewsPerImage: 3, seed: 5)
        let trained = try ObjectDetectorTrainer.train(training: training, validation: nil, backbone: backbone,
                                                      configuration: configuration)
        let url = folder.appendingPathComponent("board.h5")
        try trained.modelFile.write(to: url)
        return url
    }

    func testTheDocumentedExampleRunsAndFindsBoards() throws {
        let folder = try temporaryDirectory(self)
        _ = try trainBoardDetector(in: folder)
        let test = try Self.generator().generate(into: folder.appendingPathComponent("test"), images: 12, seed: 99)
        let truth = try DetectionDataset.load(from: test.annotationFile)
        let previousDirectory = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previousDirectory) }
        try FileManager.default.copyItem(at: folder.appendingPathComponent("test/0001.jpg"), to: folder.appendingPathComponent("frame.jpg"))
        setenv("COACH_BACKBONE", BackboneFixture.url.path, 1)

        // The example from ObjectDetector's documentation, as written there.
        let detector = try ObjectDetector(contentsOf: URL(fileURLWithPath: "board.h5"))
        var boards: [NormalizedRect] = []
        for object in try detector.detect(inImageAt: URL(fileURLWithPath: "frame.jpg")) where object.label == "board" {
            boards.append(object.boundingBox)                 // normalised, origin top-left
            let visionBox = object.boundingBox.visionRect     // origin bottom-left, as Vision reports it
            _ = (object.confidence, visionBox)
        }

        XCTAssertLessThanOrEqual(boards.count, 2)
        XCTAssertEqual(detector.classLabels, ["blue_bag", "board", "hole", "red_bag"])
        var found = 0, locatedBoards = 0
        for image in truth.images {
            let objects = try detector.detect(inImageAt: image.url)
            XCTAssertEqual(objects.map(\.confidence), objects.map(\.confidence).sorted(by: >), "sorted by confidence")
            for object in objects {
                XCTAssertEqual(object.labels.count, 4)
                XCTAssertEqual(object.labels.first?.label, object.label)
                XCTAssertEqual(object.labels.first?.confidence ?? 0, object.confidence, accuracy: 1e-9)
                XCTAssertEqual(object.labels.map(\.confidence), object.labels.map(\.confidence).sorted(by: >))
                XCTAssertGreaterThanOrEqual(object.confidence, ObjectDetector.defaultConfidenceThreshold)
                let b = object.boundingBox
                XCTAssertTrue(b.x >= 0 && b.y >= 0 && b.x + b.width <= 1 + 1e-9 && b.y + b.height <= 1 + 1e-9, "\(b)")
            }
            guard let board = image.objects.first(where: { $0.label == "board" }) else { continue }
            let hit = objects.contains { object in
                let p = object.boundingBox.pixelRect(imageWidth: image.width, imageHeight: image.height)
                return object.label == "board"
                    && BoundingBox(minX: p.x, minY: p.y, maxX: p.x + p.width, maxY: p.y + p.height).intersectionOverUnion(board.box) > 0.5
            }
            if hit { found += 1 }
            // The same detector as the game's board locator: its most confident board.
            if let located = detector.locateBoard(in: try RGBImage(contentsOf: image.url)),
               located.box.boundingBox.intersectionOverUnion(board.box) > 0.5 {
                locatedBoards += 1
            }
        }
        XCTAssertGreaterThanOrEqual(found, 9, "boards found with IoU > 0.5 in 12 new photos")
        XCTAssertGreaterThanOrEqual(locatedBoards, 9, "the game's board locator finds the same boards")
    }

    func testVisionRectFlipsTheVerticalOrigin() {
        let rect = NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4)
        XCTAssertEqual(rect.visionRect.x, 0.1)
        XCTAssertEqual(rect.visionRect.y, 0.4, accuracy: 1e-12)   // 1 − 0.2 − 0.4
        XCTAssertEqual(rect.visionRect.width, 0.3)
        XCTAssertEqual(rect.visionRect.visionRect.y, 0.2, accuracy: 1e-12)
        XCTAssertEqual(rect.midX, 0.25, accuracy: 1e-12)
        let pixels = rect.pixelRect(imageWidth: 200, imageHeight: 100)
        XCTAssertEqual([pixels.x, pixels.y, pixels.width, pixels.height], [20, 20, 60, 40])
    }

    func testAModelNeedsTheBackboneItWasTrainedOn() throws {
        let folder = try temporaryDirectory(self)
        var g = SeededGenerator(seed: 1)
        let model = try ObjectDetectorModel(configuration: DetectorConfiguration(inputWidth: 64, inputHeight: 64, classCount: 1),
                                            classLabels: ["board"], generator: &g)
        let url = folder.appendingPathComponent("m.h5")
        try model.modelFile(backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "0", count: 64))).write(to: url)
        _ = try BackboneFixture.load()
        XCTAssertThrowsError(try ObjectDetector(contentsOf: url, backbone: BackboneFixture.url)) { error in
            guard case BackboneError.mismatch = error else { return XCTFail("\(error)") }
        }
        let notADetector = folder.appendingPathComponent("backbone-copy.h5")
        try FileManager.default.copyItem(at: BackboneFixture.url, to: notADetector)
        XCTAssertThrowsError(try ObjectDetector(contentsOf: notADetector, backbone: BackboneFixture.url)) { error in
            XCTAssertTrue(error.localizedDescription.contains("not an object detector"), error.localizedDescription)
        }
    }
}
