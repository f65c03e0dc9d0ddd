import CoachData
import Foundation
import TestSupport
import XCTest

/// Every PNG layout decodes to the 8-bit RGB the format defines (fixtures written with libpng).
final class PNGDecodingTests: XCTestCase {
    private func decode(_ raw: PNGSamples, _ name: String) throws -> DecodedImage {
        let directory = try temporaryDirectory(self)
        let data = try ImageEncoder.pngData(raw)
        // The fixture really has the layout under test: IHDR bit depth and colour type bytes.
        XCTAssertEqual(Int(data[24]), raw.bitDepth, "\(name) IHDR bit depth")
        XCTAssertEqual(Int(data[25]), raw.colorType.rawValue, "\(name) IHDR colour type")
        XCTAssertEqual(Int(data[28]), raw.interlaced ? 1 : 0, "\(name) IHDR interlace")
        let url = try ImageFixtures.write(data, named: name, in: directory)
        return try ImageDecoder.decode(contentsOf: url)
    }

    func testRGBPNGRoundTripIsExact() throws {
        let image = ImageFixtures.pattern(width: 37, height: 23)
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("pattern.png")
        try image.writePNG(to: url)
        let decoded = try ImageDecoder.decode(contentsOf: url)
        XCTAssertEqual(decoded.format, .png)
        XCTAssertEqual(decoded.image, image)
        XCTAssertEqual(decoded.scaleDenominator, 1)
        XCTAssertEqual(decoded.orientation, .topLeft)
    }

    func testGrayPNGExpandsToEqualChannels() throws {
        let samples = (0..<(9 * 4)).map { UInt16(($0 * 37) % 256) }
        let decoded = try decode(PNGSamples(width: 9, height: 4, colorType: .gray, bitDepth: 8, samples: samples), "gray.png")
        for y in 0..<4 {
            for x in 0..<9 {
                let value = UInt8(samples[y * 9 + x])
                XCTAssertEqual(decoded.image[x, y], RGBColor(red: value, green: value, blue: value), "(\(x), \(y))")
            }
        }
    }

    func testLowBitDepthGrayScalesToFullRange() throws {
        // A d-bit grey value v means v / (2^d − 1) of white.
        for depth in [1, 2, 4] {
            let maximum = (1 << depth) - 1
            let samples = (0..<16).map { UInt16($0 % (maximum + 1)) }
            let decoded = try decode(PNGSamples(width: 8, height: 2, colorType: .gray, bitDepth: depth, samples: samples),
                                     "gray\(depth).png")
            for (index, sample) in samples.enumerated() {
                let expected = UInt8((Double(sample) * 255 / Double(maximum)).rounded())
                XCTAssertEqual(decoded.image[index % 8, index / 8].red, expected, "depth \(depth) sample \(index)")
                XCTAssertEqual(decoded.image[index % 8, index / 8].blue, expected, "depth \(depth) sample \(index)")
            }
        }
    }

    func testPalettePNGUsesPaletteColours() throws {
        let palette = [RGBColor(red: 10, green: 20, blue: 30), RGBColor(red: 200, green: 100, blue: 0),
                       RGBColor(red: 0, green: 255, blue: 128), RGBColor(red: 77, green: 77, blue: 77)]
        for depth in [2, 4, 8] {
            let samples = (0..<(6 * 5)).map { UInt16(($0 * 7) % palette.count) }
            let decoded = try decode(PNGSamples(width: 6, height: 5, colorType: .palette, bitDepth: depth,
                                                samples: samples, palette: palette), "palette\(depth).png")
            for (index, sample) in samples.enumerated() {
                XCTAssertEqual(decoded.image[index % 6, index / 6], palette[Int(sample)], "depth \(depth) pixel \(index)")
            }
        }
    }

    /// round((c·a + 255·(255 − a)) / 255): the documented white compositing.
    private func overWhite(_ value: UInt8, alpha: UInt8) -> UInt8 {
        let foreground: Double = Double(value) * Double(alpha)
        let background: Double = 255 * (255 - Double(alpha))
        return UInt8(((foreground + background) / 255).rounded())
    }

    func testPaletteTransparencyIsCompositedOntoWhite() throws {
        let palette = [RGBColor(red: 200, green: 0, blue: 0), RGBColor(red: 0, green: 100, blue: 0),
                       RGBColor(red: 0, green: 0, blue: 50)]
        let alphas: [UInt8] = [0, 128]  // third entry has no tRNS value: opaque
        let samples: [UInt16] = [0, 1, 2, 2, 1, 0]
        let decoded = try decode(PNGSamples(width: 3, height: 2, colorType: .palette, bitDepth: 8, samples: samples,
                                            palette: palette, paletteAlpha: alphas), "trns.png")
        XCTAssertEqual(decoded.image[0, 0], .white)  // fully transparent
        XCTAssertEqual(decoded.image[1, 0], RGBColor(red: overWhite(0, alpha: 128), green: overWhite(100, alpha: 128),
                                                     blue: overWhite(0, alpha: 128)))
        XCTAssertEqual(decoded.image[2, 0], palette[2])
        XCTAssertEqual(decoded.image[0, 1], palette[2])
    }

    func testRGBAIsCompositedOntoWhite() throws {
        let pixels: [[UInt16]] = [[255, 0, 0, 255], [0, 0, 255, 0], [0, 200, 100, 128], [90, 60, 30, 1]]
        let decoded = try decode(PNGSamples(width: 2, height: 2, colorType: .rgba, bitDepth: 8,
                                            samples: pixels.flatMap { $0 }), "rgba.png")
        for (index, pixel) in pixels.enumerated() {
            let alpha = UInt8(pixel[3])
            let expected = RGBColor(red: overWhite(UInt8(pixel[0]), alpha: alpha),
                                    green: overWhite(UInt8(pixel[1]), alpha: alpha),
                                    blue: overWhite(UInt8(pixel[2]), alpha: alpha))
            XCTAssertEqual(decoded.image[index % 2, index / 2], expected, "pixel \(index)")
        }
        XCTAssertEqual(decoded.image[1, 0], .white)
        XCTAssertEqual(decoded.image[0, 0], RGBColor(red: 255, green: 0, blue: 0))
    }

    func testGrayAlphaIsCompositedOntoWhite() throws {
        let samples: [UInt16] = [0, 255, 0, 0, 100, 50, 255, 128]
        let decoded = try decode(PNGSamples(width: 4, height: 1, colorType: .grayAlpha, bitDepth: 8, samples: samples),
                                 "graya.png")
        for x in 0..<4 {
            let value = overWhite(UInt8(samples[2 * x]), alpha: UInt8(samples[2 * x + 1]))
            XCTAssertEqual(decoded.image[x, 0], RGBColor(red: value, green: value, blue: value), "pixel \(x)")
        }
    }

    func testSixteenBitSamplesAreRoundedToEightBits() throws {
        // v16 → round(v16 · 255 / 65535).
        let values: [UInt16] = [0, 65535, 257, 32767, 32768, 128, 129, 40000, 65407, 12345, 1000, 65000]
        let decoded = try decode(PNGSamples(width: 4, height: 1, colorType: .rgb, bitDepth: 16, samples: values), "rgb16.png")
        for x in 0..<4 {
            let expected = (0..<3).map { UInt8((Double(values[3 * x + $0]) * 255 / 65535).rounded()) }
            XCTAssertEqual(decoded.image[x, 0], RGBColor(red: expected[0], green: expected[1], blue: expected[2]), "pixel \(x)")
        }
        let gray = try decode(PNGSamples(width: 12, height: 1, colorType: .gray, bitDepth: 16, samples: values), "gray16.png")
        for (x, value) in values.enumerated() {
            XCTAssertEqual(gray.image[x, 0].green, UInt8((Double(value) * 255 / 65535).rounded()), "grey pixel \(x)")
        }
    }

    func testSixteenBitRGBAIsCompositedOntoWhite() throws {
        let samples: [UInt16] = [65535, 0, 0, 65535, 0, 65535, 0, 0]
        let decoded = try decode(PNGSamples(width: 2, height: 1, colorType: .rgba, bitDepth: 16, samples: samples), "rgba16.png")
        XCTAssertEqual(decoded.image[0, 0], RGBColor(red: 255, green: 0, blue: 0))
        XCTAssertEqual(decoded.image[1, 0], .white)
    }

    func testInterlacedPNGDecodesLikeNonInterlaced() throws {
        let image = ImageFixtures.pattern(width: 29, height: 17)
        let raw = PNGSamples(width: 29, height: 17, colorType: .rgb, bitDepth: 8,
                             samples: image.pixels.map { UInt16($0) }, interlaced: true)
        XCTAssertEqual(try decode(raw, "adam7.png").image, image)
    }

    func testMinimumShortSideDoesNotReducePNG() throws {
        let image = ImageFixtures.pattern(width: 64, height: 40)
        let data = try ImageEncoder.pngData(image)
        let decoded = try ImageDecoder.decode(data, source: "memory.png", options: ImageDecodingOptions(minimumShortSide: 4))
        XCTAssertEqual(decoded.image, image)
        XCTAssertEqual(decoded.scaleDenominator, 1)
    }

    func testEncoderRejectsInconsistentSamples() {
        XCTAssertThrowsError(try ImageEncoder.pngData(PNGSamples(width: 2, height: 2, colorType: .rgb, bitDepth: 8,
                                                                 samples: [1, 2, 3]))) { error in
            XCTAssertTrue((error as? ImageError)?.errorDescription?.contains("needs 12 samples") ?? false, "\(error)")
        }
        XCTAssertThrowsError(try ImageEncoder.pngData(PNGSamples(width: 1, height: 1, colorType: .gray, bitDepth: 4,
                                                                 samples: [16])))
        XCTAssertThrowsError(try ImageEncoder.pngData(PNGSamples(width: 1, height: 1, colorType: .rgb, bitDepth: 4,
                                                                 samples: [1, 1, 1]))) { error in
            // libpng's own check (RGB needs bit depth 8 or 16), reported instead of aborting.
            XCTAssertNotNil(error as? ImageError)
        }
    }
}
