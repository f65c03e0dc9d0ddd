/// An image with the boxes and keypoints that must move with its pixels (all in pixel
/// coordinates of `image`, origin top-left; see `BoundingBox`).
public struct AugmentationSample: Equatable, Sendable {
    /// The pixels.
    public var image: RGBImage
    /// Object boxes (may be empty).
    public var boxes: [BoundingBox]
    /// Keypoints (may be empty).
    public var keypoints: [ImagePoint]

    /// A sample from an image and, optionally, its boxes and keypoints.
    public init(image: RGBImage, boxes: [BoundingBox] = [], keypoints: [ImagePoint] = []) {
        self.image = image
        self.boxes = boxes
        self.keypoints = keypoints
    }
}

/// The result of augmenting a sample: the new pixels, the boxes that survived, and how
/// everything moved.
public struct AugmentedSample: Equatable, Sendable {
    /// The augmented image (same size as the input).
    public var image: RGBImage
    /// The surviving boxes, transformed and clipped to the image (see
    /// `AugmentationPipeline.minimumVisibleFraction` for which survive).
    public var boxes: [BoundingBox]
    /// For each box in `boxes`, the index of the input box it came from (to carry labels).
    public var boxSourceIndices: [Int]
    /// Every input keypoint, transformed (not clipped: check `isInside(width:height:)`).
    /// A flip does not swap left/right joint names; the caller owns that meaning.
    public var keypoints: [ImagePoint]
    /// The composed geometric map from input to output coordinates.
    public var transform: AffineTransform
    /// The operations applied, in order, with their drawn parameters.
    public var operations: [AugmentationOperation]
}
