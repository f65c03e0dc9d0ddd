import CoachRandom
import Foundation

/// One planned synthetic picture of a cornhole board: camera, board, bags, ground and light.
///
/// World frame: metres, z up, the ground is z = 0, the board's centre stands over the
/// origin with its long side along y (its raised back end toward +y). Regulation sizes: a
/// 0.61 × 1.22 m board whose front edge is 0.08 m and back edge 0.30 m above the ground,
/// a 0.152 m hole centred 0.229 m from the back edge, 0.15 m square bags.
public struct BoardScene: Sendable {
    /// A ground texture.
    public enum Ground: String, CaseIterable, Sendable {
        case grass, concrete, deck, sand, tiles, carpet
    }

    /// How the board's top is finished.
    public enum Finish: Sendable {
        /// Bare wood with grain, in the given base colour.
        case wood(SIMD3<Double>)
        /// Paint of one colour, optionally with a stripe of another across the board.
        case painted(SIMD3<Double>, stripe: SIMD3<Double>?)
    }

    /// A bag: which team, where and how turned.
    public struct Bag: Sendable {
        /// True for a red bag, false for a blue one.
        public var isRed: Bool
        /// Its colour (a shade of red or blue).
        public var color: SIMD3<Double>
        /// On the board: (u, v) board coordinates of its centre; on the ground: world (x, y).
        public var position: SIMD2<Double>
        /// Whether it lies on the board.
        public var isOnBoard: Bool
        /// Rotation about the surface normal, radians.
        public var angle: Double
        /// Side length in metres.
        public var side: Double
    }

    /// Picture width in pixels.
    public var width: Int
    /// Picture height in pixels.
    public var height: Int
    /// The camera.
    public var camera: PinholeCamera
    /// Whether there is a board (false for a negative picture).
    public var hasBoard: Bool
    /// The board's finish.
    public var finish: Finish
    /// Whether the board's top has a darker frame band along its edges.
    public var hasFrameBand: Bool
    /// The bags, in drawing order.
    public var bags: [Bag]
    /// The ground.
    public var ground: Ground
    /// The ground's base colour.
    public var groundColor: SIMD3<Double>
    /// Sky or wall colour above the horizon.
    public var skyColor: SIMD3<Double>
    /// Overall brightness factor.
    public var exposure: Double
    /// Per-channel white balance factors.
    public var tint: SIMD3<Double>
    /// Brightness gradient across the picture: (per image-width, per image-height) change.
    public var gradient: SIMD2<Double>
    /// Direction toward the light (for the board's shadow), unit length.
    public var lightDirection: SIMD3<Double>
    /// Darkening inside the board's shadow (1: none).
    public var shadowFactor: Double
    /// Standard deviation of sensor noise, 0…255 units.
    public var noise: Double
    /// Seed of the procedural textures.
    public var textureSeed: UInt64

    // Board geometry (regulation).
    static let boardWidth = 0.61, boardLength = 1.22, frontHeight = 0.08, backHeight = 0.30
    static let holeRadius = 0.076, holeFromBack = 0.229, bagThickness = 0.02

    /// The board's plane: front-left corner, unit width and length directions, normal.
    static var boardFrame: (origin: SIMD3<Double>, u: SIMD3<Double>, v: SIMD3<Double>, normal: SIMD3<Double>) {
        let rise = backHeight - frontHeight
        let run = (boardLength * boardLength - rise * rise).squareRoot()
        let v = SIMD3(0, run / boardLength, rise / boardLength)
        let u = SIMD3(1.0, 0, 0)
        let origin = SIMD3(-boardWidth / 2, -run / 2, frontHeight)
        return (origin, u, v, Vector3.cross(u, v))
    }

    /// The world point at board coordinates (u, v), raised by `lift` along the normal.
    static func boardPoint(_ u: Double, _ v: Double, lift: Double = 0) -> SIMD3<Double> {
        let frame = boardFrame
        return frame.origin + u * frame.u + v * frame.v + lift * frame.normal
    }

    /// The hole's centre in board coordinates.
    static var holeCenter: SIMD2<Double> { SIMD2(boardWidth / 2, boardLength - holeFromBack) }

    /// A random scene drawn from `generator`.
    public static func random(configuration: BoardSceneConfiguration, using generator: inout SeededGenerator) -> BoardScene {
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + generator.nextDouble() * (range.upperBound - range.lowerBound)
        }
        let size = configuration.imageSizes[generator.nextInt(below: configuration.imageSizes.count)]
        let hasBoard = generator.nextDouble() >= configuration.negativeShare
        // Camera: aim near the board, from a random direction and elevation.
        let elevation = uniform(configuration.elevationRange) * .pi / 180
        let azimuth = uniform(0...(2 * .pi))
        let distance = uniform(configuration.distanceRange)
        let aim = SIMD3(uniform(-configuration.maximumAimOffset...configuration.maximumAimOffset),
                        uniform(-configuration.maximumAimOffset...configuration.maximumAimOffset), 0.15)
        let position = aim + distance * SIMD3(cos(elevation) * sin(azimuth), -cos(elevation) * cos(azimuth), sin(elevation))
        let fieldOfView = uniform(configuration.fieldOfViewRange) * .pi / 180
        let roll = uniform(-configuration.maximumRoll...configuration.maximumRoll) * .pi / 180
        let camera = PinholeCamera(position: position, target: aim, roll: roll,
                                   focalLength: Double(size.height) / (2 * tan(fieldOfView / 2)),
                                   width: size.width, height: size.height)

        let woods: [SIMD3<Double>] = [SIMD3(196, 160, 110), SIMD3(215, 180, 130), SIMD3(170, 125, 80), SIMD3(225, 200, 160)]
        let paints: [SIMD3<Double>] = [SIMD3(235, 235, 230), SIMD3(30, 30, 35), SIMD3(25, 45, 110), SIMD3(150, 30, 30),
                                       SIMD3(30, 100, 50), SIMD3(230, 190, 40), SIMD3(120, 120, 125)]
        let finish: Finish
        if generator.nextBool(probability: 0.5) {
            finish = .wood(woods[generator.nextInt(below: woods.count)] * uniform(0.9...1.1))
        } else {
            let base = paints[generator.nextInt(below: paints.count)]
            let stripe = generator.nextBool(probability: 0.4) ? paints[generator.nextInt(below: paints.count)] : nil
            finish = .painted(base, stripe: stripe)
        }

        var bags: [Bag] = []
        if hasBoard {
            let count = generator.nextInt(in: configuration.bagCountRange)
            for _ in 0..<count {
                let isRed = generator.nextBool(probability: 0.5)
                let color = isRed ? SIMD3(uniform(150...225), uniform(15...60), uniform(15...45))
                                  : SIMD3(uniform(15...50), uniform(40...110), uniform(130...215))
                let side = uniform(0.14...0.16)
                let onBoard = generator.nextDouble() < configuration.bagsOnBoardShare
                var position: SIMD2<Double>
                if onBoard {
                    position = SIMD2(uniform(0.06...(boardWidth - 0.06)), uniform(0.06...(boardLength - 0.06)))
                } else {
                    // Around the board, outside its footprint.
                    repeat {
                        position = SIMD2(uniform(-1.3...1.3), uniform(-1.6...1.6))
                    } while abs(position.x) < boardWidth / 2 + 0.12 && abs(position.y) < boardLength / 2 + 0.12
                }
                bags.append(Bag(isRed: isRed, color: color, position: position, isOnBoard: onBoard,
                                angle: uniform(0...(2 * .pi)), side: side))
            }
        }
        let ground = Ground.allCases[generator.nextInt(below: Ground.allCases.count)]
        let groundColor: SIMD3<Double>
        switch ground {
        case .grass: groundColor = SIMD3(uniform(50...100), uniform(100...150), uniform(30...60))
        case .concrete: groundColor = SIMD3(repeating: uniform(120...180))
        case .deck: groundColor = SIMD3(uniform(120...170), uniform(85...120), uniform(55...80))
        case .sand: groundColor = SIMD3(uniform(180...215), uniform(160...190), uniform(120...150))
        case .tiles: groundColor = SIMD3(repeating: uniform(150...220))
        case .carpet: groundColor = SIMD3(uniform(70...130), uniform(70...120), uniform(70...120))
        }
        let lightAzimuth = uniform(0...(2 * .pi)), lightElevation = uniform(0.5...1.3)
        return BoardScene(
            width: size.width, height: size.height, camera: camera, hasBoard: hasBoard, finish: finish,
            hasFrameBand: generator.nextBool(probability: 0.6), bags: bags, ground: ground, groundColor: groundColor,
            skyColor: SIMD3(uniform(150...210), uniform(170...220), uniform(190...240)),
            exposure: uniform(0.65...1.25),
            tint: SIMD3(uniform(0.9...1.1), uniform(0.95...1.05), uniform(0.9...1.1)),
            gradient: SIMD2(uniform(-0.3...0.3), uniform(-0.3...0.3)),
            lightDirection: SIMD3(cos(lightElevation) * cos(lightAzimuth), cos(lightElevation) * sin(lightAzimuth), sin(lightElevation)),
            shadowFactor: uniform(0.45...0.85), noise: uniform(1...6), textureSeed: generator.next())
    }

    /// The outline points (world, in order round the object) of each object, for its
    /// projected box: the board's four corners, 32 points round the hole, a bag's corners.
    func outline(of object: BoardSceneObject) -> [SIMD3<Double>] {
        switch object {
        case .board:
            return [Self.boardPoint(0, 0), Self.boardPoint(Self.boardWidth, 0),
                    Self.boardPoint(Self.boardWidth, Self.boardLength), Self.boardPoint(0, Self.boardLength)]
        case .hole:
            let centre = Self.holeCenter
            return (0..<32).map { k in
                let a = Double(k) / 32 * 2 * .pi
                return Self.boardPoint(centre.x + Self.holeRadius * cos(a), centre.y + Self.holeRadius * sin(a))
            }
        case .bag(let index):
            let bag = bags[index]
            let h = bag.side / 2, c = cos(bag.angle), s = sin(bag.angle)
            return [(-h, -h), (h, -h), (h, h), (-h, h)].map { (dx, dy) -> SIMD3<Double> in
                let x = bag.position.x + c * dx - s * dy, y = bag.position.y + s * dx + c * dy
                return bag.isOnBoard ? Self.boardPoint(x, y, lift: Self.bagThickness) : SIMD3(x, y, Self.bagThickness)
            }
        }
    }
}

/// What a pixel of a synthetic board picture shows.
enum BoardSceneObject: Hashable, Sendable {
    case board, hole
    case bag(Int)
}

/// A pinhole camera: position, orientation (right, down, forward) and focal length in pixels.
public struct PinholeCamera: Sendable {
    /// Where the camera is (metres).
    public var position: SIMD3<Double>
    /// Image x direction in the world.
    public var right: SIMD3<Double>
    /// Image y direction in the world.
    public var down: SIMD3<Double>
    /// Viewing direction.
    public var forward: SIMD3<Double>
    /// Focal length in pixels.
    public var focalLength: Double
    /// Principal point (the picture's centre).
    public var centerX: Double, centerY: Double

    /// A camera at `position` looking at `target` (z up), turned by `roll` radians.
    public init(position: SIMD3<Double>, target: SIMD3<Double>, roll: Double, focalLength: Double, width: Int, height: Int) {
        self.position = position
        let forward = Vector3.normalized(target - position)
        var right = Vector3.normalized(Vector3.cross(forward, SIMD3(0, 0, 1)))
        var down = Vector3.cross(forward, right)
        let (c, s) = (cos(roll), sin(roll))
        (right, down) = (c * right + s * down, -s * right + c * down)
        self.forward = forward
        self.right = right
        self.down = down
        self.focalLength = focalLength
        self.centerX = Double(width) / 2
        self.centerY = Double(height) / 2
    }

    /// The picture position of world point `point`, nil when it is behind the camera.
    public func project(_ point: SIMD3<Double>) -> SIMD2<Double>? {
        let d = point - position
        let z = Vector3.dot(d, forward)
        guard z > 1e-6 else { return nil }
        return SIMD2(centerX + focalLength * Vector3.dot(d, right) / z, centerY + focalLength * Vector3.dot(d, down) / z)
    }

    /// The (unnormalised) viewing ray through picture point (x, y).
    func ray(x: Double, y: Double) -> SIMD3<Double> {
        forward + ((x - centerX) / focalLength) * right + ((y - centerY) / focalLength) * down
    }
}

/// Small vector helpers for the synthetic scenes.
enum Vector3 {
    @inline(__always) static func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }
    @inline(__always) static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
    @inline(__always) static func normalized(_ a: SIMD3<Double>) -> SIMD3<Double> {
        let length = dot(a, a).squareRoot()
        return length > 0 ? a / length : a
    }
}
