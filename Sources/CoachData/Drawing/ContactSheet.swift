import Foundation

/// A grid of frames on one picture, each labelled with its time: how a video's extracted poses
/// are shown to check by eye.
public enum ContactSheet {
    /// `frames` (each with a label), scaled to `tileWidth` pixels wide (aspect kept), in rows of
    /// `columns`, on a dark background.
    public static func make(_ frames: [(image: RGBImage, label: String)], columns: Int = 4, tileWidth: Int = 320) throws -> RGBImage {
        precondition(!frames.isEmpty && columns > 0 && tileWidth > 0)
        let first = frames[0].image
        let tileHeight = max(1, Int((Double(first.height) * Double(tileWidth) / Double(max(first.width, 1))).rounded()))
        let gap = 4, rows = (frames.count + columns - 1) / columns, used = min(columns, frames.count)
        var sheet = try RGBImage(width: used * tileWidth + (used + 1) * gap, height: rows * tileHeight + (rows + 1) * gap,
                                 pixels: [UInt8](repeating: 24, count: (used * tileWidth + (used + 1) * gap) * (rows * tileHeight + (rows + 1) * gap) * 3))
        for (index, frame) in frames.enumerated() {
            let tile = try frame.image.resized(width: tileWidth, height: tileHeight).rgbImage()
            let left = gap + (index % columns) * (tileWidth + gap), top = gap + (index / columns) * (tileHeight + gap)
            for y in 0..<tileHeight { for x in 0..<tileWidth { sheet[left + x, top + y] = tile[x, y] } }
            let scale = max(1, tileWidth / 160)
            sheet.fillRectangle(x0: left, y0: top, x1: left + BitmapFont.width(of: frame.label, scale: scale) + 4 * scale,
                                y1: top + (BitmapFont.glyphHeight + 2) * scale, color: .black)
            sheet.drawText(frame.label, x: left + 2 * scale, y: top + scale, scale: scale, color: .white)
        }
        return sheet
    }
}
