/// One border found by border following: its pixels in order, its kind and its parent.
public struct Contour: Equatable, Sendable {
    /// The border pixels in the order they are followed, each `(x, y)` once per visit
    /// (OpenCV's CHAIN_APPROX_NONE); a one-pixel blob has one point.
    public var points: [SIMD2<Int>]
    /// Whether this is a hole border (background enclosed by foreground) rather than an outer border.
    public var isHole: Bool
    /// The index of the enclosing contour in the same list: an outer border's parent is the
    /// hole it lies in, a hole's parent is the outer border around it; nil at the top level.
    public var parent: Int?

    /// A contour from its parts.
    public init(points: [SIMD2<Int>], isHole: Bool, parent: Int?) {
        self.points = points
        self.isHole = isHole
        self.parent = parent
    }

    /// The points as floating-point coordinates of pixel centres' indices (for geometry).
    public var floatingPoints: [SIMD2<Double>] { points.map { SIMD2(Double($0.x), Double($0.y)) } }

    /// The smallest rectangle of pixels holding every point (empty for no points).
    public var boundingRect: PixelRect {
        guard let first = points.first else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
        var low = first, high = first
        for point in points {
            low = pointwiseMin(low, point)
            high = pointwiseMax(high, point)
        }
        return PixelRect(x: low.x, y: low.y, width: high.x - low.x + 1, height: high.y - low.y + 1)
    }
}

/// Suzuki and Abe's border following (1985): every border of an 8-connected binary image, with
/// the tree of which border encloses which (OpenCV's `findContours` with RETR_TREE and
/// CHAIN_APPROX_NONE).
///
/// Foreground is 8-connected and background 4-connected; pixels outside the mask count as
/// background. Contours come in the order their first pixel is met in a raster scan (top to
/// bottom, left to right), so a parent always precedes its children. Outer borders run
/// counter-clockwise as seen on screen (down the left side first), holes clockwise.
public enum BorderFollowing {
    /// The neighbour offsets, counter-clockwise as seen on screen starting east.
    private static let directions: [SIMD2<Int>] = [
        SIMD2(1, 0), SIMD2(1, -1), SIMD2(0, -1), SIMD2(-1, -1),
        SIMD2(-1, 0), SIMD2(-1, 1), SIMD2(0, 1), SIMD2(1, 1),
    ]

    /// All borders of `mask` with their hierarchy.
    public static func contours(of mask: BinaryMask) -> [Contour] {
        let width = mask.width + 2, height = mask.height + 2
        guard mask.width > 0, mask.height > 0 else { return [] }
        // Labels on a one-pixel frame of background: 0 background, 1 unvisited foreground,
        // ±n visited on border n (negative where the east neighbour is background).
        var labels = [Int32](repeating: 0, count: width * height)
        for row in 0..<mask.height {
            for column in 0..<mask.width where mask.values[row * mask.width + column] {
                labels[(row + 1) * width + column + 1] = 1
            }
        }
        var contours: [Contour] = []
        // Border number n (from 2) is contours[n − 2]; number 1 is the frame.
        var borderNumber: Int32 = 1
        for row in 1..<(height - 1) {
            var lastBorder: Int32 = 1
            for column in 1..<(width - 1) {
                let index = row * width + column
                let label = labels[index]
                guard label != 0 else { continue }
                var startNeighbour: SIMD2<Int>?
                var isHole = false
                if label == 1, labels[index - 1] == 0 {
                    startNeighbour = SIMD2(column - 1, row)
                } else if label >= 1, labels[index + 1] == 0 {
                    startNeighbour = SIMD2(column + 1, row)
                    isHole = true
                    if label > 1 { lastBorder = label }
                }
                if let neighbour = startNeighbour, borderNumber < Int32.max {
                    borderNumber += 1
                    let parent = parentIndex(isHole: isHole, lastBorder: lastBorder, contours: contours)
                    let points = follow(start: SIMD2(column, row), from: neighbour, number: borderNumber,
                                        labels: &labels, width: width)
                    contours.append(Contour(points: points.map { $0 &- SIMD2(1, 1) }, isHole: isHole, parent: parent))
                }
                let current = labels[index]
                if current != 1 { lastBorder = abs(current) }
            }
        }
        return contours
    }

    /// The parent of a new border, from the kind of the last border met on this row.
    private static func parentIndex(isHole: Bool, lastBorder: Int32, contours: [Contour]) -> Int? {
        guard lastBorder >= 2 else { return nil }
        let lastIndex = Int(lastBorder) - 2
        guard lastIndex < contours.count else { return nil }
        let lastIsHole = contours[lastIndex].isHole
        // A new border whose kind differs from the last border's lies inside it; one of the
        // same kind is its sibling and shares its parent.
        return isHole != lastIsHole ? lastIndex : contours[lastIndex].parent
    }

    /// Follows one border from `start`, whose background neighbour `from` it was entered by.
    private static func follow(start: SIMD2<Int>, from entry: SIMD2<Int>, number: Int32,
                               labels: inout [Int32], width: Int) -> [SIMD2<Int>] {
        func label(_ point: SIMD2<Int>) -> Int32 { labels[point.y * width + point.x] }
        // Index of a neighbour offset (dx, dy) at (dy + 1) · 3 + (dx + 1).
        let directionOfOffset = [3, 2, 1, 4, 0, 0, 5, 6, 7]
        func direction(from centre: SIMD2<Int>, to point: SIMD2<Int>) -> Int {
            let offset = point &- centre
            return directionOfOffset[(offset.y + 1) * 3 + offset.x + 1]
        }
        // Step 3.1: clockwise from the entry neighbour, the first foreground neighbour.
        let entryDirection = direction(from: start, to: entry)
        var first: SIMD2<Int>?
        for step in 0..<8 {
            let candidate = start &+ directions[(entryDirection - step + 8) % 8]
            if label(candidate) != 0 {
                first = candidate
                break
            }
        }
        guard let firstNeighbour = first else {
            labels[start.y * width + start.x] = -number
            return [start]
        }
        var points: [SIMD2<Int>] = []
        var previous = firstNeighbour
        var current = start
        // A border visits each pixel at most four times; the cap only guards against a bug looping.
        let visitLimit = 4 * labels.count
        while points.count < visitLimit {
            // Step 3.3: counter-clockwise from just after `previous`, the next foreground pixel.
            let previousDirection = direction(from: current, to: previous)
            var next = previous
            var eastWasBackground = false
            for step in 1...8 {
                let candidateDirection = (previousDirection + step) % 8
                let candidate = current &+ directions[candidateDirection]
                if label(candidate) != 0 {
                    next = candidate
                    break
                }
                if candidateDirection == 0 { eastWasBackground = true }
            }
            // Step 3.4: mark the pixel.
            let currentIndex = current.y * width + current.x
            if eastWasBackground {
                labels[currentIndex] = -number
            } else if labels[currentIndex] == 1 {
                labels[currentIndex] = number
            }
            points.append(current)
            // Step 3.5: back at the start, about to repeat the first move.
            if next == start && current == firstNeighbour { break }
            previous = current
            current = next
        }
        return points
    }
}
