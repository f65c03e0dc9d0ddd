import CoachData
import Foundation

/// Drawing and measuring helpers for the augmentation tests.
enum AugmentationFixtures {
    /// A black image with the pixels inside `box` (edges rounded to whole pixels) white.
    static func filledBox(width: Int, height: Int, box: BoundingBox) -> RGBImage {
        var image = RGBImage(width: width, height: height, color: .black)
        for y in Int(box.minY.rounded())..<Int(box.maxY.rounded()) {
            for x in Int(box.minX.rounded())..<Int(box.maxX.rounded()) { image[x, y] = .white }
        }
        return image
    }

    /// The bounding box (pixel edges) of the pixels whose red sample exceeds `threshold`, or nil.
    static func brightExtent(_ image: RGBImage, threshold: UInt8 = 160) -> BoundingBox? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y].red > threshold {
                minX = min(minX, x); minY = min(minY, y); maxX = max(maxX, x); maxY = max(maxY, y)
            }
        }
        guard maxX >= 0 else { return nil }
        return BoundingBox(minX: Double(minX), minY: Double(minY), maxX: Double(maxX + 1), maxY: Double(maxY + 1))
    }

    /// The intensity-weighted centroid (pixel centres at x + ½) of the red channel.
    static func centroid(_ image: RGBImage) -> ImagePoint {
        var sum = 0.0, sumX = 0.0, sumY = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let value = Double(image[x, y].red)
                sum += value; sumX += value * (Double(x) + 0.5); sumY += value * (Double(y) + 0.5)
            }
        }
        return ImagePoint(x: sumX / sum, y: sumY / sum)
    }

    /// Mean and standard deviation of all samples.
    static func meanAndDeviation(_ samples: [UInt8]) -> (mean: Double, deviation: Double) {
        let mean = samples.reduce(0.0) { $0 + Double($1) } / Double(samples.count)
        let variance = samples.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(samples.count)
        return (mean, variance.squareRoot())
    }
}
