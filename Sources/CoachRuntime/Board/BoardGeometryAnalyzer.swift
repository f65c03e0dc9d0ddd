import CoachData
import CoachVision
import Foundation

/// Measures the board once the scene is still: its outline by contours inside the detector's
/// box, its hole, and from them the field's scale (the Action & Vision app's setup step 3).
///
/// The box, widened by `boxMargin`, is reduced so its longer side is about `workingSize` pixels
/// and lightly blurred (against grass or carpet texture). Two masks are tried: pixels near the
/// board surface's colour (the median of the box's middle) and pixels far from the background's
/// colour (the median of the margin around the box), each split by Otsu's threshold on the colour
/// distance. In each, Suzuki–Abe border following gives the region around the box's centre, which
/// is reduced to its best quadrilateral; the quadrilateral must be filled by its region and
/// follow its border (`minimumFill`, `minimumSupport`); the first mask that passes is used. Each side is
/// then moved, at full resolution, to where the colour across it turns into the background's,
/// so a painted rim or frame belongs to the board. The hole is the most circular blob inside the
/// board that is not the surface's colour, or that is the background's (seen through the hole),
/// fitted with a robust Taubin circle fit and checked against a regulation hole's size (a
/// quarter of the board's width across). When no quadrilateral passes, the detector's box is
/// the board and `source` says why; when no hole passes, it is placed where a regulation board
/// has it. Deterministic; never fails.
public struct BoardGeometryAnalyzer: Sendable {
    /// Fraction of the box's width and height added on each side before looking for contours.
    public var boxMargin: Double = 0.1
    /// The longer side, in pixels, of the working image the widened box is reduced to (about).
    public var workingSize: Int = 400
    /// The smallest fraction of the quadrilateral its region must fill.
    public var minimumFill: Double = 0.8
    /// The smallest fraction of the region's border that must lie along the quadrilateral.
    public var minimumSupport: Double = 0.6
    /// The accepted board area as a fraction of the detector box's area.
    public var areaRange: ClosedRange<Double> = 0.3...1.6
    /// The smallest part of the box inside the image, in pixels per side, worth analysing.
    public static let minimumBoxSide = 16

    /// An analyser with the default settings.
    public init() {}

    /// The board in `image` near `boardBox` (pixels, origin top-left).
    public func analyze(_ image: RGBImage, boardBox: PixelBox) -> BoardGeometry {
        guard image.width > 0, image.height > 0 else { return fallback(boardBox, reason: .emptyImage, context: nil) }
        let left = max(0, boardBox.x), top = max(0, boardBox.y)
        let right = min(Double(image.width), boardBox.maxX), bottom = min(Double(image.height), boardBox.maxY)
        guard right > left, bottom > top, boardBox.x.isFinite, boardBox.y.isFinite else {
            return fallback(boardBox, reason: .boxOutsideImage, context: nil)
        }
        let visible = PixelBox(x: left, y: top, width: right - left, height: bottom - top)
        guard visible.width >= Double(Self.minimumBoxSide), visible.height >= Double(Self.minimumBoxSide) else {
            return fallback(visible, reason: .boxTooSmall(width: Int(visible.width), height: Int(visible.height)), context: nil)
        }
        let context = AnalysisContext(image: image, box: visible, margin: boxMargin, workingSize: workingSize)
        guard let surface = context.surfaceColour else { return fallback(visible, reason: .noContrast, context: nil) }

        var masks: [BinaryMask] = []
        let surfaceDistance = context.planes.distances(to: surface)
        if let threshold = Threshold.otsu(of: surfaceDistance) {
            masks.append(Threshold.binarize(surfaceDistance, threshold: threshold, above: false))
        }
        if let background = context.backgroundColour {
            let backgroundDistance = context.planes.distances(to: background)
            if let threshold = Threshold.otsu(of: backgroundDistance) {
                masks.append(Threshold.binarize(backgroundDistance, threshold: threshold, above: true))
            }
        }
        guard !masks.isEmpty else { return fallback(visible, reason: .noContrast, context: context) }

        // The surface mask first: it leaves out bags and other things lying across the board's
        // edge (the rim is added back by edge refinement); the background mask is for boards
        // whose surface is not one colour.
        var best: BoardCandidate?
        var bestFill = 0.0, bestSupport = 0.0
        for mask in masks {
            guard let candidate = boardCandidate(in: mask, context: context) else { continue }
            bestFill = max(bestFill, candidate.fill)
            bestSupport = max(bestSupport, candidate.support)
            let area = PolygonSimplification.area(of: candidate.corners) / context.workingBoxArea
            guard candidate.fill >= minimumFill, candidate.support >= minimumSupport, areaRange.contains(area) else { continue }
            best = candidate
            break
        }
        guard let board = best else {
            return fallback(visible, reason: .noBoardShape(bestFill: bestFill, bestSupport: bestSupport), context: context)
        }
        let fullCorners = board.corners.map(context.fullResolution)
        let corners = BoardEdgeRefinement.refined(fullCorners, in: image)
        let hole = BoardHoleFinder(context: context, surface: surface, surfaceDistance: surfaceDistance)
            .hole(inside: corners)
        return BoardGeometry(corners: corners, hole: hole, source: .contours)
    }

    /// The detector's box as the board, with a hole placed as on a regulation board.
    func fallback(_ box: PixelBox, reason: BoardContourFailure, context: AnalysisContext?) -> BoardGeometry {
        let corners = [SIMD2(box.x, box.y), SIMD2(box.maxX, box.y), SIMD2(box.maxX, box.maxY), SIMD2(box.x, box.maxY)]
        let hole: BoardHole
        if let context, let surface = context.surfaceColour {
            hole = BoardHoleFinder(context: context, surface: surface, surfaceDistance: context.planes.distances(to: surface))
                .estimatedHole(inside: corners, because: "the board's outline was not found (\(reason))")
        } else {
            hole = BoardHoleFinder.regulationHole(inside: corners, preferring: nil,
                                                  because: "the board's outline was not found (\(reason))")
        }
        return BoardGeometry(corners: corners, hole: hole, source: .detectorBox(reason: reason))
    }

    /// The best quadrilateral of the region of `mask` around the box's centre, with its scores.
    func boardCandidate(in mask: BinaryMask, context: AnalysisContext) -> BoardCandidate? {
        let contours = BorderFollowing.contours(of: mask)
        let centre = context.workingBoxCentre
        var chosen: Contour?
        var chosenArea = 0
        for contour in contours where !contour.isHole && contour.points.count >= 20 {
            let rect = contour.boundingRect
            guard centre.x >= rect.x, centre.x < rect.x + rect.width, centre.y >= rect.y, centre.y < rect.y + rect.height
            else { continue }
            if rect.width * rect.height > chosenArea {
                chosenArea = rect.width * rect.height
                chosen = contour
            }
        }
        guard let contour = chosen else { return nil }
        let points = contour.floatingPoints
        guard let corners = PolygonSimplification.bestQuadrilateral(of: points) else { return nil }
        let perimeter = PolygonSimplification.perimeter(of: corners)
        let tolerance = max(1.5, 0.01 * perimeter)
        var near = 0
        for point in points {
            var nearest = Double.infinity
            for side in 0..<4 {
                nearest = min(nearest, PolygonSimplification.distanceToSegment(point, corners[side], corners[(side + 1) % 4]))
            }
            if nearest <= tolerance { near += 1 }
        }
        let support = Double(near) / Double(points.count)
        // Fill: the share of pixels inside the quadrilateral that are in the mask.
        let box = PixelBox(enclosing: corners)
        var inside = 0, filled = 0
        let quadrilateral = BoardGeometry(corners: corners, hole: BoardHole(centre: .zero, radius: 0, source: .estimated(reason: "")),
                                          source: .contours)
        let lowY = max(0, Int(box.y.rounded(.down))), highY = min(mask.height - 1, Int(box.maxY.rounded(.up)))
        let lowX = max(0, Int(box.x.rounded(.down))), highX = min(mask.width - 1, Int(box.maxX.rounded(.up)))
        if lowY <= highY, lowX <= highX {
            for y in lowY...highY {
                for x in lowX...highX where quadrilateral.contains(SIMD2(Double(x), Double(y))) {
                    inside += 1
                    if mask.values[y * mask.width + x] { filled += 1 }
                }
            }
        }
        guard inside > 0 else { return nil }
        return BoardCandidate(corners: corners, fill: Double(filled) / Double(inside), support: support)
    }
}

/// A quadrilateral found in one mask (working coordinates) and how board-like it is.
struct BoardCandidate {
    /// Corners in working-image pixel indices.
    var corners: [SIMD2<Double>]
    /// The share of the quadrilateral's pixels in the mask.
    var fill: Double
    /// The share of the region's border points near the quadrilateral's sides.
    var support: Double
    /// The product of both.
    var score: Double { fill * support }
}

/// The working image of one analysis and the mapping back to full resolution.
struct AnalysisContext {
    /// The widened box region in full-resolution pixels.
    let region: PixelRect
    /// The downscaling factor from full resolution to the working image.
    let factor: Int
    /// The region, downscaled and lightly blurred.
    let planes: ColourPlanes
    /// The detector's box in working pixels (continuous coordinates).
    let workingBox: PixelBox

    init(image: RGBImage, box: PixelBox, margin: Double, workingSize: Int) {
        let padX = box.width * margin, padY = box.height * margin
        let left = max(0, Int((box.x - padX).rounded(.down))), top = max(0, Int((box.y - padY).rounded(.down)))
        let right = min(image.width, Int((box.maxX + padX).rounded(.up)))
        let bottom = min(image.height, Int((box.maxY + padY).rounded(.up)))
        region = PixelRect(x: left, y: top, width: right - left, height: bottom - top)
        factor = max(1, Int((Double(max(region.width, region.height)) / Double(max(1, workingSize))).rounded(.up)))
        planes = ColourPlanes(image, region: region, factor: factor).blurred(radius: 1)
        let scale = 1 / Double(factor)
        workingBox = PixelBox(x: (box.x - Double(left)) * scale, y: (box.y - Double(top)) * scale,
                              width: box.width * scale, height: box.height * scale)
    }

    /// The box's centre as a working pixel.
    var workingBoxCentre: SIMD2<Int> { SIMD2(Int(workingBox.centre.x), Int(workingBox.centre.y)) }

    /// The box's area in working pixels.
    var workingBoxArea: Double { max(1, workingBox.area) }

    /// A working pixel index's position in full-resolution pixels (its centre).
    func fullResolution(_ point: SIMD2<Double>) -> SIMD2<Double> {
        (point + 0.5) * Double(factor) + SIMD2(Double(region.x), Double(region.y))
    }

    /// A full-resolution position in working pixel indices.
    func working(_ point: SIMD2<Double>) -> SIMD2<Double> {
        (point - SIMD2(Double(region.x), Double(region.y))) / Double(factor) - 0.5
    }

    /// The median colour of the middle 40 % × 40 % of the box (the board's surface).
    var surfaceColour: SIMD3<Float>? {
        let box = workingBox
        let x0 = max(0, Int(box.x + 0.3 * box.width)), x1 = min(planes.width - 1, Int(box.x + 0.7 * box.width))
        let y0 = max(0, Int(box.y + 0.3 * box.height)), y1 = min(planes.height - 1, Int(box.y + 0.7 * box.height))
        guard x0 <= x1, y0 <= y1 else { return nil }
        var indices: [Int] = []
        for y in y0...y1 {
            for x in x0...x1 { indices.append(y * planes.width + x) }
        }
        return planes.medianColour(of: indices)
    }

    /// The median colour of the margin outside the box (the background), nil when the box fills the region.
    var backgroundColour: SIMD3<Float>? {
        var indices: [Int] = []
        for y in 0..<planes.height {
            for x in 0..<planes.width {
                let point = SIMD2(Double(x) + 0.5, Double(y) + 0.5)
                if point.x < workingBox.x || point.x > workingBox.maxX || point.y < workingBox.y || point.y > workingBox.maxY {
                    indices.append(y * planes.width + x)
                }
            }
        }
        return indices.count >= 50 ? planes.medianColour(of: indices) : nil
    }
}
