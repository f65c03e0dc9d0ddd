/// A rectangle of whole pixels: columns `x ..< x + width`, rows `y ..< y + height`.
public struct PixelRect: Equatable, Hashable, Sendable {
    /// Leftmost column.
    public var x: Int
    /// Top row.
    public var y: Int
    /// Number of columns (never negative once built through `init`).
    public var width: Int
    /// Number of rows (never negative once built through `init`).
    public var height: Int

    /// A rectangle from its top-left pixel and size (negative sizes count as zero).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// Whether the rectangle covers no pixel.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// The part of the rectangle inside a `width × height` image (possibly empty).
    public func clamped(toWidth imageWidth: Int, height imageHeight: Int) -> PixelRect {
        let left = min(max(x, 0), max(imageWidth, 0)), top = min(max(y, 0), max(imageHeight, 0))
        let right = min(max(x + width, left), max(imageWidth, 0))
        let bottom = min(max(y + height, top), max(imageHeight, 0))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

/// A two-valued image: `true` pixels are foreground; rows top to bottom, origin top-left.
public struct BinaryMask: Equatable, Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `height × width` values, rows top to bottom.
    public var values: [Bool]

    /// A mask of one value (negative sizes count as zero).
    public init(width: Int, height: Int, value: Bool = false) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.values = [Bool](repeating: value, count: self.width * self.height)
    }

    /// A mask over existing values; nil unless `values.count == width × height`.
    public init?(width: Int, height: Int, values: [Bool]) {
        guard width >= 0, height >= 0, values.count == width * height else { return nil }
        self.width = width
        self.height = height
        self.values = values
    }

    /// The value at column `x`, row `y`; `false` outside the mask.
    public subscript(x: Int, y: Int) -> Bool {
        get { x >= 0 && y >= 0 && x < width && y < height ? values[y * width + x] : false }
        set {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            values[y * width + x] = newValue
        }
    }

    /// The number of foreground pixels.
    public var foregroundCount: Int { values.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// The mask with foreground and background swapped.
    public func inverted() -> BinaryMask {
        var result = self
        for index in result.values.indices { result.values[index].toggle() }
        return result
    }
}
