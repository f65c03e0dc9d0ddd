import CoachVision
import XCTest

/// A mask drawn as text rows: `#` foreground, anything else background.
func drawnMask(_ rows: [String]) -> BinaryMask {
    let width = rows.map(\.count).max() ?? 0
    var mask = BinaryMask(width: width, height: rows.count)
    for (y, row) in rows.enumerated() {
        for (x, character) in row.enumerated() where character == "#" { mask[x, y] = true }
    }
    return mask
}

final class BorderFollowingTests: XCTestCase {
    func testSquareWithSquareHole() {
        let mask = drawnMask([
            "..........",
            ".########.",
            ".########.",
            ".##....##.",
            ".##....##.",
            ".##....##.",
            ".##....##.",
            ".########.",
            ".########.",
            "..........",
        ])
        let contours = BorderFollowing.contours(of: mask)
        XCTAssertEqual(contours.count, 2)
        guard contours.count == 2 else { return }
        let outer = contours[0], hole = contours[1]
        XCTAssertFalse(outer.isHole)
        XCTAssertNil(outer.parent)
        XCTAssertTrue(hole.isHole)
        XCTAssertEqual(hole.parent, 0)
        // The outer border: every pixel on the 8×8 square's edge, once, starting top-left.
        var edge = Set<SIMD2<Int>>()
        for i in 1...8 {
            edge.insert(SIMD2(i, 1)); edge.insert(SIMD2(i, 8)); edge.insert(SIMD2(1, i)); edge.insert(SIMD2(8, i))
        }
        XCTAssertEqual(outer.points.count, 28)
        XCTAssertEqual(Set(outer.points), edge)
        XCTAssertEqual(outer.points.first, SIMD2(1, 1))
        // Down the left side first (counter-clockwise on screen).
        XCTAssertEqual(outer.points[1], SIMD2(1, 2))
        // The hole border: the foreground pixels around the 4×4 hole, its four inner corners
        // skipped because foreground is 8-connected.
        var ring = Set<SIMD2<Int>>()
        for i in 3...6 {
            ring.insert(SIMD2(i, 2)); ring.insert(SIMD2(i, 7)); ring.insert(SIMD2(2, i)); ring.insert(SIMD2(7, i))
        }
        XCTAssertEqual(Set(hole.points), ring)
        XCTAssertEqual(hole.points.count, 16)
        XCTAssertEqual(outer.boundingRect, PixelRect(x: 1, y: 1, width: 8, height: 8))
    }

    func testNestingAndSiblings() {
        let mask = drawnMask([
            "#######....",
            "#.....#..##",
            "#.###.#..##",
            "#.###.#....",
            "#.....#....",
            "#######....",
        ])
        let contours = BorderFollowing.contours(of: mask)
        // Raster order of first pixels: the frame (row 0), the frame's hole (starts at (0, 1),
        // left of the blob on the same row), the blob at the right ((9, 1)), the island ((2, 2)).
        XCTAssertEqual(contours.count, 4)
        guard contours.count == 4 else { return }
        XCTAssertEqual(contours.map(\.isHole), [false, true, false, false])
        XCTAssertEqual(contours.map(\.parent), [nil, 0, nil, 1])
        XCTAssertEqual(Set(contours[2].points), [SIMD2(9, 1), SIMD2(10, 1), SIMD2(9, 2), SIMD2(10, 2)])
        XCTAssertEqual(contours[3].boundingRect, PixelRect(x: 2, y: 2, width: 3, height: 2))
    }

    func testSinglePixelsLinesAndEmptyMasks() {
        let single = BorderFollowing.contours(of: drawnMask(["...", ".#.", "..."]))
        XCTAssertEqual(single, [Contour(points: [SIMD2(1, 1)], isHole: false, parent: nil)])
        // A one-pixel-wide line is walked there and back: each inner pixel twice.
        let line = BorderFollowing.contours(of: drawnMask(["####"]))
        XCTAssertEqual(line.count, 1)
        XCTAssertEqual(line.first?.points, [SIMD2(0, 0), SIMD2(1, 0), SIMD2(2, 0), SIMD2(3, 0), SIMD2(2, 0), SIMD2(1, 0)])
        // Diagonal neighbours are connected.
        XCTAssertEqual(BorderFollowing.contours(of: drawnMask(["#.", ".#"])).count, 1)
        XCTAssertEqual(BorderFollowing.contours(of: BinaryMask(width: 0, height: 0)), [])
        XCTAssertEqual(BorderFollowing.contours(of: BinaryMask(width: 5, height: 3)), [])
        let full = BorderFollowing.contours(of: BinaryMask(width: 3, height: 2, value: true))
        XCTAssertEqual(full.count, 1)
        XCTAssertEqual(full.first?.points.count, 6)
    }
}
