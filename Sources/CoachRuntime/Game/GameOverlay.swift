import CoachData
import CoachModels
import Foundation

/// Draws what the game sees onto a frame, for a person to check by eye: the board's outline and
/// hole, the bags' paths, the player's skeleton and a caption.
public enum GameOverlay {
    /// Draws `board`, the `paths` (pixels), the `pose` (body18, normalised, origin top-left) and
    /// `caption` lines (top-left corner) onto `image`.
    public static func draw(on image: inout RGBImage, board: BoardGeometry?, paths: [[SIMD2<Double>]],
                            pose: [Keypoint?]?, caption: [String]) {
        let scale = max(1, Double(image.width) / 640)
        if let board {
            let outline = RGBColor(red: 255, green: 220, blue: 0)
            for (index, corner) in board.corners.enumerated() {
                let next = board.corners[(index + 1) % board.corners.count]
                image.drawLine(x0: corner.x, y0: corner.y, x1: next.x, y1: next.y, thickness: 2 * scale, color: outline)
            }
            do {
                let hole = board.hole
                let steps = 48
                for step in 0..<steps {
                    let a = Double(step) / Double(steps) * 2 * .pi, b = Double(step + 1) / Double(steps) * 2 * .pi
                    image.drawLine(x0: hole.centre.x + hole.radius * cos(a), y0: hole.centre.y + hole.radius * sin(a),
                                   x1: hole.centre.x + hole.radius * cos(b), y1: hole.centre.y + hole.radius * sin(b),
                                   thickness: 1.5 * scale, color: RGBColor(red: 0, green: 230, blue: 255))
                }
            }
        }
        for path in paths {
            for (from, to) in zip(path, path.dropFirst()) {
                image.drawLine(x0: from.x, y0: from.y, x1: to.x, y1: to.y, thickness: 2 * scale,
                               color: RGBColor(red: 255, green: 255, blue: 255))
            }
        }
        if let pose { image.drawPose(pose, jointSet: .body18) }
        let textScale = max(1, Int(scale.rounded()))
        for (line, text) in caption.enumerated() {
            let x = 6 * textScale, y = 6 * textScale + line * 12 * textScale
            image.drawText(text, x: x + textScale, y: y + textScale, scale: textScale, color: .black)
            image.drawText(text, x: x, y: y, scale: textScale, color: .white)
        }
    }
}
