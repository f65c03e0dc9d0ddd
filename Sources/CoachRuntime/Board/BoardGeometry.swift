import CoachVision
import Foundation

/// The cornhole board as seen in one image: its outline, its hole and the scale it gives.
///
/// Corners are in image pixels (origin top-left, y down), in clockwise order as seen on screen,
/// starting with the corner nearest the image's top-left (smallest x + y).
public struct BoardGeometry: Equatable, Sendable {
    /// The board's length: 4 ft.
    public static let boardLength = 1.2192
    /// The board's width: 2 ft.
    public static let boardWidth = 0.6096
    /// The hole's diameter: 6 in.
    public static let holeDiameter = 0.1524
    /// How far the hole's centre lies from the nearer short edge: 9 in.
    public static let holeCentreFromEnd = 0.2286

    /// The four corners, clockwise on screen from the one with the smallest x + y.
    public let corners: [SIMD2<Double>]
    /// The hole, found or estimated (see `BoardHole.source`).
    public var hole: BoardHole
    /// How the outline was found.
    public var source: BoardGeometrySource
    /// Metres per image pixel on the board's plane (see `init`).
    public let metresPerPixel: Double

    /// A board from four corners in any order (put into the documented order), its hole and source.
    ///
    /// The scale: the board's 1.2192 m over `L`, the mean length in pixels of its two longer
    /// sides. The long sides, not the short ones: a camera filming the game from the side (the
    /// app's view) sees the board's length across the image and its width foreshortened, so only
    /// the length carries the scale of the throws' plane; looking straight down both give the same.
    /// Fewer or more than four corners, or a board without area, give a scale of 0.
    public init(corners: [SIMD2<Double>], hole: BoardHole, source: BoardGeometrySource) {
        let ordered = Self.ordered(corners)
        self.corners = ordered
        self.hole = hole
        self.source = source
        let sides = Self.sideLengths(ordered)
        self.metresPerPixel = sides.long > 0 && sides.short > 0 ? Self.boardLength / sides.long : 0
    }

    /// The mean of the corners.
    public var centre: SIMD2<Double> {
        guard !corners.isEmpty else { return .zero }
        return corners.reduce(SIMD2<Double>.zero, +) / Double(corners.count)
    }

    /// The axis-aligned box around the corners.
    public var boundingBox: PixelBox { PixelBox(enclosing: corners) }

    /// The width in pixels of the axis-aligned box around the corners.
    public var boundingWidth: Double { boundingBox.width }

    /// The area of the outline in square pixels.
    public var area: Double { PolygonSimplification.area(of: corners) }

    /// The mean length in pixels of the two longer opposite sides (the board's 4 ft).
    public var lengthInPixels: Double { Self.sideLengths(corners).long }

    /// The mean length in pixels of the two shorter opposite sides (the board's 2 ft).
    public var widthInPixels: Double { Self.sideLengths(corners).short }

    /// Whether `point` (pixels) lies on the board's outline or inside it.
    public func contains(_ point: SIMD2<Double>) -> Bool {
        guard corners.count >= 3 else { return false }
        var sign = 0.0
        for index in corners.indices {
            let a = corners[index], b = corners[(index + 1) % corners.count]
            let turn = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if turn == 0 { continue }
            if sign == 0 { sign = turn } else if (turn > 0) != (sign > 0) { return false }
        }
        return true
    }

    /// Corners sorted clockwise on screen around their mean, starting at the smallest x + y.
    static func ordered(_ corners: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard corners.count >= 2 else { return corners }
        let middle = corners.reduce(SIMD2<Double>.zero, +) / Double(corners.count)
        // With y pointing down, increasing atan2(y, x) turns clockwise on screen.
        let sorted = corners.sorted { atan2($0.y - middle.y, $0.x - middle.x) < atan2($1.y - middle.y, $1.x - middle.x) }
        let first = sorted.indices.min { sorted[$0].x + sorted[$0].y < sorted[$1].x + sorted[$1].y } ?? 0
        return Array(sorted[first...] + sorted[..<first])
    }

    /// The mean lengths of the longer and the shorter pair of opposite sides of a quadrilateral.
    static func sideLengths(_ corners: [SIMD2<Double>]) -> (long: Double, short: Double) {
        guard corners.count == 4 else { return (0, 0) }
        func length(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        let first = (length(corners[0], corners[1]) + length(corners[2], corners[3])) / 2
        let second = (length(corners[1], corners[2]) + length(corners[3], corners[0])) / 2
        return (max(first, second), min(first, second))
    }
}

/// The board's hole in image pixels.
public struct BoardHole: Equatable, Sendable {
    /// The centre (pixels, origin top-left).
    public var centre: SIMD2<Double>
    /// The radius in pixels.
    public var radius: Double
    /// Whether the hole was seen or guessed.
    public var source: BoardHoleSource

    /// A hole from its parts.
    public init(centre: SIMD2<Double>, radius: Double, source: BoardHoleSource) {
        self.centre = centre
        self.radius = radius
        self.source = source
    }
}

/// How the hole was found.
public enum BoardHoleSource: Equatable, Sendable {
    /// A roughly circular contour inside the board, fitted with a circle (`residual`: RMS distance
    /// in pixels of the fitted contour points from the circle).
    case contour(residual: Double)
    /// Placed where a regulation board has it (centred across the board, 9 in from one end);
    /// `reason` says why no contour was used and which end was chosen.
    case estimated(reason: String)

    /// Whether the hole was placed from the board's dimensions rather than seen.
    public var isEstimated: Bool {
        if case .estimated = self { return true }
        return false
    }
}

/// How the board's outline was found.
public enum BoardGeometrySource: Equatable, Sendable {
    /// From contours inside the detector's box, simplified to a quadrilateral.
    case contours
    /// The detector's box itself, because the contours did not give a board (`reason`).
    case detectorBox(reason: BoardContourFailure)
}

/// Why the board's contours could not be used.
public enum BoardContourFailure: Equatable, Sendable, CustomStringConvertible {
    /// The image has no pixels.
    case emptyImage
    /// The box does not overlap the image.
    case boxOutsideImage
    /// The part of the box inside the image is too small to find contours in.
    case boxTooSmall(width: Int, height: Int)
    /// Colour does not separate anything inside the box (a blank or uniform region).
    case noContrast
    /// No region inside the box is shaped like a board: `bestFill` is the largest fraction of a
    /// candidate quadrilateral its region filled, `bestSupport` the largest fraction of a region's
    /// border lying along its quadrilateral (a board gives both above about 0.85).
    case noBoardShape(bestFill: Double, bestSupport: Double)

    /// A sentence for people.
    public var description: String {
        switch self {
        case .emptyImage: return "the image is empty"
        case .boxOutsideImage: return "the detector's box lies outside the image"
        case let .boxTooSmall(width, height): return "the detector's box is only \(width)×\(height) pixels inside the image"
        case .noContrast: return "nothing inside the detector's box stands out by colour"
        case let .noBoardShape(fill, support):
            return String(format: "no region inside the detector's box is shaped like a board (best fill %.2f, best edge support %.2f)",
                          fill, support)
        }
    }
}
