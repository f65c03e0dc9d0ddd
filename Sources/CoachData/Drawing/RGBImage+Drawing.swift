import Foundation

extension RGBImage {
    /// Fills the pixels of `[x0, x1) × [y0, y1)` that lie inside the image with `color`.
    public mutating func fillRectangle(x0: Int, y0: Int, x1: Int, y1: Int, color: RGBColor) {
        let left = max(0, x0), right = min(width, x1), top = max(0, y0), bottom = min(height, y1)
        guard left < right, top < bottom else { return }
        for y in top..<bottom { for x in left..<right { self[x, y] = color } }
    }

    /// Draws the outline of `box` (pixel coordinates, origin top-left), `thickness` pixels
    /// wide, inside the box's edges; parts outside the image are skipped.
    public mutating func strokeRectangle(_ box: BoundingBox, thickness: Int, color: RGBColor) {
        let x0 = Int(box.minX.rounded(.down)), y0 = Int(box.minY.rounded(.down))
        let x1 = Int(box.maxX.rounded(.up)), y1 = Int(box.maxY.rounded(.up))
        let t = max(1, thickness)
        fillRectangle(x0: x0, y0: y0, x1: x1, y1: min(y1, y0 + t), color: color)
        fillRectangle(x0: x0, y0: max(y0, y1 - t), x1: x1, y1: y1, color: color)
        fillRectangle(x0: x0, y0: y0, x1: min(x1, x0 + t), y1: y1, color: color)
        fillRectangle(x0: max(x0, x1 - t), y0: y0, x1: x1, y1: y1, color: color)
    }

    /// Draws `text` with `BitmapFont`, each font pixel `scale × scale` image pixels, its
    /// top-left corner at (`x`, `y`).
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int, color: RGBColor) {
        let s = max(1, scale)
        for (index, character) in text.enumerated() {
            let left = x + index * (BitmapFont.glyphWidth + BitmapFont.spacing) * s
            for row in 0..<BitmapFont.glyphHeight {
                for column in 0..<BitmapFont.glyphWidth where BitmapFont.isSet(character, column: column, row: row) {
                    fillRectangle(x0: left + column * s, y0: y + row * s, x1: left + (column + 1) * s, y1: y + (row + 1) * s,
                                  color: color)
                }
            }
        }
    }

    /// Draws a labelled box: the outline, and the label on a filled tab above the box's
    /// top-left corner (inside the box when there is no room above). Line width and text
    /// size grow with the image.
    public mutating func drawBox(_ box: BoundingBox, label: String, color: RGBColor) {
        let side = min(width, height)
        let thickness = max(2, side / 250), scale = max(1, side / 320)
        strokeRectangle(box, thickness: thickness, color: color)
        guard !label.isEmpty else { return }
        let padding = scale
        let tabWidth = BitmapFont.width(of: label, scale: scale) + 2 * padding
        let tabHeight = BitmapFont.glyphHeight * scale + 2 * padding
        let left = min(max(0, Int(box.minX.rounded(.down))), max(0, width - tabWidth))
        var top = Int(box.minY.rounded(.down)) - tabHeight
        if top < 0 { top = max(0, Int(box.minY.rounded(.down))) }
        fillRectangle(x0: left, y0: top, x1: left + tabWidth, y1: top + tabHeight, color: color)
        let luminance = 0.299 * Double(color.red) + 0.587 * Double(color.green) + 0.114 * Double(color.blue)
        drawText(label, x: left + padding, y: top + padding, scale: scale, color: luminance > 140 ? .black : .white)
    }
}
