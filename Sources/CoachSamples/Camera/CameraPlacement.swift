import Foundation
import CoachRandom

/// Where a phone filming a game may stand: anywhere around the person, from slightly below to
/// well above, near enough that the person fills 20–90 % of the frame's height, in landscape or
/// portrait, with a main (about 26 mm equivalent: ~69° across the long side), telephoto or
/// wide lens, slightly tilted and shaking as hand-held phones do.
public struct CameraPlacement: Equatable, Sendable {
    /// Camera elevation seen from the person's hips, in degrees (negative = from below).
    public var pitchRange: ClosedRange<Float> = -8...40
    /// How much of the frame's height the standing person fills.
    public var personFractionRange: ClosedRange<Float> = 0.2...0.9
    /// The share of portrait videos.
    public var portraitShare: Float = 0.3
    /// Largest roll of the picture, in degrees.
    public var maximumRoll: Float = 4
    /// Largest hand-held shake (standard deviation of the slow camera wobble), in degrees.
    public var maximumShake: Float = 0.6

    /// The default placement ranges.
    public init() {}

    /// A random camera filming a person `height` metres tall who stands at `centre` (ground
    /// point) facing `heading` radians, and the shake amplitude (radians) to apply per frame.
    public func random(around centre: SIMD3<Float>, height: Float, heading: Float,
                       using g: inout SeededGenerator) -> (camera: VirtualCamera, shake: Float) {
        let portrait = g.nextBool(probability: portraitShare)
        let longSide: Float = 1920, shortSide: Float = 1080
        let lens = g.nextUniform()
        let longFieldOfView = radians(lens < 0.7 ? g.nextUniform(60, 72) : lens < 0.9 ? g.nextUniform(28, 42) : g.nextUniform(80, 100))
        let focal = (longSide / 2) / tanf(longFieldOfView / 2)
        let (width, imageHeight) = portrait ? (shortSide, longSide) : (longSide, shortSide)
        let fraction = g.nextUniform(personFractionRange.lowerBound, personFractionRange.upperBound)
        let distance = max(height * focal / (fraction * imageHeight), 1.2)
        let yaw = heading + g.nextUniform(-.pi, .pi)
        let pitch = radians(g.nextUniform(pitchRange.lowerBound, pitchRange.upperBound))
        let aim = centre + SIMD3(0, 0.55 * height, 0)
        let direction = SIMD3(sinf(yaw) * cosf(pitch), sinf(pitch), cosf(yaw) * cosf(pitch))
        var position = aim + direction * distance
        position.y = max(position.y, 0.3)
        // Aim off-centre so the person is not always in the middle of the frame.
        let slack = max(0, 1 - fraction) * 0.4
        let right = normalized3(cross3(-direction, SIMD3(0, 1, 0)), fallback: SIMD3(1, 0, 0))
        let offset = right * (g.nextUniform(-slack, slack) * distance * width / focal)
            + SIMD3(0, g.nextUniform(-slack, slack) * distance * imageHeight / focal * 0.5, 0)
        let camera = VirtualCamera(position: position, lookingAt: aim + offset, focalLength: focal, width: width,
                                   height: imageHeight, roll: radians(g.nextUniform(-maximumRoll, maximumRoll)))
        return (camera, radians(g.nextUniform(0, maximumShake)))
    }
}
