import CoachData
import Foundation

/// A pose clip drawn as a strip of stick figures, for looking at a segment rather than reading it.
public enum PoseFilmstrip {
    /// One tile: the frame's time and its drawing.
    public struct Tile {
        public var time: Double
        public var image: RGBImage
    }

    /// The tiles' background.
    public static let background = RGBColor(red: 40, green: 44, blue: 52)

    /// Up to `count` frames of `sequence`, evenly spaced from its first frame to its last, each
    /// drawn with `bones` on a dark `width` × `height` tile. Every tile shares one scale and
    /// placement — the box around all of the sequence's detected keypoints (x and y; z is left
    /// out) — so a step or a swing shows as the figure moving between tiles. A body18 sequence
    /// whose head lies below its feet (3-D data with y up) is turned upright; undetected joints
    /// are not drawn. Empty when no frame has a detected joint.
    public static func tiles(of sequence: PoseSequence, bones: [(Int, Int)], count: Int, width: Int, height: Int) -> [Tile] {
        let frames = sequence.frames
        guard count > 0, width > 0, height > 0, !frames.isEmpty else { return [] }
        var minX = Float.infinity, maxX = -Float.infinity, minY = Float.infinity, maxY = -Float.infinity
        for frame in frames {
            for case let k? in frame.keypoints where k.confidence > 0 && k.x.isFinite && k.y.isFinite {
                minX = min(minX, k.x); maxX = max(maxX, k.x); minY = min(minY, k.y); maxY = max(maxY, k.y)
            }
        }
        guard minX.isFinite else { return [] }
        let flip = isUpsideDown(sequence)
        // Fit the box into the tile with a margin, the same scale on both axes.
        let margin = 0.08, spanX = Double(max(maxX - minX, 1e-6)), spanY = Double(max(maxY - minY, 1e-6))
        let scale = min(Double(width) * (1 - 2 * margin) / spanX, Double(height) * (1 - 2 * margin) / spanY)
        let midX = Double(minX + maxX) / 2, midY = Double(minY + maxY) / 2
        let shown = min(count, frames.count)
        return (0..<shown).map { i in
            let index = shown == 1 ? 0 : Int((Double(i) * Double(frames.count - 1) / Double(shown - 1)).rounded())
            let frame = frames[index]
            let placed = frame.keypoints.map { keypoint -> Keypoint? in
                guard let k = keypoint, k.confidence > 0, k.x.isFinite, k.y.isFinite else { return nil }
                let dy = (Double(k.y) - midY) * (flip ? -1 : 1)
                return Keypoint(x: Float((Double(width) / 2 + (Double(k.x) - midX) * scale) / Double(width)),
                                y: Float((Double(height) / 2 + dy * scale) / Double(height)), confidence: 1)
            }
            var image = RGBImage(width: width, height: height, color: background)
            image.drawPose(placed, jointSet: sequence.jointSet, bones: bones, minimumConfidence: 0.5)
            return Tile(time: frame.time, image: image)
        }
    }

    /// Whether a body18 sequence's head (nose, neck, eyes, ears) lies below its feet (ankles, else
    /// knees) on average, in image coordinates (y down).
    static func isUpsideDown(_ sequence: PoseSequence) -> Bool {
        guard sequence.jointSet.kind == .body18 else { return false }
        func meanY(_ names: [String]) -> Float? {
            let indices = names.compactMap { sequence.jointSet.index(of: $0) }
            var sum: Float = 0, n: Float = 0
            for frame in sequence.frames {
                for i in indices where i < frame.keypoints.count {
                    if let k = frame.keypoints[i], k.confidence > 0, k.y.isFinite { sum += k.y; n += 1 }
                }
            }
            return n > 0 ? sum / n : nil
        }
        guard let head = meanY(["nose", "neck", "rightEye", "leftEye", "rightEar", "leftEar"]),
              let feet = meanY(["rightAnkle", "leftAnkle"]) ?? meanY(["rightKnee", "leftKnee"]) else { return false }
        return head > feet
    }
}
