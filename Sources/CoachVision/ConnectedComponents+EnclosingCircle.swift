extension ConnectedComponents {
    /// The exact smallest circle holding every point (Welzl's algorithm in its iterative
    /// move-to-front form). The points are visited in a fixed pseudo-random order, so the result
    /// is deterministic and the expected time linear. No points give a zero circle at the origin.
    public static func minimumEnclosingCircle(of points: [SIMD2<Double>]) -> (center: SIMD2<Double>, radius: Double) {
        guard !points.isEmpty else { return (SIMD2(0, 0), 0) }
        var order = points
        // A fixed Fisher–Yates shuffle (SplitMix64 with a constant seed): the expected-linear
        // bound needs a random order; a constant seed keeps results reproducible.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        if order.count > 2 {
            for index in stride(from: order.count - 1, to: 0, by: -1) {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                order.swapAt(index, Int(z % UInt64(index + 1)))
            }
        }
        var circle = EnclosingCircleCandidate(centerX: order[0].x, centerY: order[0].y, radius: 0)
        for i in 1..<max(1, order.count) where !circle.contains(order[i]) {
            circle = EnclosingCircleCandidate(centerX: order[i].x, centerY: order[i].y, radius: 0)
            for j in 0..<i where !circle.contains(order[j]) {
                circle = EnclosingCircleCandidate(diameterFrom: order[i], to: order[j])
                for k in 0..<j where !circle.contains(order[k]) {
                    circle = EnclosingCircleCandidate(through: order[i], order[j], order[k])
                }
            }
        }
        return (SIMD2(circle.centerX, circle.centerY), circle.radius)
    }
}

/// A circle during the enclosing-circle search.
private struct EnclosingCircleCandidate {
    var centerX: Double
    var centerY: Double
    var radius: Double

    init(centerX: Double, centerY: Double, radius: Double) {
        self.centerX = centerX
        self.centerY = centerY
        self.radius = radius
    }

    /// The circle with the segment `first`–`second` as its diameter.
    init(diameterFrom first: SIMD2<Double>, to second: SIMD2<Double>) {
        centerX = (first.x + second.x) / 2
        centerY = (first.y + second.y) / 2
        radius = ((first.x - second.x) * (first.x - second.x) + (first.y - second.y) * (first.y - second.y))
            .squareRoot() / 2
    }

    /// The circle through three points; for (nearly) collinear points, the largest of the three
    /// diameter circles, which then holds all three.
    init(through first: SIMD2<Double>, _ second: SIMD2<Double>, _ third: SIMD2<Double>) {
        let bx = second.x - first.x, by = second.y - first.y
        let cx = third.x - first.x, cy = third.y - first.y
        let determinant = 2 * (bx * cy - by * cx)
        let scale = max(bx * bx + by * by, cx * cx + cy * cy)
        if abs(determinant) <= 1e-12 * max(scale, 1e-300) {
            let candidates = [EnclosingCircleCandidate(diameterFrom: first, to: second), EnclosingCircleCandidate(diameterFrom: first, to: third),
                              EnclosingCircleCandidate(diameterFrom: second, to: third)]
            self = candidates.max { $0.radius < $1.radius } ?? EnclosingCircleCandidate(diameterFrom: first, to: second)
            return
        }
        let b2 = bx * bx + by * by
        let c2 = cx * cx + cy * cy
        let ux = (cy * b2 - by * c2) / determinant
        let uy = (bx * c2 - cx * b2) / determinant
        centerX = first.x + ux
        centerY = first.y + uy
        radius = (ux * ux + uy * uy).squareRoot()
    }

    /// Whether `point` lies inside or on the circle (with a small tolerance for rounding).
    func contains(_ point: SIMD2<Double>) -> Bool {
        let dx = point.x - centerX, dy = point.y - centerY
        return (dx * dx + dy * dy).squareRoot() <= radius * (1 + 1e-9) + 1e-9
    }
}
