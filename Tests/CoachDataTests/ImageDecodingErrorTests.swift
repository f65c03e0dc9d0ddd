import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// Bad files give a typed `ImageError` naming the file — never a crash, an exit() from
/// libjpeg/libpng, or a silently half-grey image.
final class ImageDecodingErrorTests: XCTestCase {
    /// Decodes `data` from a file called `name` and returns the error, failing if there is none.
    private func decodingError(_ data: Data, named name: String,
                               options: ImageDecodingOptions = ImageDecodingOptions(),
                               line: UInt = #line) throws -> (ImageError, String)? {
        let directory = try temporaryDirectory(self)
        let url = try ImageFixtures.write(data, named: name, in: directory)
        do {
            let decoded = try ImageDecoder.decode(contentsOf: url, options: options)
            XCTFail("\(name) decoded to \(decoded.image.width)×\(decoded.image.height) instead of failing", line: line)
            return nil
        } catch let error as ImageError {
            let message = error.errorDescription ?? ""
            XCTAssertTrue(message.contains(url.path), "message does not name the file: \(message)", line: line)
            return (error, message)
        }
    }

    private var jpeg: Data {
        get throws { try ImageEncoder.jpegData(ImageFixtures.pattern(width: 120, height: 80), quality: 90) }
    }

    func testEmptyFile() throws {
        guard let (error, message) = try decodingError(Data(), named: "empty.jpg") else { return }
        guard case .emptyFile = error else { return XCTFail("\(error)") }
        XCTAssertTrue(message.contains("empty"), message)
    }

    func testTextFileNamedJPG() throws {
        guard let (error, message) = try decodingError(Data("hello, this is not an image\n".utf8), named: "notes.jpg") else { return }
        guard case .unrecognizedFormat = error else { return XCTFail("\(error)") }
        XCTAssertTrue(message.contains("not a JPEG or PNG"), message)
        XCTAssertTrue(message.contains("hello, t"), message)
    }

    func testTruncatedBaselineJPEG() throws {
        let data = try jpeg
        for fraction in [0.3, 0.6, 0.95] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            guard let (error, message) = try decodingError(cut, named: "cut-\(fraction).jpg") else { continue }
            guard case .truncatedFile(_, .jpeg, _) = error else { XCTFail("\(fraction): \(error)"); continue }
            XCTAssertTrue(message.contains("truncated"), message)
        }
    }

    func testJPEGMissingOnlyTheEndMarker() throws {
        let data = try jpeg
        XCTAssertEqual(Array(data.suffix(2)), [0xFF, 0xD9])
        guard let (error, _) = try decodingError(data.dropLast(2), named: "no-eoi.jpg") else { return }
        guard case .truncatedFile = error else { return XCTFail("\(error)") }
    }

    func testTruncatedProgressiveJPEG() throws {
        let data = try ImageEncoder.jpegData(ImageFixtures.pattern(width: 120, height: 80), quality: 90, progressive: true)
        guard let (error, _) = try decodingError(data.prefix(data.count / 2), named: "progressive-cut.jpg") else { return }
        guard case .truncatedFile(_, .jpeg, _) = error else { return XCTFail("\(error)") }
    }

    func testJPEGHeaderOnly() throws {
        let data = try jpeg
        guard let (error, _) = try decodingError(data.prefix(40), named: "header.jpg") else { return }
        switch error {
        case .truncatedFile(_, .jpeg, _), .corruptFile(_, .jpeg, _): break
        default: XCTFail("\(error)")
        }
    }

    /// Compressed data that runs on past the image — flipped bits make the entropy decoder finish
    /// early and leave the rest as "extraneous bytes" — is a corrupt file, where it used to decode
    /// as if nothing were wrong (issue 14); a byte or two of an encoder's padding is not.
    func testJPEGWithDataPastTheImageIsCorrupt() throws {
        let data = try jpeg
        let body = data.dropLast(2), end = data.suffix(2)
        let garbage = Data((0..<300).map { UInt8(($0 * 37 + 11) % 255) })
        guard let (error, message) = try decodingError(body + garbage + end, named: "extraneous.jpg") else { return }
        guard case .corruptFile(_, .jpeg, _) = error else { return XCTFail("\(error)") }
        XCTAssertTrue(message.contains("extraneous bytes"), message)
        let padded = try ImageDecoder.decode(body + Data([0, 0]) + end, source: "padded.jpg")
        XCTAssertEqual(padded.image.width, 120)

        // Bits flipped in the compressed data of a real-sized photo, as the fault campaign did.
        var photo = [UInt8](try ImageEncoder.jpegData(ImageFixtures.pattern(width: 640, height: 480), quality: 90))
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<40 { photo[generator.nextInt(in: (photo.count / 3)...(photo.count - 3))] ^= 0xFF }
        _ = try decodingError(Data(photo), named: "flipped.jpg")
    }

    func testJPEGSignatureFollowedByGarbage() throws {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        bytes += (0..<200).map { UInt8(($0 * 91 + 7) % 251) }
        guard let (error, _) = try decodingError(Data(bytes), named: "garbage.jpg") else { return }
        switch error {
        case .truncatedFile(_, .jpeg, _), .corruptFile(_, .jpeg, _): break
        default: XCTFail("\(error)")
        }
    }

    func testTruncatedPNG() throws {
        let data = try ImageEncoder.pngData(ImageFixtures.pattern(width: 64, height: 64))
        for fraction in [0.1, 0.5, 0.9] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            guard let (error, message) = try decodingError(cut, named: "cut-\(fraction).png") else { continue }
            guard case .truncatedFile(_, .png, _) = error else { XCTFail("\(fraction): \(error)"); continue }
            XCTAssertTrue(message.contains("truncated"), message)
        }
    }

    func testPNGMissingOnlyIEND() throws {
        let data = try ImageEncoder.pngData(ImageFixtures.pattern(width: 16, height: 16))
        XCTAssertEqual(String(decoding: data.suffix(8).prefix(4), as: UTF8.self), "IEND")
        guard let (error, _) = try decodingError(data.dropLast(12), named: "no-iend.png") else { return }
        guard case .truncatedFile(_, .png, _) = error else { return XCTFail("\(error)") }
    }

    func testPNGWithDamagedImageData() throws {
        var bytes = [UInt8](try ImageEncoder.pngData(ImageFixtures.pattern(width: 32, height: 32)))
        // Flip bytes inside the IDAT chunk: its CRC no longer matches.
        guard let idat = (0..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("IDAT".utf8) }) else {
            return XCTFail("no IDAT chunk")
        }
        for offset in 10..<20 { bytes[idat + offset] ^= 0x5A }
        guard let (error, _) = try decodingError(Data(bytes), named: "damaged.png") else { return }
        guard case .corruptFile(_, .png, _) = error else { return XCTFail("\(error)") }
    }

    func testPNGSignatureOnly() throws {
        let signature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        guard let (error, _) = try decodingError(signature, named: "signature.png") else { return }
        guard case .truncatedFile(_, .png, _) = error else { return XCTFail("\(error)") }
    }

    func testImageLargerThanTheLimit() throws {
        guard let (error, message) = try decodingError(try jpeg, named: "large.jpg",
                                                       options: ImageDecodingOptions(maximumPixelCount: 5000)) else { return }
        guard case .imageTooLarge(_, 120, 80, 5000) = error else { return XCTFail("\(error)") }
        XCTAssertTrue(message.contains("120×80"), message)
    }

    func testMissingFileAndDirectory() throws {
        let directory = try temporaryDirectory(self)
        let missing = directory.appendingPathComponent("missing.png")
        XCTAssertThrowsError(try RGBImage(contentsOf: missing)) { error in
            guard case .unreadableFile(let path, _)? = error as? ImageError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, missing.path)
            XCTAssertTrue((error as? ImageError)?.errorDescription?.contains("no such file") ?? false)
        }
        XCTAssertThrowsError(try RGBImage(contentsOf: directory)) { error in
            guard case .unreadableFile? = error as? ImageError else { return XCTFail("\(error)") }
        }
        // A named pipe, a link loop and a dangling link say what they are (and the pipe is not
        // opened, which would block), where Foundation said "permission" or "no such file".
        let pipe = directory.appendingPathComponent("pipe.jpg"), loop = directory.appendingPathComponent("loop.jpg")
        let dangling = directory.appendingPathComponent("dangling.jpg")
        XCTAssertEqual(mkfifo(pipe.path, 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: loop.path)
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "nowhere.jpg")
        for (url, reason) in [(pipe, "named pipe"), (loop, "loop of symbolic links"), (dangling, "symbolic link to nothing")] {
            XCTAssertThrowsError(try RGBImage(contentsOf: url)) { error in
                let message = (error as? ImageError)?.errorDescription ?? "\(error)"
                XCTAssertTrue(message.contains(reason) && message.contains(url.lastPathComponent), message)
            }
        }
    }

    /// Every prefix of a small JPEG and PNG either decodes completely or throws: no crash.
    func testEveryPrefixFailsCleanly() throws {
        let image = ImageFixtures.pattern(width: 24, height: 16)
        for (data, format) in [(try ImageEncoder.jpegData(image, quality: 80), "jpg"), (try ImageEncoder.pngData(image), "png")] {
            for length in stride(from: 1, to: data.count, by: 3) {
                XCTAssertThrowsError(try ImageDecoder.decode(data.prefix(length), source: "prefix-\(length).\(format)"),
                                     "\(format) prefix of \(length) of \(data.count) bytes decoded") { error in
                    XCTAssertTrue(error is ImageError, "\(error)")
                }
            }
        }
    }
}
