import CoachData

/// Moves each side of a board's quadrilateral, at full resolution, out to where the colour
/// across it becomes the background's, so that a painted rim or frame counts as board.
///
/// For each side, colours are sampled along lines parallel to it (the middle 70 % of its length,
/// which avoids corners) at offsets from 6 px inside to `reach` + 8 px outside, and the
/// per-channel median of each line gives a profile across the edge that bags or texture lying on
/// part of the side do not disturb. The background is the profile's far end. The edge is where
/// the profile's distance from the background last falls through half its largest value; the
/// side moves there (at most `reach` = 6 % of the board's shorter side out, 3 px in). The
/// corners are the intersections of the moved sides. Sides without a clear edge stay put.
enum BoardEdgeRefinement {
    static func refined(_ corners: [SIMD2<Double>], in image: RGBImage) -> [SIMD2<Double>] {
        guard corners.count == 4 else { return corners }
        let centre = corners.reduce(SIMD2<Double>.zero, +) / 4
        func length(_ v: SIMD2<Double>) -> Double { (v * v).sum().squareRoot() }
        let sideLengths = (0..<4).map { length(corners[($0 + 1) % 4] - corners[$0]) }
        let shortSide = min((sideLengths[0] + sideLengths[2]) / 2, (sideLengths[1] + sideLengths[3]) / 2)
        guard shortSide > 8 else { return corners }
        let reach = max(4, (0.06 * shortSide).rounded())
        var lines: [(point: SIMD2<Double>, direction: SIMD2<Double>)] = []
        for side in 0..<4 {
            let start = corners[side], end = corners[(side + 1) % 4]
            let direction = (end - start) / sideLengths[side]
            var normal = SIMD2(-direction.y, direction.x)
            if (((start + end) / 2 - centre) * normal).sum() < 0 { normal = -normal }
            let offset = edgeOffset(start: start, direction: direction, length: sideLengths[side], normal: normal,
                                    reach: reach, image: image) ?? 0
            lines.append((start + offset * normal, direction))
        }
        var refined: [SIMD2<Double>] = []
        for corner in 0..<4 {
            let before = lines[(corner + 3) % 4], after = lines[corner]
            let denominator = before.direction.x * after.direction.y - before.direction.y * after.direction.x
            guard abs(denominator) > 1e-9 else { return corners }
            let difference = after.point - before.point
            let along = (difference.x * after.direction.y - difference.y * after.direction.x) / denominator
            let point = before.point + along * before.direction
            guard length(point - corners[corner]) <= 3 * reach else { return corners }
            refined.append(point)
        }
        return refined
    }

    /// How far (pixels, positive outwards) the board's edge lies from the side; nil when unclear.
    static func edgeOffset(start: SIMD2<Double>, direction: SIMD2<Double>, length: Double, normal: SIMD2<Double>,
                           reach: Double, image: RGBImage) -> Double? {
        let inner = -6, outer = Int(reach) + 8
        let sampleCount = max(10, min(150, Int(length * 0.7 / 2)))
        var profile: [SIMD3<Float>?] = []
        for offset in inner...outer {
            var red: [Float] = [], green: [Float] = [], blue: [Float] = []
            for sample in 0..<sampleCount {
                let along = length * (0.15 + 0.7 * Double(sample) / Double(max(1, sampleCount - 1)))
                let point = start + along * direction + Double(offset) * normal
                guard let colour = bilinearColour(image, at: point) else { continue }
                red.append(colour.x); green.append(colour.y); blue.append(colour.z)
            }
            guard red.count >= sampleCount / 2 else { profile.append(nil); continue }
            profile.append(SIMD3(median(red), median(green), median(blue)))
        }
        // The background: the median of the far end (offsets reach … reach + 8).
        let farValues = profile[(Int(reach) - inner)...].compactMap { $0 }
        guard farValues.count >= 4 else { return nil }
        let background = SIMD3(median(farValues.map(\.x)), median(farValues.map(\.y)), median(farValues.map(\.z)))
        let distances: [Float?] = profile.map { colour in
            colour.map { (($0 - background) * ($0 - background)).sum().squareRoot() }
        }
        let near = distances[0..<(Int(reach) - inner)].compactMap { $0 }
        guard let peak = near.max(), peak >= 25 else { return nil }
        let level = peak / 2
        // The last offset inside the reach still further than half the peak from the background.
        var last: Int?
        for index in 0..<(Int(reach) - inner) {
            if let distance = distances[index], distance > level { last = index }
        }
        guard let lastIndex = last else { return nil }
        var crossing = Double(lastIndex + inner)
        if lastIndex + 1 < distances.count, let here = distances[lastIndex], let next = distances[lastIndex + 1], here > next {
            crossing += Double((here - level) / (here - next))
        } else {
            crossing += 0.5
        }
        return min(reach, max(-3, crossing))
    }

    /// The colour at a continuous position (pixel centres at integer + 0.5); nil outside the image.
    static func bilinearColour(_ image: RGBImage, at point: SIMD2<Double>) -> SIMD3<Float>? {
        let x = point.x - 0.5, y = point.y - 0.5
        guard x >= 0, y >= 0, x <= Double(image.width - 1), y <= Double(image.height - 1) else { return nil }
        let x0 = min(Int(x), image.width - 1), y0 = min(Int(y), image.height - 1)
        let x1 = min(x0 + 1, image.width - 1), y1 = min(y0 + 1, image.height - 1)
        let fx = Float(x - Double(x0)), fy = Float(y - Double(y0))
        func colour(_ column: Int, _ row: Int) -> SIMD3<Float> {
            let index = (row * image.width + column) * 3
            return SIMD3(Float(image.pixels[index]), Float(image.pixels[index + 1]), Float(image.pixels[index + 2]))
        }
        let top = colour(x0, y0) * (1 - fx) + colour(x1, y0) * fx
        let bottom = colour(x0, y1) * (1 - fx) + colour(x1, y1) * fx
        return top * (1 - fy) + bottom * fy
    }

    static func median(_ values: [Float]) -> Float {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
