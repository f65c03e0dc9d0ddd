import CoachData
import Foundation
import TestSupport
import XCTest

/// Decoding + preprocessing the EfficientNet-Lite0 reference photos must reproduce the
/// reference input tensors (scikit-image resize(order=1, anti_aliasing=True) of the short side
/// to 256, centre crop 224, (rgb − 127) / 128), which came from an independent Python pipeline.
final class BackbonePreprocessingReferenceTests: XCTestCase {
    private func check(_ name: String, file fileName: String,
                       maximumBound: Float, meanBound: Float) throws {
        let folder = try SharedData.require("reference/efficientnet-lite0")
        let imageURL = folder.appendingPathComponent("images/\(fileName)")
        let referenceURL = folder.appendingPathComponent("\(name).input.f32")
        let referenceData = try Data(contentsOf: referenceURL)
        XCTAssertEqual(referenceData.count, 224 * 224 * 3 * 4, "\(referenceURL.path) size")
        let reference: [Float] = referenceData.withUnsafeBytes { raw in
            (0..<(224 * 224 * 3)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }

        let image = try RGBImage(contentsOf: imageURL)
        let input = try image.resizedAndCenterCropped(shortSide: 256, cropWidth: 224, cropHeight: 224)
            .normalized(subtracting: 127, dividingBy: 128)
        XCTAssertEqual(input.width, 224)
        XCTAssertEqual(input.height, 224)
        XCTAssertEqual(input.channels, 3)

        var maximum: Float = 0, sum: Double = 0
        for (actual, expected) in zip(input.values, reference) {
            let difference = abs(actual - expected)
            maximum = max(maximum, difference)
            sum += Double(difference)
        }
        let mean = Float(sum / Double(reference.count))
        print("\(name): max |difference| \(maximum), mean |difference| \(mean) (normalised units)")
        XCTAssertLessThan(maximum, maximumBound, "\(name): max |difference|")
        XCTAssertLessThan(mean, meanBound, "\(name): mean |difference|")
    }

    func testChelseaPNGMatchesReference() throws {
        try check("chelsea", file: "chelsea.png", maximumBound: 1e-4, meanBound: 1e-5)
    }

    func testCoffeePNGMatchesReference() throws {
        try check("coffee", file: "coffee.png", maximumBound: 1e-4, meanBound: 1e-5)
    }

    func testAstronautPNGMatchesReference() throws {
        try check("astronaut", file: "astronaut.png", maximumBound: 1e-4, meanBound: 1e-5)
    }

    func testRocketJPEGMatchesReference() throws {
        try check("rocket", file: "rocket.jpg", maximumBound: 1e-4, meanBound: 1e-5)
    }
}
