import CoachData
import CoachNN
import Foundation

/// Floats stored as bfloat16 (the upper 16 bits of a float32, rounded to nearest even):
/// half the memory, ~3 significant digits — plenty for cached post-ReLU6 backbone maps.
public struct CompactFloats: Sendable, Equatable {
    /// The stored bit patterns.
    public private(set) var bits: [UInt16]

    /// `values` rounded to bfloat16.
    public init(_ values: UnsafeBufferPointer<Float>) {
        bits = [UInt16](unsafeUninitializedCapacity: values.count) { buffer, count in
            for i in 0..<values.count {
                let u = values[i].bitPattern
                buffer[i] = UInt16(truncatingIfNeeded: (u &+ 0x7FFF &+ ((u >> 16) & 1)) >> 16)
            }
            count = values.count
        }
    }

    /// Values stored as these bfloat16 bit patterns (as `bits` gives them).
    public init(bits: [UInt16]) { self.bits = bits }

    /// The number of values.
    public var count: Int { bits.count }

    /// Writes the values as float32 to `destination`.
    public func expand(into destination: UnsafeMutablePointer<Float>) {
        bits.withUnsafeBufferPointer { b in
            for i in 0..<b.count { destination[i] = Float(bitPattern: UInt32(b[i]) << 16) }
        }
    }
}

/// The frozen backbone's maps for one (augmented, letterboxed) input image, as the
/// detection head consumes them, cached so training iterations cost only the head.
public struct DetectorFeatureMaps: Sendable {
    /// The stride-32 map, [H/32 · W/32, 1280] row-major.
    public var stride32: CompactFloats
    /// The stride-16 map, [H/16 · W/16, 112] row-major.
    public var stride16: CompactFloats

    /// Maps from their compact storage (shapes as described on the properties).
    public init(stride32: CompactFloats, stride16: CompactFloats) {
        self.stride32 = stride32
        self.stride16 = stride16
    }

    /// Bytes held.
    public var byteCount: Int { 2 * (stride32.count + stride16.count) }
}

/// Maps of several images stacked for one head pass: rows are pixels of all images.
public struct DetectorFeatureBatch {
    /// The number of images N.
    public var count: Int
    /// [N · H/32 · W/32, 1280].
    public var stride32: Tensor
    /// [N · H/16 · W/16, 112].
    public var stride16: Tensor

    /// Maps already stacked as float32: `stride32` [N · H/32 · W/32, 1280] and `stride16`
    /// [N · H/16 · W/16, 112] for `count` images (e.g. straight from the backbone, unrounded).
    public init(count: Int, stride32: Tensor, stride16: Tensor) {
        self.count = count
        self.stride32 = stride32
        self.stride16 = stride16
    }

    /// The maps of `items`, expanded to float32, for `configuration`'s input size.
    public init(_ items: [DetectorFeatureMaps], configuration: DetectorConfiguration) {
        count = items.count
        let cells32 = (configuration.inputHeight / 32) * (configuration.inputWidth / 32)
        func stack(_ part: KeyPath<DetectorFeatureMaps, CompactFloats>, rows: Int, channels: Int) -> Tensor {
            Tensor(shape: [items.count * rows, channels]) { out in
                for (i, item) in items.enumerated() {
                    precondition(item[keyPath: part].count == rows * channels, "cached maps do not fit the configuration")
                    item[keyPath: part].expand(into: out.baseAddress! + i * rows * channels)
                }
            }
        }
        stride32 = stack(\.stride32, rows: cells32, channels: EfficientNetLite0.featureCount)
        stride16 = stack(\.stride16, rows: 4 * cells32, channels: EfficientNetLite0.stride16Channels)
    }
}

/// The detector's input encoding, shared by training and inference so the two can never
/// preprocess differently: an image is letterboxed (aspect ratio kept, anti-aliased
/// bilinear, centred, the rest filled with grey 127) into `inputWidth × inputHeight`, then
/// normalised as `(x − 127) / 128` for EfficientNet-Lite0.
public struct DetectorInputEncoding: Sendable {
    /// The detector's configuration (input size).
    public let configuration: DetectorConfiguration
    /// The grey the letterbox fills with, and the value subtracted before scaling (127).
    public static let mean: Float = 127
    /// The value the centred pixels are divided by (128).
    public static let standardDeviation: Float = 128

    /// The encoding of `configuration`'s input.
    public init(configuration: DetectorConfiguration) {
        self.configuration = configuration
    }

    /// How image files are decoded for this detector, in training and at run time alike:
    /// upright (EXIF orientation applied), JPEGs at the largest libjpeg reduction that keeps
    /// the short side at least the input's short side.
    public var decodingOptions: ImageDecodingOptions {
        ImageDecodingOptions(minimumShortSide: min(configuration.inputWidth, configuration.inputHeight))
    }

    /// The normalised input pixels (HWC) of `image` and where it sits in the canvas.
    public func encode(_ image: RGBImage) throws -> (pixels: [Float], transform: LetterboxTransform) {
        let boxed = try image.letterboxed(width: configuration.inputWidth, height: configuration.inputHeight, fillValue: Self.mean)
        return (boxed.image.normalized(subtracting: Self.mean, dividingBy: Self.standardDeviation).values, boxed.transform)
    }
}

/// The detector's input encoding plus the frozen backbone pass that turns inputs into the
/// maps the head consumes.
public struct DetectorFeatureExtractor {
    /// The frozen backbone.
    public let backbone: EfficientNetLite0
    /// The detector's configuration.
    public let configuration: DetectorConfiguration
    /// The input encoding.
    public var encoding: DetectorInputEncoding { DetectorInputEncoding(configuration: configuration) }

    /// An extractor running `backbone` for `configuration`.
    public init(backbone: EfficientNetLite0, configuration: DetectorConfiguration) {
        self.backbone = backbone
        self.configuration = configuration
    }

    /// See `DetectorInputEncoding.decodingOptions`.
    public var decodingOptions: ImageDecodingOptions { encoding.decodingOptions }

    /// See `DetectorInputEncoding.encode(_:)`.
    public func encode(_ image: RGBImage) throws -> (pixels: [Float], transform: LetterboxTransform) {
        try encoding.encode(image)
    }

    /// The maps of encoded inputs (each `inputHeight · inputWidth · 3` normalised floats).
    public func maps(of inputs: [[Float]]) -> [DetectorFeatureMaps] {
        guard !inputs.isEmpty else { return [] }
        let c = configuration
        let pixels = c.inputHeight * c.inputWidth * 3
        let batch = Tensor(shape: [inputs.count, c.inputHeight, c.inputWidth, 3]) { out in
            for (i, input) in inputs.enumerated() {
                precondition(input.count == pixels, "an encoded input has \(input.count) values, expected \(pixels)")
                input.withUnsafeBufferPointer { (out.baseAddress! + i * pixels).update(from: $0.baseAddress!, count: pixels) }
            }
        }
        let result = backbone.forward(batch, keeping: [.stride16, .stride32])
        let cells32 = (c.inputHeight / 32) * (c.inputWidth / 32), channels32 = EfficientNetLite0.featureCount, channels16 = EfficientNetLite0.stride16Channels
        let s32 = result.stride32!, s16 = result.stride16!
        var maps: [DetectorFeatureMaps] = []
        s32.withUnsafeBufferPointer { p32 in
            s16.withUnsafeBufferPointer { p16 in
                for i in 0..<inputs.count {
                    let top = CompactFloats(UnsafeBufferPointer(rebasing: p32[(i * cells32 * channels32)..<((i + 1) * cells32 * channels32)]))
                    let sideCount = cells32 * 4 * channels16
                    let stride16 = CompactFloats(UnsafeBufferPointer(rebasing: p16[(i * sideCount)..<((i + 1) * sideCount)]))
                    maps.append(DetectorFeatureMaps(stride32: top, stride16: stride16))
                }
            }
        }
        return maps
    }
}
