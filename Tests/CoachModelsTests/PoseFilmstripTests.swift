import CoachData
import CoachModels
import Foundation
import XCTest

/// `PoseFilmstrip` (a segment as a strip of stick figures) and `ContactSheet`'s titled rows, which
/// `coach evaluate --mistakes` draws an action classifier's wrong segments with.
final class PoseFilmstripTests: XCTestCase {
    static let white = RGBColor(red: 255, green: 255, blue: 255)
    static let orange = RGBColor(red: 255, green: 150, blue: 30)

    /// A body18 clip of `frames` frames with only the nose and neck (drawn white) and the left
    /// ankle (drawn orange) detected, the body walking `step` to the right per frame; `yUp` gives
    /// the head the larger y, as 3-D skeletons with y up have it.
    static func walker(frames: Int, step: Float, yUp: Bool) -> PoseSequence {
        let body = JointSet.body18
        let source = PoseSource(file: URL(fileURLWithPath: "/tmp/walker.csv"))
        return PoseSequence(jointSet: body, frames: (0..<frames).map { t in
            var keypoints = [Keypoint?](repeating: nil, count: body.count)
            let x = 0.3 + step * Float(t)
            keypoints[body.index(of: "nose")!] = Keypoint(x: x, y: yUp ? 1.7 : 0.2)
            keypoints[body.index(of: "neck")!] = Keypoint(x: x, y: yUp ? 1.5 : 0.35)
            keypoints[body.index(of: "leftAnkle")!] = Keypoint(x: x + 0.05, y: yUp ? 0.05 : 0.95)
            return PoseFrame(time: Double(t) / 30, keypoints: keypoints)
        }, source: source)
    }

    /// The mean position of the pixels of `color` (nil when there are none).
    static func centre(of color: RGBColor, in image: RGBImage) -> (x: Double, y: Double)? {
        var sx = 0.0, sy = 0.0, n = 0.0
        for y in 0..<image.height { for x in 0..<image.width where image[x, y] == color { sx += Double(x); sy += Double(y); n += 1 } }
        return n > 0 ? (sx / n, sy / n) : nil
    }

    func testFramesAreEvenlySpacedUprightAndShareOnePlacement() throws {
        for yUp in [false, true] {
            let sequence = Self.walker(frames: 29, step: 0.02, yUp: yUp)
            let tiles = PoseFilmstrip.tiles(of: sequence, bones: JointSet.body18.bones, count: 8, width: 150, height: 190)
            XCTAssertEqual(tiles.count, 8)
            // Frames 0, 4, 8, …, 28: the first and the last, evenly between.
            for (i, tile) in tiles.enumerated() {
                XCTAssertEqual(tile.time, Double(4 * i) / 30, accuracy: 1e-9)
                XCTAssertEqual(tile.image.width, 150)
                XCTAssertEqual(tile.image.height, 190)
            }
            var lastX = -Double.infinity
            for tile in tiles {
                let head = try XCTUnwrap(Self.centre(of: Self.white, in: tile.image))
                let foot = try XCTUnwrap(Self.centre(of: Self.orange, in: tile.image))
                XCTAssertLessThan(head.y, foot.y - 50, "the head is drawn above the foot (y up: \(yUp))")
                // One placement for the whole segment: the walk to the right shows, within the tile.
                XCTAssertGreaterThan(head.x, lastX + 5, "the body moves right between tiles (y up: \(yUp))")
                XCTAssertTrue(head.x > 0 && head.x < 150)
                lastX = head.x
            }
        }
    }

    func testUndetectedJointsAreNotDrawnAndAnEmptySegmentGivesNoTiles() throws {
        var sequence = Self.walker(frames: 3, step: 0, yUp: false)
        let ankle = JointSet.body18.index(of: "leftAnkle")!
        sequence.frames[1].keypoints[ankle]!.confidence = 0
        let tiles = PoseFilmstrip.tiles(of: sequence, bones: [], count: 3, width: 120, height: 120)
        XCTAssertEqual(tiles.count, 3)
        XCTAssertNotNil(Self.centre(of: Self.orange, in: tiles[0].image))
        XCTAssertNil(Self.centre(of: Self.orange, in: tiles[1].image), "a joint with confidence 0 is not drawn")
        // More tiles asked for than there are frames: one per frame.
        XCTAssertEqual(PoseFilmstrip.tiles(of: sequence, bones: [], count: 10, width: 50, height: 50).count, 3)
        for frame in sequence.frames.indices {
            sequence.frames[frame].keypoints = sequence.frames[frame].keypoints.map { _ in nil }
        }
        XCTAssertTrue(PoseFilmstrip.tiles(of: sequence, bones: [], count: 3, width: 120, height: 120).isEmpty)
    }

    func testRowsOfFramesUnderTitles() throws {
        let red = RGBColor(red: 200, green: 0, blue: 0), green = RGBColor(red: 0, green: 200, blue: 0)
        let rows: [(title: String, frames: [(image: RGBImage, label: String)])] = [
            ("1. first row", [(RGBImage(width: 40, height: 30, color: red), ""), (RGBImage(width: 40, height: 30, color: green), "")]),
            (String(repeating: "a long title ", count: 40), [(RGBImage(width: 40, height: 30, color: green), "")]),
        ]
        let sheet = try ContactSheet.make(rows: rows, tileWidth: 40, tileHeight: 30)
        // Two columns of 40 with three gaps of 4; two rows of an 11-pixel title, a 30-pixel tile and a gap, and a gap.
        XCTAssertEqual(sheet.width, 2 * 40 + 3 * 4)
        XCTAssertEqual(sheet.height, 2 * (11 + 30 + 4) + 4)
        XCTAssertEqual(sheet[4 + 20, 4 + 11 + 15], red, "the first row's first tile")
        XCTAssertEqual(sheet[4 + 44 + 20, 4 + 11 + 15], green, "its second")
        XCTAssertEqual(sheet[4 + 20, 4 + 45 + 11 + 15], green, "the second row's tile")
        XCTAssertNotEqual(sheet[4 + 44 + 20, 4 + 45 + 11 + 15], green, "the second row has one tile")
        let titleBand = (0..<sheet.width).flatMap { x in (4..<15).map { y in sheet[x, y] } }
        XCTAssertTrue(titleBand.contains(.white), "the title is written above its row")
        XCTAssertEqual(ContactSheet.fitted("abcdef", characters: 4), "abc~")
        XCTAssertEqual(ContactSheet.fitted("abc", characters: 4), "abc")
    }
}
