import CoachData
import Foundation

/// What a model consumes: images or pose sequences (exactly one is set for a model).
public struct InputSpecification: Codable, Equatable, Sendable {
    /// For image models: size, pixel range, normalisation, layout.
    public var image: ImageInputSpecification?
    /// For pose models: window, frame rate, joints, keypoint origin.
    public var pose: PoseInputSpecification?

    /// An image input.
    public init(image: ImageInputSpecification) {
        self.image = image
        self.pose = nil
    }

    /// A pose input.
    public init(pose: PoseInputSpecification) {
        self.image = nil
        self.pose = pose
    }
}

/// How raw pixels become an image model's input tensor.
///
/// The model sees `(pixel − mean[c]) / standardDeviation[c]` for channel `c`, with
/// pixels in `pixelRange`, laid out as `layout` (Coach uses NHWC).
public struct ImageInputSpecification: Codable, Equatable, Sendable {
    /// The input tensor's width W in pixels.
    public var width: Int
    /// The input tensor's height H in pixels.
    public var height: Int
    /// The colour channels in tensor order, e.g. `RGB`.
    public var channelOrder: String
    /// The pixel values' range before normalisation, e.g. 0…255.
    public var pixelRange: ValueRange
    /// Per-channel mean subtracted from each pixel.
    public var mean: [Double]
    /// Per-channel divisor applied after subtracting the mean.
    public var standardDeviation: [Double]
    /// The tensor layout, e.g. `NHWC`.
    public var layout: String
    /// How an image of another size is brought to width × height (`nil`: plain resize).
    public var resize: ImageResize?

    /// An image input of `width` × `height`.
    public init(width: Int, height: Int, channelOrder: String = "RGB",
                pixelRange: ValueRange = ValueRange(minimum: 0, maximum: 255),
                mean: [Double], standardDeviation: [Double], layout: String = "NHWC",
                resize: ImageResize? = nil) {
        self.width = width
        self.height = height
        self.channelOrder = channelOrder
        self.pixelRange = pixelRange
        self.mean = mean
        self.standardDeviation = standardDeviation
        self.layout = layout
        self.resize = resize
    }
}

/// A closed numeric range.
public struct ValueRange: Codable, Equatable, Sendable {
    /// The smallest value.
    public var minimum: Double
    /// The largest value.
    public var maximum: Double

    /// The range `minimum…maximum`.
    public init(minimum: Double, maximum: Double) {
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// How an image is resized to the model's input size.
public struct ImageResize: Codable, Equatable, Sendable {
    /// The method, e.g. `short-side-center-crop` (scale the short side to `shortSide`,
    /// then crop the centre) or `stretch`.
    public var method: String
    /// The short side's length before cropping, for `short-side-center-crop`.
    public var shortSide: Int?

    /// A resize by `method`.
    public init(method: String, shortSide: Int? = nil) {
        self.method = method
        self.shortSide = shortSide
    }
}

/// What a pose model consumes: windows of frames (or single poses) of named joints.
public struct PoseInputSpecification: Codable, Equatable, Sendable {
    /// Frames per window T; `nil` for single-pose models.
    public var windowLength: Int?
    /// Frames per second the window was sampled at; `nil` for single-pose models.
    public var frameRate: Double?
    /// Joint names J in tensor order (FORMATS.md §3.1).
    public var jointNames: [String]
    /// Where coordinates are measured from.
    public var keypointOrigin: KeypointOrigin
    /// The keypoint channels K in tensor order, e.g. `["x", "y", "confidence"]`.
    public var keypointChannels: [String]

    /// A pose input over `jointNames`.
    public init(windowLength: Int? = nil, frameRate: Double? = nil, jointNames: [String],
                keypointOrigin: KeypointOrigin = .topLeft, keypointChannels: [String] = ["x", "y", "confidence"]) {
        self.windowLength = windowLength
        self.frameRate = frameRate
        self.jointNames = jointNames
        self.keypointOrigin = keypointOrigin
        self.keypointChannels = keypointChannels
    }
}
