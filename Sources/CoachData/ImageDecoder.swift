import CImageCodecs
import Foundation

/// How `ImageDecoder` decodes a file.
public struct ImageDecodingOptions: Equatable, Sendable {
    /// When set, JPEGs are decoded at the largest libjpeg-turbo reduction (1/2, 1/4 or 1/8)
    /// whose short side is still at least this many pixels; nil decodes at full size.
    /// PNGs are always decoded at full size.
    public var minimumShortSide: Int?
    /// Whether to turn JPEGs upright according to their EXIF orientation tag (default true).
    public var appliesOrientation: Bool
    /// Images with more pixels than this (before any reduction) are rejected with
    /// `ImageError.imageTooLarge` instead of exhausting memory.
    public var maximumPixelCount: Int

    /// Options; the defaults decode at full size, upright, up to 200 megapixels.
    public init(minimumShortSide: Int? = nil, appliesOrientation: Bool = true,
                maximumPixelCount: Int = 200_000_000) {
        self.minimumShortSide = minimumShortSide
        self.appliesOrientation = appliesOrientation
        self.maximumPixelCount = maximumPixelCount
    }
}

/// A decoded image with what the decoder learned about the file.
public struct DecodedImage: Equatable, Sendable {
    /// The pixels, upright when orientation was applied, possibly reduced.
    public var image: RGBImage
    /// The file's format.
    public var format: ImageFormat
    /// Width of the full-size image in the same orientation as `image`.
    public var fullWidth: Int
    /// Height of the full-size image in the same orientation as `image`.
    public var fullHeight: Int
    /// The libjpeg reduction used: `image` is about `1/scaleDenominator` of full size (1, 2, 4, 8).
    public var scaleDenominator: Int
    /// The file's EXIF orientation (`.topLeft` for PNG or when absent).
    public var orientation: ImageOrientation

    /// Multiply a full-size x coordinate (pixel edges) by this to get one in `image`.
    public var scaleX: Double { fullWidth > 0 ? Double(image.width) / Double(fullWidth) : 1 }
    /// Multiply a full-size y coordinate (pixel edges) by this to get one in `image`.
    public var scaleY: Double { fullHeight > 0 ? Double(image.height) / Double(fullHeight) : 1 }
}

/// Decodes JPEG (libjpeg-turbo) and PNG (libpng) files into 8-bit RGB.
///
/// Greyscale and palette images are expanded to RGB; 16-bit PNG samples are scaled to
/// 8 bits with rounding; transparency is composited onto white (a transparent pixel
/// becomes white: `round((c·a + 255·(255 − a)) / 255)`), since transparent pixels'
/// colours are often arbitrary. JPEG EXIF orientation is applied unless disabled.
/// Gamma and ICC profiles are ignored. CMYK and YCCK JPEGs become RGB as (1 − ink)·(1 − black)
/// per channel, read inverted when the file has Photoshop's Adobe marker (as Pillow and browsers
/// read them). Truncated or corrupt files throw `ImageError` naming the file; libjpeg's "premature end of data" warnings are
/// errors, never a half-grey image.
public enum ImageDecoder {
    /// Decodes the JPEG or PNG file at `url`.
    public static func decode(contentsOf url: URL, options: ImageDecodingOptions = ImageDecodingOptions()) throws -> DecodedImage {
        let data = try readFile(url)
        return try decode(data, source: url.path, options: options)
    }

    /// Decodes JPEG or PNG bytes; `source` names them in error messages (e.g. a path).
    public static func decode(_ data: Data, source: String,
                              options: ImageDecodingOptions = ImageDecodingOptions()) throws -> DecodedImage {
        if data.isEmpty { throw ImageError.emptyFile(path: source) }
        guard let format = ImageFormat.detect(fromLeadingBytes: data) else {
            throw ImageError.unrecognizedFormat(path: source, leadingBytes: describeLeadingBytes(data))
        }
        return try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> DecodedImage in
            let bytes = raw.bindMemory(to: UInt8.self)
            switch format {
            case .jpeg: return try decodeJPEG(bytes, source: source, options: options)
            case .png: return try decodePNG(bytes, source: source, options: options)
            }
        }
    }

    /// The libjpeg reduction (1, 2, 4 or 8) for a `width × height` JPEG: the largest whose
    /// decoded short side, `⌈min(width, height) / d⌉`, is still at least `minimumShortSide`.
    public static func jpegScaleDenominator(width: Int, height: Int, minimumShortSide: Int?) -> Int {
        guard let minimum = minimumShortSide else { return 1 }
        let shortSide = min(width, height)
        for denominator in [8, 4, 2] where (shortSide + denominator - 1) / denominator >= minimum {
            return denominator
        }
        return 1
    }

    // MARK: - JPEG

    private static func decodeJPEG(_ bytes: UnsafeBufferPointer<UInt8>, source: String,
                                   options: ImageDecodingOptions) throws -> DecodedImage {
        var message = CodecMessage()
        var info = CoachJPEGInfo()
        let infoStatus = message.withPointer { coach_jpeg_read_info(bytes.baseAddress, bytes.count, &info, $0) }
        try check(infoStatus, message, format: .jpeg, source: source)
        let width = Int(info.width), height = Int(info.height)
        guard fits(width: width, height: height, within: options.maximumPixelCount) else {
            throw ImageError.imageTooLarge(path: source, width: width, height: height,
                                           maximumPixelCount: options.maximumPixelCount)
        }
        let denominator = jpegScaleDenominator(width: width, height: height, minimumShortSide: options.minimumShortSide)
        var scaledWidth: UInt32 = 0, scaledHeight: UInt32 = 0
        coach_jpeg_scaled_size(info.width, info.height, Int32(denominator), &scaledWidth, &scaledHeight)
        let count = Int(scaledWidth) * Int(scaledHeight) * 3
        var decodedWidth: UInt32 = 0, decodedHeight: UInt32 = 0
        var status = COACH_CODEC_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = message.withPointer {
                coach_jpeg_decode_rgb(bytes.baseAddress, bytes.count, Int32(denominator),
                                      buffer.baseAddress, count, &decodedWidth, &decodedHeight, $0)
            }
            initialized = status == COACH_CODEC_OK ? count : 0
        }
        try check(status, message, format: .jpeg, source: source)
        guard decodedWidth == scaledWidth, decodedHeight == scaledHeight else {
            throw ImageError.corruptFile(
                path: source, format: .jpeg,
                reason: "decoded \(decodedWidth)×\(decodedHeight) pixels, expected \(scaledWidth)×\(scaledHeight)")
        }
        var image = RGBImage(uncheckedWidth: Int(scaledWidth), height: Int(scaledHeight), pixels: pixels)
        let orientation = ImageOrientation(rawValue: Int(info.orientation)) ?? .topLeft
        var fullWidth = width, fullHeight = height
        if options.appliesOrientation, orientation != .topLeft {
            image = image.oriented(orientation)
            if orientation.swapsWidthAndHeight { swap(&fullWidth, &fullHeight) }
        }
        return DecodedImage(image: image, format: .jpeg, fullWidth: fullWidth, fullHeight: fullHeight,
                            scaleDenominator: denominator, orientation: orientation)
    }

    // MARK: - PNG

    private static func decodePNG(_ bytes: UnsafeBufferPointer<UInt8>, source: String,
                                  options: ImageDecodingOptions) throws -> DecodedImage {
        var message = CodecMessage()
        var info = CoachPNGInfo()
        let infoStatus = message.withPointer { coach_png_read_info(bytes.baseAddress, bytes.count, &info, $0) }
        try check(infoStatus, message, format: .png, source: source)
        let width = Int(info.width), height = Int(info.height)
        guard fits(width: width, height: height, within: options.maximumPixelCount) else {
            throw ImageError.imageTooLarge(path: source, width: width, height: height,
                                           maximumPixelCount: options.maximumPixelCount)
        }
        let count = width * height * 3
        var decodedWidth: UInt32 = 0, decodedHeight: UInt32 = 0
        var status = COACH_CODEC_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = message.withPointer {
                coach_png_decode_rgb(bytes.baseAddress, bytes.count, buffer.baseAddress, count,
                                     &decodedWidth, &decodedHeight, $0)
            }
            initialized = status == COACH_CODEC_OK ? count : 0
        }
        try check(status, message, format: .png, source: source)
        guard Int(decodedWidth) == width, Int(decodedHeight) == height else {
            throw ImageError.corruptFile(
                path: source, format: .png,
                reason: "decoded \(decodedWidth)×\(decodedHeight) pixels, expected \(width)×\(height)")
        }
        let image = RGBImage(uncheckedWidth: width, height: height, pixels: pixels)
        return DecodedImage(image: image, format: .png, fullWidth: width, fullHeight: height,
                            scaleDenominator: 1, orientation: .topLeft)
    }

    // MARK: - Helpers

    private static func fits(width: Int, height: Int, within maximumPixelCount: Int) -> Bool {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return !overflow && product <= maximumPixelCount
    }

    static func readFile(_ url: URL) throws -> Data {
        if let problem = DataFiles.problem(with: url) {
            throw ImageError.unreadableFile(path: url.path, reason: problem)
        }
        do {
            return try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw ImageError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
    }

    private static func check(_ status: CoachCodecStatus, _ message: CodecMessage,
                              format: ImageFormat, source: String) throws {
        var reason = message.text.isEmpty ? "decoder status \(status.rawValue)" : message.text
        // libjpeg's warnings start "Corrupt JPEG data: ", which the error's own wording already says.
        for prefix in ["Corrupt JPEG data: ", "Corrupt JPEG data"] where reason.hasPrefix(prefix) && reason.count > prefix.count {
            reason = String(reason.dropFirst(prefix.count))
            break
        }
        switch status {
        case COACH_CODEC_OK: return
        case COACH_CODEC_TRUNCATED: throw ImageError.truncatedFile(path: source, format: format, reason: reason)
        case COACH_CODEC_UNSUPPORTED: throw ImageError.unsupportedImage(path: source, format: format, reason: reason)
        default: throw ImageError.corruptFile(path: source, format: format, reason: reason)
        }
    }

    private static func describeLeadingBytes(_ data: Data) -> String {
        let prefix = data.prefix(8)
        let hex = prefix.map { String(format: "%02X", $0) }.joined(separator: " ")
        let printable = prefix.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        if printable, let text = String(bytes: prefix, encoding: .ascii) {
            return "\"\(text)\" (\(hex))"
        }
        return hex
    }
}

/// The message buffer every CImageCodecs call fills on failure.
struct CodecMessage {
    private var storage = [CChar](repeating: 0, count: Int(COACH_CODEC_MESSAGE_CAPACITY))

    /// Calls `body` with a pointer to the buffer.
    mutating func withPointer<Result>(_ body: (UnsafeMutablePointer<CChar>) -> Result) -> Result {
        storage.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    /// The message, or "" when none was written.
    var text: String {
        storage.withUnsafeBufferPointer { buffer in
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
