import CoachRandom
import Foundation

/// The kinds of training gear the sample image set shows (its class labels).
public enum SportsGear: String, CaseIterable, Sendable {
    /// A ball with seams and a highlight.
    case ball
    /// A training cone with a reflective band.
    case cone
    /// A square bean bag with stitched edges.
    case beanBag = "bean_bag"
    /// A flying disc seen at an angle.
    case disc
}

/// What a generated image set contains.
public struct SportsGearDatasetSummary: Equatable, Sendable {
    /// The folder holding `train/` and `test/`.
    public var root: URL
    /// Images written per split and label.
    public var counts: [String: [String: Int]]
}

/// Renders the sample image-classification set: one piece of coaching gear (ball, cone,
/// bean bag or disc) per image, in a random colour (colours overlap between classes, so
/// shape decides), size, position and rotation, with a soft shadow, on a varied ground
/// (grass, court, sand, wood or turf with lines), with random lighting, blur and sensor
/// noise. Written as FORMATS §1 folders `train/<label>/` and `test/<label>/` of JPEGs.
/// Everything follows from the seed.
public struct SportsGearImageGenerator: Sendable {
    /// Side of the square images in pixels.
    public var imageSize: Int = 160
    /// JPEG quality of the written files.
    public var jpegQuality: Int = 90

    /// A generator with the defaults (160-pixel images).
    public init() {}

    /// One rendered image of `gear`, drawn from `generator`.
    public func render(_ gear: SportsGear, using generator: inout SeededGenerator) -> RGBImage {
        let size = Double(imageSize)
        var canvas = SyntheticCanvas(width: imageSize, height: imageSize)
        paintGround(&canvas, using: &generator)
        // Scatter a few pebbles or leaves as clutter.
        for _ in 0..<generator.nextInt(in: 0...6) {
            let cx = Double(generator.nextUniform()) * size, cy = Double(generator.nextUniform()) * size
            let r = Double(generator.nextUniform(1.5, 4))
            let shade = SyntheticColor.hsv(generator.nextUniform(), generator.nextUniform(0, 0.5), generator.nextUniform(0.2, 0.8))
            canvas.fill(bounds: (cx - r, cy - r, cx + r, cy + r), contains: { ($0 - cx) * ($0 - cx) + ($1 - cy) * ($1 - cy) < r * r },
                        color: { _, _ in shade })
        }
        let scale = Double(generator.nextUniform(0.28, 0.5)) * size  // object half-extent
        let cx = size / 2 + Double(generator.nextUniform(-0.18, 0.18)) * size
        let cy = size / 2 + Double(generator.nextUniform(-0.18, 0.18)) * size
        let angle = Double(generator.nextUniform(-0.5, 0.5))
        let hue = generator.nextUniform()
        let color = SyntheticColor.hsv(hue, generator.nextUniform(0.55, 0.95), generator.nextUniform(0.6, 0.95))
        // Soft shadow below and to the right.
        let shadowX = cx + scale * 0.12, shadowY = cy + scale * 0.55
        for layer in 0..<3 {
            let grow = 1 + Double(layer) * 0.12
            canvas.fill(bounds: (shadowX - scale * grow, shadowY - scale * 0.4 * grow, shadowX + scale * grow, shadowY + scale * 0.4 * grow),
                        opacity: 0.18, contains: { x, y in
                            let dx = (x - shadowX) / (scale * 0.9 * grow), dy = (y - shadowY) / (scale * 0.3 * grow)
                            return dx * dx + dy * dy < 1
                        }, color: { _, _ in (0, 0, 0) })
        }
        drawGear(gear, on: &canvas, center: (cx, cy), extent: scale, angle: angle, color: color, using: &generator)
        var image = canvas.image
        image = image.adjustingExposure(stops: generator.nextUniform(-0.6, 0.4))
        if generator.nextBool(probability: 0.4) { image = image.blurred(sigma: Double(generator.nextUniform(0.4, 1.2))) }
        var noise = generator.fork()
        image = image.addingNoise(standardDeviation: generator.nextUniform(1, 6), using: &noise)
        return (try? image.rgbImage()) ?? RGBImage(width: imageSize, height: imageSize, color: .black)
    }

    /// Writes `trainingPerClass` and `testPerClass` images of every gear class into
    /// `root/train/<label>/` and `root/test/<label>/`.
    public func generate(into root: URL, trainingPerClass: Int, testPerClass: Int, seed: UInt64) throws -> SportsGearDatasetSummary {
        var problems: [String] = []
        if trainingPerClass < 1 { problems.append("trainingPerClass is \(trainingPerClass); expected at least 1") }
        if testPerClass < 0 { problems.append("testPerClass is \(testPerClass); expected at least 0") }
        if imageSize < 32 { problems.append("imageSize is \(imageSize); expected at least 32") }
        if !(1...100).contains(jpegQuality) { problems.append("jpegQuality is \(jpegQuality); expected 1...100") }
        if !problems.isEmpty { throw SyntheticDataError.invalidConfiguration(problems: problems) }
        var generator = SeededGenerator(seed: seed)
        var counts: [String: [String: Int]] = [:]
        for (split, perClass) in [("train", trainingPerClass), ("test", testPerClass)] where perClass > 0 {
            for gear in SportsGear.allCases {
                let folder = root.appendingPathComponent(split).appendingPathComponent(gear.rawValue)
                try SyntheticFileWriting.createDirectory(folder)
                for index in 0..<perClass {
                    var imageGenerator = generator.fork()
                    let image = render(gear, using: &imageGenerator)
                    let url = folder.appendingPathComponent(String(format: "%@-%04d.jpg", gear.rawValue, index))
                    let data: Data
                    do { data = try ImageEncoder.jpegData(image, quality: jpegQuality) } catch {
                        throw SyntheticDataError.cannotWrite(path: url.path, reason: (error as? LocalizedError)?.errorDescription ?? "\(error)")
                    }
                    try SyntheticFileWriting.write([UInt8](data), to: url)
                    counts[split, default: [:]][gear.rawValue, default: 0] += 1
                }
            }
        }
        return SportsGearDatasetSummary(root: root, counts: counts)
    }

    private func paintGround(_ canvas: inout SyntheticCanvas, using generator: inout SeededGenerator) {
        let kind = generator.nextInt(below: 5)
        let base: (Float, Float, Float)
        switch kind {
        case 0: base = SyntheticColor.hsv(generator.nextUniform(0.22, 0.36), generator.nextUniform(0.45, 0.8), generator.nextUniform(0.35, 0.65))  // grass
        case 1: base = SyntheticColor.hsv(generator.nextUniform(0.02, 0.1), generator.nextUniform(0.3, 0.6), generator.nextUniform(0.5, 0.8))   // clay court
        case 2: base = SyntheticColor.hsv(generator.nextUniform(0.1, 0.15), generator.nextUniform(0.2, 0.45), generator.nextUniform(0.7, 0.9)) // sand
        case 3: base = SyntheticColor.hsv(generator.nextUniform(0.06, 0.1), generator.nextUniform(0.4, 0.7), generator.nextUniform(0.45, 0.75)) // wood
        default: base = SyntheticColor.hsv(generator.nextUniform(0.5, 0.65), generator.nextUniform(0.3, 0.7), generator.nextUniform(0.3, 0.6)) // hard court
        }
        let stripe = Double(generator.nextUniform(8, 30)), tilt = Double(generator.nextUniform(-0.6, 0.6))
        let phase = Double(generator.nextUniform(0, 6.28))
        let gradient = generator.nextUniform(-0.25, 0.25)
        let size = Double(canvas.width)
        canvas.paint { x, y in
            var factor: Float = 1 + gradient * Float(y / size - 0.5)
            let u = x * Foundation.cos(tilt) + y * Foundation.sin(tilt)
            switch kind {
            case 0: factor *= 1 + 0.08 * Float(Foundation.sin(u / stripe * 3.14 + phase))             // mowing stripes
            case 3: factor *= 1 + 0.1 * Float(Foundation.sin(u / stripe * 6.28 + phase)) * Float(Foundation.sin(u * 0.9))  // planks and grain
            default: break
            }
            return SyntheticColor.scaled(base, factor)
        }
        // Court or field lines.
        if kind != 2, generator.nextBool(probability: 0.6) {
            let offset = Double(generator.nextUniform(0.1, 0.9)) * size, width = Double(generator.nextUniform(2, 5))
            let vertical = generator.nextBool()
            canvas.fill(bounds: (0, 0, size, size), opacity: 0.85, contains: { x, y in
                abs((vertical ? x : y) - offset + tilt * 10 * ((vertical ? y : x) / size)) < width / 2
            }, color: { _, _ in (235, 235, 230) })
        }
        // Texture: blotches.
        var texture = generator.fork()
        for _ in 0..<30 {
            let cx = Double(texture.nextUniform()) * size, cy = Double(texture.nextUniform()) * size, r = Double(texture.nextUniform(3, 12))
            let shade = SyntheticColor.scaled(base, texture.nextUniform(0.85, 1.15))
            canvas.fill(bounds: (cx - r, cy - r, cx + r, cy + r), opacity: 0.5,
                        contains: { ($0 - cx) * ($0 - cx) + ($1 - cy) * ($1 - cy) < r * r }, color: { _, _ in shade })
        }
    }

    private func drawGear(_ gear: SportsGear, on canvas: inout SyntheticCanvas, center: (Double, Double), extent: Double,
                          angle: Double, color: (Float, Float, Float), using generator: inout SeededGenerator) {
        let (cx, cy) = center
        let cosine = Foundation.cos(angle), sine = Foundation.sin(angle)
        // Object coordinates: u right, v down, in units of `extent`, rotated by `angle`.
        func local(_ x: Double, _ y: Double) -> (Double, Double) {
            let dx = x - cx, dy = y - cy
            return ((dx * cosine + dy * sine) / extent, (-dx * sine + dy * cosine) / extent)
        }
        let bounds = (cx - extent * 1.5, cy - extent * 1.5, cx + extent * 1.5, cy + extent * 1.5)
        let light = (Double(generator.nextUniform(-0.5, 0.5)), Double(generator.nextUniform(-0.6, -0.2)))
        switch gear {
        case .ball:
            let radius = 0.75
            canvas.fill(bounds: bounds, contains: { x, y in let (u, v) = local(x, y); return u * u + v * v < radius * radius },
                        color: { x, y in
                            let (u, v) = local(x, y)
                            let d = ((u - light.0 * radius) * (u - light.0 * radius) + (v - light.1 * radius) * (v - light.1 * radius)).squareRoot()
                            return SyntheticColor.scaled(color, Float(max(0.45, 1.25 - 0.55 * d / radius)))
                        })
            // Seams: two arcs.
            let seam = generator.nextBool() ? (Float(245), Float(245), Float(240)) : (Float(30), Float(30), Float(30))
            let bend = Double(generator.nextUniform(0.5, 0.9))
            canvas.fill(bounds: bounds, opacity: 0.9, contains: { x, y in
                let (u, v) = local(x, y)
                guard u * u + v * v < radius * radius * 0.92 else { return false }
                let a = abs(((u - bend) * (u - bend) + v * v).squareRoot() - bend * 0.95)
                let b = abs(((u + bend) * (u + bend) + v * v).squareRoot() - bend * 0.95)
                return min(a, b) < 0.045
            }, color: { _, _ in seam })
        case .cone:
            let band = SyntheticColor.hsv(0, 0, generator.nextUniform(0.85, 1))
            let tip = Double(generator.nextUniform(0.08, 0.2))
            func inside(_ u: Double, _ v: Double) -> Bool {
                guard v > -0.9, v < 0.65 else { return false }
                let halfWidth = tip + (0.55 - tip) * (v + 0.9) / 1.55
                return abs(u) < halfWidth
            }
            // Square base plate.
            canvas.fill(bounds: bounds, contains: { x, y in let (u, v) = local(x, y); return abs(u) < 0.8 && v > 0.6 && v < 0.78 },
                        color: { _, _ in SyntheticColor.scaled(color, 0.8) })
            canvas.fill(bounds: bounds, contains: { x, y in let (u, v) = local(x, y); return inside(u, v) },
                        color: { x, y in
                            let (u, _) = local(x, y)
                            return SyntheticColor.scaled(color, Float(1.1 - 0.35 * abs(u + light.0 * 0.3) / 0.55))
                        })
            canvas.fill(bounds: bounds, contains: { x, y in let (u, v) = local(x, y); return inside(u, v) && v > -0.25 && v < -0.05 },
                        color: { _, _ in band })
        case .beanBag:
            let aspect = Double(generator.nextUniform(0.8, 1.15))
            let power = 4.0
            func superellipse(_ u: Double, _ v: Double, _ r: Double) -> Bool {
                Foundation.pow(abs(u / (r * aspect)), power) + Foundation.pow(abs(v / r), power) < 1
            }
            canvas.fill(bounds: bounds, contains: { x, y in let (u, v) = local(x, y); return superellipse(u, v, 0.68) },
                        color: { x, y in
                            let (u, v) = local(x, y)
                            // Puffy: brighter in the middle.
                            return SyntheticColor.scaled(color, Float(1.1 - 0.3 * max(abs(u), abs(v)) / 0.68))
                        })
            // Stitching: a dashed line just inside the edge.
            let stitch = SyntheticColor.scaled(color, 0.45)
            canvas.fill(bounds: bounds, contains: { x, y in
                let (u, v) = local(x, y)
                guard superellipse(u, v, 0.6), !superellipse(u, v, 0.56) else { return false }
                return Int(((u + v) * 14).rounded(.down)) % 2 == 0 || Int(((u - v) * 14).rounded(.down)) % 2 == 0
            }, color: { _, _ in stitch })
        case .disc:
            let tilt = Double(generator.nextUniform(0.35, 0.7))
            func ellipse(_ u: Double, _ v: Double, _ r: Double) -> Bool { u * u + (v / tilt) * (v / tilt) < r * r }
            canvas.fill(bounds: bounds, contains: { x, y in let (u, v) = local(x, y); return ellipse(u, v, 0.85) },
                        color: { x, y in let (u, _) = local(x, y); return SyntheticColor.scaled(color, Float(1.05 - 0.2 * abs(u))) })
            canvas.fill(bounds: bounds, opacity: 0.7, contains: { x, y in
                let (u, v) = local(x, y); return ellipse(u, v, 0.62) && !ellipse(u, v, 0.55)
            }, color: { _, _ in SyntheticColor.scaled(color, 0.6) })
            canvas.fill(bounds: bounds, opacity: 0.5, contains: { x, y in
                let (u, v) = local(x, y); return ellipse(u + 0.15, v + 0.08 * tilt, 0.25)
            }, color: { _, _ in (250, 250, 250) })
        }
    }
}
