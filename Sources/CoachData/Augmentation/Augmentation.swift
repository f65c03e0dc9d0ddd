import CoachRandom
import Foundation

/// One kind of image augmentation with the range its random parameters are drawn from.
///
/// Geometric augmentations move boxes and keypoints with the pixels; photometric ones only
/// change pixel values. The output image always has the input's size. Ranges are drawn
/// uniformly; the defaults (`Augmentation.defaults(named:)`, used by `--augment`) are:
///
/// | name | what | default range |
/// |---|---|---|
/// | `flip` | mirror left ↔ right | — |
/// | `rotate` | rotation about the centre, corners filled grey | ±15° |
/// | `crop` | random resized crop: a window of 50–100 % of the area, aspect ratio 3:4–4:3 (log-uniform), placed uniformly, stretched back to the full image | area 0.5...1 |
/// | `translate` | shift, uncovered area filled grey | ±10 % of width and height |
/// | `exposure` | multiply by `2^stops` | ±0.5 stops (×0.71…×1.41) |
/// | `contrast` | scale about the mean luminance | factor 0.7...1.3 |
/// | `saturation` | scale about each pixel's luminance | factor 0.6...1.4 |
/// | `blur` | Gaussian blur | σ 0.5...2 pixels per 256 pixels of the short side |
/// | `noise` | additive Gaussian noise per sample | σ 2...10 (0...255 units) |
public enum Augmentation: Equatable, Sendable {
    /// Mirror left and right.
    case horizontalFlip
    /// Rotate about the image centre by an angle uniform in ±`maximumDegrees`.
    case rotation(maximumDegrees: Double)
    /// Random resized crop: area fraction uniform in `areaFractions`, aspect ratio
    /// log-uniform in `aspectRatios` (width / height, relative to the image's own), placed
    /// uniformly inside the image and stretched back to the image's size.
    case resizedCrop(areaFractions: ClosedRange<Double>, aspectRatios: ClosedRange<Double>)
    /// Shift by up to `maximumFraction` of the width (horizontally) and height (vertically).
    case translation(maximumFraction: Double)
    /// Exposure change uniform in ±`maximumStops` EV.
    case exposure(maximumStops: Float)
    /// Contrast factor uniform in `factors`.
    case contrast(factors: ClosedRange<Float>)
    /// Saturation factor uniform in `factors`.
    case saturation(factors: ClosedRange<Float>)
    /// Gaussian blur with σ uniform in `sigmas`, in pixels per 256 pixels of the short side.
    case gaussianBlur(sigmas: ClosedRange<Double>)
    /// Gaussian noise with standard deviation uniform in `standardDeviations` (0...255 units).
    case gaussianNoise(standardDeviations: ClosedRange<Float>)

    /// The names `--augment` accepts, in their canonical order.
    public static let names = ["flip", "rotate", "crop", "translate", "exposure", "contrast",
                               "saturation", "blur", "noise"]

    /// Other spellings accepted for the names.
    static let aliases: [String: String] = [
        "horizontal-flip": "flip", "hflip": "flip", "mirror": "flip",
        "rotation": "rotate", "scale": "crop", "resized-crop": "crop", "zoom": "crop",
        "translation": "translate", "shift": "translate", "brightness": "exposure",
        "gaussian-blur": "blur", "gaussian-noise": "noise",
    ]

    /// The augmentation with its default range for `name` (case-insensitive; aliases such
    /// as `rotation`, `brightness` or `scale` accepted), or nil for an unknown name.
    public static func defaults(named name: String) -> Augmentation? {
        let key = name.trimmingCharacters(in: .whitespaces).lowercased()
        switch aliases[key] ?? key {
        case "flip": return .horizontalFlip
        case "rotate": return .rotation(maximumDegrees: 15)
        case "crop": return .resizedCrop(areaFractions: 0.5...1, aspectRatios: (3.0 / 4)...(4.0 / 3))
        case "translate": return .translation(maximumFraction: 0.1)
        case "exposure": return .exposure(maximumStops: 0.5)
        case "contrast": return .contrast(factors: 0.7...1.3)
        case "saturation": return .saturation(factors: 0.6...1.4)
        case "blur": return .gaussianBlur(sigmas: 0.5...2)
        case "noise": return .gaussianNoise(standardDeviations: 2...10)
        default: return nil
        }
    }

    /// The canonical name (`flip`, `rotate`, …).
    public var name: String {
        switch self {
        case .horizontalFlip: return "flip"
        case .rotation: return "rotate"
        case .resizedCrop: return "crop"
        case .translation: return "translate"
        case .exposure: return "exposure"
        case .contrast: return "contrast"
        case .saturation: return "saturation"
        case .gaussianBlur: return "blur"
        case .gaussianNoise: return "noise"
        }
    }

    /// Whether it moves pixels (and so boxes and keypoints) rather than changing their values.
    public var isGeometric: Bool {
        switch self {
        case .horizontalFlip, .rotation, .resizedCrop, .translation: return true
        default: return false
        }
    }

    /// The probability a composed pipeline applies it by default: ½ for flip, blur and noise
    /// (so about half the views stay unmirrored and sharp), 1 for the rest, whose ranges
    /// already include (nearly) no change.
    public var defaultProbability: Float {
        switch self {
        case .horizontalFlip, .gaussianBlur, .gaussianNoise: return 0.5
        default: return 1
        }
    }

    /// Draws this augmentation's parameters for a `width × height` image.
    public func draw(width: Int, height: Int, using generator: inout SeededGenerator) -> AugmentationOperation {
        switch self {
        case .horizontalFlip:
            return .horizontalFlip
        case let .rotation(maximumDegrees):
            return .rotation(degrees: Double(generator.nextUniform(Float(-maximumDegrees), Float(maximumDegrees))))
        case let .resizedCrop(areaFractions, aspectRatios):
            let area = Double(generator.nextUniform(Float(areaFractions.lowerBound), Float(areaFractions.upperBound)))
            let logAspect = generator.nextUniform(Float(Foundation.log(aspectRatios.lowerBound)),
                                                  Float(Foundation.log(aspectRatios.upperBound)))
            let aspect = Foundation.exp(Double(logAspect))
            // Fractions of the width and height; area = fw·fh, fw/fh = aspect.
            let widthFraction = min(1, (area * aspect).squareRoot())
            let heightFraction = min(1, (area / aspect).squareRoot())
            let cropWidth = widthFraction * Double(width), cropHeight = heightFraction * Double(height)
            let x = Double(generator.nextUniform()) * (Double(width) - cropWidth)
            let y = Double(generator.nextUniform()) * (Double(height) - cropHeight)
            return .crop(BoundingBox(minX: x, minY: y, maxX: x + cropWidth, maxY: y + cropHeight))
        case let .translation(maximumFraction):
            let fraction = Float(maximumFraction)
            let dx = Double(generator.nextUniform(-fraction, fraction)) * Double(width)
            let dy = Double(generator.nextUniform(-fraction, fraction)) * Double(height)
            return .translation(x: dx, y: dy)
        case let .exposure(maximumStops):
            return .exposure(stops: generator.nextUniform(-maximumStops, maximumStops))
        case let .contrast(factors):
            return .contrast(factor: generator.nextUniform(factors.lowerBound, factors.upperBound))
        case let .saturation(factors):
            return .saturation(factor: generator.nextUniform(factors.lowerBound, factors.upperBound))
        case let .gaussianBlur(sigmas):
            let relative = Double(generator.nextUniform(Float(sigmas.lowerBound), Float(sigmas.upperBound)))
            return .gaussianBlur(sigma: relative * Double(min(width, height)) / 256)
        case let .gaussianNoise(standardDeviations):
            let deviation = generator.nextUniform(standardDeviations.lowerBound, standardDeviations.upperBound)
            return .gaussianNoise(standardDeviation: deviation, seed: generator.next())
        }
    }
}
