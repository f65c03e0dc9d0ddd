import CoachData
import Foundation
import TestSupport
import XCTest

/// The synthetic cornhole-board photos: reproducible, valid Create ML annotations, and
/// boxes that sit on the objects drawn.
final class SyntheticBoardDatasetTests: XCTestCase {
    var small: BoardDatasetGenerator {
        var configuration = BoardSceneConfiguration()
        configuration.imageSizes = [(200, 160), (160, 200)]
        configuration.bagCountRange = 2...6
        return BoardDatasetGenerator(configuration: configuration)
    }

    func testSameSeedSameFilesAndAValidDataset() throws {
        let a = try temporaryDirectory(self), b = try temporaryDirectory(self), c = try temporaryDirectory(self)
        let first = try small.generate(into: a, images: 6, seed: 3)
        _ = try small.generate(into: b, images: 6, seed: 3)
        _ = try small.generate(into: c, images: 6, seed: 4)
        for name in first.imageFiles + ["annotations.json"] {
            XCTAssertEqual(try Data(contentsOf: a.appendingPathComponent(name)), try Data(contentsOf: b.appendingPathComponent(name)), name)
        }
        XCTAssertNotEqual(try Data(contentsOf: a.appendingPathComponent("annotations.json")),
                          try Data(contentsOf: c.appendingPathComponent("annotations.json")))
        let dataset = try DetectionDataset.load(from: first.annotationFile)
        XCTAssertEqual(dataset.images.count, 6)
        XCTAssertTrue(Set(dataset.labels).isSubset(of: BoardDatasetGenerator.labels))
        XCTAssertEqual(dataset.objectCounts, first.objectsPerLabel)
        XCTAssertGreaterThan(first.objectsPerLabel["board", default: 0], 3)
        XCTAssertGreaterThan(first.objectsPerLabel["red_bag", default: 0] + first.objectsPerLabel["blue_bag", default: 0], 6)
    }

    /// Each bag box holds mostly its team's colour, each hole box dark pixels: the boxes
    /// are where the renderer drew the objects.
    func testBoxesSitOnTheDrawnObjects() throws {
        var checked = 0
        for index in 0..<8 {
            let (image, objects) = small.render(small.scene(index: index, seed: 11))
            for object in objects where object.label != "board" {
                let b = object.box
                var hits = 0, total = 0
                for y in Int(b.minY)..<Int(b.maxY.rounded(.up)) {
                    for x in Int(b.minX)..<Int(b.maxX.rounded(.up)) where x < image.width && y < image.height {
                        let p = image[x, y]
                        let (r, g, bl) = (Int(p.red), Int(p.green), Int(p.blue))
                        total += 1
                        switch object.label {
                        case "red_bag": if r > 2 * max(g, bl) { hits += 1 }
                        case "blue_bag": if bl > r + 30 && bl > g + 20 { hits += 1 }
                        default: if r + g + bl < 150 { hits += 1 }
                        }
                    }
                }
                XCTAssertGreaterThan(Double(hits) / Double(max(total, 1)), 0.2, "\(object.label) box \(b) in scene \(index)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 10)
    }

    func testNegativesAndConfigurationProblems() throws {
        var configuration = BoardSceneConfiguration()
        configuration.imageSizes = [(64, 48)]
        configuration.negativeShare = 1
        let summary = try BoardDatasetGenerator(configuration: configuration).generate(into: try temporaryDirectory(self), images: 3, seed: 1)
        XCTAssertEqual(summary.negativeCount, 3)
        XCTAssertTrue(try DetectionDataset.load(from: summary.annotationFile).images.allSatisfy(\.isNegative))

        var bad = BoardSceneConfiguration()
        bad.elevationRange = 0...95
        bad.supersampling = 0
        XCTAssertThrowsError(try BoardDatasetGenerator(configuration: bad).generate(into: try temporaryDirectory(self), images: 0, seed: 1)) { error in
            guard case SyntheticDataError.invalidConfiguration(let problems) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(problems.count, 3, "\(problems)")
        }
    }
}
