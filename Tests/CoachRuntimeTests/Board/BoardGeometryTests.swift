import CoachData
import CoachRuntime
import CoachRandom
import Foundation
import XCTest

/// Drawn test scenes: grass-like noise with a board painted on.
enum DrawnBoard {
    /// Green grass: every pixel a random shade, in 2 × 2 clumps.
    static func grass(width: Int, height: Int, seed: UInt64) -> RGBImage {
        var generator = SeededGenerator(seed: seed)
        var image = RGBImage(width: width, height: height, color: .black)
        for y in stride(from: 0, to: height, by: 2) {
            for x in stride(from: 0, to: width, by: 2) {
                let shade = generator.nextUniform(-45, 45)
                let colour = RGBColor(red: UInt8(max(0, min(255, 70 + shade * 0.6))), green: UInt8(max(0, min(255, 125 + shade))),
                                      blue: UInt8(max(0, min(255, 45 + shade * 0.4))))
                for v in y..<min(height, y + 2) { for u in x..<min(width, x + 2) { image[u, v] = colour } }
            }
        }
        return image
    }

    /// Whether a point lies inside a convex quadrilateral (corners in order).
    static func inside(_ point: SIMD2<Double>, _ corners: [SIMD2<Double>]) -> Bool {
        var sign = 0.0
        for index in 0..<4 {
            let a = corners[index], b = corners[(index + 1) % 4]
            let turn = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if sign == 0 { sign = turn } else if turn * sign < 0 { return false }
        }
        return true
    }

    /// The distance from a point to the nearest side of a quadrilateral.
    static func distanceToOutline(_ point: SIMD2<Double>, _ corners: [SIMD2<Double>]) -> Double {
        (0..<4).map { index -> Double in
            let a = corners[index], b = corners[(index + 1) % 4]
            let ab = b - a
            let t = max(0, min(1, ((point - a) * ab).sum() / (ab * ab).sum()))
            let nearest = a + t * ab
            return ((point - nearest) * (point - nearest)).sum().squareRoot()
        }.min() ?? 0
    }

    /// Paints a board with corners `corners` (its outer edge), a white rim `rim` px wide, a
    /// blue-grey surface with mild noise, and a hole of `holeRadius` at `holeCentre` showing dark soil.
    static func paint(on image: inout RGBImage, corners: [SIMD2<Double>], rim: Double, holeCentre: SIMD2<Double>,
                      holeRadius: Double, seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let point = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                guard inside(point, corners) else { continue }
                let offset = point - holeCentre
                if (offset * offset).sum() <= holeRadius * holeRadius {
                    image[x, y] = RGBColor(red: 60, green: 45, blue: 30)
                } else if distanceToOutline(point, corners) < rim {
                    image[x, y] = RGBColor(red: 235, green: 235, blue: 230)
                } else {
                    let noise = generator.nextUniform(-8, 8)
                    image[x, y] = RGBColor(red: UInt8(55 + noise), green: UInt8(70 + noise), blue: UInt8(105 + noise))
                }
            }
        }
    }

    /// The distance from each expected corner to the nearest found corner.
    static func cornerErrors(_ found: [SIMD2<Double>], _ expected: [SIMD2<Double>]) -> [Double] {
        expected.map { corner in found.map { (($0 - corner) * ($0 - corner)).sum().squareRoot() }.min() ?? .infinity }
    }
}

final class BoardGeometryTests: XCTestCase {
    func testPerspectiveBoardWithRimAndHoleOnGrass() {
        var image = DrawnBoard.grass(width: 560, height: 520, seed: 41)
        // A board seen from an angle: the far end (top) narrower than the near end, and turned.
        let corners: [SIMD2<Double>] = [SIMD2(232, 72), SIMD2(372, 88), SIMD2(408, 452), SIMD2(168, 430)]
        // Regulation hole: on the long axis, 9/48 of the length from the far end's middle; a
        // quarter of the (far end's) width across.
        let farMiddle = (corners[0] + corners[1]) / 2, nearMiddle = (corners[2] + corners[3]) / 2
        let holeCentre = farMiddle + (nearMiddle - farMiddle) * (9.0 / 48)
        DrawnBoard.paint(on: &image, corners: corners, rim: 6, holeCentre: holeCentre, holeRadius: 19, seed: 42)
        // The detector's box: the board's extent with a few pixels of slack.
        let box = PixelBox(x: 160, y: 66, width: 256, height: 392)
        let geometry = BoardGeometryAnalyzer().analyze(image, boardBox: box)
        XCTAssertEqual(geometry.source, .contours)
        let errors = DrawnBoard.cornerErrors(geometry.corners, corners)
        XCTAssertLessThan(errors.max() ?? .infinity, 3, "corner errors \(errors), found \(geometry.corners)")
        // Clockwise on screen from the top-left: the drawn order.
        XCTAssertEqual(DrawnBoard.cornerErrors([geometry.corners[0]], [corners[0]])[0], 0, accuracy: 3)
        XCTAssertEqual(DrawnBoard.cornerErrors([geometry.corners[1]], [corners[1]])[0], 0, accuracy: 3)
        XCTAssertFalse(geometry.hole.source.isEstimated)
        XCTAssertEqual(geometry.hole.centre.x, holeCentre.x, accuracy: 2)
        XCTAssertEqual(geometry.hole.centre.y, holeCentre.y, accuracy: 2)
        // The radius is measured on the board's plane and given in pixels at the board's mean
        // scale: the 19 px circle sits where the board is narrower than on average (the width
        // there, 9/48 of the way from the far end, against the mean of the two ends).
        func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
        let farWidth = length(corners[1] - corners[0]), nearWidth = length(corners[2] - corners[3])
        let widthAtHole = farWidth + (nearWidth - farWidth) * 9 / 48
        XCTAssertEqual(geometry.hole.radius, 19 * (farWidth + nearWidth) / 2 / widthAtHole, accuracy: 1.5)
    }

    func testAxisAlignedBoardGivesTheScaleWorkedOutByHand() {
        var image = DrawnBoard.grass(width: 400, height: 560, seed: 43)
        let corners: [SIMD2<Double>] = [SIMD2(100, 80), SIMD2(300, 80), SIMD2(300, 480), SIMD2(100, 480)]
        DrawnBoard.paint(on: &image, corners: corners, rim: 0, holeCentre: SIMD2(200, 155), holeRadius: 25, seed: 44)
        let geometry = BoardGeometryAnalyzer().analyze(image, boardBox: PixelBox(x: 95, y: 75, width: 210, height: 410))
        XCTAssertEqual(geometry.source, .contours)
        XCTAssertLessThan(DrawnBoard.cornerErrors(geometry.corners, corners).max() ?? .infinity, 2)
        // 200 × 400 px for 0.6096 × 1.2192 m: 1.2192 / 400 = 0.003048 m per pixel both ways.
        XCTAssertEqual(geometry.metresPerPixel, 0.003048, accuracy: 0.00003)
        XCTAssertEqual(geometry.lengthInPixels, 400, accuracy: 4)
        XCTAssertEqual(geometry.widthInPixels, 200, accuracy: 4)
        XCTAssertEqual(geometry.hole.centre.x, 200, accuracy: 2)
        XCTAssertEqual(geometry.hole.centre.y, 155, accuracy: 2)
        XCTAssertTrue(geometry.contains(SIMD2(200, 300)))
        XCTAssertFalse(geometry.contains(SIMD2(320, 300)))
    }

    func testGrassWithoutABoardFallsBackToTheBoxAndSaysWhy() {
        let image = DrawnBoard.grass(width: 400, height: 400, seed: 45)
        let box = PixelBox(x: 120, y: 80, width: 150, height: 260)
        let geometry = BoardGeometryAnalyzer().analyze(image, boardBox: box)
        guard case let .detectorBox(reason) = geometry.source else {
            return XCTFail("expected a fallback, got \(geometry.source) with corners \(geometry.corners)")
        }
        switch reason {
        case .noBoardShape, .noContrast: break
        default: XCTFail("unexpected reason \(reason)")
        }
        XCTAssertFalse(reason.description.isEmpty)
        XCTAssertEqual(geometry.corners, [SIMD2(120, 80), SIMD2(270, 80), SIMD2(270, 340), SIMD2(120, 340)])
        XCTAssertTrue(geometry.hole.source.isEstimated)
        // A regulation hole on the box: centred across, 9/48 of 260 px = 48.75 px from one end,
        // radius (a 6-in hole on a 48-in board, along its length) 260 / 16 = 16.25 px.
        XCTAssertEqual(geometry.hole.centre.x, 195, accuracy: 1e-9)
        XCTAssertTrue(abs(geometry.hole.centre.y - (80 + 48.75)) < 1e-9 || abs(geometry.hole.centre.y - (340 - 48.75)) < 1e-9,
                      "hole at \(geometry.hole.centre)")
        XCTAssertEqual(geometry.hole.radius, 16.25, accuracy: 1e-9)
    }

    func testDegenerateInputsFallBackWithTheirReason() {
        let analyzer = BoardGeometryAnalyzer()
        let box = PixelBox(x: 2, y: 2, width: 40, height: 80)
        XCTAssertEqual(analyzer.analyze(RGBImage(width: 0, height: 0, color: .white), boardBox: box).source,
                       .detectorBox(reason: .emptyImage))
        // A box from (2, 2) misses a 1×1 image; one from the origin keeps its single pixel.
        XCTAssertEqual(analyzer.analyze(RGBImage(width: 1, height: 1, color: .white), boardBox: box).source,
                       .detectorBox(reason: .boxOutsideImage))
        let single = analyzer.analyze(RGBImage(width: 1, height: 1, color: .white), boardBox: PixelBox(x: 0, y: 0, width: 40, height: 80))
        XCTAssertEqual(single.source, .detectorBox(reason: .boxTooSmall(width: 1, height: 1)))
        XCTAssertEqual(single.corners, [SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)])
        let image = RGBImage(width: 100, height: 100, color: .white)
        XCTAssertEqual(analyzer.analyze(image, boardBox: PixelBox(x: 200, y: 10, width: 50, height: 50)).source,
                       .detectorBox(reason: .boxOutsideImage))
        XCTAssertEqual(analyzer.analyze(image, boardBox: PixelBox(x: 10, y: 10, width: 8, height: 50)).source,
                       .detectorBox(reason: .boxTooSmall(width: 8, height: 50)))
        XCTAssertEqual(analyzer.analyze(image, boardBox: PixelBox(x: .nan, y: 10, width: 8, height: 50)).source,
                       .detectorBox(reason: .boxOutsideImage))
        // A uniform image has nothing to separate.
        XCTAssertEqual(analyzer.analyze(image, boardBox: PixelBox(x: 10, y: 10, width: 50, height: 80)).source,
                       .detectorBox(reason: .noContrast))
    }

    func testCornerOrderAndHelpers() {
        let hole = BoardHole(centre: .zero, radius: 1, source: .estimated(reason: "test"))
        let geometry = BoardGeometry(corners: [SIMD2(10, 50), SIMD2(30, 0), SIMD2(0, 0), SIMD2(30, 50)], hole: hole, source: .contours)
        XCTAssertEqual(geometry.corners, [SIMD2(0, 0), SIMD2(30, 0), SIMD2(30, 50), SIMD2(10, 50)])
        XCTAssertEqual(geometry.boundingBox, PixelBox(x: 0, y: 0, width: 30, height: 50))
        XCTAssertEqual(geometry.area, 1250, accuracy: 1e-9)
        XCTAssertEqual(BoardGeometry(corners: [], hole: hole, source: .contours).metresPerPixel, 0)
        XCTAssertEqual(PixelBox(x: 0, y: 0, width: 10, height: 10).intersectionOverUnion(PixelBox(x: 5, y: 0, width: 10, height: 10)),
                       50.0 / 150, accuracy: 1e-12)
    }
}
