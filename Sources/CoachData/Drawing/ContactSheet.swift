import Foundation

/// A grid of frames on one picture, each labelled with its time: how a video's extracted poses
/// are shown to check by eye.
public enum ContactSheet {
    static let gap = 4, background: UInt8 = 24

    /// `frames` (each with a label), scaled to `tileWidth` pixels wide (aspect kept), in rows of
    /// `columns`, on a dark background.
    public static func make(_ frames: [(image: RGBImage, label: String)], columns: Int = 4, tileWidth: Int = 320) throws -> RGBImage {
        precondition(!frames.isEmpty && columns > 0 && tileWidth > 0)
        let first = frames[0].image
        let tileHeight = max(1, Int((Double(first.height) * Double(tileWidth) / Double(max(first.width, 1))).rounded()))
        let rows = (frames.count + columns - 1) / columns, used = min(columns, frames.count)
        var sheet = try blank(width: used * tileWidth + (used + 1) * gap, height: rows * tileHeight + (rows + 1) * gap)
        for (index, frame) in frames.enumerated() {
            try place(frame, on: &sheet, left: gap + (index % columns) * (tileWidth + gap),
                      top: gap + (index / columns) * (tileHeight + gap), width: tileWidth, height: tileHeight)
        }
        return sheet
    }

    /// `rows` one under another, each a title line across the picture above its frames (scaled to
    /// `tileWidth` × `tileHeight`, each with its label): how a clip's segments are shown, one per
    /// row. Titles longer than the picture is wide end in `~`.
    public static func make(rows: [(title: String, frames: [(image: RGBImage, label: String)])], tileWidth: Int,
                            tileHeight: Int) throws -> RGBImage {
        precondition(!rows.isEmpty && tileWidth > 0 && tileHeight > 0)
        let columns = max(1, rows.map(\.frames.count).max() ?? 1)
        let width = columns * tileWidth + (columns + 1) * gap
        let scale = max(1, tileWidth / 160), titleHeight = (BitmapFont.glyphHeight + 4) * scale
        let rowHeight = titleHeight + tileHeight + gap
        var sheet = try blank(width: width, height: rows.count * rowHeight + gap)
        let characters = max(1, (width - 2 * gap) / ((BitmapFont.glyphWidth + BitmapFont.spacing) * scale))
        for (r, row) in rows.enumerated() {
            let top = gap + r * rowHeight
            sheet.drawText(fitted(row.title, characters: characters), x: gap, y: top + 2 * scale, scale: scale, color: .white)
            for (c, frame) in row.frames.enumerated() {
                try place(frame, on: &sheet, left: gap + c * (tileWidth + gap), top: top + titleHeight, width: tileWidth,
                          height: tileHeight)
            }
        }
        return sheet
    }

    /// `text`, cut to `characters` with a closing `~` when longer.
    public static func fitted(_ text: String, characters: Int) -> String {
        text.count > characters ? String(text.prefix(max(0, characters - 1))) + "~" : text
    }

    private static func blank(width: Int, height: Int) throws -> RGBImage {
        try RGBImage(width: width, height: height, pixels: [UInt8](repeating: background, count: width * height * 3))
    }

    /// Scales `frame`'s image to `width` × `height` at (`left`, `top`) of `sheet`, its label (cut to
    /// the tile's width) on a black tab in the corner.
    private static func place(_ frame: (image: RGBImage, label: String), on sheet: inout RGBImage, left: Int, top: Int,
                              width: Int, height: Int) throws {
        let tile = frame.image.width == width && frame.image.height == height
            ? frame.image : try frame.image.resized(width: width, height: height).rgbImage()
        for y in 0..<height { for x in 0..<width { sheet[left + x, top + y] = tile[x, y] } }
        guard !frame.label.isEmpty else { return }
        let scale = max(1, width / 160)
        let label = fitted(frame.label, characters: max(1, (width - 4 * scale) / ((BitmapFont.glyphWidth + BitmapFont.spacing) * scale)))
        sheet.fillRectangle(x0: left, y0: top, x1: left + BitmapFont.width(of: label, scale: scale) + 4 * scale,
                            y1: top + (BitmapFont.glyphHeight + 2) * scale, color: .black)
        sheet.drawText(label, x: left + 2 * scale, y: top + scale, scale: scale, color: .white)
    }
}
