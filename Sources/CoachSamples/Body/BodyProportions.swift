import CoachRandom

/// The bone lengths of one sample person, in metres.
///
/// Segment lengths are fractions of body height H from Drillis & Contini (1966) as tabulated by
/// Winter, Biomechanics and Motor Control of Human Movement (4th ed. 2009, Fig. 4.1): hip joint at
/// 0.530 H, shoulder at 0.818 H, upper arm 0.186 H, forearm 0.146 H, thigh 0.245 H, shank 0.246 H,
/// ankle 0.039 H above the floor, shoulder breadth 0.259 H, hip breadth 0.191 H (hip joint
/// centres sit well inside it: Bell et al. 1990 put them about 0.36 of the pelvic width from the
/// midline, used here as 0.28 of the hip breadth on each side).
public struct BodyProportions: Equatable, Sendable {
    /// Standing height (m).
    public var height: Float
    /// Hip joint centre to the pelvis midline.
    public var hipHalfWidth: Float
    /// Pelvis centre (between the hip joints) to the neck base (between the shoulders).
    public var trunkLength: Float
    /// Shoulder joint to the neck base.
    public var shoulderHalfWidth: Float
    /// Neck base to the base of the head.
    public var neckLength: Float
    /// Shoulder to elbow.
    public var upperArmLength: Float
    /// Elbow to wrist.
    public var forearmLength: Float
    /// Hip to knee.
    public var thighLength: Float
    /// Knee to ankle.
    public var shankLength: Float
    /// Ankle joint above the floor when standing.
    public var ankleHeight: Float

    /// Proportions of a person of `height` metres exactly at the tabulated ratios.
    public init(height: Float) {
        self.height = height
        hipHalfWidth = 0.191 * 0.28 * height
        trunkLength = (0.818 - 0.530) * height
        shoulderHalfWidth = 0.259 / 2 * height
        neckLength = 0.052 * height
        upperArmLength = 0.186 * height
        forearmLength = 0.146 * height
        thighLength = 0.245 * height
        shankLength = 0.246 * height
        ankleHeight = 0.039 * height
    }

    /// A random adult: height uniform in `heights`, each segment ratio varied by a few percent
    /// (breadths by more: they differ most between people), within ±12 %.
    public static func random(heights: ClosedRange<Float> = 1.5...2.0, using generator: inout SeededGenerator) -> BodyProportions {
        var body = BodyProportions(height: generator.nextUniform(heights.lowerBound, heights.upperBound))
        func vary(_ value: inout Float, _ spread: Float) {
            value *= 1 + min(max(generator.nextNormal() * spread, -0.12), 0.12)
        }
        vary(&body.hipHalfWidth, 0.07)
        vary(&body.shoulderHalfWidth, 0.06)
        vary(&body.trunkLength, 0.03)
        vary(&body.neckLength, 0.05)
        vary(&body.upperArmLength, 0.03)
        vary(&body.forearmLength, 0.03)
        vary(&body.thighLength, 0.03)
        vary(&body.shankLength, 0.03)
        return body
    }
}
