import CoachData
import Foundation
import TestSupport
import XCTest

/// Videos made at test time with the `ffmpeg` CLI decode to the right number of frames, times,
/// sizes, colours and orientation; bad files give a typed `VideoError` naming the file.
final class VideoDecoderTests: XCTestCase {
    // MARK: Fixtures

    /// The `ffmpeg` executable on PATH; skips the test loudly when there is none.
    private func ffmpeg() throws -> URL {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for directory in paths {
            let url = URL(fileURLWithPath: String(directory)).appendingPathComponent("ffmpeg")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        let message = "SKIPPED: no `ffmpeg` on PATH to make test videos; `make deps` installs it (Debian package ffmpeg)"
        FileHandle.standardError.write(Data((message + "\n").utf8))
        throw skipTest(message)
    }

    /// Runs `ffmpeg` quietly with `arguments`; returns standard output, failing on a non-zero exit.
    @discardableResult
    private func runFFmpeg(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = try ffmpeg()
        process.arguments = ["-nostdin", "-hide_banner", "-v", "error", "-y"] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // With `-v error` FFmpeg writes little to stderr, so reading stdout first cannot block.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FFmpegFailure(description: "ffmpeg \(arguments.joined(separator: " ")) failed: "
                                + String(decoding: errorData, as: UTF8.self))
        }
        return data
    }

    /// A fixture the ffmpeg CLI could not make (the test fails with FFmpeg's message).
    private struct FFmpegFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The names of this ffmpeg build's encoders.
    private func encoders() throws -> Set<String> {
        let list = String(decoding: try runFFmpeg(["-encoders"]), as: UTF8.self)
        return Set(list.split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) })
    }

    /// A 1 s, 30 frame/s, 96×64 `testsrc` clip written as `name` with `codec` options.
    private func testPattern(_ name: String, codec: [String], in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try runFFmpeg(["-f", "lavfi", "-i", "testsrc=size=96x64:rate=30:duration=1"] + codec + [url.path])
        return url
    }

    /// x264 with three B-frames between references (never adaptive, so B-frames really occur).
    private let x264WithBFrames = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-x264-params", "bframes=3:b-adapt=0"]

    /// Solid colours the colour tests cycle through.
    private let colors: [RGBColor] = [
        RGBColor(red: 230, green: 20, blue: 20), RGBColor(red: 20, green: 200, blue: 20),
        RGBColor(red: 20, green: 20, blue: 230), RGBColor(red: 230, green: 230, blue: 20),
        RGBColor(red: 20, green: 210, blue: 220), RGBColor(red: 120, green: 120, blue: 120),
    ]

    /// `count` solid-colour 64×48 PNG frames (colour `index % colors.count`) encoded at 30 frame/s.
    private func colorClip(_ name: String, count: Int, codec: [String], in directory: URL) throws -> URL {
        for index in 0..<count {
            let image = RGBImage(width: 64, height: 48, color: colors[index % colors.count])
            try image.writePNG(to: directory.appendingPathComponent(String(format: "color-%03d.png", index)))
        }
        let url = directory.appendingPathComponent(name)
        try runFFmpeg(["-framerate", "30", "-i", directory.appendingPathComponent("color-%03d.png").path]
                      + codec + [url.path])
        return url
    }

    /// Every frame of `url`, checking indices count up and times strictly increase.
    private func decodeAll(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [VideoFrame] {
        let frames = try VideoDecoder.frames(of: url)
        for (position, frame) in frames.enumerated() {
            XCTAssertEqual(frame.index, position, "\(url.lastPathComponent) index", file: file, line: line)
            if position > 0 {
                XCTAssertGreaterThan(frame.time, frames[position - 1].time,
                                     "\(url.lastPathComponent) frame \(position) time", file: file, line: line)
            }
        }
        return frames
    }

    private func assertClose(_ actual: RGBColor, _ expected: RGBColor, tolerance: Int = 12, _ context: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        let difference = max(abs(Int(actual.red) - Int(expected.red)), abs(Int(actual.green) - Int(expected.green)),
                             abs(Int(actual.blue) - Int(expected.blue)))
        XCTAssertLessThanOrEqual(difference, tolerance, "\(context): \(actual) vs \(expected)", file: file, line: line)
    }

    /// Checks 30 frames at 0, 1/30, 2/30... of the given size. With `delayedStart`, the first
    /// time may be one or two frames late (AVI stores no presentation times, so with B-frames
    /// FFmpeg's first timestamp is the decoder delay), the rest 1/30 apart from it.
    private func assertOneSecondAt30(_ frames: [VideoFrame], width: Int, height: Int, _ name: String,
                                     delayedStart: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(frames.count, 30, "\(name) frame count", file: file, line: line)
        let start = delayedStart ? (frames.first?.time ?? 0) : 0
        if delayedStart {
            XCTAssertTrue([0, 1, 2].contains { abs(start - Double($0) / 30) < 0.001 }, "\(name) starts at \(start)",
                          file: file, line: line)
        }
        for frame in frames {
            XCTAssertEqual(frame.time, start + Double(frame.index) / 30, accuracy: 0.001,
                           "\(name) frame \(frame.index) time", file: file, line: line)
            XCTAssertEqual(frame.image.width, width, "\(name) width", file: file, line: line)
            XCTAssertEqual(frame.image.height, height, "\(name) height", file: file, line: line)
        }
    }

    /// The error opening and reading all of `url` throws, failing when there is none; checks it names the file.
    private func videoError(_ url: URL, file: StaticString = #filePath, line: UInt = #line) -> VideoError? {
        do {
            let frames = try VideoDecoder.frames(of: url)
            XCTFail("\(url.lastPathComponent) gave \(frames.count) frames instead of failing", file: file, line: line)
            return nil
        } catch let error as VideoError {
            let message = error.errorDescription ?? ""
            XCTAssertTrue(message.contains(url.path), "message does not name the file: \(message)", file: file, line: line)
            return error
        } catch {
            XCTFail("\(url.lastPathComponent): not a VideoError: \(error)", file: file, line: line)
            return nil
        }
    }

    /// `mp4` with its first track header's display matrix replaced by `matrix` (16.16 fixed point
    /// a, b, c, d as QuickTime writes them; u, v, w and the translation stay).
    private func withDisplayMatrix(_ mp4: Data, _ matrix: (Int32, Int32, Int32, Int32)) throws -> Data {
        var bytes = [UInt8](mp4)
        let tag = Array("tkhd".utf8)
        let start = try XCTUnwrap((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == tag },
                                  "no tkhd box in the test mp4")
        // version/flags, times and ids (v0: 4-byte fields, v1: 8-byte times), reserved, layer,
        // alternate group, volume, reserved, then the 3×3 matrix.
        let version = bytes[start + 4]
        let matrixOffset = start + 4 + 4 + (version == 1 ? 8 + 8 + 4 + 4 + 8 : 4 + 4 + 4 + 4 + 4) + 8 + 2 + 2 + 2 + 2
        for (slot, value) in [(0, matrix.0), (1, matrix.1), (3, matrix.2), (4, matrix.3)] {
            let word = UInt32(bitPattern: value)
            for byte in 0..<4 { bytes[matrixOffset + slot * 4 + byte] = UInt8((word >> (24 - 8 * UInt32(byte))) & 0xFF) }
        }
        return Data(bytes)
    }

    // MARK: Frames, times and sizes

    func testH264ClipGivesThirtyFramesAtTheirTimes() throws {
        let directory = try temporaryDirectory(self)
        let url = try testPattern("clip.mp4", codec: ["-pix_fmt", "yuv420p", "-c:v", "libx264"], in: directory)
        let decoder = try VideoDecoder(contentsOf: url)
        XCTAssertEqual(decoder.width, 96)
        XCTAssertEqual(decoder.height, 64)
        XCTAssertEqual(decoder.rotation, 0)
        XCTAssertEqual(decoder.frameRate, 30, accuracy: 1e-9)
        XCTAssertEqual(decoder.duration ?? -1, 1, accuracy: 0.05)
        XCTAssertEqual(decoder.estimatedFrameCount, 30)
        XCTAssertEqual(decoder.codecName, "h264")
        var frames: [VideoFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        XCTAssertNil(try decoder.nextFrame(), "after the end")
        assertOneSecondAt30(frames, width: 96, height: 64, "clip.mp4")
        XCTAssertEqual(frames.map(\.index), Array(0..<30))
        // testsrc's frames differ (a moving gradient and a counter), so no frame is repeated.
        for index in 1..<frames.count {
            XCTAssertNotEqual(frames[index].image, frames[index - 1].image, "frame \(index) repeats its predecessor")
        }
        XCTAssertEqual(try VideoDecoder.frames(of: url), frames, "frames(of:) matches nextFrame()")
    }

    func testBFramesComeOutInDisplayOrderWithIncreasingTimes() throws {
        let directory = try temporaryDirectory(self)
        for name in ["b-frames.mp4", "b-frames.mkv"] {
            let url = try colorClip(name, count: 30, codec: x264WithBFrames, in: directory)
            let frames = try decodeAll(url)
            assertOneSecondAt30(frames, width: 64, height: 48, name)
            // The colour sequence proves the frames were reordered from decode to display order.
            for frame in frames {
                assertClose(frame.image[32, 24], colors[frame.index % colors.count], "\(name) frame \(frame.index)")
            }
        }
    }

    func testSolidColourFramesKeepTheirColours() throws {
        let directory = try temporaryDirectory(self)
        let url = try colorClip("colors.mp4", count: 12, codec: ["-c:v", "libx264", "-pix_fmt", "yuv420p"], in: directory)
        let frames = try decodeAll(url)
        XCTAssertEqual(frames.count, 12)
        for frame in frames {
            let expected = colors[frame.index % colors.count]
            for (x, y) in [(32, 24), (4, 4), (59, 43)] {
                assertClose(frame.image[x, y], expected, "frame \(frame.index) at (\(x), \(y))")
            }
        }
    }

    func testOtherContainersAndCodecs() throws {
        let directory = try temporaryDirectory(self)
        let cases: [(name: String, encoder: String, options: [String])] = [
            ("mpeg4.avi", "mpeg4", ["-c:v", "mpeg4", "-q:v", "3"]),
            ("mpeg4-b-frames.avi", "mpeg4", ["-c:v", "mpeg4", "-q:v", "3", "-bf", "2"]),
            ("mpeg4-b-frames.mkv", "mpeg4", ["-c:v", "mpeg4", "-q:v", "3", "-bf", "2"]),
            ("h264.mov", "libx264", ["-c:v", "libx264", "-pix_fmt", "yuv420p"]),
            ("mjpeg.mov", "mjpeg", ["-c:v", "mjpeg", "-q:v", "3"]),
            ("mjpeg.avi", "mjpeg", ["-c:v", "mjpeg", "-q:v", "3"]),
            ("vp9.webm", "libvpx-vp9", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M"]),
        ]
        let available = try encoders()
        for (name, encoder, options) in cases {
            guard available.contains(encoder) else {
                FileHandle.standardError.write(Data("SKIPPED: ffmpeg has no \(encoder) encoder for \(name)\n".utf8))
                continue
            }
            let url = try testPattern(name, codec: options, in: directory)
            let decoder = try VideoDecoder(contentsOf: url)
            XCTAssertEqual(decoder.width, 96, name)
            XCTAssertEqual(decoder.height, 64, name)
            XCTAssertEqual(decoder.frameRate, 30, accuracy: 0.01, name)
            let frames = try decodeAll(url)
            assertOneSecondAt30(frames, width: 96, height: 64, name, delayedStart: name == "mpeg4-b-frames.avi")
        }
    }

    /// The ffmpeg CLI's RGB24 of the first (upright) frame of `url`, converted as the decoder does.
    private func ffmpegFirstFrame(_ url: URL) throws -> Data {
        try runFFmpeg(["-i", url.path, "-frames:v", "1", "-sws_flags", "bilinear+full_chroma_int",
                       "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    }

    /// The largest and the mean absolute difference between two sample arrays of one size.
    private func differences(_ a: Data, _ b: [UInt8]) -> (largest: Int, mean: Double) {
        let differences = zip(a, b).map { abs(Int($0) - Int($1)) }
        return (differences.max() ?? 0, Double(differences.reduce(0, +)) / Double(max(1, differences.count)))
    }

    func testPixelsAgreeWithFFmpegsOwnConversion() throws {
        // The same colour matrix, range and chroma interpolation as the ffmpeg CLI given the
        // same swscale flags, for limited-range (mpeg4) and full-range (mjpeg, yuvj) frames.
        let directory = try temporaryDirectory(self)
        for (name, codec) in [("reference.mkv", "mpeg4"), ("reference-mjpeg.mkv", "mjpeg")] {
            let url = try testPattern(name, codec: ["-c:v", codec, "-q:v", "2"], in: directory)
            let reference = try ffmpegFirstFrame(url)
            let frame = try XCTUnwrap(try VideoDecoder(contentsOf: url).nextFrame())
            XCTAssertEqual(reference.count, frame.image.pixels.count, name)
            let (largest, mean) = differences(reference, frame.image.pixels)
            XCTAssertLessThanOrEqual(largest, 2, "\(name): largest difference from ffmpeg's own RGB")
            XCTAssertLessThan(mean, 0.1, "\(name): mean difference from ffmpeg's own RGB")
        }
    }

    // MARK: Rotation

    /// 64×48 frames for 0.2 s: grey with a red 16×16 block in the top-left corner (an ffmpeg lavfi source).
    static let cornerSource = "color=c=gray:size=64x48:rate=30:duration=0.2,drawbox=x=0:y=0:w=16:h=16:color=red:t=fill"

    func testDisplayMatrixRotationTurnsFramesUpright() throws {
        let directory = try temporaryDirectory(self)
        // 64×48 stored frames: grey with a red 16×16 block in the top-left corner.
        let stored = directory.appendingPathComponent("corner.mp4")
        try runFFmpeg(["-f", "lavfi", "-i", VideoDecoderTests.cornerSource, "-c:v", "libx264", "-pix_fmt", "yuv420p", stored.path])
        let one: Int32 = 0x10000
        // QuickTime matrices (a, b, c, d); 90° is what a phone writes for a portrait video.
        let cases: [(rotation: Int, matrix: (Int32, Int32, Int32, Int32), redCorner: (x: Int, y: Int))] = [
            (0, (one, 0, 0, one), (8, 8)),
            (90, (0, one, -one, 0), (40, 8)),      // top-left → top-right of the 48×64 view
            (180, (-one, 0, 0, -one), (56, 40)),   // → bottom-right of 64×48
            (270, (0, -one, one, 0), (8, 56)),     // → bottom-left of 48×64
        ]
        let original = try Data(contentsOf: stored)
        for (rotation, matrix, redCorner) in cases {
            let url = directory.appendingPathComponent("rotated-\(rotation).mp4")
            try withDisplayMatrix(original, matrix).write(to: url)
            let decoder = try VideoDecoder(contentsOf: url)
            let swapped = rotation % 180 != 0
            XCTAssertEqual(decoder.rotation, rotation)
            XCTAssertEqual(decoder.width, swapped ? 48 : 64, "\(rotation)°")
            XCTAssertEqual(decoder.height, swapped ? 64 : 48, "\(rotation)°")
            let frame = try XCTUnwrap(try decoder.nextFrame())
            XCTAssertEqual(frame.image.width, decoder.width)
            XCTAssertEqual(frame.image.height, decoder.height)
            let image = frame.image
            let corners = [(8, 8), (image.width - 8, 8), (8, image.height - 8), (image.width - 8, image.height - 8)]
            for (x, y) in corners {
                let pixel = image[x, y]
                let isRed = pixel.red > 180 && pixel.green < 80 && pixel.blue < 80
                XCTAssertEqual(isRed, (x, y) == redCorner, "\(rotation)°: pixel (\(x), \(y)) is \(pixel)")
            }
            // The same view as FFmpeg's own players (the CLI's automatic rotation).
            let reference = try ffmpegFirstFrame(url)
            XCTAssertEqual(reference.count, image.pixels.count, "\(rotation)°: ffmpeg's upright frame size")
            if reference.count == image.pixels.count {
                let index = (redCorner.y * image.width + redCorner.x) * 3
                XCTAssertGreaterThan(reference[index], 180, "\(rotation)°: ffmpeg puts the red corner elsewhere")
            }
        }
    }

    func testRotateTagWithoutDisplayMatrix() throws {
        // Matroska keeps a `ROTATE` tag but no display matrix (FFmpeg 5.x): the tag is the
        // fallback, read as FFmpeg 4 did, in degrees clockwise.
        let directory = try temporaryDirectory(self)
        let stored = directory.appendingPathComponent("corner.mkv")
        try runFFmpeg(["-f", "lavfi", "-i", VideoDecoderTests.cornerSource, "-c:v", "mpeg4", "-q:v", "2", "-metadata:s:v:0", "ROTATE=90", stored.path])
        let decoder = try VideoDecoder(contentsOf: stored)
        XCTAssertEqual(decoder.rotation, 90)
        XCTAssertEqual(decoder.width, 48)
        XCTAssertEqual(decoder.height, 64)
        let image = try XCTUnwrap(try decoder.nextFrame()).image
        for (x, y) in [(8, 8), (40, 8), (8, 56), (40, 56)] {
            let pixel = image[x, y]
            XCTAssertEqual(pixel.red > 180 && pixel.green < 80 && pixel.blue < 80, (x, y) == (40, 8),
                           "pixel (\(x), \(y)) is \(pixel)")
        }
    }

    func testRotateMetadataRemuxKeepsFFmpegsView() throws {
        // `-metadata:s:v:0 rotate=90 -c copy` (FFmpeg 5.x) writes a display matrix; whichever way
        // this FFmpeg version reads the tag, the decoder must agree with the CLI's upright view.
        let directory = try temporaryDirectory(self)
        let stored = directory.appendingPathComponent("corner.mp4")
        try runFFmpeg(["-f", "lavfi", "-i", VideoDecoderTests.cornerSource, "-c:v", "libx264", "-pix_fmt", "yuv420p", stored.path])
        let url = directory.appendingPathComponent("rotate-tag.mp4")
        try runFFmpeg(["-i", stored.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", url.path])
        let decoder = try VideoDecoder(contentsOf: url)
        XCTAssertTrue([90, 270].contains(decoder.rotation), "rotation \(decoder.rotation)")
        XCTAssertEqual(decoder.width, 48)
        XCTAssertEqual(decoder.height, 64)
        let image = try XCTUnwrap(try decoder.nextFrame()).image
        let reference = try ffmpegFirstFrame(url)
        XCTAssertEqual(reference.count, image.pixels.count)
        // FFmpeg turns the YUV planes before converting, so chroma edges differ slightly.
        XCTAssertLessThan(differences(reference, image.pixels).mean, 3, "mean difference from ffmpeg's upright frame")
    }

    // MARK: Bad input

    func testMissingFile() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("missing.mp4")
        guard let error = videoError(url) else { return }
        XCTAssertEqual(error, .fileNotFound(path: url.path))
    }

    func testEmptyFile() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("empty.mp4")
        try Data().write(to: url)
        guard let error = videoError(url) else { return }
        guard case let .unreadable(_, reason) = error else { return XCTFail("\(error)") }
        XCTAssertTrue(reason.contains("empty"), reason)
    }

    func testDirectory() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("folder.mp4")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        guard let error = videoError(url) else { return }
        guard case .unreadable = error else { return XCTFail("\(error)") }
    }

    func testTextFileNamedMP4() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("notes.mp4")
        try Data("hello, this is not a video\nsecond line\n".utf8).write(to: url)
        guard let error = videoError(url) else { return }
        guard case .unreadable = error else { return XCTFail("\(error)") }
    }

    func testRandomBytesNamedMKV() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("noise.mkv")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        guard let error = videoError(url) else { return }
        switch error {
        case .unreadable, .noVideoStream, .corrupt, .empty: break
        default: XCTFail("\(error)")
        }
    }

    func testAudioOnlyFilesHaveNoVideoStream() throws {
        let directory = try temporaryDirectory(self)
        for name in ["tone.m4a", "tone.wav"] {
            let url = directory.appendingPathComponent(name)
            try runFFmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=0.5", url.path])
            guard let error = videoError(url) else { continue }
            XCTAssertEqual(error, .noVideoStream(path: url.path), name)
            XCTAssertTrue(error.errorDescription?.contains("no video stream") == true)
        }
    }

    /// A stream whose codec this FFmpeg cannot decode (an AVI whose FourCC was changed to one no
    /// codec has) is a typed error naming the file and the codec, with what to do.
    func testUnsupportedCodecIsATypedErrorNamingIt() throws {
        let directory = try temporaryDirectory(self)
        let made = directory.appendingPathComponent("made.avi")
        try runFFmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "1", "-c:v", "mjpeg", made.path])
        var bytes = [UInt8](try Data(contentsOf: made))
        var patched = 0
        for tag in ["MJPG", "mjpg"].map({ Array($0.utf8) }) {
            var index = 0
            while index + 4 <= bytes.count {
                if Array(bytes[index..<index + 4]) == tag {
                    bytes.replaceSubrange(index..<index + 4, with: Array("QZX9".utf8))
                    patched += 1
                }
                index += 1
            }
        }
        XCTAssertGreaterThan(patched, 0, "the AVI names its codec by FourCC")
        let url = directory.appendingPathComponent("unknown-codec.avi")
        try Data(bytes).write(to: url)
        guard let error = videoError(url) else { return }
        guard case let .unsupportedCodec(_, codec) = error else { return XCTFail("\(error)") }
        XCTAssertTrue(codec.contains("QZX9"), codec)
        XCTAssertTrue(error.errorDescription?.contains("re-encode") == true, error.errorDescription ?? "")
    }

    /// Cut files give the frames before the damage and then end, or a typed error; never a crash
    /// or a hang.
    func testTruncatedFilesEndCleanlyOrThrow() throws {
        let directory = try temporaryDirectory(self)
        // Noise, so every frame takes a similar share of the bytes.
        let noise = ["-f", "lavfi", "-i", "color=c=gray:size=96x64:rate=30:duration=1,noise=alls=60:allf=t+u"]
        var sources: [URL] = []
        let layouts = [("whole.mp4", x264WithBFrames),
                       ("whole-faststart.mp4", x264WithBFrames + ["-movflags", "+faststart"]),
                       ("whole.mkv", x264WithBFrames), ("whole.avi", ["-c:v", "mpeg4"])]
        for (name, options) in layouts {
            let url = directory.appendingPathComponent(name)
            try runFFmpeg(noise + options + [url.path])
            sources.append(url)
        }
        var framesBeforeTheCut: [String: Int] = [:]
        for source in sources {
            let data = try Data(contentsOf: source)
            for fraction in [0.1, 0.5, 0.9] {
                let url = directory.appendingPathComponent("cut-\(Int(fraction * 100))-\(source.lastPathComponent)")
                try data.prefix(Int(Double(data.count) * fraction)).write(to: url)
                do {
                    let frames = try decodeAll(url)
                    XCTAssertLessThanOrEqual(frames.count, 30, url.lastPathComponent)
                    for frame in frames {
                        XCTAssertEqual(frame.time, Double(frame.index) / 30, accuracy: 0.001,
                                       "\(url.lastPathComponent) frame \(frame.index) time")
                    }
                    XCTAssertFalse(frames.isEmpty, "\(url.lastPathComponent): frames(of:) gave no frames and no error")
                    framesBeforeTheCut[url.lastPathComponent] = frames.count
                } catch let error as VideoError {
                    XCTAssertTrue(error.errorDescription?.contains(url.path) == true, "\(error)")
                    switch error {
                    case .unreadable, .corrupt, .empty: break
                    default: XCTFail("\(url.lastPathComponent): \(error)")
                    }
                }
            }
        }
        // A file cut at 90% still gives most of its frames (streamable layouts).
        XCTAssertGreaterThanOrEqual(framesBeforeTheCut["cut-90-whole-faststart.mp4"] ?? 0, 20, "\(framesBeforeTheCut)")
        XCTAssertGreaterThanOrEqual(framesBeforeTheCut["cut-90-whole.mkv"] ?? 0, 20, "\(framesBeforeTheCut)")
    }

    /// Garbage over the middle of the coded data: frames then end, or `corrupt`; never a crash.
    func testOverwrittenMiddleEndsCleanlyOrThrows() throws {
        let directory = try temporaryDirectory(self)
        let source = try testPattern("whole.mkv", codec: x264WithBFrames, in: directory)
        var bytes = [UInt8](try Data(contentsOf: source))
        var state: UInt32 = 12345
        for index in (bytes.count * 4 / 10)..<(bytes.count * 6 / 10) {
            state = state &* 1_103_515_245 &+ 12345
            bytes[index] = UInt8(truncatingIfNeeded: state >> 16)
        }
        let url = directory.appendingPathComponent("damaged.mkv")
        try Data(bytes).write(to: url)
        do {
            let frames = try decodeAll(url)
            XCTAssertLessThanOrEqual(frames.count, 30)
        } catch let error as VideoError {
            XCTAssertTrue(error.errorDescription?.contains(url.path) == true, "\(error)")
        }
    }

    /// Bits flipped in an H.264 stream: the decoder conceals the damage and plays on, as a player
    /// does, and Coach says so — which frames, and a report naming the file (issue 14: a damaged
    /// video changed the game's result without a word). The intact file reports nothing.
    func testConcealedDamageIsReported() throws {
        let directory = try temporaryDirectory(self)
        let noise = ["-f", "lavfi", "-i", "color=c=gray:size=160x96:rate=30:duration=2,noise=alls=40:allf=t+u"]
        let source = directory.appendingPathComponent("whole.mp4")
        try runFFmpeg(noise + x264WithBFrames + ["-movflags", "+faststart", source.path])
        let intact = try VideoDecoder(contentsOf: source)
        while try intact.nextFrame() != nil {}
        XCTAssertEqual(intact.damagedFrameCount, 0)
        XCTAssertNil(intact.damageReport)

        var bytes = [UInt8](try Data(contentsOf: source))
        var state: UInt32 = 7
        for _ in 0..<60 {
            state = state &* 1_103_515_245 &+ 12345
            let index = bytes.count / 4 + Int(state >> 8) % (bytes.count * 3 / 4 - 16)
            bytes[index] ^= 0xFF
        }
        let url = directory.appendingPathComponent("flipped.mp4")
        try Data(bytes).write(to: url)
        let decoder = try VideoDecoder(contentsOf: url)
        var damaged = 0, count = 0
        while let frame = try decoder.nextFrame() {
            count += 1
            if frame.isDamaged { damaged += 1 }
        }
        XCTAssertGreaterThan(count, 0)
        XCTAssertEqual(decoder.damagedFrameCount, damaged)
        let report = try XCTUnwrap(decoder.damageReport, "60 flipped bytes went unnoticed in \(count) frames")
        XCTAssertTrue(report.hasPrefix(url.path + " is damaged"), report)

        // A damaged video decodes the same way every time: the same concealed pictures and the
        // same frames flagged (FFmpeg's frame threads made both vary from run to run).
        let first = try VideoDecoder.frames(of: url)
        for run in 2...4 {
            let again = try VideoDecoder.frames(of: url)
            XCTAssertEqual(again.count, first.count)
            let flagged = zip(again, first).indices(where: { $0.isDamaged != $1.isDamaged })
            let pictures = zip(again, first).indices(where: { $0.image != $1.image })
            XCTAssertEqual(flagged, [], "frames flagged differently in run \(run)")
            XCTAssertEqual(pictures, [], "frames decoded to other pictures in run \(run)")
        }
        XCTAssertEqual(first.filter(\.isDamaged).count, damaged)

        // Decoding on a thread of its own, ahead of the caller, gives the same frames and report.
        let ahead = try VideoDecoder(contentsOf: url)
        var seen: [VideoFrame] = []
        try ahead.forEachFrame(readAhead: 3) { seen.append($0) }
        XCTAssertEqual(seen.map(\.index), first.map(\.index))
        XCTAssertEqual(seen.map(\.time), first.map(\.time))
        XCTAssertEqual(zip(seen, first).indices(where: { $0.isDamaged != $1.isDamaged || $0.image != $1.image }), [])
        XCTAssertEqual(ahead.damagedFrameCount, damaged)
        XCTAssertEqual(ahead.damageReport, report)
    }

    func testReadAheadGivesTheFramesInOrderAndStopsWhenTheCallerThrows() throws {
        let directory = try temporaryDirectory(self)
        let url = try colorClip("ahead.mp4", count: 30, codec: x264WithBFrames, in: directory)
        let expected = try decodeAll(url)
        for readAhead in [0, 1, 4, 64] {
            let decoder = try VideoDecoder(contentsOf: url)
            var frames: [VideoFrame] = []
            try decoder.forEachFrame(readAhead: readAhead) { frames.append($0) }
            XCTAssertEqual(frames.map(\.index), expected.map(\.index), "read-ahead \(readAhead)")
            XCTAssertEqual(frames.map(\.time), expected.map(\.time), "read-ahead \(readAhead)")
            XCTAssertTrue(frames.map(\.image) == expected.map(\.image), "read-ahead \(readAhead)")
            XCTAssertNil(try decoder.nextFrame(), "the video was used up")
        }

        struct Enough: Error {}
        let decoder = try VideoDecoder(contentsOf: url)
        var calls = 0
        XCTAssertThrowsError(try decoder.forEachFrame(readAhead: 4) { frame in
            calls += 1
            if frame.index == 5 { throw Enough() }
        }) { XCTAssertTrue($0 is Enough, "\($0)") }
        XCTAssertEqual(calls, 6)
    }

    func testCloseFreesTheDecoderAndEndsIteration() throws {
        let directory = try temporaryDirectory(self)
        let url = try testPattern("clip.mkv", codec: ["-c:v", "mpeg4"], in: directory)
        let decoder = try VideoDecoder(contentsOf: url)
        XCTAssertNotNil(try decoder.nextFrame())
        decoder.close()
        XCTAssertNil(try decoder.nextFrame())
        decoder.close()
    }

    func testErrorMessagesNameTheFileAndTheRemedy() {
        let messages = [
            VideoError.fileNotFound(path: "/v/a.mp4"), .unreadable(path: "/v/a.mp4", reason: "Invalid data"),
            .noVideoStream(path: "/v/a.mp4"), .unsupportedCodec(path: "/v/a.mp4", codec: "prores"),
            .corrupt(path: "/v/a.mp4", frame: 7, reason: "bad slice"), .empty(path: "/v/a.mp4"),
        ].map { $0.errorDescription ?? "" }
        for message in messages {
            XCTAssertTrue(message.hasPrefix("/v/a.mp4: "), message)
            XCTAssertTrue(message.contains(";"), "no remedy after the cause: \(message)")
        }
        XCTAssertTrue(messages[4].contains("frame 7"), messages[4])
        XCTAssertTrue(messages[3].contains("prores"), messages[3])
    }
}

private extension Zip2Sequence {
    /// The positions of the pairs that `differ`.
    func indices(where differ: (Sequence1.Element, Sequence2.Element) -> Bool) -> [Int] {
        enumerated().filter { differ($0.element.0, $0.element.1) }.map(\.offset)
    }
}
