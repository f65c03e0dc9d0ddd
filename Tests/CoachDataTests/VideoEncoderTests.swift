import CoachData
import Foundation
import TestSupport
import XCTest

/// Videos Coach writes decode again (with FFmpeg, through `VideoDecoder`) to the frames, size,
/// times and colours that went in, and a failed write leaves nothing behind.
final class VideoEncoderTests: XCTestCase {
    func testWrittenVideoDecodesToTheSameFrames() throws {
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("square.mp4")
        let encoder = try VideoEncoder(writingTo: url, width: 160, height: 90, frameRate: 25)
        for index in 0..<40 {
            var image = RGBImage(width: 160, height: 90, color: RGBColor(red: 30, green: 120, blue: 40))
            image.fillRectangle(x0: 10 + 2 * index, y0: 30, x1: 30 + 2 * index, y1: 50, color: RGBColor(red: 220, green: 30, blue: 30))
            try encoder.append(image)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), "the video appears only once finished")
        try encoder.finish()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["square.mp4"])

        let frames = try VideoDecoder.frames(of: url)
        XCTAssertEqual(frames.count, 40)
        XCTAssertEqual(frames[0].image.width, 160)
        XCTAssertEqual(frames[0].image.height, 90)
        XCTAssertEqual(frames[10].time, 10.0 / 25, accuracy: 1e-3)
        // Lossy, but the red square is where it was drawn and the field around it is green.
        let inside = frames[20].image[10 + 40 + 10, 40], outside = frames[20].image[5, 5]
        XCTAssertGreaterThan(Int(inside.red), 180)
        XCTAssertLessThan(Int(inside.green), 70)
        XCTAssertEqual(Int(outside.green), 120, accuracy: 12)
    }

    /// A second video to the same path replaces the first (as `--draw … --overwrite` asks); the
    /// old one stays whole until the new one is finished.
    func testAFinishedVideoReplacesAnEarlierOne() throws {
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("analyzed.mp4")
        for (frames, color) in [(12, RGBColor.white), (20, RGBColor(red: 200, green: 20, blue: 20))] {
            let encoder = try VideoEncoder(writingTo: url, width: 64, height: 64, frameRate: 30)
            for _ in 0..<frames { try encoder.append(RGBImage(width: 64, height: 64, color: color)) }
            if FileManager.default.fileExists(atPath: url.path) {
                XCTAssertEqual(try VideoDecoder.frames(of: url).count, 12, "the earlier video, whole, until the new one is finished")
            }
            try encoder.finish()
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["analyzed.mp4"])
        let frames = try VideoDecoder.frames(of: url)
        XCTAssertEqual(frames.count, 20, "the second video")
        XCTAssertGreaterThan(Int(frames[5].image[32, 32].red), 150)
        XCTAssertLessThan(Int(frames[5].image[32, 32].green), 80)
    }

    /// The partial file of a writer that was killed is removed by the next write to that path;
    /// a partial of a process that still runs (this one) is left alone.
    func testPartialsOfKilledWritersAreRemoved() throws {
        let directory = try temporaryDirectory(self)
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let stale = directory.appendingPathComponent(".clip.partial-\(finished.processIdentifier).mp4")
        let running = directory.appendingPathComponent(".clip.partial-\(getppid()).mp4")
        for url in [stale, running] { try Data("half a video".utf8).write(to: url) }
        let encoder = try VideoEncoder(writingTo: directory.appendingPathComponent("clip.mp4"), width: 64, height: 64, frameRate: 30)
        try encoder.append(RGBImage(width: 64, height: 64, color: .white))
        try encoder.finish()
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        XCTAssertEqual(names, ["clip.mp4", running.lastPathComponent])
    }

    func testBadSizesAndPlacesAreClearErrors() throws {
        let directory = try temporaryDirectory(self)
        XCTAssertThrowsError(try VideoEncoder(writingTo: directory.appendingPathComponent("a.mp4"), width: 1, height: 1, frameRate: 30)) {
            XCTAssertTrue(($0 as? LocalizedError)?.errorDescription?.contains("a.mp4") == true, "\($0)")
        }
        XCTAssertThrowsError(try VideoEncoder(writingTo: directory.appendingPathComponent("no/such/folder/b.mp4"), width: 64, height: 64, frameRate: 30))
        XCTAssertThrowsError(try VideoEncoder(writingTo: directory.appendingPathComponent("c.unknown"), width: 64, height: 64, frameRate: 30))
        let encoder = try VideoEncoder(writingTo: directory.appendingPathComponent("d.mp4"), width: 64, height: 64, frameRate: 30)
        XCTAssertThrowsError(try encoder.append(RGBImage(width: 32, height: 32, color: .white)))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }, [])
    }
}
