import CoachData
import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Object-detector training: reproducible to the byte, resumable exactly, and views whose
/// boxes stay on their objects through augmentation.
final class ObjectDetectorTrainerTests: XCTestCase {
    static func smallBoards(in folder: URL, images: Int, seed: UInt64) throws -> DetectionDataset {
        var configuration = BoardSceneConfiguration()
        configuration.imageSizes = [(200, 160), (160, 200)]
        configuration.distanceRange = 1.8...3
        let summary = try BoardDatasetGenerator(configuration: configuration).generate(into: folder, images: images, seed: seed)
        return try DetectionDataset.load(from: summary.annotationFile)
    }

    func testSameSeedSameBytesAndResumeContinuesExactly() throws {
        let backbone = try BackboneFixture.load()
        let folder = try temporaryDirectory(self)
        let data = try Self.smallBoards(in: folder.appendingPathComponent("data"), images: 12, seed: 4)
        let configuration = ObjectDetectorTrainingConfiguration(inputSize: 128, maximumIterations: 40, batchSize: 4,
                                                                viewsPerImage: 2, seed: 9)
        func bytes(_ trained: TrainedObjectDetector, _ name: String) throws -> Data {
            let url = folder.appendingPathComponent(name)
            try trained.modelFile.write(to: url)
            return try Data(contentsOf: url)
        }
        let views = try ObjectDetectorTrainer.cacheViews(training: data, validation: nil, backbone: backbone, configuration: configuration)
        let first = try bytes(ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone,
                                                          configuration: configuration), "a.h5")
        let again = try bytes(ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone,
                                                          configuration: configuration, cachedViews: views), "b.h5")
        XCTAssertEqual(first, again, "the same seed and data must give the same model bytes")

        let checkpoint = folder.appendingPathComponent("run.checkpoint.h5")
        XCTAssertThrowsError(try ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone, configuration: configuration,
                                                             cachedViews: views, checkpoint: checkpoint, interruptAfter: 20)) { error in
            guard case ObjectDetectorTrainingError.interrupted(let done, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(done, 20)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: checkpoint.path))
        let resumed = try bytes(ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone, configuration: configuration,
                                                            cachedViews: views, checkpoint: checkpoint, resume: true), "c.h5")
        XCTAssertEqual(resumed, first, "a resumed run must end exactly where an uninterrupted one does")
        XCTAssertFalse(FileManager.default.fileExists(atPath: checkpoint.path), "a finished run removes its checkpoint")
        // Nothing to resume is refused, as by every trainer (not a silent fresh start).
        XCTAssertThrowsError(try ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone, configuration: configuration,
                                                             cachedViews: views, checkpoint: checkpoint, resume: true)) { error in
            guard case ObjectDetectorTrainingError.checkpointMissing(let path) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, checkpoint.path)
        }

        var other = configuration
        other.seed = 10
        XCTAssertNotEqual(try bytes(ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone,
                                                                configuration: other), "d.h5"), first)

        // A checkpoint of other options is refused, naming the file.
        XCTAssertThrowsError(try ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone, configuration: configuration,
                                                             cachedViews: views, checkpoint: checkpoint, interruptAfter: 10))
        var changed = configuration
        changed.headWidth = 48
        XCTAssertThrowsError(try ObjectDetectorTrainer.train(training: data, validation: nil, backbone: backbone, configuration: changed,
                                                             cachedViews: views, checkpoint: checkpoint, resume: true)) { error in
            XCTAssertTrue(error.localizedDescription.contains(checkpoint.path), error.localizedDescription)
        }
    }

    /// Large datasets cache fewer augmented views per image so the cache fits its budget
    /// (584 KB a view at 416²).
    func testViewCacheStaysWithinItsBudget() {
        let configuration = ObjectDetectorTrainingConfiguration()
        XCTAssertEqual(configuration.cachedViewsPerImage(imageCount: 119), 8)
        XCTAssertEqual(configuration.cachedViewsPerImage(imageCount: 1000), 4)
        XCTAssertEqual(configuration.cachedViewsPerImage(imageCount: 100_000), 1)
        XCTAssertEqual(ObjectDetectorTrainingConfiguration(inputSize: 224).cachedViewsPerImage(imageCount: 1000), 8)
    }

    /// Three coloured rectangles on grey, through the training views (letterbox, crop, flip,
    /// shift, colour jitter, blur, noise): inside every target box the input shows that
    /// rectangle's colour, and just outside it mostly does not.
    func testAugmentedViewsKeepBoxesOnTheirObjects() throws {
        var image = RGBImage(width: 240, height: 180, color: RGBColor(red: 120, green: 120, blue: 120))
        let colours = [RGBColor(red: 220, green: 30, blue: 30), RGBColor(red: 30, green: 40, blue: 220), RGBColor(red: 30, green: 200, blue: 40)]
        let boxes = [BoundingBox(minX: 20, minY: 30, maxX: 70, maxY: 90), BoundingBox(minX: 150, minY: 20, maxX: 220, maxY: 60),
                     BoundingBox(minX: 100, minY: 110, maxX: 130, maxY: 170)]
        for (box, colour) in zip(boxes, colours) {
            image.fillRectangle(x0: Int(box.minX), y0: Int(box.minY), x1: Int(box.maxX), y1: Int(box.maxY), color: colour)
        }
        let labels = ["blue", "green", "red"]
        let objects = zip(["red", "blue", "green"], boxes).map { ObjectAnnotation(label: $0, box: $1) }
        let configuration = ObjectDetectorTrainingConfiguration(inputSize: 128, seed: 3)
        func matches(_ label: String, _ r: Float, _ g: Float, _ b: Float) -> Bool {
            switch label {
            case "red": return r > g + 40 && r > b + 40
            case "blue": return b > r + 40 && b > g + 40
            default: return g > r + 40 && g > b + 40
            }
        }
        var flipped = 0, checkedBoxes = 0
        for view in 0..<16 {
            let (pixels, target) = try ObjectDetectorTrainer.trainingView(of: image, objects: objects, labels: labels,
                                                                          configuration: configuration, imageIndex: 0, view: view)
            func rgb(_ x: Int, _ y: Int) -> (Float, Float, Float) {
                let i = (y * 128 + x) * 3
                return (pixels[i] * 128 + 127, pixels[i + 1] * 128 + 127, pixels[i + 2] * 128 + 127)
            }
            for (box, classIndex) in zip(target.boxes, target.classIndices) {
                let label = labels[classIndex]
                var inside = 0, insideHits = 0, ring = 0, ringHits = 0
                for y in 0..<128 {
                    for x in 0..<128 {
                        let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                        let (r, g, b) = rgb(x, y)
                        // The inner part of the box, away from blurred edges.
                        if cx > box.minX + 2 && cx < box.maxX - 2 && cy > box.minY + 2 && cy < box.maxY - 2 {
                            inside += 1
                            if matches(label, r, g, b) { insideHits += 1 }
                        }
                        // A band 3–6 pixels outside the box.
                        let outsideX = max(box.minX - cx, cx - box.maxX), outsideY = max(box.minY - cy, cy - box.maxY)
                        let distance = max(outsideX, outsideY)
                        if distance > 3 && distance < 6 {
                            ring += 1
                            if matches(label, r, g, b) { ringHits += 1 }
                        }
                    }
                }
                guard inside >= 4 else { continue }
                checkedBoxes += 1
                XCTAssertGreaterThan(Double(insideHits) / Double(inside), 0.9, "view \(view): \(label) box \(box) holds other pixels")
                if ring > 0 {
                    XCTAssertLessThan(Double(ringHits) / Double(ring), 0.2, "view \(view): \(label) extends beyond its box \(box)")
                }
            }
            // The red rectangle starts left of the blue one; a mirrored view swaps them.
            if let red = zip(target.boxes, target.classIndices).first(where: { labels[$0.1] == "red" })?.0,
               let blue = zip(target.boxes, target.classIndices).first(where: { labels[$0.1] == "blue" })?.0,
               red.centerX > blue.centerX { flipped += 1 }
        }
        XCTAssertGreaterThan(checkedBoxes, 30)
        XCTAssertGreaterThan(flipped, 2, "about half of the views are mirrored")
        XCTAssertLessThan(flipped, 14)
    }
}
