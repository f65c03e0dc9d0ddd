import Foundation

/// A rectangle in normalised image coordinates: 0…1 across the width and the height,
/// origin at the image's TOP-LEFT corner, y pointing down (as in the annotation files).
///
/// Vision's `VNRecognizedObjectObservation.boundingBox` uses the BOTTOM-LEFT origin with
/// y pointing up; `visionRect` converts (`y_vision = 1 − y − height`).
public struct NormalizedRect: Equatable, Hashable, Sendable {
    /// Left edge, 0…1 of the width.
    public var x: Double
    /// Top edge, 0…1 of the height (from the top).
    public var y: Double
    /// Width, a fraction of the image's width.
    public var width: Double
    /// Height, a fraction of the image's height.
    public var height: Double

    /// A rectangle from its top-left corner and size (all normalised, origin top-left).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The horizontal centre.
    public var midX: Double { x + width / 2 }
    /// The vertical centre (from the top).
    public var midY: Double { y + height / 2 }

    /// The same rectangle with Vision's bottom-left origin: `x` unchanged, `y` = 1 − y − height.
    /// Applying it twice gives the original rectangle back.
    public var visionRect: NormalizedRect {
        NormalizedRect(x: x, y: 1 - y - height, width: width, height: height)
    }

    /// The rectangle in pixels of a `width × height` image (origin top-left):
    /// `(x·width, y·height, width·w, height·h)`.
    public func pixelRect(imageWidth: Int, imageHeight: Int) -> (x: Double, y: Double, width: Double, height: Double) {
        (x * Double(imageWidth), y * Double(imageHeight), width * Double(imageWidth), height * Double(imageHeight))
    }
}

/// A class label with its confidence.
public struct ClassConfidence: Equatable, Hashable, Sendable {
    /// The class label.
    public var label: String
    /// The confidence in 0…1: objectness × P(class | object).
    public var confidence: Double

    /// `label` with `confidence`.
    public init(label: String, confidence: Double) {
        self.label = label
        self.confidence = confidence
    }
}

/// One object found by an `ObjectDetector`.
public struct DetectedObject: Equatable, Sendable {
    /// The most confident class label.
    public var label: String
    /// Its confidence, 0…1.
    public var confidence: Double
    /// Every class with its confidence, most confident first (like Vision's `labels`).
    public var labels: [ClassConfidence]
    /// The box, normalised to the image, origin top-left (`boundingBox.visionRect` for Vision's).
    public var boundingBox: NormalizedRect

    /// An object of `label`.
    public init(label: String, confidence: Double, labels: [ClassConfidence], boundingBox: NormalizedRect) {
        self.label = label
        self.confidence = confidence
        self.labels = labels
        self.boundingBox = boundingBox
    }
}
