import CoachData
import Foundation

/// Builders for image test fixtures (written with Coach's own encoders over libpng/libjpeg).
enum ImageFixtures {
    /// A deterministic image where every pixel differs from its neighbours.
    static func pattern(width: Int, height: Int) -> RGBImage {
        var image = RGBImage(width: width, height: height, color: .black)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = RGBColor(red: UInt8((x * 7 + y * 3) % 256),
                                       green: UInt8((x * 13 + y * 29 + 50) % 256),
                                       blue: UInt8((x * y + 11) % 256))
            }
        }
        return image
    }

    /// A smooth image (gentle gradients) that JPEG reproduces closely.
    static func smooth(width: Int, height: Int) -> RGBImage {
        var image = RGBImage(width: width, height: height, color: .black)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = RGBColor(red: UInt8(40 + 160 * x / max(1, width - 1)),
                                       green: UInt8(30 + 180 * y / max(1, height - 1)),
                                       blue: UInt8(90 + 60 * (x + y) / max(1, width + height - 2)))
            }
        }
        return image
    }

    /// A 48×32 image of 16×16 blocks: red top-left, green top-right, blue bottom-left,
    /// yellow bottom-right, grey elsewhere.
    static func cornerBlocks() -> RGBImage {
        var image = RGBImage(width: 48, height: 32, color: RGBColor(red: 128, green: 128, blue: 128))
        let corners: [(Int, Int, RGBColor)] = [
            (0, 0, red), (2, 0, green), (0, 1, blue), (2, 1, yellow),
        ]
        for (blockX, blockY, color) in corners {
            for y in (blockY * 16)..<(blockY * 16 + 16) {
                for x in (blockX * 16)..<(blockX * 16 + 16) { image[x, y] = color }
            }
        }
        return image
    }

    static let red = RGBColor(red: 230, green: 20, blue: 20)
    static let green = RGBColor(red: 20, green: 200, blue: 20)
    static let blue = RGBColor(red: 20, green: 20, blue: 230)
    static let yellow = RGBColor(red: 230, green: 230, blue: 20)

    /// A JPEG with an APP1 EXIF segment carrying `orientation` spliced in after SOI.
    static func withEXIFOrientation(_ jpeg: Data, orientation: UInt16, bigEndian: Bool = true) -> Data {
        func u16(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            let bytes = [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
            return bigEndian ? bytes : bytes.reversed()
        }
        var tiff: [UInt8] = bigEndian ? Array("MM".utf8) : Array("II".utf8)
        tiff += u16(42) + u32(8)              // TIFF magic, IFD0 at offset 8
        tiff += u16(1)                         // one entry
        tiff += u16(0x0112) + u16(3) + u32(1)  // Orientation, SHORT, count 1
        tiff += u16(orientation) + [0, 0]      // value, padded to 4 bytes
        tiff += u32(0)                         // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(payload.count + 2)
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        var bytes = [UInt8](jpeg)
        bytes.insert(contentsOf: segment, at: 2)  // right after FF D8
        return Data(bytes)
    }

    /// Writes `data` into `directory` as `name` and returns its URL.
    @discardableResult
    static func write(_ data: Data, named name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// The mean absolute difference between two equally sized images' samples.
    static func meanAbsoluteDifference(_ a: RGBImage, _ b: RGBImage) -> Double {
        precondition(a.pixels.count == b.pixels.count)
        var sum = 0
        for (x, y) in zip(a.pixels, b.pixels) { sum += abs(Int(x) - Int(y)) }
        return Double(sum) / Double(max(1, a.pixels.count))
    }
}
