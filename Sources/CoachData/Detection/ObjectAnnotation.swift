import Foundation

/// One labelled box in an image: pixel coordinates of the image as displayed (see
/// `AnnotatedImage`), origin top-left.
public struct ObjectAnnotation: Hashable, Sendable {
    /// The class label, e.g. `board`.
    public var label: String
    /// The box in continuous pixel coordinates of the displayed image.
    public var box: BoundingBox

    /// An annotation of `label` at `box`.
    public init(label: String, box: BoundingBox) {
        self.label = label
        self.box = box
    }
}

/// An image with its labelled boxes; an image without boxes is a negative example.
///
/// Coordinates and `width`/`height` are those of the image as Coach decodes it: upright,
/// with any EXIF orientation applied (what a viewer shows, and what Create ML's annotation
/// tools show while you draw boxes). For the usual files without an orientation tag this
/// is exactly the stored pixel grid.
public struct AnnotatedImage: Hashable, Sendable {
    /// The image file.
    public var url: URL
    /// The image as named in the annotation file (for messages and reports).
    public var name: String
    /// Width of the displayed image in pixels.
    public var width: Int
    /// Height of the displayed image in pixels.
    public var height: Int
    /// The labelled boxes (empty for a negative image).
    public var objects: [ObjectAnnotation]

    /// An image of `width × height` at `url` with `objects`.
    public init(url: URL, name: String, width: Int, height: Int, objects: [ObjectAnnotation]) {
        self.url = url
        self.name = name
        self.width = width
        self.height = height
        self.objects = objects
    }

    /// Whether the image has no boxes (a negative example).
    public var isNegative: Bool { objects.isEmpty }
}
