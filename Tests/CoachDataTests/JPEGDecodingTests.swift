import CoachData
import Foundation
import TestSupport
import XCTest

/// JPEG variants, EXIF orientation and libjpeg-turbo's scaled decoding.
final class JPEGDecodingTests: XCTestCase {
    func testRGBJPEGDecodesCloseToTheEncodedImage() throws {
        let image = ImageFixtures.smooth(width: 64, height: 48)
        for progressive in [false, true] {
            let data = try ImageEncoder.jpegData(image, quality: 95, progressive: progressive)
            let decoded = try ImageDecoder.decode(data, source: "smooth.jpg")
            XCTAssertEqual(decoded.format, .jpeg)
            XCTAssertEqual(decoded.image.width, 64)
            XCTAssertEqual(decoded.image.height, 48)
            let difference = ImageFixtures.meanAbsoluteDifference(decoded.image, image)
            XCTAssertLessThan(difference, 2.0, "progressive \(progressive)")
        }
    }

    func testGrayJPEGExpandsToEqualChannels() throws {
        let samples = (0..<(32 * 16)).map { UInt8(($0 % 32) * 8) }
        let data = try ImageEncoder.jpegData(samples: samples, width: 32, height: 16, layout: .gray, quality: 95)
        let decoded = try ImageDecoder.decode(data, source: "gray.jpg").image
        var total = 0
        for y in 0..<16 {
            for x in 0..<32 {
                let pixel = decoded[x, y]
                XCTAssertEqual(pixel.red, pixel.green)
                XCTAssertEqual(pixel.green, pixel.blue)
                total += abs(Int(pixel.red) - Int(samples[y * 32 + x]))
            }
        }
        XCTAssertLessThan(Double(total) / 512, 3.0)
    }

    /// A 16×16 CMYK JPEG that Pillow 13 wrote (`Image.new("CMYK", (16, 16), (100, 50, 200, 60))
    /// .save(…, quality=95)`: Photoshop's Adobe marker and inverted samples) and that Pillow reads
    /// back as RGB (119, 157, 42) in every pixel.
    static let pillowCMYK = "/9j/7gAOQWRvYmUAZAAAAAAA/9sAQwACAQEBAQECAQEBAgICAgIEAwICAgIFBAQDBAYFBgYGBQYGBgcJCAYHCQcGBggLCAkKCgoKCgYICwwLCgwJCgoK/8AAFAgAEAAQBEMRAE0RAFkRAEsRAP/EAB8AAAEFAQEBAQEBAAAAAAAAAAABAgMEBQYHCAkKC//EALUQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+v/aAA4EQwBNAFkASwAAPwD2yv00r826/Qyiiiiiiiiiiiiv/9k="

    func testCMYKJPEGWrittenByPillowReadsAsPillowReadsIt() throws {
        let data = try XCTUnwrap(Data(base64Encoded: Self.pillowCMYK))
        let image = try ImageDecoder.decode(data, source: "pillow-cmyk.jpg").image
        XCTAssertEqual([image.width, image.height], [16, 16])
        for y in 0..<16 {
            for x in 0..<16 {
                let pixel = image[x, y]
                XCTAssertEqual([pixel.red, pixel.green, pixel.blue], [119, 157, 42], "(\(x), \(y))")
            }
        }
    }

    /// libjpeg-turbo's CMYK and YCCK files (Adobe marker, so the samples are read as Photoshop
    /// writes them: 255 = no ink), at full size and reduced by 2: four flat quadrants, each
    /// (255 − ink)·(255 − black)/255 per channel.
    func testCMYKAndYCCKJPEGBecomeRGB() throws {
        let inks: [[Int]] = [[0, 0, 0, 0], [255, 0, 0, 0], [100, 50, 200, 60], [0, 0, 0, 255]]
        var samples = [UInt8](repeating: 0, count: 32 * 32 * 4)
        for y in 0..<32 {
            for x in 0..<32 {
                let ink = inks[(y / 16) * 2 + x / 16]
                for c in 0..<4 { samples[(y * 32 + x) * 4 + c] = UInt8(255 - ink[c]) }
            }
        }
        for layout in [JPEGSampleLayout.cmyk, .cmykAsYCCK] {
            let data = try ImageEncoder.jpegData(samples: samples, width: 32, height: 32, layout: layout, quality: 100)
            for (minimumShortSide, size) in [(nil, 32), (16, 16)] as [(Int?, Int)] {
                var options = ImageDecodingOptions()
                options.minimumShortSide = minimumShortSide
                let image = try ImageDecoder.decode(data, source: "\(layout).jpg", options: options).image
                XCTAssertEqual([image.width, image.height], [size, size])
                for (quadrant, ink) in inks.enumerated() {
                    // The quadrant's middle pixel, away from the blocks' edges.
                    let pixel = image[(quadrant % 2) * size / 2 + size / 4, (quadrant / 2) * size / 2 + size / 4]
                    let expected = (0..<3).map { (255 - ink[$0]) * (255 - ink[3]) / 255 }
                    for (value, wanted) in zip([pixel.red, pixel.green, pixel.blue], expected) {
                        XCTAssertLessThanOrEqual(abs(Int(value) - wanted), 2, "\(layout) \(size) quadrant \(quadrant): \(pixel) against \(expected)")
                    }
                }
            }
        }
    }

    func testWriteJPEGThenReadFromFile() throws {
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("smooth.jpg")
        let image = ImageFixtures.smooth(width: 40, height: 30)
        try image.writeJPEG(to: url, quality: 92)
        let decoded = try RGBImage(contentsOf: url)
        XCTAssertLessThan(ImageFixtures.meanAbsoluteDifference(decoded, image), 2.0)
    }

    // MARK: - EXIF orientation

    private enum Side { case top, bottom, left, right }

    /// Per the EXIF specification: where stored row 0 and stored column 0 are shown.
    private func sides(of orientation: Int) -> (row0: Side, column0: Side) {
        switch orientation {
        case 1: return (.top, .left)
        case 2: return (.top, .right)
        case 3: return (.bottom, .right)
        case 4: return (.bottom, .left)
        case 5: return (.left, .top)
        case 6: return (.right, .top)
        case 7: return (.right, .bottom)
        default: return (.left, .bottom)
        }
    }

    private func opposite(_ side: Side) -> Side {
        switch side {
        case .top: return .bottom
        case .bottom: return .top
        case .left: return .right
        case .right: return .left
        }
    }

    /// The centre of the 16×16 corner block of `image` where sides `a` and `b` meet.
    private func cornerColor(_ image: RGBImage, _ a: Side, _ b: Side) -> RGBColor {
        let sides = [a, b]
        let x = sides.contains(.right) ? image.width - 8 : 8
        let y = sides.contains(.bottom) ? image.height - 8 : 8
        return image[x, y]
    }

    private func nearestCornerColor(_ color: RGBColor) -> String {
        let candidates: [(String, RGBColor)] = [("red", ImageFixtures.red), ("green", ImageFixtures.green),
                                                ("blue", ImageFixtures.blue), ("yellow", ImageFixtures.yellow)]
        func distance(_ a: RGBColor, _ b: RGBColor) -> Int {
            abs(Int(a.red) - Int(b.red)) + abs(Int(a.green) - Int(b.green)) + abs(Int(a.blue) - Int(b.blue))
        }
        let best = candidates.min { distance($0.1, color) < distance($1.1, color) }!
        return distance(best.1, color) < 60 ? best.0 : "none (\(color))"
    }

    func testAllEightEXIFOrientationsAreApplied() throws {
        let stored = ImageFixtures.cornerBlocks()  // 48×32: red TL, green TR, blue BL, yellow BR
        let jpeg = try ImageEncoder.jpegData(stored, quality: 95)
        for orientation in 1...8 {
            for bigEndian in [true, false] {
                let data = ImageFixtures.withEXIFOrientation(jpeg, orientation: UInt16(orientation), bigEndian: bigEndian)
                let decoded = try ImageDecoder.decode(data, source: "orientation-\(orientation).jpg")
                let label = "orientation \(orientation) \(bigEndian ? "MM" : "II")"
                XCTAssertEqual(decoded.orientation.rawValue, orientation, label)
                let swapped = orientation >= 5
                XCTAssertEqual(decoded.image.width, swapped ? 32 : 48, label)
                XCTAssertEqual(decoded.image.height, swapped ? 48 : 32, label)
                XCTAssertEqual(decoded.fullWidth, decoded.image.width, label)
                XCTAssertEqual(decoded.fullHeight, decoded.image.height, label)
                let (row0, column0) = sides(of: orientation)
                let lastRow = opposite(row0), lastColumn = opposite(column0)
                XCTAssertEqual(nearestCornerColor(cornerColor(decoded.image, row0, column0)), "red", label)
                XCTAssertEqual(nearestCornerColor(cornerColor(decoded.image, row0, lastColumn)), "green", label)
                XCTAssertEqual(nearestCornerColor(cornerColor(decoded.image, lastRow, column0)), "blue", label)
                XCTAssertEqual(nearestCornerColor(cornerColor(decoded.image, lastRow, lastColumn)), "yellow", label)
            }
        }
    }

    func testOrientationCanBeLeftAsStored() throws {
        let stored = ImageFixtures.cornerBlocks()
        let data = ImageFixtures.withEXIFOrientation(try ImageEncoder.jpegData(stored, quality: 95), orientation: 6)
        let decoded = try ImageDecoder.decode(data, source: "rotated.jpg", options: ImageDecodingOptions(appliesOrientation: false))
        XCTAssertEqual(decoded.orientation, .rightTop)
        XCTAssertEqual(decoded.image.width, 48)
        XCTAssertEqual(nearestCornerColor(decoded.image[8, 8]), "red")
    }

    func testInvalidOrMissingOrientationMeansUpright() throws {
        let jpeg = try ImageEncoder.jpegData(ImageFixtures.cornerBlocks(), quality: 95)
        for data in [jpeg, ImageFixtures.withEXIFOrientation(jpeg, orientation: 0),
                     ImageFixtures.withEXIFOrientation(jpeg, orientation: 9)] {
            let decoded = try ImageDecoder.decode(data, source: "upright.jpg")
            XCTAssertEqual(decoded.orientation, .topLeft)
            XCTAssertEqual(decoded.image.width, 48)
            XCTAssertEqual(nearestCornerColor(decoded.image[8, 8]), "red")
        }
    }

    // MARK: - Scaled decoding

    func testScaleDenominatorIsTheLargestKeepingTheShortSide() {
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 1920, height: 1080, minimumShortSide: 256), 4)  // 270
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 1920, height: 1080, minimumShortSide: 271), 2)  // 540
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 1080, height: 1920, minimumShortSide: 135), 8)  // 135
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 1080, height: 1920, minimumShortSide: 136), 4)
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 801, height: 601, minimumShortSide: 76), 8)     // ⌈601/8⌉ = 76
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, minimumShortSide: 256), 1)
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, minimumShortSide: 1000), 1)
        XCTAssertEqual(ImageDecoder.jpegScaleDenominator(width: 640, height: 427, minimumShortSide: nil), 1)
    }

    func testScaledDecodingProducesTheReducedSize() throws {
        let image = ImageFixtures.smooth(width: 801, height: 601)
        let data = try ImageEncoder.jpegData(image, quality: 90)
        let full = try ImageDecoder.decode(data, source: "big.jpg").image
        let cases: [(minimum: Int?, denominator: Int, width: Int, height: Int)] = [
            (nil, 1, 801, 601), (601, 1, 801, 601), (300, 2, 401, 301), (301, 2, 401, 301),
            (302, 1, 801, 601), (150, 4, 201, 151), (76, 8, 101, 76), (10, 8, 101, 76),
        ]
        for item in cases {
            let decoded = try ImageDecoder.decode(data, source: "big.jpg",
                                                  options: ImageDecodingOptions(minimumShortSide: item.minimum))
            let label = "minimum \(String(describing: item.minimum))"
            XCTAssertEqual(decoded.scaleDenominator, item.denominator, label)
            XCTAssertEqual(decoded.image.width, item.width, label)
            XCTAssertEqual(decoded.image.height, item.height, label)
            XCTAssertEqual(decoded.fullWidth, 801, label)
            XCTAssertEqual(decoded.fullHeight, 601, label)
            XCTAssertEqual(decoded.scaleX, Double(item.width) / 801, accuracy: 1e-12, label)
            // The reduced image shows the same picture: compare with the full decode sampled
            // at the centres of the reduced pixels (a smooth gradient, so nearly equal).
            var total = 0, count = 0
            for y in stride(from: 0, to: decoded.image.height - 1, by: 7) {
                for x in stride(from: 0, to: decoded.image.width - 1, by: 7) {
                    let sourceX = min(800, x * item.denominator + item.denominator / 2)
                    let sourceY = min(600, y * item.denominator + item.denominator / 2)
                    let a = decoded.image[x, y], b = full[sourceX, sourceY]
                    total += abs(Int(a.red) - Int(b.red)) + abs(Int(a.green) - Int(b.green)) + abs(Int(a.blue) - Int(b.blue))
                    count += 3
                }
            }
            XCTAssertLessThan(Double(total) / Double(count), 3.0, label)
        }
    }

    func testScaledDecodingWithOrientationSwapsTheReducedSize() throws {
        let data = ImageFixtures.withEXIFOrientation(
            try ImageEncoder.jpegData(ImageFixtures.smooth(width: 640, height: 480), quality: 90), orientation: 8)
        let decoded = try ImageDecoder.decode(data, source: "portrait.jpg", options: ImageDecodingOptions(minimumShortSide: 100))
        XCTAssertEqual(decoded.scaleDenominator, 4)  // 480 / 4 = 120 ≥ 100, 480 / 8 = 60 < 100
        XCTAssertEqual(decoded.image.width, 120)
        XCTAssertEqual(decoded.image.height, 160)
        XCTAssertEqual(decoded.fullWidth, 480)
        XCTAssertEqual(decoded.fullHeight, 640)
    }

    /// The benchmark's path: a ~2-megapixel JPEG decoded at reduced scale, then the 224² backbone input.
    func testTwoMegapixelJPEGToBackboneInput() throws {
        let data = try ImageEncoder.jpegData(ImageFixtures.smooth(width: 1920, height: 1080), quality: 85)
        let decoded = try ImageDecoder.decode(data, source: "2mp.jpg", options: ImageDecodingOptions(minimumShortSide: 256))
        XCTAssertEqual(decoded.scaleDenominator, 4)
        XCTAssertEqual(decoded.image.width, 480)
        XCTAssertEqual(decoded.image.height, 270)
        let input = try decoded.image.resizedAndCenterCropped(shortSide: 256, cropWidth: 224, cropHeight: 224)
            .normalized(subtracting: 127, dividingBy: 128)
        XCTAssertEqual(input.values.count, 224 * 224 * 3)
        XCTAssertTrue(input.values.allSatisfy { $0 >= -1 && $0 <= 1.0001 })
    }
}
