import CoachData
import CoachVision
import XCTest

final class ConnectedComponentsTests: XCTestCase {
    /// A mask from rows of "#" (foreground) and "." (background).
    private func components(_ rows: [String]) throws -> ConnectedComponents {
        let width = rows.first?.count ?? 0
        let mask = rows.flatMap { $0.map { $0 == "#" } }
        return try XCTUnwrap(ConnectedComponents(mask: mask, width: width, height: rows.count))
    }

    func testThreeBlobsWithAreasCentroidsBoxesAndRadii() throws {
        let result = try components([
            "##..#",
            "##...",
            "....#",
            "...##",
        ])
        XCTAssertEqual(result.blobs.count, 3)
        XCTAssertEqual(result.labels, [1, 1, 0, 0, 2,
                                       1, 1, 0, 0, 0,
                                       0, 0, 0, 0, 3,
                                       0, 0, 0, 3, 3])
        // Blob 1: the 2 × 2 square; centres (0.5…1.5)² → centroid (1, 1); circle through the
        // four centres has radius √2/2, plus half a pixel.
        let square = result.blobs[0]
        XCTAssertEqual(square.area, 4)
        XCTAssertEqual(square.centroidX, 1, accuracy: 1e-12)
        XCTAssertEqual(square.centroidY, 1, accuracy: 1e-12)
        XCTAssertEqual(square.boundingBox, BoundingBox(minX: 0, minY: 0, maxX: 2, maxY: 2))
        XCTAssertEqual(square.enclosingRadius, 2.squareRoot() / 2 + 0.5, accuracy: 1e-9)
        XCTAssertEqual(square.enclosingCenterX, 1, accuracy: 1e-9)
        // Blob 2: the lone pixel (4, 0): (4.5, 0.5), radius 0.5 (its diagonal neighbours are empty).
        let single = result.blobs[1]
        XCTAssertEqual(single.area, 1)
        XCTAssertEqual(single.centroidX, 4.5, accuracy: 1e-12)
        XCTAssertEqual(single.centroidY, 0.5, accuracy: 1e-12)
        XCTAssertEqual(single.enclosingRadius, 0.5, accuracy: 1e-12)
        // Blob 3: (4, 2), (3, 3), (4, 3): centroid ((4+3+4)/3 + ½, (2+3+3)/3 + ½); the centres form
        // a right triangle whose hypotenuse (4.5, 2.5)–(3.5, 3.5) is the circle's diameter: √2/2.
        let corner = result.blobs[2]
        XCTAssertEqual(corner.area, 3)
        XCTAssertEqual(corner.centroidX, 11.0 / 3 + 0.5, accuracy: 1e-12)
        XCTAssertEqual(corner.centroidY, 8.0 / 3 + 0.5, accuracy: 1e-12)
        XCTAssertEqual(corner.boundingBox, BoundingBox(minX: 3, minY: 2, maxX: 5, maxY: 4))
        XCTAssertEqual(corner.enclosingRadius, 2.squareRoot() / 2 + 0.5, accuracy: 1e-9)
        XCTAssertEqual(corner.enclosingCenterX, 4, accuracy: 1e-9)
        XCTAssertEqual(corner.enclosingCenterY, 3, accuracy: 1e-9)
    }

    func testDiagonalPixelsAreOneBlobUnderEightConnectivity() throws {
        let result = try components([
            "#...",
            ".#..",
            "..#.",
            "...#",
        ])
        XCTAssertEqual(result.blobs.count, 1)   // 4-connectivity would give 4
        XCTAssertEqual(result.blobs[0].area, 4)
        XCTAssertEqual(result.blobs[0].centroidX, 2, accuracy: 1e-12)
        XCTAssertEqual(result.blobs[0].centroidY, 2, accuracy: 1e-12)
        // End centres (0.5, 0.5) and (3.5, 3.5) are 3√2 apart.
        XCTAssertEqual(result.blobs[0].enclosingRadius, 1.5 * 2.squareRoot() + 0.5, accuracy: 1e-9)
    }

    func testLabelsMergedAcrossRowsByUnionFind() throws {
        // Two arms get different provisional labels and meet in the bottom row.
        let result = try components([
            "#.#.#",
            "#.#.#",
            "#####",
        ])
        XCTAssertEqual(result.blobs.count, 1)
        XCTAssertEqual(Set(result.labels), [0, 1])
        XCTAssertEqual(result.blobs[0].area, 11)
        // x: 0,2,4 twice, then 0…4 → 12 + 10 = 22 → 2 + ½; y: 6 pixels in rows 0–1 (3), 5 in row 2 (10) → 13/11 + ½.
        XCTAssertEqual(result.blobs[0].centroidX, 22.0 / 11 + 0.5, accuracy: 1e-12)
        XCTAssertEqual(result.blobs[0].centroidY, 13.0 / 11 + 0.5, accuracy: 1e-12)
        // Corner centres (0.5, 0.5) and (4.5, 2.5): half the diagonal √(16 + 4) / 2.
        XCTAssertEqual(result.blobs[0].enclosingRadius, 20.squareRoot() / 2 + 0.5, accuracy: 1e-9)
    }

    func testARunOfNPixelsHasRadiusNOverTwo() throws {
        let result = try components([".#####."])
        XCTAssertEqual(result.blobs.count, 1)
        XCTAssertEqual(result.blobs[0].enclosingRadius, 2.5, accuracy: 1e-12)
        XCTAssertEqual(result.blobs[0].centroidX, 3.5, accuracy: 1e-12)
    }

    func testARasterisedDiscHasItsCentreAndRadius() throws {
        // Pixels whose centres lie within 10 px of (20, 15).
        let width = 40, height = 30
        var mask = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) + 0.5 - 20, dy = Double(y) + 0.5 - 15
                mask[y * width + x] = dx * dx + dy * dy <= 100
            }
        }
        let result = try XCTUnwrap(ConnectedComponents(mask: mask, width: width, height: height))
        XCTAssertEqual(result.blobs.count, 1)
        let disc = result.blobs[0]
        XCTAssertEqual(Double(disc.area), Double.pi * 100, accuracy: 0.03 * Double.pi * 100)
        XCTAssertEqual(disc.centroidX, 20, accuracy: 1e-9)
        XCTAssertEqual(disc.centroidY, 15, accuracy: 1e-9)
        // The farthest centres are just inside 10 px, so the radius is in (9.5, 10.5].
        XCTAssertGreaterThan(disc.enclosingRadius, 9.5 + 0.4)
        XCTAssertLessThanOrEqual(disc.enclosingRadius, 10.5 + 1e-9)
    }

    func testEmptyAndMismatchedMasks() throws {
        XCTAssertEqual(try components(["....", "...."]).blobs.count, 0)
        XCTAssertEqual(try XCTUnwrap(ConnectedComponents(mask: [], width: 0, height: 0)).blobs.count, 0)
        XCTAssertNil(ConnectedComponents(mask: [true, false], width: 3, height: 1))
        XCTAssertNil(ConnectedComponents(mask: [], width: -1, height: 0))
        XCTAssertNil(ConnectedComponents(mask: [true], width: Int.max, height: 2))   // size overflows
    }

    func testGrayImageThresholding() {
        let image = GrayImage(width: 3, height: 2, pixels: [0, 200, 10,
                                                            0, 0, 255])
        let result = ConnectedComponents(image: image, threshold: 100)
        // (1, 0) and (2, 1) touch diagonally.
        XCTAssertEqual(result.blobs.count, 1)
        XCTAssertEqual(result.blobs[0].area, 2)
        XCTAssertEqual(result.labels, [0, 1, 0, 0, 0, 1])
    }

    func testMinimumEnclosingCircleOfHandPickedPoints() {
        // An obtuse triangle: the circle is the longest side's diameter, not the circumcircle.
        let obtuse = ConnectedComponents.minimumEnclosingCircle(of: [SIMD2(0, 0), SIMD2(10, 0), SIMD2(5, 1)])
        XCTAssertEqual(obtuse.radius, 5, accuracy: 1e-9)
        XCTAssertEqual(obtuse.center.x, 5, accuracy: 1e-9)
        XCTAssertEqual(obtuse.center.y, 0, accuracy: 1e-9)
        // An equilateral triangle of side 2√3 has circumradius 2.
        let s = 3.squareRoot()
        let equilateral = ConnectedComponents.minimumEnclosingCircle(of: [SIMD2(-s, -1), SIMD2(s, -1), SIMD2(0, 2),
                                                                          SIMD2(0, 0), SIMD2(0.5, 0.5)])
        XCTAssertEqual(equilateral.radius, 2, accuracy: 1e-9)
        XCTAssertEqual(equilateral.center.x, 0, accuracy: 1e-9)
        XCTAssertEqual(equilateral.center.y, 0, accuracy: 1e-9)
        XCTAssertEqual(ConnectedComponents.minimumEnclosingCircle(of: []).radius, 0)
    }
}
