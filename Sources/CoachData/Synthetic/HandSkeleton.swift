import Foundation
import CoachRandom

/// Finger angles of one hand pose (radians): flexion at each finger's three joints, how
/// far the fingers spread, and the thumb's direction, opposition and flexion.
struct HandShape {
    /// Per finger (index, middle, ring, little): MCP, PIP and DIP flexion toward the palm.
    var fingerFlexion: [SIMD3<Float>]
    /// Per finger: extra sideways angle toward the thumb, added to the spread layout.
    var fingerSpread: [Float]
    /// Scale of the natural fan of the fingers (0 together … 1.5 wide).
    var spread: Float
    /// Thumb angle away from the index finger within the palm plane.
    var thumbAngle: Float
    /// How far the thumb turns out of the palm plane toward the palm side.
    var thumbOpposition: Float
    /// Thumb flexion at the MP and IP joints.
    var thumbFlexion: SIMD2<Float>

    /// A shape typical of `handClass`, varied by `generator`.
    static func random(_ handClass: SyntheticHandClass, using generator: inout SeededGenerator) -> HandShape {
        let open = SIMD3<Float>(5, 6, 4), curled = SIMD3<Float>(88, 102, 58)
        let tucked = (angle: Float(15), opposition: Float(50), flexion: SIMD2<Float>(38, 45))
        var flexion = [SIMD3<Float>](repeating: open, count: 4)
        var extra: [Float] = [0, 0, 0, 0]
        var spread = generator.nextUniform(0.9, 1.4)
        var thumb = (angle: generator.nextUniform(50, 75), opposition: generator.nextUniform(0, 15),
                     flexion: SIMD2<Float>(generator.nextUniform(0, 12), generator.nextUniform(0, 12)))
        func curl(_ fingers: [Int]) { for f in fingers { flexion[f] = curled } }
        switch handClass {
        case .open:
            break
        case .fist:
            curl([0, 1, 2, 3]); spread = 0.3; thumb = tucked
        case .one:
            curl([1, 2, 3]); spread = 0.5; thumb = tucked
        case .peace:
            curl([2, 3]); extra[0] = 9; extra[1] = -9; spread = 0.8
            thumb = (10, 55, SIMD2(42, 50))
        case .background:
            switch generator.nextInt(below: 10) {
            case 0, 1, 2:   // somewhere between open and fist, finger by finger
                for f in 0..<4 { flexion[f] = open + (curled - open) * generator.nextUniform(0.25, 0.75) }
                spread = generator.nextUniform(0.3, 1.2)
                let t = generator.nextUniform(0.2, 0.8)
                thumb = (50 - 35 * t, 10 + 40 * t, SIMD2(40 * t, 45 * t))
            case 3:         // thumbs up
                curl([0, 1, 2, 3]); spread = 0.3; thumb = (5, -5, SIMD2(0, 5))
            case 4:         // three
                curl([3]); spread = 0.9; thumb = tucked
            case 5:         // rock (index and little)
                curl([1, 2]); spread = 1.1; thumb = tucked
            case 6:         // OK sign: index and thumb tips touch
                flexion[0] = SIMD3(45, 55, 30); spread = 1.1; thumb = (30, 45, SIMD2(20, 20))
            case 7:         // L: index and thumb at a right angle
                curl([1, 2, 3]); spread = 0.5; thumb = (85, 0, SIMD2(0, 5))
            case 8:         // four: fingers out, thumb across the palm
                spread = 1.0; thumb = (0, 65, SIMD2(45, 40))
            default:        // claw: fingers hooked at the middle joints
                for f in 0..<4 { flexion[f] = SIMD3(15, 80, 60) }
                spread = 0.9
            }
        }
        func joint(_ v: Float) -> Float { syntheticRadians(v + 5 * generator.nextNormal()) }
        return HandShape(
            fingerFlexion: flexion.map { SIMD3(joint($0.x), joint($0.y), joint($0.z)) },
            fingerSpread: extra.map { syntheticRadians($0 + 2.5 * generator.nextNormal()) },
            spread: max(0, spread + 0.1 * generator.nextNormal()),
            thumbAngle: joint(thumb.angle),
            thumbOpposition: joint(thumb.opposition),
            thumbFlexion: SIMD2(joint(thumb.flexion.x), joint(thumb.flexion.y)))
    }
}

/// Forward kinematics of a 21-joint right hand in its own frame (units of hand length,
/// wrist at the origin): x toward the thumb, y along the fingers, z out of the palm.
struct HandSkeleton {
    var fingerLengthScale: Float
    var palmWidthScale: Float

    private static let knuckles: [SIMD2<Float>] = [[0.11, 0.47], [0.025, 0.49], [-0.06, 0.46], [-0.135, 0.41]]
    private static let phalanges: [SIMD3<Float>] = [[0.23, 0.14, 0.10], [0.26, 0.16, 0.11],
                                                    [0.24, 0.15, 0.10], [0.19, 0.11, 0.09]]
    private static let fan: [Float] = [9, 1, -7, -16]

    /// The 21 joints in `SyntheticJointNames.hand21` order.
    func joints(for shape: HandShape) -> [SIMD3<Float>] {
        let palmNormal = SIMD3<Float>(0, 0, 1)
        var points: [SIMD3<Float>] = [.zero]
        points.reserveCapacity(21)

        // Thumb: from the carpometacarpal joint near the wrist.
        let cmc = SIMD3<Float>(0.11 * palmWidthScale, 0.10, 0.02)
        let inPlane = SIMD3<Float>(sin(shape.thumbAngle), cos(shape.thumbAngle), 0)
        let base = inPlane * cos(shape.thumbOpposition) + palmNormal * sin(shape.thumbOpposition)
        let towardPalm = SyntheticVector.perpendicular(SIMD3(-1, 0.2, 0.6), to: base, fallback: palmNormal)
        let thumbLengths = SIMD3<Float>(0.23, 0.16, 0.13) * fingerLengthScale
        let mp = cmc + base * thumbLengths.x
        let c1 = shape.thumbFlexion.x, c2 = shape.thumbFlexion.x + shape.thumbFlexion.y
        let ip = mp + (base * cos(c1) + towardPalm * sin(c1)) * thumbLengths.y
        let tip = ip + (base * cos(c2) + towardPalm * sin(c2)) * thumbLengths.z
        points += [cmc, mp, ip, tip]

        // Fingers: knuckle, then three phalanges curling toward the palm side.
        for f in 0..<4 {
            let knuckle = SIMD3<Float>(Self.knuckles[f].x * palmWidthScale, Self.knuckles[f].y, 0)
            let angle = syntheticRadians(Self.fan[f]) * shape.spread + shape.fingerSpread[f]
            let along = SIMD3<Float>(sin(angle), cos(angle), 0)
            let lengths = Self.phalanges[f] * fingerLengthScale
            let flexion = shape.fingerFlexion[f]
            var position = knuckle
            var cumulative: Float = 0
            points.append(position)
            for segment in 0..<3 {
                cumulative += flexion[segment]
                position += (along * cos(cumulative) + palmNormal * sin(cumulative)) * lengths[segment]
                points.append(position)
            }
        }
        return points
    }
}
