import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// Photometric augmentations change pixel values exactly as documented.
final class AugmentationPhotometricTests: XCTestCase {
    private let pipeline = AugmentationPipeline(steps: [])

    private func image(_ colors: [RGBColor]) -> RGBImage {
        var image = RGBImage(width: colors.count, height: 1, color: .black)
        for (x, color) in colors.enumerated() { image[x, 0] = color }
        return image
    }

    func testExposureScalesValuesByPowersOfTwo() {
        let input = image([RGBColor(red: 10, green: 50, blue: 100), RGBColor(red: 200, green: 0, blue: 127)])
        let brighter = pipeline.apply([.exposure(stops: 1)], to: AugmentationSample(image: input)).image
        XCTAssertEqual(brighter.pixels, [20, 100, 200, 255, 0, 254])  // 400 clamps to 255
        let darker = pipeline.apply([.exposure(stops: -1)], to: AugmentationSample(image: input)).image
        XCTAssertEqual(darker.pixels, [5, 25, 50, 100, 0, 64])  // 63.5 rounds half away from zero
        let half = FloatImage(input).adjustingExposure(stops: 0.5)
        assertClose(half.values, FloatImage(input).values.map { min(255, $0 * Float(2.0.squareRoot())) }, absolute: 1e-3)
    }

    func testContrastScalesAboutTheMeanLuminance() {
        let input = FloatImage(image([RGBColor(red: 100, green: 100, blue: 100), RGBColor(red: 140, green: 140, blue: 140)]))
        assertClose(input.adjustingContrast(factor: 0).values, [Float](repeating: 120, count: 6), absolute: 1e-3)
        assertClose(input.adjustingContrast(factor: 1).values, input.values, absolute: 1e-3)
        assertClose(input.adjustingContrast(factor: 2).values, [80, 80, 80, 160, 160, 160], absolute: 1e-3)
    }

    func testSaturationScalesAboutEachPixelsLuminance() {
        let color = RGBColor(red: 200, green: 100, blue: 50)
        let input = FloatImage(image([color]))
        let luma: Float = 0.299 * 200 + 0.587 * 100 + 0.114 * 50
        assertClose(input.adjustingSaturation(factor: 0).values, [luma, luma, luma], absolute: 1e-3)
        assertClose(input.adjustingSaturation(factor: 1).values, input.values, absolute: 1e-3)
        assertClose(input.adjustingSaturation(factor: 1.5).values,
                    [200, 100, 50].map { min(255, luma + 1.5 * ($0 - luma)) }, absolute: 1e-3)
        // Grey pixels have no saturation to change.
        let grey = FloatImage(width: 3, height: 2, repeating: 90)
        assertClose(grey.adjustingSaturation(factor: 1.4).values, grey.values, absolute: 1e-3)
    }

    func testBlurPreservesAConstantImageAndSpreadsAnImpulseBySigma() {
        let constant = RGBImage(width: 40, height: 30, color: RGBColor(red: 37, green: 180, blue: 255))
        XCTAssertEqual(pipeline.apply([.gaussianBlur(sigma: 2.5)], to: AugmentationSample(image: constant)).image, constant)
        // An impulse in the middle: the blurred mass stays 1 and its spread is σ.
        var impulse = FloatImage(width: 41, height: 41, channels: 1, repeating: 0)
        impulse[20, 20, 0] = 1
        let sigma = 2.0
        let blurred = impulse.blurred(sigma: sigma)
        var mass = 0.0, secondMoment = 0.0
        for y in 0..<41 {
            for x in 0..<41 {
                let value = Double(blurred[x, y, 0])
                mass += value
                secondMoment += value * Double((x - 20) * (x - 20))
            }
        }
        XCTAssertEqual(mass, 1, accuracy: 1e-5)
        XCTAssertEqual((secondMoment / mass).squareRoot(), sigma, accuracy: 0.02)  // kernel truncated at 3σ
        XCTAssertEqual(Double(blurred[20, 20, 0]), 1 / (2 * Double.pi * sigma * sigma), accuracy: 2e-3)
    }

    func testNoiseHasTheGivenStandardDeviationAndIsSeeded() {
        let grey = RGBImage(width: 200, height: 150, color: RGBColor(red: 128, green: 128, blue: 128))
        let noisy = pipeline.apply([.gaussianNoise(standardDeviation: 8, seed: 42)], to: AugmentationSample(image: grey))
        let stats = AugmentationFixtures.meanAndDeviation(noisy.image.pixels)
        XCTAssertEqual(stats.mean, 128, accuracy: 0.2)
        // 8-bit rounding adds 1/12 to the variance: √(64 + 1/12) ≈ 8.005.
        XCTAssertEqual(stats.deviation, 8, accuracy: 0.15)
        let again = pipeline.apply([.gaussianNoise(standardDeviation: 8, seed: 42)], to: AugmentationSample(image: grey))
        XCTAssertEqual(again.image, noisy.image)
        let other = pipeline.apply([.gaussianNoise(standardDeviation: 8, seed: 43)], to: AugmentationSample(image: grey))
        XCTAssertNotEqual(other.image, noisy.image)
    }

    func testPhotometricOperationsLeaveBoxesAlone() {
        let box = BoundingBox(minX: 3, minY: 4, maxX: 20, maxY: 15)
        let sample = AugmentationSample(image: ImageFixtures.pattern(width: 30, height: 20), boxes: [box])
        let result = pipeline.apply([.exposure(stops: 0.3), .contrast(factor: 1.2), .saturation(factor: 0.7),
                                     .gaussianBlur(sigma: 1), .gaussianNoise(standardDeviation: 3, seed: 1)], to: sample)
        XCTAssertEqual(result.boxes, [box])
        XCTAssertTrue(result.transform.isIdentity)
        XCTAssertNotEqual(result.image, sample.image)
    }
}
