import CoachRandom
import CoachVision
import Foundation
import XCTest

final class ThresholdTests: XCTestCase {
    func testOtsuSplitsTwoLevels() throws {
        // 12 pixels at 40 and 4 at 200: any level in (40, 200] separates them perfectly.
        let image = GrayImage(width: 4, height: 4, pixels: [Float](repeating: 40, count: 12) + [200, 200, 200, 200])
        let threshold = try XCTUnwrap(Threshold.otsu(of: image))
        XCTAssertGreaterThan(threshold, 40)
        XCTAssertLessThanOrEqual(threshold, 200)
        let mask = Threshold.binarize(image, threshold: threshold)
        XCTAssertEqual(mask.values, [Bool](repeating: false, count: 12) + [true, true, true, true])
        XCTAssertEqual(Threshold.separability(of: image, threshold: threshold), 1, accuracy: 1e-9)
        XCTAssertNil(Threshold.otsu(of: GrayImage(width: 3, height: 3, value: 7)))
        XCTAssertNil(Threshold.otsu(of: image, in: PixelRect(x: 10, y: 10, width: 4, height: 4)))
    }

    func testOtsuOnNoisyBimodalValuesLandsBetweenTheModes() throws {
        var generator = SeededGenerator(seed: 9)
        let values = (0..<2000).map { index -> Float in
            (index % 3 == 0 ? 60 : 180) + 10 * generator.nextNormal()
        }
        let threshold = try XCTUnwrap(Threshold.otsu(values: values))
        // The modes are 12 σ apart: the criterion is nearly flat across the empty gap between
        // about 90 and 150 (3 σ from each), so the level lands somewhere in it.
        XCTAssertGreaterThan(threshold, 85)
        XCTAssertLessThan(threshold, 155)
        let misplaced = values.enumerated().filter { ($0.offset % 3 == 0) == ($0.element >= threshold) }.count
        XCTAssertLessThan(misplaced, 10)
    }

    func testBinarizeRegionHasTheRegionSize() {
        var image = GrayImage(width: 6, height: 5, value: 0)
        image[3, 2] = 255
        let mask = Threshold.binarize(image, threshold: 128, in: PixelRect(x: 2, y: 1, width: 3, height: 3))
        XCTAssertEqual(mask.width, 3)
        XCTAssertEqual(mask.height, 3)
        XCTAssertEqual(mask.foregroundCount, 1)
        XCTAssertTrue(mask[1, 1])
        XCTAssertEqual(Threshold.binarize(image, threshold: 128, above: false).foregroundCount, 29)
    }
}

final class PolygonSimplificationTests: XCTestCase {
    /// Points every `step` pixels around the rectangle [left, left+width] × [top, top+height], with noise.
    func rectangleOutline(left: Double, top: Double, width: Double, height: Double, noise: Double,
                          generator: inout SeededGenerator) -> [SIMD2<Double>] {
        var points: [SIMD2<Double>] = []
        let corners = [SIMD2(left, top), SIMD2(left, top + height), SIMD2(left + width, top + height), SIMD2(left + width, top)]
        for side in 0..<4 {
            let start = corners[side], end = corners[(side + 1) % 4]
            let steps = Int(PolygonSimplificationTests.length(end - start))
            for step in 0..<steps {
                let point = start + (end - start) * (Double(step) / Double(steps))
                points.append(point + SIMD2(Double(generator.nextUniform(-1, 1)), Double(generator.nextUniform(-1, 1))) * noise)
            }
        }
        return points
    }

    static func length(_ vector: SIMD2<Double>) -> Double { (vector * vector).sum().squareRoot() }

    func testNoisyRectangleSimplifiesToItsFourCorners() throws {
        var generator = SeededGenerator(seed: 11)
        let outline = rectangleOutline(left: 10, top: 20, width: 100, height: 50, noise: 0.8, generator: &generator)
        let polygon = PolygonSimplification.simplifiedClosed(outline, tolerance: 3)
        XCTAssertEqual(polygon.count, 4)
        for corner in [SIMD2(10.0, 20.0), SIMD2(10, 70), SIMD2(110, 70), SIMD2(110, 20)] {
            let nearest = polygon.map { Self.length($0 - corner) }.min() ?? .infinity
            XCTAssertLessThan(nearest, 2.5, "corner \(corner)")
        }
        XCTAssertEqual(PolygonSimplification.area(of: polygon), 5000, accuracy: 250)
    }

    func testAreaHullAndConvexity() {
        let square: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 4), SIMD2(0, 4)]
        XCTAssertEqual(PolygonSimplification.signedArea(of: square), 16)
        XCTAssertEqual(PolygonSimplification.signedArea(of: square.reversed()), -16)
        let hull = PolygonSimplification.convexHull(of: square + [SIMD2(2, 2), SIMD2(1, 3), SIMD2(2, 0)])
        XCTAssertEqual(Set(hull), Set(square))
        XCTAssertTrue(PolygonSimplification.isConvex(square))
        XCTAssertFalse(PolygonSimplification.isConvex([SIMD2(0, 0), SIMD2(4, 0), SIMD2(1, 1), SIMD2(0, 4)]))
    }

    func testBestQuadrilateralFindsTheSharpCornersOfARoundedTiltedBoard() throws {
        // A 120 × 60 rectangle with corners rounded by radius 8, turned by 20°, centred at (100, 90).
        var outline: [SIMD2<Double>] = []
        let halfWidth = 60.0, halfHeight = 30.0, radius = 8.0
        let angle = 20.0 * Double.pi / 180
        func place(_ p: SIMD2<Double>) -> SIMD2<Double> {
            SIMD2(100 + p.x * cos(angle) - p.y * sin(angle), 90 + p.x * sin(angle) + p.y * cos(angle))
        }
        for step in 0..<720 {
            // Walk the rounded rectangle by angle around its centre, clamping to the rounded shape.
            let t = Double(step) / 720 * 2 * Double.pi
            let direction = SIMD2(cos(t), sin(t))
            // Ray–rounded-box intersection by bisection on the signed distance.
            var low = 0.0, high = 100.0
            for _ in 0..<50 {
                let middle = (low + high) / 2
                let p = direction * middle
                let q = SIMD2(abs(p.x) - (halfWidth - radius), abs(p.y) - (halfHeight - radius))
                let outside = SIMD2(max(q.x, 0), max(q.y, 0))
                let distance = Self.length(outside) + min(max(q.x, q.y), 0) - radius
                if distance < 0 { low = middle } else { high = middle }
            }
            outline.append(place(direction * low))
        }
        let quadrilateral = try XCTUnwrap(PolygonSimplification.bestQuadrilateral(of: outline))
        XCTAssertEqual(quadrilateral.count, 4)
        let expected = [SIMD2(-halfWidth, -halfHeight), SIMD2(halfWidth, -halfHeight),
                        SIMD2(halfWidth, halfHeight), SIMD2(-halfWidth, halfHeight)].map(place)
        for corner in expected {
            let nearest = quadrilateral.map { Self.length($0 - corner) }.min() ?? .infinity
            XCTAssertLessThan(nearest, 1.0, "corner \(corner)")
        }
        XCTAssertGreaterThan(PolygonSimplification.signedArea(of: quadrilateral), 0)
        XCTAssertNil(PolygonSimplification.bestQuadrilateral(of: [SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2)]))
        XCTAssertNil(PolygonSimplification.bestQuadrilateral(of: []))
    }
}

final class CircleFitTests: XCTestCase {
    func testTaubinRecoversANoisyCircle() throws {
        var generator = SeededGenerator(seed: 21)
        let points = (0..<200).map { index -> SIMD2<Double> in
            let angle = Double(index) / 200 * 2 * Double.pi
            let radius = 25 + Double(generator.nextUniform(-0.5, 0.5))
            return SIMD2(40 + radius * cos(angle), 30 + radius * sin(angle))
        }
        let circle = try XCTUnwrap(CircleFit.taubin(points))
        XCTAssertEqual(circle.centre.x, 40, accuracy: 0.1)
        XCTAssertEqual(circle.centre.y, 30, accuracy: 0.1)
        XCTAssertEqual(circle.radius, 25, accuracy: 0.1)
        // Uniform noise of ±0.5 has an RMS of 0.5/√3 ≈ 0.29.
        XCTAssertEqual(circle.residual, 0.29, accuracy: 0.05)
    }

    func testTaubinOnAQuarterArc() throws {
        var generator = SeededGenerator(seed: 22)
        let points = (0..<60).map { index -> SIMD2<Double> in
            let angle = Double(index) / 60 * Double.pi / 2
            let radius = 50 + Double(generator.nextUniform(-0.3, 0.3))
            return SIMD2(-10 + radius * cos(angle), 5 + radius * sin(angle))
        }
        let circle = try XCTUnwrap(CircleFit.taubin(points))
        XCTAssertEqual(circle.centre.x, -10, accuracy: 1.5)
        XCTAssertEqual(circle.centre.y, 5, accuracy: 1.5)
        XCTAssertEqual(circle.radius, 50, accuracy: 1.5)
    }

    func testRobustFitIgnoresACoveringEdge() throws {
        // Three quarters of a circle of radius 20 at (50, 50), closed by a straight chord (a bag's edge).
        var points: [SIMD2<Double>] = []
        for index in 0..<150 {
            let angle = -Double.pi / 4 + Double(index) / 150 * 1.5 * Double.pi
            points.append(SIMD2(50 + 20 * cos(angle), 50 + 20 * sin(angle)))
        }
        let start = points.last!, end = points.first!
        for index in 1..<40 { points.append(start + (end - start) * (Double(index) / 40)) }
        let plain = try XCTUnwrap(CircleFit.taubin(points))
        XCTAssertGreaterThan(PolygonSimplificationTests.length(plain.centre - SIMD2(50, 50)), 1)
        let robust = try XCTUnwrap(CircleFit.robust(points, inlierTolerance: 1))
        // Only the chord's few points within 1 px of the circle (near its ends) can pull it.
        XCTAssertEqual(robust.centre.x, 50, accuracy: 0.3)
        XCTAssertEqual(robust.centre.y, 50, accuracy: 0.3)
        XCTAssertEqual(robust.radius, 20, accuracy: 0.3)
    }

    func testDegenerateInputs() {
        XCTAssertNil(CircleFit.taubin([]))
        XCTAssertNil(CircleFit.taubin([SIMD2(0, 0), SIMD2(1, 1)]))
        XCTAssertNil(CircleFit.taubin([SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2), SIMD2(3, 3)]))
        XCTAssertNil(CircleFit.robust([SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2)], inlierTolerance: 1))
    }
}

/// The homography against maps worked out by hand.
final class HomographyTests: XCTestCase {
    func testMapsCornersAndMidpointsAsPerspectiveDoes() throws {
        // A scaling plus translation is a homography too: (x, y) → (2x + 1, 3y − 2).
        let square = [SIMD2<Double>(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)]
        let affine = try XCTUnwrap(Homography(from: square, to: square.map { SIMD2(2 * $0.x + 1, 3 * $0.y - 2) }))
        let mapped = try XCTUnwrap(affine.apply(SIMD2(0.25, 0.5)))
        XCTAssertEqual(mapped.x, 1.5, accuracy: 1e-12)
        XCTAssertEqual(mapped.y, -0.5, accuracy: 1e-12)
        // A trapezoid (a rectangle seen at an angle): the rectangle's centre goes to where the
        // trapezoid's diagonals cross, not to the mean of its corners.
        let trapezoid = [SIMD2<Double>(1, 0), SIMD2(3, 0), SIMD2(4, 2), SIMD2(0, 2)]
        let rectify = try XCTUnwrap(Homography(from: trapezoid, to: square))
        let back = try XCTUnwrap(rectify.inverted())
        let centre = try XCTUnwrap(back.apply(SIMD2(0.5, 0.5)))
        // Diagonals (1,0)–(4,2) and (3,0)–(0,2) cross at x = 2, y = 2/3·… : solve 1 + 3t = 3 − 3s, 2t = 2s → t = 1/3.
        XCTAssertEqual(centre.x, 2, accuracy: 1e-9)
        XCTAssertEqual(centre.y, 2.0 / 3, accuracy: 1e-9)
        for (corner, target) in zip(trapezoid, square) {
            let image = try XCTUnwrap(rectify.apply(corner))
            XCTAssertEqual(image.x, target.x, accuracy: 1e-9)
            XCTAssertEqual(image.y, target.y, accuracy: 1e-9)
        }
        XCTAssertNil(Homography(from: [SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2), SIMD2(0, 1)], to: square), "three collinear points")
    }
}
