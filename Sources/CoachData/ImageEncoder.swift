import CImageCodecs
import Foundation

/// PNG colour types (values as in the PNG specification).
public enum PNGColorType: Int, Sendable {
    /// Greyscale, 1 sample per pixel (bit depth 1, 2, 4, 8 or 16).
    case gray = 0
    /// RGB, 3 samples per pixel (bit depth 8 or 16).
    case rgb = 2
    /// Palette indices, 1 sample per pixel (bit depth 1, 2, 4 or 8).
    case palette = 3
    /// Greyscale and alpha, 2 samples per pixel (bit depth 8 or 16).
    case grayAlpha = 4
    /// RGB and alpha, 4 samples per pixel (bit depth 8 or 16).
    case rgba = 6

    /// Samples per pixel.
    public var samplesPerPixel: Int {
        switch self {
        case .gray, .palette: return 1
        case .grayAlpha: return 2
        case .rgb: return 3
        case .rgba: return 4
        }
    }
}

/// Raw samples for a PNG of any layout: test fixtures, masks, 16-bit images.
public struct PNGSamples: Equatable, Sendable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The colour type.
    public var colorType: PNGColorType
    /// Bits per sample: 1, 2, 4, 8 or 16 (as the colour type allows).
    public var bitDepth: Int
    /// `height × width × samplesPerPixel` values, each below `2^bitDepth` (palette: an index).
    public var samples: [UInt16]
    /// Palette colours (palette images only).
    public var palette: [RGBColor]
    /// Alpha of the first palette entries (a tRNS chunk); empty for none.
    public var paletteAlpha: [UInt8]
    /// Whether to write Adam7-interlaced.
    public var interlaced: Bool

    /// Raw PNG samples.
    public init(width: Int, height: Int, colorType: PNGColorType, bitDepth: Int, samples: [UInt16],
                palette: [RGBColor] = [], paletteAlpha: [UInt8] = [], interlaced: Bool = false) {
        self.width = width
        self.height = height
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.samples = samples
        self.palette = palette
        self.paletteAlpha = paletteAlpha
        self.interlaced = interlaced
    }
}

/// Sample layouts the JPEG encoder accepts.
public enum JPEGSampleLayout: Sendable {
    /// 1 sample per pixel, stored as greyscale.
    case gray
    /// R, G, B per pixel, stored as YCbCr (the usual JPEG).
    case rgb
    /// C, M, Y, K per pixel, stored as Adobe CMYK (with the Adobe marker, so decoders read the
    /// samples as Photoshop writes them: 255 = no ink; for tests).
    case cmyk
    /// C, M, Y, K per pixel, stored as Adobe YCCK (read as `cmyk` is; for tests).
    case cmykAsYCCK

    var samplesPerPixel: Int {
        switch self {
        case .gray: return 1
        case .rgb: return 3
        case .cmyk, .cmykAsYCCK: return 4
        }
    }

    var codecValue: Int32 {
        switch self {
        case .gray: return Int32(COACH_JPEG_INPUT_GRAY.rawValue)
        case .rgb: return Int32(COACH_JPEG_INPUT_RGB.rawValue)
        case .cmyk: return Int32(COACH_JPEG_INPUT_CMYK.rawValue)
        case .cmykAsYCCK: return Int32(COACH_JPEG_INPUT_CMYK_AS_YCCK.rawValue)
        }
    }
}

/// Encodes images as PNG (libpng) or JPEG (libjpeg-turbo).
public enum ImageEncoder {
    /// Name used in errors for images encoded in memory.
    static let memorySource = "(image in memory)"

    /// The image as an 8-bit RGB PNG.
    public static func pngData(_ image: RGBImage) throws -> Data {
        try encodePNG(bytes: image.pixels, width: image.width, height: image.height, colorType: .rgb,
                      bitDepth: 8, palette: [], paletteAlpha: [], interlaced: false)
    }

    /// A PNG of any colour type and bit depth from raw samples.
    public static func pngData(_ raw: PNGSamples) throws -> Data {
        let expected = raw.width * raw.height * raw.colorType.samplesPerPixel
        guard raw.width > 0, raw.height > 0, raw.samples.count == expected else {
            throw ImageError.encodingFailed(
                path: memorySource,
                reason: "a \(raw.width)×\(raw.height) PNG of colour type \(raw.colorType) needs \(expected) samples, got \(raw.samples.count)")
        }
        let limit = raw.bitDepth >= 16 ? Int(UInt16.max) : (1 << raw.bitDepth) - 1
        if let bad = raw.samples.firstIndex(where: { Int($0) > limit }) {
            throw ImageError.encodingFailed(
                path: memorySource, reason: "sample \(bad) is \(raw.samples[bad]), more than \(limit) for bit depth \(raw.bitDepth)")
        }
        if raw.colorType == .palette, let bad = raw.samples.firstIndex(where: { Int($0) >= raw.palette.count }) {
            throw ImageError.encodingFailed(
                path: memorySource, reason: "palette index \(raw.samples[bad]) at sample \(bad) is outside the \(raw.palette.count)-colour palette")
        }
        let bytes: [UInt8]
        if raw.bitDepth == 16 {
            bytes = raw.samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        } else {
            bytes = raw.samples.map { UInt8(truncatingIfNeeded: $0) }
        }
        return try encodePNG(bytes: bytes, width: raw.width, height: raw.height, colorType: raw.colorType,
                             bitDepth: raw.bitDepth, palette: raw.palette, paletteAlpha: raw.paletteAlpha,
                             interlaced: raw.interlaced)
    }

    /// The image as a JPEG of `quality` (1...100), baseline unless `progressive`.
    public static func jpegData(_ image: RGBImage, quality: Int = 90, progressive: Bool = false) throws -> Data {
        try jpegData(samples: image.pixels, width: image.width, height: image.height, layout: .rgb,
                     quality: quality, progressive: progressive)
    }

    /// A JPEG from interleaved 8-bit samples in `layout`.
    public static func jpegData(samples: [UInt8], width: Int, height: Int, layout: JPEGSampleLayout,
                                quality: Int = 90, progressive: Bool = false) throws -> Data {
        guard width > 0, height > 0, samples.count == width * height * layout.samplesPerPixel else {
            throw ImageError.encodingFailed(
                path: memorySource,
                reason: "a \(width)×\(height) \(layout) JPEG needs \(width * height * layout.samplesPerPixel) samples, got \(samples.count)")
        }
        guard (1...100).contains(quality) else {
            throw ImageError.encodingFailed(path: memorySource, reason: "JPEG quality \(quality) is not in 1...100")
        }
        var message = CodecMessage()
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        let status = samples.withUnsafeBufferPointer { buffer in
            message.withPointer {
                coach_jpeg_encode(buffer.baseAddress, UInt32(width), UInt32(height), layout.codecValue,
                                  Int32(quality), progressive ? 1 : 0, &output, &size, $0)
            }
        }
        return try takeEncoded(status: status, output: output, size: size, message: message)
    }

    private static func encodePNG(bytes: [UInt8], width: Int, height: Int, colorType: PNGColorType,
                                  bitDepth: Int, palette: [RGBColor], paletteAlpha: [UInt8],
                                  interlaced: Bool) throws -> Data {
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw ImageError.encodingFailed(path: memorySource, reason: "PNG size \(width)×\(height) is not valid")
        }
        let paletteBytes = palette.flatMap { [$0.red, $0.green, $0.blue] }
        var message = CodecMessage()
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        let status = bytes.withUnsafeBufferPointer { samples in
            paletteBytes.withUnsafeBufferPointer { colors in
                paletteAlpha.withUnsafeBufferPointer { alphas in
                    message.withPointer {
                        coach_png_encode(samples.baseAddress, UInt32(width), UInt32(height),
                                         Int32(colorType.rawValue), Int32(bitDepth),
                                         colors.baseAddress, Int32(palette.count),
                                         alphas.baseAddress, Int32(paletteAlpha.count),
                                         interlaced ? 1 : 0, &output, &size, $0)
                    }
                }
            }
        }
        return try takeEncoded(status: status, output: output, size: size, message: message)
    }

    private static func takeEncoded(status: CoachCodecStatus, output: UnsafeMutablePointer<UInt8>?,
                                    size: Int, message: CodecMessage) throws -> Data {
        defer { coach_codec_free(output) }
        guard status == COACH_CODEC_OK, let output else {
            throw ImageError.encodingFailed(path: memorySource,
                                            reason: message.text.isEmpty ? "encoder status \(status.rawValue)" : message.text)
        }
        return Data(bytes: output, count: size)
    }

    /// Writes `data` to `url` atomically, naming the file in errors.
    static func write(_ data: Data, to url: URL) throws {
        do {
            // A picture's folder is made as `export` and `train` make theirs.
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        } catch {
            throw ImageError.encodingFailed(path: url.path, reason: error.localizedDescription)
        }
    }
}

/// The picture formats Coach writes, named by a file's extension.
public enum PictureFormat: String, Sendable {
    case png, jpeg

    /// The format a path's extension names (`.png`, `.jpg`, `.jpeg`, any case), or nil.
    public init?(path: String) {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "png": self = .png
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }
}

extension RGBImage {
    /// Writes the image in the format its name's extension says (JPEG at quality 95 for `.jpg`
    /// and `.jpeg`, PNG for `.png`), so a viewer never finds one format under the other's name;
    /// any other extension is an error naming the path.
    public func write(to url: URL) throws {
        switch PictureFormat(path: url.path) {
        case .png: try writePNG(to: url)
        case .jpeg: try writeJPEG(to: url, quality: 95)
        case nil:
            throw ImageError.invalidArgument("\(url.path): cannot tell the picture format from the name: expected .png, .jpg or .jpeg")
        }
    }

    /// Writes the image as an 8-bit RGB PNG.
    public func writePNG(to url: URL) throws {
        try ImageEncoder.write(ImageEncoder.pngData(self), to: url)
    }

    /// Writes the image as a JPEG of `quality` (1...100).
    public func writeJPEG(to url: URL, quality: Int = 90) throws {
        try ImageEncoder.write(ImageEncoder.jpegData(self, quality: quality), to: url)
    }
}
