import CoachData
import Foundation
import XCTest

final class RGBImageTests: XCTestCase {
    func testInitializerChecksTheSampleCount() {
        XCTAssertNoThrow(try RGBImage(width: 2, height: 1, pixels: [1, 2, 3, 4, 5, 6]))
        XCTAssertThrowsError(try RGBImage(width: 2, height: 2, pixels: [1, 2, 3])) { error in
            XCTAssertTrue((error as? ImageError)?.errorDescription?.contains("needs 12 samples") ?? false, "\(error)")
        }
    }

    func testSubscriptReadsInterleavedRowMajorPixels() throws {
        let image = try RGBImage(width: 2, height: 2, pixels: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        XCTAssertEqual(image[1, 0], RGBColor(red: 4, green: 5, blue: 6))
        XCTAssertEqual(image[0, 1], RGBColor(red: 7, green: 8, blue: 9))
    }

    func testCropCopiesTheRegion() throws {
        let image = ImageFixtures.pattern(width: 10, height: 8)
        let crop = try image.cropped(x: 3, y: 2, width: 4, height: 5)
        XCTAssertEqual(crop.width, 4)
        XCTAssertEqual(crop.height, 5)
        for y in 0..<5 {
            for x in 0..<4 { XCTAssertEqual(crop[x, y], image[x + 3, y + 2]) }
        }
        XCTAssertThrowsError(try image.cropped(x: 7, y: 0, width: 4, height: 1))
        XCTAssertThrowsError(try image.cropped(x: -1, y: 0, width: 2, height: 2))
    }

    func testFlips() {
        let image = ImageFixtures.pattern(width: 5, height: 3)
        let horizontal = image.flippedHorizontally()
        let vertical = image.flippedVertically()
        for y in 0..<3 {
            for x in 0..<5 {
                XCTAssertEqual(horizontal[x, y], image[4 - x, y])
                XCTAssertEqual(vertical[x, y], image[x, 2 - y])
            }
        }
        XCTAssertEqual(horizontal.flippedHorizontally(), image)
    }

    func testOrientationsMatchElementaryTransforms() {
        // Independent definitions: rotation by 90° clockwise and left-right mirroring.
        func rotateClockwise(_ image: RGBImage) -> RGBImage {
            var result = RGBImage(width: image.height, height: image.width, color: .black)
            for y in 0..<image.height {
                for x in 0..<image.width { result[image.height - 1 - y, x] = image[x, y] }
            }
            return result
        }
        func mirror(_ image: RGBImage) -> RGBImage {
            var result = image
            for y in 0..<image.height {
                for x in 0..<image.width { result[x, y] = image[image.width - 1 - x, y] }
            }
            return result
        }
        let image = ImageFixtures.pattern(width: 5, height: 3)
        let r1 = rotateClockwise(image), r2 = rotateClockwise(r1), r3 = rotateClockwise(r2)
        XCTAssertEqual(image.oriented(.topLeft), image)
        XCTAssertEqual(image.oriented(.topRight), mirror(image))
        XCTAssertEqual(image.oriented(.bottomRight), r2)
        XCTAssertEqual(image.oriented(.bottomLeft), mirror(r2))
        XCTAssertEqual(image.oriented(.leftTop), mirror(r1))   // transpose
        XCTAssertEqual(image.oriented(.rightTop), r1)
        XCTAssertEqual(image.oriented(.rightBottom), mirror(r3))  // transverse
        XCTAssertEqual(image.oriented(.leftBottom), r3)
        for orientation in ImageOrientation.allCases {
            XCTAssertEqual(image.oriented(orientation).width, orientation.swapsWidthAndHeight ? 3 : 5)
        }
    }

    func testFloatConversion() throws {
        let image = try RGBImage(width: 1, height: 2, pixels: [0, 127, 255, 1, 2, 3])
        XCTAssertEqual(image.floatPixels(), [0, 127, 255, 1, 2, 3])
        let expected: [Float] = [0, 127, 255, 1, 2, 3].map { ($0 - 127) / 128 }
        XCTAssertEqual(image.floatPixels(subtracting: 127, dividingBy: 128), expected)
        XCTAssertEqual(expected[1], 0)
        XCTAssertEqual(expected[2], 1)
        let floats = FloatImage(image)
        XCTAssertEqual(floats.width, 1)
        XCTAssertEqual(floats.height, 2)
        XCTAssertEqual(floats[0, 1, 2], 3)
        XCTAssertEqual(try floats.rgbImage(), image)
        XCTAssertEqual(floats.flippedHorizontally(), floats)
    }

    func testFloatImageRoundsAndClampsBackToBytes() throws {
        let floats = try FloatImage(width: 2, height: 1, channels: 3, values: [-5, 0.4, 0.6, 254.5, 300, 17.49])
        XCTAssertEqual(try floats.rgbImage().pixels, [0, 0, 1, 255, 255, 17])
        XCTAssertThrowsError(try FloatImage(width: 1, height: 1, channels: 1, values: [1]).rgbImage())
    }

    func testFloatImageCropAndNormalisation() throws {
        let floats = FloatImage(ImageFixtures.pattern(width: 6, height: 4))
        let crop = try floats.cropped(x: 1, y: 1, width: 3, height: 2)
        XCTAssertEqual(crop[2, 1, 1], floats[3, 2, 1])
        let normalized = crop.normalized(subtracting: 127, dividingBy: 128)
        XCTAssertEqual(normalized[0, 0, 0], (crop[0, 0, 0] - 127) / 128)
        XCTAssertThrowsError(try floats.cropped(x: 4, y: 0, width: 3, height: 1))
    }
}
