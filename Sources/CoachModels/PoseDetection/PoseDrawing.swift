import CoachData
import Foundation

extension RGBImage {
    /// Draws a pose (keypoints normalised to the image, in `jointSet` order) as a skeleton:
    /// bones between joints both found with at least `minimumConfidence`, then the joints. Left
    /// joints orange, right ones blue, the rest white; line width grows with the image.
    public mutating func drawPose(_ keypoints: [Keypoint?], jointSet: JointSet, minimumConfidence: Float = 0.3) {
        drawPose(keypoints, jointSet: jointSet, bones: SkeletonGraph(jointSet: jointSet).edges.map { ($0.first, $0.second) },
                 minimumConfidence: minimumConfidence)
    }

    /// Draws a pose as `drawPose(_:jointSet:minimumConfidence:)` does, with `bones` (joint-index
    /// pairs) as its lines: a custom joint set's bones are not known from its names.
    public mutating func drawPose(_ keypoints: [Keypoint?], jointSet: JointSet, bones: [(Int, Int)],
                                  minimumConfidence: Float = 0.3) {
        let thickness = max(2, Double(min(width, height)) / 160)
        func point(_ index: Int) -> (Double, Double)? {
            guard index < keypoints.count, let k = keypoints[index], k.confidence >= minimumConfidence else { return nil }
            return (Double(k.x) * Double(width), Double(k.y) * Double(height))
        }
        func color(_ index: Int) -> RGBColor {
            let name = index < jointSet.count ? jointSet.names[index] : ""
            if name.hasPrefix("left") || name.hasSuffix("Left") { return RGBColor(red: 255, green: 150, blue: 30) }
            if name.hasPrefix("right") || name.hasSuffix("Right") { return RGBColor(red: 40, green: 140, blue: 255) }
            return .white
        }
        for (first, second) in bones {
            guard let a = point(first), let b = point(second) else { continue }
            drawLine(x0: a.0, y0: a.1, x1: b.0, y1: b.1, thickness: thickness, color: RGBColor(red: 230, green: 230, blue: 230))
        }
        for index in keypoints.indices {
            guard let p = point(index) else { continue }
            fillDisc(x: p.0, y: p.1, radius: thickness * 1.4, color: .black)
            fillDisc(x: p.0, y: p.1, radius: thickness, color: color(index))
        }
    }
}
