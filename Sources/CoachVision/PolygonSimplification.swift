import Foundation

/// Polygon tools for contours: Ramer–Douglas–Peucker simplification, area, convex hull, and
/// the reduction of a contour to the quadrilateral that best describes it.
///
/// Points are `(x, y)` in image pixels (y down). "Counter-clockwise" below is in the
/// mathematical sense of the shoelace formula (positive area), which appears clockwise on screen.
public enum PolygonSimplification {
    /// The signed shoelace area of a closed polygon (positive when counter-clockwise in x-right, y-up terms).
    public static func signedArea(of polygon: [SIMD2<Double>]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var sum: Double = 0
        for index in polygon.indices {
            let current = polygon[index], next = polygon[(index + 1) % polygon.count]
            sum += current.x * next.y - next.x * current.y
        }
        return sum / 2
    }

    /// The unsigned area of a closed polygon.
    public static func area(of polygon: [SIMD2<Double>]) -> Double { abs(signedArea(of: polygon)) }

    /// The perimeter of a closed polygon.
    public static func perimeter(of polygon: [SIMD2<Double>]) -> Double {
        guard polygon.count >= 2 else { return 0 }
        var sum: Double = 0
        for index in polygon.indices { sum += distance(polygon[index], polygon[(index + 1) % polygon.count]) }
        return sum
    }

    /// The convex hull (Andrew's monotone chain), counter-clockwise with positive area, without
    /// collinear points; fewer than three points come back as they are (deduplicated).
    public static func convexHull(of points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let sorted = points.filter { $0.x.isFinite && $0.y.isFinite }
            .sorted { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
        var unique: [SIMD2<Double>] = []
        for point in sorted where unique.last != point { unique.append(point) }
        guard unique.count >= 3 else { return unique }
        func cross(_ origin: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - origin.x) * (b.y - origin.y) - (a.y - origin.y) * (b.x - origin.x)
        }
        var lower: [SIMD2<Double>] = []
        for point in unique {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], point) <= 0 { lower.removeLast() }
            lower.append(point)
        }
        var upper: [SIMD2<Double>] = []
        for point in unique.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], point) <= 0 { upper.removeLast() }
            upper.append(point)
        }
        return Array(lower.dropLast() + upper.dropLast())
    }

    /// Ramer–Douglas–Peucker on an open polyline: the fewest of its points such that every
    /// dropped point lies within `tolerance` of the kept segment spanning it. Keeps both ends.
    public static func simplified(_ polyline: [SIMD2<Double>], tolerance: Double) -> [SIMD2<Double>] {
        guard polyline.count > 2 else { return polyline }
        var keep = [Bool](repeating: false, count: polyline.count)
        keep[0] = true
        keep[polyline.count - 1] = true
        var stack = [(0, polyline.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var farthest = first, farthestDistance = -1.0
            for index in (first + 1)..<last {
                let distance = distanceToSegment(polyline[index], polyline[first], polyline[last])
                if distance > farthestDistance {
                    farthestDistance = distance
                    farthest = index
                }
            }
            if farthestDistance > tolerance {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        return polyline.indices.filter { keep[$0] }.map { polyline[$0] }
    }

    /// Ramer–Douglas–Peucker on a closed contour: split at the first point and the point
    /// farthest from it, simplify both halves, and join them (no repeated end point).
    public static func simplifiedClosed(_ contour: [SIMD2<Double>], tolerance: Double) -> [SIMD2<Double>] {
        guard contour.count > 3 else { return contour }
        var farthest = 0, farthestDistance = -1.0
        for index in contour.indices {
            let distance = distance(contour[0], contour[index])
            if distance > farthestDistance {
                farthestDistance = distance
                farthest = index
            }
        }
        guard farthest > 0 else { return [contour[0]] }
        let first = simplified(Array(contour[0...farthest]), tolerance: tolerance)
        let second = simplified(Array(contour[farthest...]) + [contour[0]], tolerance: tolerance)
        return Array(first.dropLast()) + Array(second.dropLast())
    }

    /// The quadrilateral that best describes a closed contour, counter-clockwise (positive area),
    /// or nil when the points span no area.
    ///
    /// The largest-area quadrilateral with corners on the contour's convex hull is found first
    /// (the hull thinned by RDP to at most 24 corners, then every choice of four tried). Each side
    /// is then replaced by the longest straight run of contour points near it (within
    /// `sideTolerance`, default 3 % of the perimeter; a consensus of points within 0.3 % of the
    /// perimeter of a line, refitted by total least squares), and the corners become the
    /// intersections of adjacent lines. That recovers corners that are rounded or hidden (a bag
    /// over a board's corner) and ignores notches. A side without such a run keeps its first estimate.
    public static func bestQuadrilateral(of contour: [SIMD2<Double>], sideTolerance: Double? = nil) -> [SIMD2<Double>]? {
        let hull = convexHull(of: contour)
        guard hull.count >= 3, area(of: hull) > 0 else { return nil }
        let hullPerimeter = perimeter(of: hull)
        var corners = hull
        var tolerance = hullPerimeter * 0.002
        while corners.count > 24 {
            corners = simplifiedClosed(hull, tolerance: tolerance)
            tolerance *= 1.5
        }
        guard var quadrilateral = largestQuadrilateral(in: corners) else { return nil }
        let supportDistance = sideTolerance ?? hullPerimeter * 0.03
        let inlierDistance = max(1, hullPerimeter * 0.003)
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        for side in 0..<4 {
            let start = quadrilateral[side], end = quadrilateral[(side + 1) % 4]
            let length = distance(start, end)
            guard length > 0 else { return nil }
            let direction = (end - start) / length
            var band: [SIMD2<Double>] = []
            for point in contour {
                let along = ((point - start) * direction).sum() / length
                guard along > -0.05, along < 1.05 else { continue }
                if abs(cross(direction, point - start)) <= supportDistance { band.append(point) }
            }
            if let line = dominantLine(in: band, near: direction, inlierDistance: inlierDistance) {
                lines.append(line)
            } else {
                lines.append((start, direction))
            }
        }
        var refined: [SIMD2<Double>] = []
        for side in 0..<4 {
            // Corner `side` joins the side before it and the side starting at it.
            let before = lines[(side + 3) % 4], after = lines[side]
            guard let corner = intersection(before, after),
                  distance(corner, quadrilateral[side]) < 0.25 * hullPerimeter else {
                refined = []
                break
            }
            refined.append(corner)
        }
        if refined.count == 4, isConvex(refined) { quadrilateral = refined }
        return signedArea(of: quadrilateral) >= 0 ? quadrilateral : quadrilateral.reversed()
    }

    /// The straight run with the most points in `band` (within `inlierDistance` of a line no
    /// more than 20° from `direction`), refitted by total least squares; nil for fewer than 5.
    /// Deterministic: candidate lines pass through pairs of points spread along the band.
    static func dominantLine(in band: [SIMD2<Double>], near direction: SIMD2<Double>,
                             inlierDistance: Double) -> (point: SIMD2<Double>, direction: SIMD2<Double>)? {
        guard band.count >= 5 else { return nil }
        let sorted = band.sorted { ($0 * direction).sum() < ($1 * direction).sum() }
        let count = sorted.count
        var bestInliers: [SIMD2<Double>] = []
        let starts = min(count, 30)
        for spanFraction in [0.5, 0.25, 0.1] {
            let span = max(1, Int(Double(count) * spanFraction))
            for startIndex in 0..<starts {
                let first = startIndex * count / starts
                let second = first + span
                guard second < count else { continue }
                let a = sorted[first], b = sorted[second]
                let length = distance(a, b)
                guard length > 0 else { continue }
                let candidate = (b - a) / length
                guard abs((candidate * direction).sum()) >= 0.94 else { continue }
                var inliers: [SIMD2<Double>] = []
                for point in sorted where abs(cross(candidate, point - a)) <= inlierDistance { inliers.append(point) }
                if inliers.count > bestInliers.count { bestInliers = inliers }
            }
        }
        guard bestInliers.count >= 5, let line = fittedLine(bestInliers) else { return nil }
        // Keep the direction's sense.
        return (line.direction * direction).sum() >= 0 ? line : (line.point, -line.direction)
    }

    /// The four of `points` (in order around a convex polygon) enclosing the largest area,
    /// counter-clockwise; nil for fewer than three points.
    static func largestQuadrilateral(in points: [SIMD2<Double>]) -> [SIMD2<Double>]? {
        let count = points.count
        guard count >= 3 else { return nil }
        if count == 3 {
            // A triangle: split its longest side to make a (degenerate) fourth corner.
            return [points[0], points[1], points[2], (points[2] + points[0]) / 2]
        }
        if count == 4 { return points }
        var best: [SIMD2<Double>] = []
        var bestArea = -1.0
        for a in 0..<count {
            for b in (a + 1)..<count {
                for c in (b + 1)..<count {
                    for d in (c + 1)..<count {
                        let candidate = [points[a], points[b], points[c], points[d]]
                        let candidateArea = area(of: candidate)
                        if candidateArea > bestArea {
                            bestArea = candidateArea
                            best = candidate
                        }
                    }
                }
            }
        }
        return best
    }

    /// Whether a closed polygon turns the same way at every corner.
    public static func isConvex(_ polygon: [SIMD2<Double>]) -> Bool {
        guard polygon.count >= 3 else { return false }
        var sign = 0.0
        for index in polygon.indices {
            let a = polygon[index], b = polygon[(index + 1) % polygon.count], c = polygon[(index + 2) % polygon.count]
            let turn = cross(b - a, c - b)
            if turn == 0 { continue }
            if sign == 0 { sign = turn } else if (turn > 0) != (sign > 0) { return false }
        }
        return sign != 0
    }

    /// The total-least-squares line through `points`: a point on it and a unit direction.
    public static func fittedLine(_ points: [SIMD2<Double>]) -> (point: SIMD2<Double>, direction: SIMD2<Double>)? {
        guard points.count >= 2 else { return nil }
        var mean = SIMD2<Double>(0, 0)
        for point in points { mean += point }
        mean /= Double(points.count)
        var xx = 0.0, xy = 0.0, yy = 0.0
        for point in points {
            let offset = point - mean
            xx += offset.x * offset.x
            xy += offset.x * offset.y
            yy += offset.y * offset.y
        }
        guard xx + yy > 0 else { return nil }
        // The principal axis of the scatter: angle θ with tan 2θ = 2·xy / (xx − yy).
        let angle = 0.5 * atan2(2 * xy, xx - yy)
        return (mean, SIMD2(cos(angle), sin(angle)))
    }

    /// The distance between two points.
    static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let offset = a - b
        return (offset * offset).sum().squareRoot()
    }

    /// The 2-D cross product (z of the 3-D one).
    static func cross(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { a.x * b.y - a.y * b.x }

    /// The distance from `point` to the segment from `start` to `end`.
    public static func distanceToSegment(_ point: SIMD2<Double>, _ start: SIMD2<Double>, _ end: SIMD2<Double>) -> Double {
        let segment = end - start
        let lengthSquared = (segment * segment).sum()
        guard lengthSquared > 0 else { return distance(point, start) }
        let along = min(1, max(0, ((point - start) * segment).sum() / lengthSquared))
        return distance(point, start + along * segment)
    }

    /// Where two lines (point, direction) cross; nil when they are parallel.
    static func intersection(_ first: (point: SIMD2<Double>, direction: SIMD2<Double>),
                             _ second: (point: SIMD2<Double>, direction: SIMD2<Double>)) -> SIMD2<Double>? {
        let denominator = cross(first.direction, second.direction)
        guard abs(denominator) > 1e-9 else { return nil }
        let along = cross(second.point - first.point, second.direction) / denominator
        return first.point + along * first.direction
    }
}
