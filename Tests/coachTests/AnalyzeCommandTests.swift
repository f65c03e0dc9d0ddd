import CoachData
import Foundation
import TestSupport
import XCTest

/// `coach analyze` end to end on the rendered game `generate-samples --only game` writes: the
/// JSON's throws and total match the truth file, --draw writes a video, and games that cannot be
/// played end with a clear message.
final class AnalyzeCommandTests: XCTestCase {
    func testGeneratedGameIsScoredAsItsTruthSays() throws {
        let directory = try temporaryDirectory(self)
        let generated = try CoachExecutable.run(["generate-samples", "--only", "game", "--output", directory.path])
        XCTAssertEqual(generated.exitCode, 0, generated.standardError)
        let folder = directory.appendingPathComponent("game")
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("truth.json"))) as! [String: Any]
        let box = (truth["boardBox"] as! [Double]).map { String(format: "%.1f", $0) }.joined(separator: ",")
        let drawn = directory.appendingPathComponent("checked.mp4")
        let result = try CoachExecutable.run(["analyze", folder.appendingPathComponent("game.mp4").path, "--board-box", box,
                                              "--poses", folder.appendingPathComponent("poses.csv").path,
                                              "--json", "--draw", drawn.path])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        let throwsFound = report["throws"] as! [[String: Any]]
        let throwsTrue = truth["throws"] as! [[String: Any]]
        XCTAssertEqual(throwsFound.map { $0["landing"] as! String }, throwsTrue.map { $0["landing"] as! String })
        XCTAssertEqual(report["total"] as? Int, truth["total"] as? Int)
        for (found, expected) in zip(throwsFound, throwsTrue) {
            let speed = expected["speed"] as! Double
            XCTAssertEqual(found["speed"] as! Double, speed, accuracy: 0.05 * speed)
            XCTAssertEqual(found["speedMilesPerHour"] as! Double, (found["speed"] as! Double) * 2.236936, accuracy: 1e-3)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: drawn.path), "--draw wrote no video")

        // Again, as a second `make demo` in the same checkout: both videos are replaced, not lost.
        let again = try CoachExecutable.run(["generate-samples", "--only", "game", "--output", directory.path, "--overwrite"])
        XCTAssertEqual(again.exitCode, 0, again.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("game.mp4").path), again.standardError)

        // The table for people.
        let table = try CoachExecutable.run(["analyze", folder.appendingPathComponent("game.mp4").path, "--board-box", box,
                                             "--poses", folder.appendingPathComponent("poses.csv").path,
                                             "--draw", drawn.path, "--overwrite"])
        XCTAssertEqual(table.exitCode, 0, table.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: drawn.path), "--draw --overwrite lost the video")
        XCTAssertTrue(table.standardOutput.contains("total: \(truth["total"] as! Int) points in 3 throws"), table.standardOutput)
        XCTAssertTrue(table.standardError.contains("scene stable"), table.standardError)
    }

    func testUnplayableInputsAreClearErrors() throws {
        let directory = try temporaryDirectory(self)
        let missing = try CoachExecutable.run(["analyze", directory.appendingPathComponent("none.mp4").path, "--board-box", "1,1,50,20"])
        XCTAssertNotEqual(missing.exitCode, 0)
        XCTAssertTrue(missing.standardError.contains("none.mp4"), missing.standardError)
        let video = directory.appendingPathComponent("blank.mp4")
        FileManager.default.createFile(atPath: video.path, contents: Data("not a video".utf8))
        let neither = try CoachExecutable.run(["analyze", video.path])
        XCTAssertNotEqual(neither.exitCode, 0)
        XCTAssertTrue(neither.standardError.contains("--board-box"), neither.standardError)
        let corrupt = try CoachExecutable.run(["analyze", video.path, "--board-box", "1,1,50,20", "--poses", video.path])
        XCTAssertNotEqual(corrupt.exitCode, 0)
        XCTAssertFalse(corrupt.standardError.contains("Fatal error"), corrupt.standardError)
        let badBox = try CoachExecutable.run(["analyze", video.path, "--board-box", "1,2,nan,4"])
        XCTAssertTrue(badBox.standardError.contains("--board-box must be four numbers"), badBox.standardError)
        let tinyBox = try CoachExecutable.run(["analyze", video.path, "--board-box", "0,0,1,1"])
        XCTAssertTrue(tinyBox.standardError.contains("a board is at least 16×4 pixels"), tinyBox.standardError)
        let twice = try CoachExecutable.run(["analyze", video.path, "--board-box", "1,1,50,20", "--style-points", "underleg=1,underleg=2"])
        XCTAssertTrue(twice.standardError.contains("gives 'underleg' twice"), twice.standardError)
    }

    /// `count` identical 160×120 frames of a green field with a board at (50, 70, 60×15), in `directory`/frames.
    func writeStillFrames(_ count: Int, in directory: URL) throws -> URL {
        let frames = directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        var image = RGBImage(width: 160, height: 120, color: RGBColor(red: 40, green: 110, blue: 50))
        image.fillRectangle(x0: 50, y0: 70, x1: 110, y1: 85, color: RGBColor(red: 200, green: 170, blue: 120))
        for index in 0..<count { try image.writePNG(to: frames.appendingPathComponent(String(format: "%04d.png", index))) }
        return frames
    }

    /// A game that could not be played prints why, not a score: no "total: 0 points" beside the error.
    func testUnplayedGamePrintsNoScore() throws {
        let directory = try temporaryDirectory(self)
        let frames = try writeStillFrames(24, in: directory)
        let poses = directory.appendingPathComponent("nobody.csv")
        let header = ["time"] + JointSet.body18.names.flatMap { ["\($0)_x", "\($0)_y"] }
        let empty = String(repeating: ",", count: 2 * JointSet.body18.count)
        try Data((header.joined(separator: ",") + "\n0\(empty)\n0.5\(empty)\n").utf8).write(to: poses)
        let result = try CoachExecutable.run(["analyze", frames.path, "--board-box", "50,70,60,15", "--poses", poses.path])
        XCTAssertNotEqual(result.exitCode, 0)
        XCTAssertFalse(result.standardOutput.contains("total:"), result.standardOutput)
        XCTAssertTrue(result.standardError.contains("player"), result.standardError)
        XCTAssertTrue(result.standardError.contains("no frame of the --poses clip has a detected joint"), result.standardError)
    }

    /// A given board box outside the frames, or over most of them, is named as such (not "no board found"), and style
    /// points for throw types no classifier gives are refused (issue 14: they were ignored).
    func testBoardBoxOutsideTheFramesAndStylePointsWithoutTypesAreNamed() throws {
        let frames = try writeStillFrames(4, in: try temporaryDirectory(self))
        let outside = try CoachExecutable.run(["analyze", frames.path, "--board-box", "500,400,60,15"])
        XCTAssertNotEqual(outside.exitCode, 0)
        XCTAssertTrue(outside.standardError.contains("--board-box 500,400,60,15 lies outside the video's 160×120 frames"),
                      outside.standardError)
        // A box over (nearly) the whole frame is no board's: its scale would make every speed wrong.
        let whole = try CoachExecutable.run(["analyze", frames.path, "--board-box", "0,0,160,120"])
        XCTAssertNotEqual(whole.exitCode, 0)
        XCTAssertTrue(whole.standardError.contains("--board-box 0,0,160,120 covers 100 % of the video's 160×120 frames"),
                      whole.standardError)
        let style = try CoachExecutable.run(["analyze", frames.path, "--board-box", "50,70,60,15", "--style-points", "bogus=3"])
        XCTAssertNotEqual(style.exitCode, 0)
        XCTAssertTrue(style.standardError.contains("--style-points needs --classifier"), style.standardError)
        let short = try CoachExecutable.run(["analyze", frames.path, "--board-box", "50,70,60,15"])
        XCTAssertNotEqual(short.exitCode, 0)
        XCTAssertTrue(short.standardError.contains("the video has only 4 frames, and the camera must be seen still over 15 frames in a row"),
                      short.standardError)
        try RGBImage(width: 120, height: 160, color: .white).writePNG(to: frames.appendingPathComponent("0004.png"))
        let mixed = try CoachExecutable.run(["analyze", frames.path, "--board-box", "50,70,60,15"])
        XCTAssertNotEqual(mixed.exitCode, 0)
        XCTAssertTrue(mixed.standardError.contains("0004.png' is 120×160, but the folder's first frame '0000.png' is 160×120"),
                      mixed.standardError)
    }

    /// Key frames never go into the folder of frames being analysed (they would become input).
    func testKeyFramesStayOutOfTheInputFolder() throws {
        let directory = try temporaryDirectory(self)
        let frames = directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try Data("a frame".utf8).write(to: frames.appendingPathComponent("0001.png"))   // refused before it is read
        for target in [frames, frames.appendingPathComponent("keys")] {
            let result = try CoachExecutable.run(["analyze", frames.path, "--board-box", "1,1,50,20", "--frames", target.path])
            XCTAssertNotEqual(result.exitCode, 0)
            XCTAssertTrue(result.standardError.contains("the input's own folder of frames"), result.standardError)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: frames.path), ["0001.png"])
    }
}
