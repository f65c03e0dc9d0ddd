import CoachVision
import Foundation

/// Finds the hole inside a board's outline (working image of one analysis), or places it where a
/// regulation board has it.
///
/// Candidates are the blobs inside the outline (shrunk by 4 % of its width, away from the rim)
/// that are not the surface's colour, and those that are the background's colour (the floor seen
/// through the hole, which keeps a bag lying over part of the hole out of the blob). Each blob's
/// border is mapped onto the board's own plane (the homography from its four corners to a
/// 1.2192 × 0.6096 m rectangle, so a hole seen at an angle — an ellipse — is round again) and
/// gets a robust Taubin circle fit there; a circle counts when its radius is 0.55–1.6 times a
/// regulation hole's (7.62 cm), at least 40 % of the
/// circle's directions have fitted border points (a bag, or the shadow of the board's edge inside
/// the hole, may hide the rest), and its centre is on
/// the board, and blobs cut by the shrunk outline (rounded corners) are left out. The best circle
/// by coverage, size, closeness to a regulation hole's place and likeness of its inside to the
/// background (the floor seen through the hole) rather than the surface wins.
struct BoardHoleFinder {
    let context: AnalysisContext
    let surface: SIMD3<Float>
    let surfaceDistance: GrayImage

    /// The hole inside `corners` (full-resolution pixels), found or estimated.
    func hole(inside corners: [SIMD2<Double>]) -> BoardHole {
        let working = corners.map(context.working)
        let board = BoardGeometry(corners: working, hole: BoardHole(centre: .zero, radius: 0, source: .estimated(reason: "")),
                                  source: .contours)
        let boardWidth = board.widthInPixels
        guard boardWidth > 4, let plane = BoardPlane(corners: board.corners) else {
            return estimatedHole(inside: corners, because: "the board is too small to see a hole")
        }
        // The hole's radius in pixels along the board's length (its widest extent in the image),
        // and across (foreshortened when the board is seen at an angle).
        let expectedRadius = Self.holeRadius(of: board)
        let acrossRadius = expectedRadius * min(1, (boardWidth / BoardGeometry.boardWidth) / (board.lengthInPixels / BoardGeometry.boardLength))
        let holeRadius = BoardGeometry.holeDiameter / 2
        let priors = Self.regulationCentres(of: board.corners)
        // Inside the outline, away from its rim.
        let centre = board.centre
        let shrink = 0.04 * boardWidth + 1
        let inner = board.corners.map { corner -> SIMD2<Double> in
            let offset = corner - centre
            let distance = (offset * offset).sum().squareRoot()
            return distance > shrink ? corner - offset / distance * shrink * 1.5 : centre
        }
        let innerBoard = BoardGeometry(corners: inner, hole: board.hole, source: .contours)
        let planes = context.planes
        var notSurface = BinaryMask(width: planes.width, height: planes.height)
        var backgroundLike = BinaryMask(width: planes.width, height: planes.height)
        let surfaceThreshold = Self.threshold(surfaceDistance, inside: innerBoard)
        let background = context.backgroundColour
        let backgroundDistance = background.map { planes.distances(to: $0) }
        let backgroundThreshold = backgroundDistance.flatMap { Self.threshold($0, inside: nil) }
        let box = innerBoard.boundingBox
        let lowY = max(0, Int(box.y)), highY = min(planes.height - 1, Int(box.maxY) + 1)
        let lowX = max(0, Int(box.x)), highX = min(planes.width - 1, Int(box.maxX) + 1)
        guard lowY <= highY, lowX <= highX else {
            return estimatedHole(inside: corners, because: "the board is too small to see a hole")
        }
        for y in lowY...highY {
            for x in lowX...highX where innerBoard.contains(SIMD2(Double(x), Double(y))) {
                let index = y * planes.width + x
                if let surfaceThreshold, surfaceDistance.pixels[index] >= surfaceThreshold { notSurface.values[index] = true }
                if let backgroundDistance, let backgroundThreshold, backgroundDistance.pixels[index] < backgroundThreshold {
                    backgroundLike.values[index] = true
                }
            }
        }
        // Background-coloured blobs first (the floor seen through the hole; bags are not the
        // floor's colour); any blob that is not the surface's colour when none of those is round.
        var best: (circle: FittedCircle, score: Double)?
        for mask in [backgroundLike, notSurface] {
            for contour in BorderFollowing.contours(of: mask) where !contour.isHole && contour.points.count >= 8 {
                let rect = contour.boundingRect
                guard Double(max(rect.width, rect.height)) >= expectedRadius * 0.8,
                      Double(min(rect.width, rect.height)) <= expectedRadius * 5 else { continue }
                let points = contour.floatingPoints
                // A blob cut by the inner outline is a rounded corner or something at the rim,
                // not the hole, which lies well inside the board.
                let cut = points.filter { point in
                    (0..<4).contains { side in
                        PolygonSimplification.distanceToSegment(point, inner[side], inner[(side + 1) % 4]) <= 1.5
                    }
                }.count
                guard Double(cut) <= 0.1 * Double(points.count) else { continue }
                let onPlane = points.compactMap(plane.toPlane.apply)
                guard onPlane.count == points.count else { continue }
                let tolerance = holeRadius * max(0.1, 1 / expectedRadius)
                guard let planeCircle = CircleFit.robust(onPlane, inlierTolerance: tolerance, minimumInlierFraction: 0.3),
                      let centreInImage = plane.toImage.apply(planeCircle.centre) else { continue }
                let sizeRatio = planeCircle.radius / holeRadius
                guard sizeRatio >= 0.55, sizeRatio <= 1.6, board.contains(centreInImage) else { continue }
                let coverage = Self.angularCoverage(of: onPlane, around: planeCircle.centre, radius: planeCircle.radius,
                                                    tolerance: tolerance)
                let circle = FittedCircle(centre: centreInImage, radius: sizeRatio * expectedRadius,
                                          residual: planeCircle.residual / holeRadius * expectedRadius)
                guard coverage >= 0.4 else { continue }
                let priorDistance = priors.map { (($0 - circle.centre) * ($0 - circle.centre)).sum().squareRoot() }.min() ?? 0
                let placement = exp(-pow(priorDistance / boardWidth, 2))
                let score = coverage * (1 - min(1, abs(log(sizeRatio)))) * (0.5 + 0.5 * placement)
                    * backgroundLikeness(around: circle.centre, radius: 0.7 * sizeRatio * acrossRadius, background: background)
                if score > (best?.score ?? 0) { best = (circle, score) }
            }
            if best != nil { break }
        }
        guard let found = best?.circle else {
            return estimatedHole(inside: corners, because: "no round blob of a hole's size was found on the board")
        }
        let factor = Double(context.factor)
        return BoardHole(centre: context.fullResolution(found.centre), radius: found.radius * factor,
                         source: .contour(residual: found.residual * factor))
    }

    /// How much the disc's colour looks like the background rather than the surface, 0...1
    /// (0.5 when there is no background colour): the floor seen through a hole scores high, a bag low.
    func backgroundLikeness(around centre: SIMD2<Double>, radius: Double, background: SIMD3<Float>?) -> Double {
        guard let background else { return 0.5 }
        let planes = context.planes
        var indices: [Int] = []
        let lowY = max(0, Int(centre.y - radius)), highY = min(planes.height - 1, Int(centre.y + radius))
        let lowX = max(0, Int(centre.x - radius)), highX = min(planes.width - 1, Int(centre.x + radius))
        guard lowY <= highY, lowX <= highX else { return 0.5 }
        for y in lowY...highY {
            for x in lowX...highX where pow(Double(x) - centre.x, 2) + pow(Double(y) - centre.y, 2) <= radius * radius {
                indices.append(y * planes.width + x)
            }
        }
        guard let colour = planes.medianColour(of: indices) else { return 0.5 }
        let toSurface = Double(((colour - surface) * (colour - surface)).sum().squareRoot())
        let toBackground = Double(((colour - background) * (colour - background)).sum().squareRoot())
        return toSurface + toBackground > 0 ? toSurface / (toSurface + toBackground) : 0.5
    }

    /// A regulation hole inside `corners` (full resolution), at the end that looks least like the surface.
    func estimatedHole(inside corners: [SIMD2<Double>], because reason: String) -> BoardHole {
        let working = corners.map(context.working)
        let board = BoardGeometry(corners: working, hole: BoardHole(centre: .zero, radius: 0, source: .estimated(reason: "")),
                                  source: .contours)
        let radius = Self.holeRadius(of: board)
        let centres = Self.regulationCentres(of: board.corners)
        // Mean distance from the surface colour in a disc at each candidate place.
        let scores = centres.map { centre -> Double in
            var sum = 0.0, count = 0.0
            let lowY = max(0, Int(centre.y - radius)), highY = min(surfaceDistance.height - 1, Int(centre.y + radius))
            let lowX = max(0, Int(centre.x - radius)), highX = min(surfaceDistance.width - 1, Int(centre.x + radius))
            guard lowY <= highY, lowX <= highX else { return 0 }
            for y in lowY...highY {
                for x in lowX...highX where pow(Double(x) - centre.x, 2) + pow(Double(y) - centre.y, 2) <= radius * radius {
                    sum += Double(surfaceDistance.pixels[y * surfaceDistance.width + x])
                    count += 1
                }
            }
            return count > 0 ? sum / count : 0
        }
        let preferred = scores.count == 2 && abs(scores[0] - scores[1]) > 5 ? (scores[0] > scores[1] ? 0 : 1) : nil
        return Self.regulationHole(inside: corners, preferring: preferred,
                                   because: reason + (preferred == nil ? "" : "; the end that differs more from the surface"))
    }

    /// A regulation hole inside `corners`: at end `preferring` (an index into `regulationCentres`),
    /// or when nil at the end nearer the image's top (or left, for a level board).
    static func regulationHole(inside corners: [SIMD2<Double>], preferring: Int?, because reason: String) -> BoardHole {
        let board = BoardGeometry(corners: corners, hole: BoardHole(centre: .zero, radius: 0, source: .estimated(reason: "")),
                                  source: .contours)
        let radius = holeRadius(of: board)
        let centres = regulationCentres(of: board.corners)
        guard centres.count == 2 else {
            return BoardHole(centre: board.centre, radius: radius, source: .estimated(reason: reason))
        }
        let index = preferring ?? ((centres[0].y, centres[0].x) <= (centres[1].y, centres[1].x) ? 0 : 1)
        let suffix = preferring == nil ? "; placed at the end nearer the top of the image" : ""
        return BoardHole(centre: centres[index], radius: radius, source: .estimated(reason: reason + suffix))
    }

    /// A regulation hole's radius in pixels along the board's length.
    static func holeRadius(of board: BoardGeometry) -> Double {
        board.lengthInPixels * BoardGeometry.holeDiameter / BoardGeometry.boardLength / 2
    }

    /// Where a regulation hole's centre lies for each end: on the board's long axis, 9 in of 48 in
    /// from the end (empty for anything but four corners).
    static func regulationCentres(of corners: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard corners.count == 4 else { return [] }
        func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
        let firstPair = length(corners[1] - corners[0]) + length(corners[3] - corners[2])
        let secondPair = length(corners[2] - corners[1]) + length(corners[0] - corners[3])
        // The short sides are the ends; their midpoints span the long axis.
        let ends: (SIMD2<Double>, SIMD2<Double>) = firstPair <= secondPair
            ? ((corners[0] + corners[1]) / 2, (corners[2] + corners[3]) / 2)
            : ((corners[1] + corners[2]) / 2, (corners[3] + corners[0]) / 2)
        let fraction = BoardGeometry.holeCentreFromEnd / BoardGeometry.boardLength
        return [ends.0 + (ends.1 - ends.0) * fraction, ends.1 + (ends.0 - ends.1) * fraction]
    }

    /// The share of 24 directions around `centre` in which some point lies within `tolerance` of the circle.
    static func angularCoverage(of points: [SIMD2<Double>], around centre: SIMD2<Double>, radius: Double,
                                tolerance: Double) -> Double {
        var covered = [Bool](repeating: false, count: 24)
        for point in points {
            let offset = point - centre
            let distance = (offset * offset).sum().squareRoot()
            guard abs(distance - radius) <= tolerance else { continue }
            let angle = atan2(offset.y, offset.x)
            let bin = Int(((angle + Double.pi) / (2 * Double.pi) * 24).rounded(.down)) % 24
            covered[max(0, bin)] = true
        }
        return Double(covered.filter { $0 }.count) / 24
    }

    /// Otsu's threshold of `image` over the pixels inside `board` (all pixels when nil).
    static func threshold(_ image: GrayImage, inside board: BoardGeometry?) -> Float? {
        guard let board else { return Threshold.otsu(of: image) }
        var values: [Float] = []
        let box = board.boundingBox
        let lowY = max(0, Int(box.y)), highY = min(image.height - 1, Int(box.maxY) + 1)
        let lowX = max(0, Int(box.x)), highX = min(image.width - 1, Int(box.maxX) + 1)
        guard lowY <= highY, lowX <= highX else { return nil }
        for y in lowY...highY {
            for x in lowX...highX where board.contains(SIMD2(Double(x), Double(y))) {
                values.append(image.pixels[y * image.width + x])
            }
        }
        return Threshold.otsu(values: values)
    }
}

/// The board's own plane: the homographies between its four image corners and a 1.2192 × 0.6096 m
/// rectangle (the longer sides of the outline are the board's length).
struct BoardPlane {
    let toPlane: Homography
    let toImage: Homography

    init?(corners: [SIMD2<Double>]) {
        guard corners.count == 4 else { return nil }
        func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
        let firstIsLong = length(corners[1] - corners[0]) + length(corners[3] - corners[2])
            >= length(corners[2] - corners[1]) + length(corners[0] - corners[3])
        let a = firstIsLong ? BoardGeometry.boardLength : BoardGeometry.boardWidth
        let b = firstIsLong ? BoardGeometry.boardWidth : BoardGeometry.boardLength
        guard let forward = Homography(from: corners, to: [SIMD2(0, 0), SIMD2(a, 0), SIMD2(a, b), SIMD2(0, b)]),
              let backward = forward.inverted() else { return nil }
        toPlane = forward
        toImage = backward
    }
}
