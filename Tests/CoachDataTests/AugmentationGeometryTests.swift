import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// Geometric augmentations: pixels move as documented and boxes move with them.
final class AugmentationGeometryTests: XCTestCase {
    private let pipeline = AugmentationPipeline(steps: [])

    func testFlipMirrorsPixelsExactlyAndMovesBoxes() {
        let image = ImageFixtures.pattern(width: 37, height: 23)
        let box = BoundingBox(minX: 2, minY: 3, maxX: 10, maxY: 8)
        let result = pipeline.apply([.horizontalFlip], to: AugmentationSample(image: image, boxes: [box],
                                                                             keypoints: [ImagePoint(x: 5.5, y: 4)]))
        XCTAssertEqual(result.image, image.flippedHorizontally())
        XCTAssertEqual(result.boxes, [BoundingBox(minX: 27, minY: 3, maxX: 35, maxY: 8)])
        XCTAssertEqual(result.keypoints, [ImagePoint(x: 31.5, y: 4)])
        // Two flips compose into the identity map: the image comes back untouched.
        let twice = pipeline.apply([.horizontalFlip, .horizontalFlip], to: AugmentationSample(image: image))
        XCTAssertTrue(twice.transform.isIdentity)
        XCTAssertEqual(twice.image, image)
    }

    func testIntegerTranslationShiftsExactlyAndFillsGrey() {
        let image = ImageFixtures.pattern(width: 30, height: 20)
        let result = pipeline.apply([.translation(x: 5, y: -3)], to: AugmentationSample(image: image))
        for y in 0..<20 {
            for x in 0..<30 {
                let sourceX = x - 5, sourceY = y + 3
                let expected = (sourceX >= 0 && sourceY < 20) ? image[sourceX, sourceY]
                    : RGBColor(red: 127, green: 127, blue: 127)
                XCTAssertEqual(result.image[x, y], expected, "pixel (\(x), \(y))")
            }
        }
    }

    func testRotationMovesADotWhereExpected() {
        // A white dot 40 px right of the centre of a 201×201 black image.
        let size = 201, center = 100.5
        var image = RGBImage(width: size, height: size, color: .black)
        for y in 99...101 { for x in 139...141 { image[x, y] = .white } }
        let start = AugmentationFixtures.centroid(image)
        XCTAssertEqual(start.x, center + 40, accuracy: 1e-9)
        let blackFill = AugmentationPipeline(steps: [], fillValue: 0)
        for degrees in [90.0, 30.0, -45.0] {
            let result = blackFill.apply([.rotation(degrees: degrees)],
                                        to: AugmentationSample(image: image, keypoints: [start]))
            // Counter-clockwise on screen: y decreases for positive angles.
            let radians = degrees * Double.pi / 180
            let expected = ImagePoint(x: center + 40 * cos(radians), y: center - 40 * sin(radians))
            let moved = AugmentationFixtures.centroid(result.image)
            XCTAssertEqual(moved.x, expected.x, accuracy: 0.3, "\(degrees)°")
            XCTAssertEqual(moved.y, expected.y, accuracy: 0.3, "\(degrees)°")
            XCTAssertEqual(result.keypoints[0].x, expected.x, accuracy: 1e-9)
            XCTAssertEqual(result.keypoints[0].y, expected.y, accuracy: 1e-9)
            // The dot's energy is kept (bilinear sampling neither loses nor invents much).
            let before = image.pixels.reduce(0) { $0 + Int($1) }, after = result.image.pixels.reduce(0) { $0 + Int($1) }
            XCTAssertEqual(Double(after), Double(before), accuracy: Double(before) * 0.1)
        }
    }

    func testCropStretchesTheWindowToTheWholeImage() {
        let image = ImageFixtures.cornerBlocks()  // 48×32, red block at (0..16, 0..16)
        let red = BoundingBox(minX: 0, minY: 0, maxX: 16, maxY: 16)
        let result = pipeline.apply([.crop(BoundingBox(minX: 0, minY: 0, maxX: 24, maxY: 16))],
                                    to: AugmentationSample(image: image, boxes: [red]))
        XCTAssertEqual(result.boxes, [BoundingBox(minX: 0, minY: 0, maxX: 32, maxY: 32)])
        XCTAssertEqual(result.image[5, 5], ImageFixtures.red)
        XCTAssertEqual(result.image[30, 20], ImageFixtures.red)
        XCTAssertEqual(result.image[40, 5], RGBColor(red: 128, green: 128, blue: 128))  // source x 20: grey
    }

    /// Draws a filled box, applies `operations`, and checks the moved box hugs the moved pixels.
    private func assertBoxFollowsPixels(_ operations: [AugmentationOperation], box: BoundingBox,
                                        file: StaticString = #filePath, line: UInt = #line) {
        let image = AugmentationFixtures.filledBox(width: 160, height: 120, box: box)
        let result = pipeline.apply(operations, to: AugmentationSample(image: image, boxes: [box]))
        guard let drawn = AugmentationFixtures.brightExtent(result.image) else {
            XCTAssertTrue(result.boxes.isEmpty, "box kept but no pixels left \(operations)", file: file, line: line)
            return
        }
        guard let moved = result.boxes.first else {
            XCTFail("box dropped though \(drawn) is visible after \(operations)", file: file, line: line)
            return
        }
        // The box covers every bright pixel and is not more than a pixel larger on any side.
        for (edge, boxValue, pixelValue) in [("minX", moved.minX, drawn.minX), ("minY", moved.minY, drawn.minY),
                                             ("maxX", moved.maxX, drawn.maxX), ("maxY", moved.maxY, drawn.maxY)] {
            XCTAssertEqual(boxValue, pixelValue, accuracy: 1.01, "\(edge) after \(operations)", file: file, line: line)
        }
        XCTAssertLessThanOrEqual(moved.minX, drawn.minX + 0.5, file: file, line: line)
        XCTAssertGreaterThanOrEqual(moved.maxX, drawn.maxX - 0.5, file: file, line: line)
        XCTAssertLessThanOrEqual(moved.area, drawn.area * 1.1 + 4, file: file, line: line)
    }

    func testBoxesStayAlignedWithPixelsForEachGeometricOperation() {
        let box = BoundingBox(minX: 40, minY: 30, maxX: 90, maxY: 70)
        assertBoxFollowsPixels([.horizontalFlip], box: box)
        assertBoxFollowsPixels([.rotation(degrees: 12)], box: box)
        assertBoxFollowsPixels([.rotation(degrees: -30)], box: box)
        assertBoxFollowsPixels([.translation(x: 17.5, y: -9.25)], box: box)
        assertBoxFollowsPixels([.crop(BoundingBox(minX: 20, minY: 10, maxX: 140, maxY: 100))], box: box)
        assertBoxFollowsPixels([.crop(BoundingBox(minX: 60, minY: 10, maxX: 150, maxY: 80))], box: box)  // cuts it
    }

    func testBoxesStayAlignedUnderRandomComposedPipelines() throws {
        let pipeline = try AugmentationPipeline(parsing: "flip,rotate,crop,translate", probability: 1)
        let box = BoundingBox(minX: 50, minY: 35, maxX: 110, maxY: 85)
        let image = AugmentationFixtures.filledBox(width: 160, height: 120, box: box)
        for seed in 0..<20 {
            var generator = SeededGenerator(seed: UInt64(seed))
            let operations = pipeline.drawOperations(width: 160, height: 120, using: &generator)
            XCTAssertEqual(operations.count, 4)
            assertBoxFollowsPixels(operations, box: box)
            // The public apply draws the same operations from the same generator state.
            var again = SeededGenerator(seed: UInt64(seed))
            XCTAssertEqual(pipeline.apply(to: AugmentationSample(image: image), using: &again).operations, operations)
        }
    }

    func testMostlyCutAwayBoxesAreDroppedAndSourcesTracked() {
        let boxes = [BoundingBox(minX: 0, minY: 0, maxX: 20, maxY: 20),     // 40 % stays after the shift
                     BoundingBox(minX: 60, minY: 60, maxX: 80, maxY: 80),   // stays whole
                     BoundingBox(minX: 2, minY: 40, maxX: 12, maxY: 50)]    // leaves the image
        let sample = AugmentationSample(image: RGBImage(width: 100, height: 100, color: .black), boxes: boxes)
        let result = pipeline.apply([.translation(x: -12, y: 0)], to: sample)
        XCTAssertEqual(result.boxSourceIndices, [0, 1])
        XCTAssertEqual(result.boxes, [BoundingBox(minX: 0, minY: 0, maxX: 8, maxY: 20),
                                      BoundingBox(minX: 48, minY: 60, maxX: 68, maxY: 80)])
        // 20 % visible falls under the default 25 % rule.
        let further = pipeline.apply([.translation(x: -16, y: 0)], to: sample)
        XCTAssertEqual(further.boxSourceIndices, [1])
    }

    func testAffineTransformComposesAndInverts() throws {
        let map = AffineTransform.rotation(degrees: 33, centerX: 10, centerY: 5)
            .followed(by: .scaling(x: 2, y: 0.5)).followed(by: .translation(x: -3, y: 7))
        let inverse = try XCTUnwrap(map.inverted)
        let point = ImagePoint(x: 12.25, y: -4.5)
        let back = inverse.apply(to: map.apply(to: point))
        XCTAssertEqual(back.x, point.x, accuracy: 1e-9)
        XCTAssertEqual(back.y, point.y, accuracy: 1e-9)
        XCTAssertNil(AffineTransform.scaling(x: 0, y: 1).inverted)
        let rotated = AffineTransform.rotation(degrees: 90, centerX: 0, centerY: 0).apply(to: ImagePoint(x: 1, y: 0))
        XCTAssertEqual(rotated.x, 0, accuracy: 1e-12)
        XCTAssertEqual(rotated.y, -1, accuracy: 1e-12)
    }
}
