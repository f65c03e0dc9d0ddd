import CoachData
import CoachVision

/// A region of an RGB image as three float planes, optionally downscaled and blurred: the
/// working image board analysis measures colours on. Internal to the analyser.
struct ColourPlanes {
    let width: Int
    let height: Int
    var red: [Float]
    var green: [Float]
    var blue: [Float]

    /// The `region` of `image`, averaged over `factor × factor` blocks (partial blocks dropped).
    init(_ image: RGBImage, region: PixelRect, factor: Int) {
        let step = max(1, factor)
        let width = region.width / step, height = region.height / step
        self.width = width
        self.height = height
        let count = width * height
        var red = [Float](repeating: 0, count: count), green = red, blue = red
        let scale = 1 / Float(step * step)
        image.pixels.withUnsafeBufferPointer { source in
            for row in 0..<height {
                for column in 0..<width {
                    var sums = SIMD3<Int>(0, 0, 0)
                    for y in (region.y + row * step)..<(region.y + row * step + step) {
                        var index = (y * image.width + region.x + column * step) * 3
                        for _ in 0..<step {
                            sums &+= SIMD3(Int(source[index]), Int(source[index + 1]), Int(source[index + 2]))
                            index += 3
                        }
                    }
                    red[row * width + column] = Float(sums.x) * scale
                    green[row * width + column] = Float(sums.y) * scale
                    blue[row * width + column] = Float(sums.z) * scale
                }
            }
        }
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// The colour at pixel `index`.
    func colour(at index: Int) -> SIMD3<Float> { SIMD3(red[index], green[index], blue[index]) }

    /// The planes blurred by a `(2·radius + 1)²` box (edges use the pixels that exist).
    func blurred(radius: Int) -> ColourPlanes {
        guard radius > 0, width > 0, height > 0 else { return self }
        var result = self
        result.red = Self.boxBlur(red, width: width, height: height, radius: radius)
        result.green = Self.boxBlur(green, width: width, height: height, radius: radius)
        result.blue = Self.boxBlur(blue, width: width, height: height, radius: radius)
        return result
    }

    /// The per-channel median colour of the pixels `indices` name (nil for none).
    func medianColour(of indices: [Int]) -> SIMD3<Float>? {
        guard !indices.isEmpty else { return nil }
        func median(_ plane: [Float]) -> Float {
            var histogram = [Int](repeating: 0, count: 256)
            for index in indices { histogram[Int(min(max(plane[index], 0), 255))] += 1 }
            var seen = 0
            for level in 0..<256 {
                seen += histogram[level]
                if 2 * seen >= indices.count { return Float(level) + 0.5 }
            }
            return 255
        }
        return SIMD3(median(red), median(green), median(blue))
    }

    /// The Euclidean RGB distance of each pixel from `colour`, divided by √3 so it stays in 0...255.
    func distances(to colour: SIMD3<Float>) -> GrayImage {
        var values = [Float](repeating: 0, count: width * height)
        let scale = Float(1 / 3.0.squareRoot())
        for index in values.indices {
            let difference = self.colour(at: index) - colour
            values[index] = (difference * difference).sum().squareRoot() * scale
        }
        return GrayImage(width: width, height: height, pixels: values)
    }

    /// A separable box blur of one plane.
    static func boxBlur(_ plane: [Float], width: Int, height: Int, radius: Int) -> [Float] {
        var horizontal = [Float](repeating: 0, count: plane.count)
        for row in 0..<height {
            for column in 0..<width {
                let low = max(0, column - radius), high = min(width - 1, column + radius)
                var sum: Float = 0
                for x in low...high { sum += plane[row * width + x] }
                horizontal[row * width + column] = sum / Float(high - low + 1)
            }
        }
        var result = horizontal
        for row in 0..<height {
            let low = max(0, row - radius), high = min(height - 1, row + radius)
            for column in 0..<width {
                var sum: Float = 0
                for y in low...high { sum += horizontal[y * width + column] }
                result[row * width + column] = sum / Float(high - low + 1)
            }
        }
        return result
    }
}
