import CoachData
import Foundation

/// A disc flying along a parabola: `x = startX + velocityX·τ`, `y = startY + velocityY·τ + ½·gravity·τ²`
/// in pixels (origin top-left, y down), `τ = time − startTime`, visible from `startTime` to `endTime`.
struct Flight {
    var startX: Double
    var startY: Double
    var velocityX: Double
    var velocityY: Double
    var gravity: Double = 600
    var radius: Double = 8
    var color = RGBColor(red: 200, green: 30, blue: 30)
    var startTime: Double
    var endTime: Double

    /// The centre at `time` (pixels, top-left origin).
    func center(at time: Double) -> (x: Double, y: Double) {
        let tau = time - startTime
        return (startX + velocityX * tau, startY + velocityY * tau + 0.5 * gravity * tau * tau)
    }

    func isVisible(at time: Double) -> Bool { time >= startTime - 1e-9 && time <= endTime + 1e-9 }

    /// The true path as `Y = a·X² + b·X + c` in normalised bottom-left coordinates of a
    /// `width × height` frame (`X = x / width`, `Y = 1 − y / height`), worked out by substituting
    /// `τ = (width·X − startX) / velocityX` into `y(τ)`.
    func visionCoefficients(width: Double, height: Double) -> (a: Double, b: Double, c: Double) {
        let k = width / velocityX              // dτ/dX
        let tau0 = -startX / velocityX         // τ at X = 0
        // y = startY + velocityY·(tau0 + kX) + ½g(tau0 + kX)²
        let yA = 0.5 * gravity * k * k
        let yB = velocityY * k + gravity * tau0 * k
        let yC = startY + velocityY * tau0 + 0.5 * gravity * tau0 * tau0
        return (-yA / height, -yB / height, 1 - yC / height)
    }
}

/// A disc swinging on a pendulum (a ∪-shaped arc, not a throw): centre
/// `(pivotX + length·sin θ, pivotY + length·cos θ)`, `θ = amplitude·sin(2π·time / period)`.
struct Pendulum {
    var pivotX: Double
    var pivotY: Double
    var length: Double
    var amplitude: Double
    var period: Double
    var radius: Double = 8
    var color = RGBColor(red: 230, green: 200, blue: 40)

    func center(at time: Double) -> (x: Double, y: Double) {
        let angle = amplitude * sin(2 * Double.pi * time / period)
        return (pivotX + length * sin(angle), pivotY + length * cos(angle))
    }
}

/// A small deterministic generator (SplitMix64) for the renderer's textures and noise.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }
}

/// Renders frames of a fixed camera: a grass-like textured field with a cornhole board, discs
/// flying over it (antialiased, with optional motion blur), and a little sensor noise per frame.
struct FrameSequenceRenderer {
    var width = 640
    var height = 360
    var frameRate = 30.0
    /// Per-channel sensor noise amplitude (uniform ±noise), fresh in every frame.
    var noise = 3
    /// Fraction of the frame interval the shutter is open (0: no motion blur).
    var shutter = 0.0
    var boardColor = RGBColor(red: 90, green: 60, blue: 40)
    private(set) var background: [UInt8] = []

    init(width: Int = 640, height: Int = 360, seed: UInt64 = 7, noise: Int = 3, shutter: Double = 0) {
        self.width = width
        self.height = height
        self.noise = noise
        self.shutter = shutter
        var random = SplitMix(state: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        // Grass: green with blade-like vertical streaks and speckle.
        var columnShade = [Double](repeating: 0, count: width)
        for x in 0..<width { columnShade[x] = random.uniform() * 30 - 15 }
        for y in 0..<height {
            for x in 0..<width {
                let speckle = random.uniform() * 24 - 12
                let shade = columnShade[x] * (0.6 + 0.4 * sin(Double(y) * 0.21 + Double(x) * 0.05)) + speckle
                let index = (y * width + x) * 3
                pixels[index] = UInt8(clamping: Int(60 + shade * 0.5))
                pixels[index + 1] = UInt8(clamping: Int(125 + shade))
                pixels[index + 2] = UInt8(clamping: Int(45 + shade * 0.4))
            }
        }
        // The board: a brown rectangle with wood grain, and a dark hole.
        let boardLeft = width * 55 / 100, boardRight = width * 85 / 100
        let boardTop = height * 62 / 100, boardBottom = height * 80 / 100
        let holeX = Double(boardLeft + (boardRight - boardLeft) * 3 / 4), holeY = Double(boardTop + boardBottom) / 2
        let holeRadius = Double(boardBottom - boardTop) * 0.2
        for y in boardTop..<boardBottom {
            for x in boardLeft..<boardRight {
                let grain = 6 * sin(Double(y) * 0.9 + sin(Double(x) * 0.03) * 3)
                let index = (y * width + x) * 3
                let dx = Double(x) + 0.5 - holeX, dy = Double(y) + 0.5 - holeY
                if dx * dx + dy * dy < holeRadius * holeRadius {
                    pixels[index] = 20; pixels[index + 1] = 15; pixels[index + 2] = 12
                } else {
                    pixels[index] = UInt8(clamping: Int(Double(boardColor.red) + grain))
                    pixels[index + 1] = UInt8(clamping: Int(Double(boardColor.green) + grain))
                    pixels[index + 2] = UInt8(clamping: Int(Double(boardColor.blue) + grain))
                }
            }
        }
        background = pixels
    }

    /// The time of frame `index`.
    func time(ofFrame index: Int) -> Double { Double(index) / frameRate }

    /// Frame `index` with `flights` (those visible) and `pendulums` drawn over the background.
    func frame(_ index: Int, flights: [Flight] = [], pendulums: [Pendulum] = [],
               extraDiscs: [(x: Double, y: Double, radius: Double, color: RGBColor)] = []) -> RGBImage {
        var pixels = background
        let time = self.time(ofFrame: index)
        let samples = shutter > 0 ? 5 : 1
        for flight in flights where flight.isVisible(at: time) {
            var centers: [(x: Double, y: Double)] = []
            for sample in 0..<samples {
                let offset = samples == 1 ? 0 : (Double(sample) / Double(samples - 1) - 0.5) * shutter / frameRate
                centers.append(flight.center(at: time + offset))
            }
            draw(centers: centers, radius: flight.radius, color: flight.color, into: &pixels)
        }
        for pendulum in pendulums {
            draw(centers: [pendulum.center(at: time)], radius: pendulum.radius, color: pendulum.color, into: &pixels)
        }
        for disc in extraDiscs {
            draw(centers: [(disc.x, disc.y)], radius: disc.radius, color: disc.color, into: &pixels)
        }
        if noise > 0 {
            var random = SplitMix(state: 0xABCD_0000 &+ UInt64(index))
            let span = UInt64(2 * noise + 1)
            for position in 0..<pixels.count {
                let delta = Int(random.next() % span) - noise
                pixels[position] = UInt8(clamping: Int(pixels[position]) + delta)
            }
        }
        // The sizes are right by construction.
        return (try? RGBImage(width: width, height: height, pixels: pixels)) ?? RGBImage(width: 0, height: 0, color: .black)
    }

    /// Blends a disc of `radius` at each of `centers` (their average coverage: motion blur),
    /// antialiased with 4 × 4 samples per pixel.
    private func draw(centers: [(x: Double, y: Double)], radius: Double, color: RGBColor, into pixels: inout [UInt8]) {
        let minX = max(0, Int((centers.map(\.x).min() ?? 0) - radius - 1))
        let maxX = min(width - 1, Int((centers.map(\.x).max() ?? 0) + radius + 1))
        let minY = max(0, Int((centers.map(\.y).min() ?? 0) - radius - 1))
        let maxY = min(height - 1, Int((centers.map(\.y).max() ?? 0) + radius + 1))
        guard minX <= maxX, minY <= maxY else { return }
        let radius2 = radius * radius
        for y in minY...maxY {
            for x in minX...maxX {
                var covered = 0
                for center in centers {
                    for sy in 0..<4 {
                        for sx in 0..<4 {
                            let px = Double(x) + (Double(sx) + 0.5) / 4 - center.x
                            let py = Double(y) + (Double(sy) + 0.5) / 4 - center.y
                            if px * px + py * py <= radius2 { covered += 1 }
                        }
                    }
                }
                guard covered > 0 else { continue }
                let alpha = Double(covered) / Double(16 * centers.count)
                let index = (y * width + x) * 3
                pixels[index] = UInt8((Double(pixels[index]) * (1 - alpha) + Double(color.red) * alpha).rounded())
                pixels[index + 1] = UInt8((Double(pixels[index + 1]) * (1 - alpha) + Double(color.green) * alpha).rounded())
                pixels[index + 2] = UInt8((Double(pixels[index + 2]) * (1 - alpha) + Double(color.blue) * alpha).rounded())
            }
        }
    }
}
