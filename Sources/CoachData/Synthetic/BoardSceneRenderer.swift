import CoachRandom
import Foundation

/// Renders a `BoardScene` by casting a ray per sample (2×2 per pixel by default) against
/// the ground plane, the tilted board with its hole, and the bags, and reports each
/// object's box and how much of it is visible.
struct BoardSceneRenderer {
    let scene: BoardScene
    let supersampling: Int

    /// What the rendering produced.
    struct Output {
        var image: RGBImage
        /// Samples where each object is the nearest surface (board counts its hole too).
        var visibleSamples: [BoardSceneObject: Int]
    }

    func render() -> Output {
        let width = scene.width, height = scene.height, n = max(1, supersampling)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var rowCounts = [[BoardSceneObject: Int]](repeating: [:], count: height)
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            rowCounts.withUnsafeMutableBufferPointer { counts in
                let countBase = counts.baseAddress!
                DispatchQueue.concurrentPerform(iterations: height) { row in
                    var local: [BoardSceneObject: Int] = [:]
                    for column in 0..<width {
                        var colour = SIMD3<Double>(repeating: 0)
                        for sy in 0..<n {
                            for sx in 0..<n {
                                let x = Double(column) + (Double(sx) + 0.5) / Double(n)
                                let y = Double(row) + (Double(sy) + 0.5) / Double(n)
                                let (c, object) = sample(x: x, y: y)
                                colour += c
                                if let object {
                                    local[object, default: 0] += 1
                                    if object == .hole { local[.board, default: 0] += 1 }
                                }
                            }
                        }
                        colour /= Double(n * n)
                        let light = scene.exposure * (1 + scene.gradient.x * (Double(column) / Double(width) - 0.5)
                                                      + scene.gradient.y * (Double(row) / Double(height) - 0.5))
                        colour = colour * scene.tint * light
                        let pixel = base + (row * width + column) * 3
                        for k in 0..<3 { pixel[k] = UInt8(max(0, min(255, colour[k].rounded()))) }
                    }
                    countBase[row] = local
                }
            }
        }
        // Sensor noise, drawn in pixel order from the scene's seed.
        var generator = SeededGenerator(seed: scene.textureSeed ^ 0x0DD5_EED5)
        for index in pixels.indices {
            let value = Double(pixels[index]) + scene.noise * Double(generator.nextNormal())
            pixels[index] = UInt8(max(0, min(255, value.rounded())))
        }
        var visible: [BoardSceneObject: Int] = [:]
        for counts in rowCounts { for (object, count) in counts { visible[object, default: 0] += count } }
        let image = (try? RGBImage(width: width, height: height, pixels: pixels)) ?? RGBImage(width: width, height: height, color: .black)
        return Output(image: image, visibleSamples: visible)
    }

    /// The colour seen along the ray through picture point (x, y), and the object hit (nil: ground or sky).
    func sample(x: Double, y: Double) -> (SIMD3<Double>, BoardSceneObject?) {
        let camera = scene.camera, origin = camera.position
        let direction = camera.ray(x: x, y: y)
        var nearest = Double.infinity
        var colour = scene.skyColor * (0.9 + 0.2 * max(0, min(1, y / Double(scene.height))))
        var object: BoardSceneObject? = nil
        let texture = ProceduralTexture(seed: scene.textureSeed)

        if direction.z < -1e-9 {
            let t = -origin.z / direction.z
            nearest = t
            let point = origin + t * direction
            colour = groundColour(point, texture: texture)
            if scene.hasBoard && inBoardShadow(point) { colour *= scene.shadowFactor }
        }
        guard scene.hasBoard else { return (colour, nil) }
        let frame = BoardScene.boardFrame
        let denominator = Vector3.dot(direction, frame.normal)
        if abs(denominator) > 1e-12 {
            // The board's top.
            let t = Vector3.dot(frame.origin - origin, frame.normal) / denominator
            if t > 0 && t < nearest {
                let offset = origin + t * direction - frame.origin
                let u = Vector3.dot(offset, frame.u), v = Vector3.dot(offset, frame.v)
                if u >= 0 && u <= BoardScene.boardWidth && v >= 0 && v <= BoardScene.boardLength {
                    nearest = t
                    let hole = SIMD2(u, v) - BoardScene.holeCenter
                    let r = (hole * hole).sum().squareRoot()
                    if r < BoardScene.holeRadius {
                        object = .hole
                        colour = SIMD3(22, 19, 16) * (0.6 + 0.8 * r / BoardScene.holeRadius)
                    } else {
                        object = .board
                        colour = boardColour(u: u, v: v, texture: texture)
                            * (0.7 + 0.3 * max(0, Vector3.dot(frame.normal, scene.lightDirection)))
                    }
                }
            }
            // Bags on the board lie on the board's plane raised by their thickness.
            let tBoardBags = (Vector3.dot(frame.origin - origin, frame.normal) + BoardScene.bagThickness) / denominator
            let boardBagPoint = origin + tBoardBags * direction - frame.origin
            let bu = Vector3.dot(boardBagPoint, frame.u), bv = Vector3.dot(boardBagPoint, frame.v)
            let tGroundBags = direction.z < -1e-9 ? (BoardScene.bagThickness - origin.z) / direction.z : -1
            let groundBagPoint = origin + tGroundBags * direction
            for (index, bag) in scene.bags.enumerated() {
                let t = bag.isOnBoard ? tBoardBags : tGroundBags
                guard t > 0 && t < nearest else { continue }
                let local = bag.isOnBoard ? SIMD2(bu, bv) : SIMD2(groundBagPoint.x, groundBagPoint.y)
                if let shade = bagShade(bag, at: local, texture: texture) {
                    nearest = t
                    object = .bag(index)
                    colour = shade
                }
            }
        }
        return (colour, object)
    }

    /// Whether the ground point lies in the board's shadow (the light's ray meets the board).
    func inBoardShadow(_ point: SIMD3<Double>) -> Bool {
        let frame = BoardScene.boardFrame
        let denominator = Vector3.dot(scene.lightDirection, frame.normal)
        guard abs(denominator) > 1e-9 else { return false }
        let t = Vector3.dot(frame.origin - point, frame.normal) / denominator
        guard t > 0 else { return false }
        let offset = point + t * scene.lightDirection - frame.origin
        let u = Vector3.dot(offset, frame.u), v = Vector3.dot(offset, frame.v)
        return u >= 0 && u <= BoardScene.boardWidth && v >= 0 && v <= BoardScene.boardLength
    }

    func groundColour(_ p: SIMD3<Double>, texture: ProceduralTexture) -> SIMD3<Double> {
        let base = scene.groundColor
        switch scene.ground {
        case .grass:
            return base * (0.7 + 0.55 * texture.fractal(p.x * 3, p.y * 3)) * (0.85 + 0.3 * texture.noise(p.x * 70, p.y * 70))
        case .concrete:
            return base * (0.85 + 0.3 * texture.fractal(p.x * 2, p.y * 2)) * (0.93 + 0.14 * texture.noise(p.x * 90, p.y * 90))
        case .deck:
            let plank = (p.x / 0.14).rounded(.down)
            let within = p.x / 0.14 - plank
            if within < 0.05 { return base * 0.35 }
            let grain = 0.9 + 0.1 * sin(p.y * 35 + 6 * texture.noise(p.x * 6, p.y * 1.5))
            return base * (0.8 + 0.35 * texture.cell(Int(plank))) * grain
        case .sand:
            return base * (0.88 + 0.22 * texture.fractal(p.x * 4, p.y * 4)) * (0.94 + 0.12 * texture.noise(p.x * 120, p.y * 120))
        case .tiles:
            let size = 0.45
            let i = (p.x / size).rounded(.down), j = (p.y / size).rounded(.down)
            let fx = p.x / size - i, fy = p.y / size - j
            if fx < 0.03 || fy < 0.03 { return SIMD3(repeating: 95) }
            let checker = (Int(i) + Int(j)) & 1 == 0 ? 1.0 : 0.9
            return base * checker * (0.95 + 0.1 * texture.noise(p.x * 20, p.y * 20))
        case .carpet:
            return base * (0.9 + 0.2 * texture.noise(p.x * 150, p.y * 150)) * (0.95 + 0.1 * texture.fractal(p.x, p.y))
        }
    }

    func boardColour(u: Double, v: Double, texture: ProceduralTexture) -> SIMD3<Double> {
        var colour: SIMD3<Double>
        switch scene.finish {
        case .wood(let base):
            let grain = 0.88 + 0.12 * sin(u * 90 + 7 * texture.noise(u * 3 + 40, v * 6))
            colour = base * grain * (0.95 + 0.1 * texture.noise(u * 40, v * 40))
        case let .painted(base, stripe):
            colour = base * (0.96 + 0.08 * texture.noise(u * 30 + 5, v * 30))
            if let stripe, v > 0.38 * BoardScene.boardLength && v < 0.5 * BoardScene.boardLength { colour = stripe }
        }
        let band = 0.03
        if scene.hasFrameBand && (u < band || u > BoardScene.boardWidth - band || v < band || v > BoardScene.boardLength - band) {
            colour *= 0.68
        }
        return colour
    }

    /// The bag's colour at surface point `point` (board or world coordinates), nil outside it.
    func bagShade(_ bag: BoardScene.Bag, at point: SIMD2<Double>, texture: ProceduralTexture) -> SIMD3<Double>? {
        let d = point - bag.position
        let c = cos(bag.angle), s = sin(bag.angle)
        let lx = c * d.x + s * d.y, ly = -s * d.x + c * d.y
        let h = bag.side / 2
        guard abs(lx) <= h && abs(ly) <= h else { return nil }
        // Rounded corners.
        let corner = 0.025
        let ex = abs(lx) - (h - corner), ey = abs(ly) - (h - corner)
        if ex > 0 && ey > 0 && ex * ex + ey * ey > corner * corner { return nil }
        let edge = min(h - abs(lx), h - abs(ly))
        let puff = 1 - 0.3 * (lx * lx + ly * ly) / (2 * h * h)
        var colour = bag.color * puff * (0.88 + 0.24 * texture.noise(lx * 200 + 3, ly * 200 - 7))
        if edge < 0.01 { colour *= 0.72 }
        return colour
    }
}
