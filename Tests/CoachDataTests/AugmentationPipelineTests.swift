import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// Parsing augmentation lists, drawing parameters within their documented ranges, and determinism.
final class AugmentationPipelineTests: XCTestCase {
    func testParsesNamesInOrderWithAliases() throws {
        let pipeline = try AugmentationPipeline(parsing: "flip, rotate,CROP,blur,exposure,noise")
        XCTAssertEqual(pipeline.steps.map(\.augmentation.name), ["flip", "rotate", "crop", "blur", "exposure", "noise"])
        XCTAssertEqual(pipeline.steps.map(\.probability), [0.5, 1, 1, 0.5, 1, 0.5])
        let aliases = try AugmentationPipeline(parsing: "rotation,brightness,scale,shift", probability: 1)
        XCTAssertEqual(aliases.steps.map(\.augmentation.name), ["rotate", "exposure", "crop", "translate"])
        XCTAssertEqual(aliases.steps.map(\.probability), [1, 1, 1, 1])
        XCTAssertTrue(try AugmentationPipeline(parsing: "none").isEmpty)
        XCTAssertTrue(try AugmentationPipeline(parsing: " ").isEmpty)
    }

    func testUnknownAndDuplicateNamesAreErrorsListingEveryOne() {
        XCTAssertThrowsError(try AugmentationPipeline(parsing: "flip,sharpen,rotate,warp")) { error in
            XCTAssertEqual(error as? AugmentationError, .unknownNames(["sharpen", "warp"]))
            let message = error.localizedDescription
            XCTAssertTrue(message.contains("'sharpen', 'warp'"), message)
            XCTAssertTrue(message.contains("flip, rotate, crop, translate, exposure, contrast, saturation, blur, noise"), message)
        }
        XCTAssertThrowsError(try AugmentationPipeline(parsing: "flip,mirror")) { error in
            XCTAssertEqual(error as? AugmentationError, .duplicateNames(["flip"]))
        }
        XCTAssertThrowsError(try AugmentationPipeline(parsing: "flip", probability: 1.5))
    }

    func testDrawnParametersStayInTheirDocumentedRanges() throws {
        let pipeline = try AugmentationPipeline(parsing: Augmentation.names.joined(separator: ","), probability: 1)
        var generator = SeededGenerator(seed: 7)
        var sawNegativeAngle = false, sawPositiveAngle = false
        for _ in 0..<300 {
            let operations = pipeline.drawOperations(width: 512, height: 256, using: &generator)
            XCTAssertEqual(operations.count, Augmentation.names.count)
            for operation in operations {
                switch operation {
                case .horizontalFlip: break
                case let .rotation(degrees):
                    XCTAssertLessThanOrEqual(abs(degrees), 15)
                    sawNegativeAngle = sawNegativeAngle || degrees < -10
                    sawPositiveAngle = sawPositiveAngle || degrees > 10
                case let .crop(window):
                    let area = window.area / (512 * 256)
                    XCTAssertGreaterThanOrEqual(area, 0.5 - 1e-6)
                    XCTAssertLessThanOrEqual(area, 1 + 1e-6)
                    XCTAssertGreaterThanOrEqual(window.minX, 0); XCTAssertGreaterThanOrEqual(window.minY, 0)
                    XCTAssertLessThanOrEqual(window.maxX, 512 + 1e-9); XCTAssertLessThanOrEqual(window.maxY, 256 + 1e-9)
                    let aspect = (window.width / 512) / (window.height / 256)
                    XCTAssertGreaterThanOrEqual(aspect, 0.75 - 1e-6); XCTAssertLessThanOrEqual(aspect, 4.0 / 3 + 1e-6)
                case let .translation(x, y):
                    XCTAssertLessThanOrEqual(abs(x), 51.2 + 1e-6); XCTAssertLessThanOrEqual(abs(y), 25.6 + 1e-6)
                case let .exposure(stops): XCTAssertLessThanOrEqual(abs(stops), 0.5)
                case let .contrast(factor): XCTAssertTrue((0.7...1.3).contains(factor))
                case let .saturation(factor): XCTAssertTrue((0.6...1.4).contains(factor))
                case let .gaussianBlur(sigma): XCTAssertTrue((0.5...2.0).contains(sigma))  // short side 256
                case let .gaussianNoise(deviation, _): XCTAssertTrue((2...10).contains(deviation))
                }
            }
        }
        XCTAssertTrue(sawNegativeAngle && sawPositiveAngle)
    }

    func testProbabilityDecidesHowOftenAStepIsApplied() throws {
        let pipeline = try AugmentationPipeline(parsing: "flip,rotate")  // ½ and 1
        var generator = SeededGenerator(seed: 3)
        var flips = 0
        for _ in 0..<2000 {
            let operations = pipeline.drawOperations(width: 10, height: 10, using: &generator)
            if operations.contains(.horizontalFlip) { flips += 1 }
            XCTAssertTrue(operations.contains { if case .rotation = $0 { return true } else { return false } })
        }
        XCTAssertEqual(Double(flips) / 2000, 0.5, accuracy: 0.05)
    }

    func testSameSeedSameViewDifferentSeedDifferentView() throws {
        let pipeline = try AugmentationPipeline(parsing: "flip,rotate,crop,translate,exposure,contrast,saturation,blur,noise")
        let sample = AugmentationSample(image: ImageFixtures.smooth(width: 64, height: 48),
                                        boxes: [BoundingBox(minX: 10, minY: 10, maxX: 40, maxY: 30)],
                                        keypoints: [ImagePoint(x: 20, y: 20)])
        var first = SeededGenerator(seed: 11), second = SeededGenerator(seed: 11), third = SeededGenerator(seed: 12)
        let a = pipeline.apply(to: sample, using: &first)
        let b = pipeline.apply(to: sample, using: &second)
        let c = pipeline.apply(to: sample, using: &third)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a.image, c.image)
        XCTAssertNotEqual(a.image, sample.image)
    }
}
