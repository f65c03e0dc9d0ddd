import CoachData
import Foundation
import TestSupport
import XCTest

/// Numbers that size pose work are bounded wherever they come from (issue 14's crash classes).
final class PoseLimitsTests: XCTestCase {
    func write(_ text: String, _ name: String) throws -> URL {
        let url = try temporaryDirectory(self).appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Times of 1e300 s (or infinity) are errors naming the file and line, not a trap later.
    func testAbsurdTimesAreErrorsWithTheirLine() throws {
        let csv = try write("time,nose_x,nose_y\n0,0.5,0.5\n1e300,0.5,0.5\ninf,0.5,0.5\n", "clip.csv")
        XCTAssertThrowsError(try PoseClipReader.read(csv)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.contains("clip.csv:3:") && text.contains("beyond"), text)
        }
        let json = try write(#"{"joints": ["nose"], "frames": [{"time": 0, "keypoints": [[0.5, 0.5, 1]]}, {"time": 1e300, "keypoints": [[0.5, 0.5, 1]]}]}"#, "clip.json")
        XCTAssertThrowsError(try PoseClipReader.read(json)) { error in
            XCTAssertTrue(((error as? LocalizedError)?.errorDescription ?? "").contains("frames[1].time"), "\(error)")
        }
    }

    /// Frame rates outside 0.1…1000 (1e-9, 1e-300, 1e9) are refused when reading.
    func testFrameRatesAreBounded() throws {
        let csv = try write("nose_x,nose_y\n0.5,0.5\n0.6,0.5\n", "untimed.csv")
        for rate in [1e-9, 1e-300, 1e9, 0, -30, .nan] {
            XCTAssertThrowsError(try PoseClipReader.read(csv, options: PoseReadingOptions(frameRate: rate)), "\(rate)")
        }
        XCTAssertEqual(try PoseClipReader.read(csv, options: PoseReadingOptions(frameRate: 1000)).frames.count, 2)
        XCTAssertNil(PoseLimits.frameRateProblem(30))
    }

    /// Coordinates of 1e300 (infinite as float32) and hexadecimal numbers are errors naming the
    /// line or JSON path; a JSON `frameRate` is held to the same bounds as `--frame-rate`.
    func testHugeCoordinatesHexNumbersAndJSONFrameRates() throws {
        let csv = try write("time,nose_x,nose_y\n0,0.5,0.5\n0.1,1e300,0.5\n0.2,0x1p-1,0.5\n", "clip.csv")
        XCTAssertThrowsError(try PoseClipReader.read(csv)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.contains("clip.csv:3:") && text.contains("beyond"), text)
            XCTAssertTrue(text.contains("clip.csv:4:") && text.contains("'0x1p-1' is not a number"), text)
        }
        let huge = try write(#"{"joints": ["nose"], "frames": [{"time": 0, "keypoints": [[1e300, 0.5, 1]]}]}"#, "huge.json")
        XCTAssertThrowsError(try PoseClipReader.read(huge)) { error in
            XCTAssertTrue(((error as? LocalizedError)?.errorDescription ?? "").contains("frames[0].keypoints"), "\(error)")
        }
        for rate in ["1e300", "1e-300", "1.2e29"] {
            let json = try write(#"{"frameRate": \#(rate), "joints": ["nose"], "frames": [{"keypoints": [[0.5, 0.5, 1]]}]}"#, "rate.json")
            XCTAssertThrowsError(try PoseClipReader.read(json), rate) { error in
                XCTAssertTrue(((error as? LocalizedError)?.errorDescription ?? "").contains("frameRate"), "\(error)")
            }
        }
    }

    /// A clip whose time jumps by a million seconds resamples to frames on both sides only —
    /// output proportional to the input, nothing invented across the pause.
    func testResamplingSkipsLongPauses() {
        let keypoints: [Keypoint?] = [Keypoint(x: 0.5, y: 0.5)]
        let times = [0, 1.0 / 30, 2.0 / 30, 1_000_000, 1_000_000 + 1.0 / 30]
        let clip = PoseSequence(jointSet: JointSet(names: ["nose"])!, frames: times.map { PoseFrame(time: $0, keypoints: keypoints) },
                                source: PoseSource(file: URL(fileURLWithPath: "x.csv")))
        let resampled = clip.resampled(toFrameRate: 30)
        XCTAssertEqual(resampled.frames.count, 5)
        XCTAssertEqual(resampled.frames.map(\.time).last!, 1_000_000 + 1.0 / 30, accuracy: 1e-6)
        // A short pause (0.5 s) is still filled by interpolation.
        let short = PoseSequence(jointSet: JointSet(names: ["nose"])!, frames: [0, 0.5].map { PoseFrame(time: $0, keypoints: keypoints) },
                                 source: PoseSource(file: URL(fileURLWithPath: "y.csv")))
        XCTAssertEqual(short.resampled(toFrameRate: 30).frames.count, 16)
    }
}
