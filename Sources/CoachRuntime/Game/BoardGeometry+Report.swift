import Foundation

extension BoardGeometry: Encodable {
    enum ReportKeys: String, CodingKey { case corners, holeCentre, holeRadius, holeEstimated, metresPerPixel, method }

    /// How the board was measured, in words.
    public var methodDescription: String {
        switch source {
        case .contours: return "contours" + (hole.source.isEstimated ? " (hole estimated)" : "")
        case let .detectorBox(reason): return "the detector's box (contours failed: \(reason))"
        }
    }

    /// The corners, hole, scale and method, for reports.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: ReportKeys.self)
        try c.encode(corners.map { [$0.x, $0.y] }, forKey: .corners)
        try c.encode([hole.centre.x, hole.centre.y], forKey: .holeCentre)
        try c.encode(hole.radius, forKey: .holeRadius)
        try c.encode(hole.source.isEstimated, forKey: .holeEstimated)
        try c.encode(metresPerPixel, forKey: .metresPerPixel)
        try c.encode(methodDescription, forKey: .method)
    }
}
