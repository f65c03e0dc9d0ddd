/// How wide text is in a terminal, so tables of class names line up whatever the language.
extension String {
    /// The columns a terminal gives the text: 2 for East Asian wide and fullwidth characters
    /// (Chinese, Japanese, Korean) and emoji, 0 for combining marks (as in the decomposed names
    /// macOS gives files), variation selectors, skin-tone modifiers and zero-width joiners, 1 for
    /// everything else.
    public var terminalWidth: Int {
        unicodeScalars.reduce(0) { $0 + Self.columns(of: $1) }
    }

    /// The text padded with spaces to `width` columns: on the right (labels) or, with `left`, on
    /// the left (numbers); text already as wide or wider is returned whole.
    public func padded(toWidth width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: Swift.max(0, width - terminalWidth))
        return left ? fill + self : self + fill
    }

    static func columns(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0xFE00...0xFE0F).contains(value) || scalar.properties.isEmojiModifier { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }
}
