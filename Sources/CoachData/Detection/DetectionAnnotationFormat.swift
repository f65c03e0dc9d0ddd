import Foundation

/// The annotation formats Coach reads for object detection (FORMATS.md §2).
public enum DetectionAnnotationFormat: String, Sendable, CaseIterable {
    /// Create ML's annotation JSON (the reference format).
    case createML = "create-ml"
    /// YOLO text labels (`class cx cy w h`, normalised) with a names file.
    case yolo
    /// Pascal VOC XML, one file per image.
    case pascalVOC = "pascal-voc"

    /// A human-readable name.
    public var displayName: String {
        switch self {
        case .createML: return "Create ML JSON"
        case .yolo: return "YOLO text"
        case .pascalVOC: return "Pascal VOC XML"
        }
    }
}

/// Where a raw annotation sits in its file, for messages.
struct AnnotationLocation: Hashable, Sendable {
    var file: String
    var line: Int?
    var jsonPath: String?
}

/// An image entry as read from an annotation file, before the image itself was checked.
struct PendingAnnotatedImage {
    /// A raw box: label and box in displayed-image pixels, plus where it was written.
    struct PendingObject {
        var label: String
        var box: BoundingBox
        var location: AnnotationLocation
        /// True when the box was given normalised (0…1, YOLO): it is scaled once the image size is known.
        var isNormalized = false
    }

    var url: URL
    var name: String
    var location: AnnotationLocation
    var objects: [PendingObject]
    /// The size the annotation file claims (Pascal VOC `<size>`), checked against the image.
    var declaredSize: (width: Int, height: Int)? = nil
}
