import Foundation

extension RGBImage {
    /// Fills the disc of `radius` pixels around (`x`, `y`) (pixel coordinates, origin top-left).
    public mutating func fillDisc(x: Double, y: Double, radius: Double, color: RGBColor) {
        let r = max(0.5, radius)
        for py in Int((y - r).rounded(.down))...Int((y + r).rounded(.up)) where py >= 0 && py < height {
            for px in Int((x - r).rounded(.down))...Int((x + r).rounded(.up)) where px >= 0 && px < width {
                let dx = Double(px) + 0.5 - x, dy = Double(py) + 0.5 - y
                if dx * dx + dy * dy <= r * r { self[px, py] = color }
            }
        }
    }

    /// Draws a straight line `thickness` pixels wide from (`x0`, `y0`) to (`x1`, `y1`); parts
    /// outside the image are skipped.
    public mutating func drawLine(x0: Double, y0: Double, x1: Double, y1: Double, thickness: Double, color: RGBColor) {
        let length = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
        let steps = max(1, Int(length.rounded(.up)))
        guard steps < 1 << 16 else { return }
        for step in 0...steps {
            let t = Double(step) / Double(steps)
            fillDisc(x: x0 + (x1 - x0) * t, y: y0 + (y1 - y0) * t, radius: thickness / 2, color: color)
        }
    }
}
