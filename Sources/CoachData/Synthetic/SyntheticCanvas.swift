import CoachRandom
import Foundation

/// A float RGB drawing surface for synthetic images: shapes are given as inside-tests on
/// continuous coordinates and filled with 4×4 supersampled coverage (anti-aliased edges).
struct SyntheticCanvas {
    let width: Int
    let height: Int
    /// HWC, 0...255.
    var values: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        values = [Float](repeating: 0, count: width * height * 3)
    }

    /// Sets every pixel to `shade(x, y)` (pixel centres).
    mutating func paint(_ shade: (Double, Double) -> (Float, Float, Float)) {
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = shade(Double(x) + 0.5, Double(y) + 0.5)
                let index = (y * width + x) * 3
                values[index] = r; values[index + 1] = g; values[index + 2] = b
            }
        }
    }

    /// Blends `color(x, y)` over the pixels inside `contains`, weighted by coverage × `opacity`,
    /// within the pixel bounds `bounds` (minX, minY, maxX, maxY).
    mutating func fill(bounds: (Double, Double, Double, Double), opacity: Float = 1,
                       contains: (Double, Double) -> Bool, color: (Double, Double) -> (Float, Float, Float)) {
        let x0 = max(0, Int(bounds.0.rounded(.down))), y0 = max(0, Int(bounds.1.rounded(.down)))
        let x1 = min(width - 1, Int(bounds.2.rounded(.up))), y1 = min(height - 1, Int(bounds.3.rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return }
        for y in y0...y1 {
            for x in x0...x1 {
                var covered = 0
                for sy in 0..<4 {
                    for sx in 0..<4 where contains(Double(x) + (Double(sx) + 0.5) / 4, Double(y) + (Double(sy) + 0.5) / 4) {
                        covered += 1
                    }
                }
                guard covered > 0 else { continue }
                let alpha = Float(covered) / 16 * opacity
                let (r, g, b) = color(Double(x) + 0.5, Double(y) + 0.5)
                let index = (y * width + x) * 3
                values[index] += alpha * (r - values[index])
                values[index + 1] += alpha * (g - values[index + 1])
                values[index + 2] += alpha * (b - values[index + 2])
            }
        }
    }

    /// The canvas as a float image.
    var image: FloatImage { FloatImage(uncheckedWidth: width, height: height, channels: 3, values: values) }
}

/// Colour helpers for the synthetic scenes.
enum SyntheticColor {
    /// An RGB triple from a hue (0...1), saturation and value (0...1), scaled to 0...255.
    static func hsv(_ hue: Float, _ saturation: Float, _ value: Float) -> (Float, Float, Float) {
        let h = (hue - hue.rounded(.down)) * 6
        let sector = Int(h) % 6, f = h - Float(Int(h))
        let p = value * (1 - saturation), q = value * (1 - saturation * f), t = value * (1 - saturation * (1 - f))
        let rgb: (Float, Float, Float)
        switch sector {
        case 0: rgb = (value, t, p)
        case 1: rgb = (q, value, p)
        case 2: rgb = (p, value, t)
        case 3: rgb = (p, q, value)
        case 4: rgb = (t, p, value)
        default: rgb = (value, p, q)
        }
        return (rgb.0 * 255, rgb.1 * 255, rgb.2 * 255)
    }

    /// `color` scaled by `factor`.
    static func scaled(_ color: (Float, Float, Float), _ factor: Float) -> (Float, Float, Float) {
        (color.0 * factor, color.1 * factor, color.2 * factor)
    }
}
