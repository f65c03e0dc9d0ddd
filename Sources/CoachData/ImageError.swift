import Foundation

/// Why an image could not be read, written or transformed; every message names the file.
public enum ImageError: LocalizedError, Equatable {
    /// The file could not be opened or read (missing, a directory, no permission).
    case unreadableFile(path: String, reason: String)
    /// The file has zero bytes.
    case emptyFile(path: String)
    /// The file is neither a JPEG nor a PNG (judged by its first bytes).
    case unrecognizedFormat(path: String, leadingBytes: String)
    /// The file is a JPEG or PNG this library does not decode (e.g. a JPEG of 2 colour components).
    case unsupportedImage(path: String, format: ImageFormat, reason: String)
    /// The file ends before the image is complete.
    case truncatedFile(path: String, format: ImageFormat, reason: String)
    /// The decoder rejected the file's data.
    case corruptFile(path: String, format: ImageFormat, reason: String)
    /// The image is larger than the decoding options allow.
    case imageTooLarge(path: String, width: Int, height: Int, maximumPixelCount: Int)
    /// The image could not be encoded or the encoded file could not be written.
    case encodingFailed(path: String, reason: String)
    /// An argument does not fit the image (crop outside the image, zero output size...).
    case invalidArgument(String)

    /// A sentence saying what is wrong and with which file.
    public var errorDescription: String? {
        switch self {
        case let .unreadableFile(path, reason):
            return "\(path): cannot read the image file: \(reason)"
        case let .emptyFile(path):
            return "\(path): the image file is empty (0 bytes); re-export or remove it"
        case let .unrecognizedFormat(path, leadingBytes):
            return "\(path): not a JPEG or PNG image (the file starts with \(leadingBytes)); only JPEG and PNG are supported"
        case let .unsupportedImage(path, format, reason):
            return "\(path): unsupported \(format.name) image: \(reason)"
        case let .truncatedFile(path, format, reason):
            return "\(path): the \(format.name) file is truncated (\(reason)); re-export or remove it"
        case let .corruptFile(path, format, reason):
            return "\(path): corrupt \(format.name) data: \(reason)"
        case let .imageTooLarge(path, width, height, maximumPixelCount):
            return "\(path): the image is \(width)×\(height) pixels, more than the allowed \(maximumPixelCount) pixels"
        case let .encodingFailed(path, reason):
            return "\(path): cannot write the image: \(reason)"
        case let .invalidArgument(reason):
            return reason
        }
    }
}

/// The encoded image formats Coach reads and writes.
public enum ImageFormat: String, Equatable, Sendable {
    /// JPEG (JFIF/EXIF), decoded by libjpeg-turbo.
    case jpeg
    /// PNG, decoded by libpng.
    case png

    /// The format's usual name.
    public var name: String { self == .jpeg ? "JPEG" : "PNG" }

    /// The format whose signature `bytes` starts with, or nil.
    public static func detect<Bytes: Collection>(fromLeadingBytes bytes: Bytes) -> ImageFormat?
    where Bytes.Element == UInt8 {
        let prefix = Array(bytes.prefix(8))
        if prefix.count >= 3, prefix[0] == 0xFF, prefix[1] == 0xD8, prefix[2] == 0xFF { return .jpeg }
        if prefix == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        return nil
    }
}
