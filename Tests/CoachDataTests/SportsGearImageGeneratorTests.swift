import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// The sample image set: FORMATS §1 folders, seeded, and the classes differ in shape.
final class SportsGearImageGeneratorTests: XCTestCase {
    func testWritesReadableSeededFolders() throws {
        let directory = try temporaryDirectory(self)
        let first = try SportsGearImageGenerator().generate(into: directory.appendingPathComponent("a"), trainingPerClass: 3,
                                                            testPerClass: 1, seed: 9)
        _ = try SportsGearImageGenerator().generate(into: directory.appendingPathComponent("b"), trainingPerClass: 3,
                                                    testPerClass: 1, seed: 9)
        XCTAssertEqual(first.counts, ["train": ["ball": 3, "cone": 3, "bean_bag": 3, "disc": 3],
                                      "test": ["ball": 1, "cone": 1, "bean_bag": 1, "disc": 1]])
        let dataset = try ImageFolderDataset.read(first.root)
        XCTAssertEqual(dataset.training.labels, ["ball", "bean_bag", "cone", "disc"])
        XCTAssertEqual(dataset.test?.images.count, 4)
        for file in dataset.training.images {
            let image = try RGBImage(contentsOf: file.url)
            XCTAssertEqual(image.width, 160)
            let twin = directory.appendingPathComponent("b").appendingPathComponent(
                String(file.url.path.dropFirst(first.root.path.count)))
            XCTAssertEqual(try Data(contentsOf: file.url), try Data(contentsOf: twin), "same seed, same bytes")
        }
        XCTAssertThrowsError(try SportsGearImageGenerator().generate(into: directory, trainingPerClass: 0, testPerClass: -1, seed: 1)) { error in
            guard case let .invalidConfiguration(problems)? = error as? SyntheticDataError else { return XCTFail("\(error)") }
            XCTAssertEqual(problems.count, 2)
        }
    }

    func testImagesVaryWithTheSeedAndAreNotFlat() {
        let generator = SportsGearImageGenerator()
        var first = SeededGenerator(seed: 1), second = SeededGenerator(seed: 2)
        let a = generator.render(.cone, using: &first), b = generator.render(.cone, using: &second)
        XCTAssertNotEqual(a, b)
        // Not a flat image: ground texture, object and shadow spread the sample values.
        let stats = AugmentationFixtures.meanAndDeviation(a.pixels)
        XCTAssertGreaterThan(stats.deviation, 10)
    }
}
