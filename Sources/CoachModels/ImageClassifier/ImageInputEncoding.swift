import CoachData
import Foundation

/// How an image becomes the backbone's input: scaled so its short side is `shortSide`
/// (anti-aliased bilinear), the centre `cropSize × cropSize` cut out, then
/// `(pixel − mean) / standardDeviation`, NHWC.
///
/// Training and inference both use this one encoding, read back from the model file's
/// input specification, so they can never preprocess differently. JPEGs are decoded at
/// the largest libjpeg-turbo reduction that keeps the short side ≥ `shortSide`.
public struct ImageInputEncoding: Equatable, Sendable {
    /// The short side the image is scaled to before cropping.
    public var shortSide: Int
    /// The side of the square centre crop (the network's input size).
    public var cropSize: Int
    /// Subtracted from every 0...255 sample.
    public var mean: Float
    /// Divides every sample after the mean is subtracted.
    public var standardDeviation: Float

    /// EfficientNet-Lite0's reference preprocessing: short side 256, centre 224, (x − 127) / 128.
    public static let efficientNetLite0 = ImageInputEncoding(shortSide: 256, cropSize: 224, mean: 127, standardDeviation: 128)

    /// An encoding with explicit parameters.
    public init(shortSide: Int, cropSize: Int, mean: Float, standardDeviation: Float) {
        self.shortSide = shortSide
        self.cropSize = cropSize
        self.mean = mean
        self.standardDeviation = standardDeviation
    }

    /// The encoding a model file's input specification describes; throws
    /// `ImageClassifierModelError.unsupportedInput` for anything else.
    public init(specification: ImageInputSpecification, path: String? = nil) throws {
        let source = path ?? "the model"
        var problems: [String] = []
        if specification.width != specification.height { problems.append("input \(specification.width)×\(specification.height) is not square") }
        if specification.layout != "NHWC" { problems.append("layout '\(specification.layout)' is not NHWC") }
        if specification.channelOrder != "RGB" { problems.append("channel order '\(specification.channelOrder)' is not RGB") }
        let means = Set(specification.mean), deviations = Set(specification.standardDeviation)
        if specification.mean.count != 3 || means.count != 1 { problems.append("mean \(specification.mean) is not one value for all 3 channels") }
        if specification.standardDeviation.count != 3 || deviations.count != 1 || (deviations.first ?? 0) <= 0 {
            problems.append("standard deviation \(specification.standardDeviation) is not one positive value for all 3 channels")
        }
        let resize = specification.resize ?? ImageResize(method: "short-side-center-crop", shortSide: specification.width)
        if resize.method != "short-side-center-crop" { problems.append("resize method '\(resize.method)' is not short-side-center-crop") }
        let shortSide = resize.shortSide ?? specification.width
        if shortSide < specification.width { problems.append("short side \(shortSide) is smaller than the crop \(specification.width)") }
        if specification.width < 32 { problems.append("input size \(specification.width) is below 32") }
        guard problems.isEmpty else {
            throw ImageClassifierModelError.unsupportedInput(path: source, problems: problems)
        }
        self.init(shortSide: shortSide, cropSize: specification.width, mean: Float(specification.mean[0]),
                  standardDeviation: Float(specification.standardDeviation[0]))
    }

    /// The specification a model file stores for this encoding.
    public var specification: ImageInputSpecification {
        ImageInputSpecification(width: cropSize, height: cropSize, mean: [Double](repeating: Double(mean), count: 3),
                                standardDeviation: [Double](repeating: Double(standardDeviation), count: 3),
                                resize: ImageResize(method: "short-side-center-crop", shortSide: shortSide))
    }

    /// Decoding options that keep at least `shortSide` pixels on the short side.
    public var decodingOptions: ImageDecodingOptions { ImageDecodingOptions(minimumShortSide: shortSide) }

    /// Floats per encoded image (`cropSize · cropSize · 3`).
    public var valuesPerImage: Int { cropSize * cropSize * 3 }

    /// The encoded image, HWC [cropSize, cropSize, 3] as a flat array.
    public func encode(_ image: RGBImage) throws -> [Float] {
        let cropped = try image.resizedAndCenterCropped(shortSide: shortSide, cropWidth: cropSize, cropHeight: cropSize)
        return cropped.normalized(subtracting: mean, dividingBy: standardDeviation).values
    }

    /// Decodes `url` (JPEG at reduced scale when possible) without encoding it.
    public func decode(contentsOf url: URL) throws -> RGBImage {
        try ImageDecoder.decode(contentsOf: url, options: decodingOptions).image
    }

    /// Stacks encoded images into one NHWC batch [N, cropSize, cropSize, 3].
    public func batch(_ encoded: [[Float]]) -> Tensor {
        var scalars: [Float] = []
        scalars.reserveCapacity(encoded.count * valuesPerImage)
        for image in encoded { scalars += image }
        return Tensor(shape: [encoded.count, cropSize, cropSize, 3], scalars: scalars)
    }
}
