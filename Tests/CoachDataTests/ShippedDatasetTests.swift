import CoachData
import Foundation
import TestSupport
import XCTest

/// The real photos shipped in `datasets/cornhole` (downscaled copies of the shared CHUCKVision
/// set) load cleanly, and every box is the original box scaled by the same factors as its photo.
final class ShippedDatasetTests: XCTestCase {
    func testCornholePhotosMatchTheirSource() throws {
        let folder = SharedData.repositoryRoot.appendingPathComponent("datasets/cornhole")
        let training = try DetectionDataset.load(from: folder.appendingPathComponent("train/annotations.json"))
        let test = try DetectionDataset.load(from: folder.appendingPathComponent("test/annotations.json"))
        XCTAssertEqual([training.images.count, test.images.count], [112, 37])
        XCTAssertEqual(training.labels, ["blue_bag", "board", "hole", "red_bag"])
        XCTAssertEqual(test.labels, training.labels)
        XCTAssertTrue(training.warnings.isEmpty && test.warnings.isEmpty, "\(training.warnings + test.warnings)")
        XCTAssertTrue(Set(training.images.map(\.name)).isDisjoint(with: test.images.map(\.name)))
        for image in training.images + test.images { XCTAssertEqual([image.width, image.height], [381, 416], image.name) }

        let original = try DetectionDataset.load(from: try SharedData.require("data/cornhole/images/annotations.json"))
        let byName = Dictionary(uniqueKeysWithValues: original.images.map { ($0.name, $0) })
        XCTAssertEqual(byName.count, training.images.count + test.images.count)
        let (sx, sy) = (381.0 / 660, 416.0 / 720)
        for image in training.images + test.images {
            let source = try XCTUnwrap(byName[image.name], image.name)
            XCTAssertEqual(image.objects.map(\.label), source.objects.map(\.label), image.name)
            for (box, sourceBox) in zip(image.objects.map(\.box), source.objects.map(\.box)) {
                XCTAssertEqual(box.minX, sourceBox.minX * sx, accuracy: 0.1, image.name)
                XCTAssertEqual(box.maxX, sourceBox.maxX * sx, accuracy: 0.1, image.name)
                XCTAssertEqual(box.minY, sourceBox.minY * sy, accuracy: 0.1, image.name)
                XCTAssertEqual(box.maxY, sourceBox.maxY * sy, accuracy: 0.1, image.name)
            }
        }
    }
}
