import CoachRandom

/// A simulated person: body size and proportions, handedness and personal style. The
/// throw generator draws a pool of these per dataset, so a held-out split can use people
/// the training split never saw.
public struct SyntheticSubject: Equatable, Sendable {
    /// A number naming the subject inside its dataset.
    public var identifier: Int
    /// Standing height in metres.
    public var height: Float
    /// Arm and leg length relative to an average body of the same height (about 0.93…1.07).
    public var limbScale: Float
    /// Shoulder and hip width relative to an average body of the same height (about 0.88…1.12).
    public var widthScale: Float
    /// Whether the subject throws with the left hand (the whole motion is mirrored).
    public var isLeftHanded: Bool
    /// How long the subject's movements take relative to the average (above 1 is slower).
    public var tempo: Float
    /// How far the subject's joints move relative to the average (about 0.9…1.1).
    public var amplitude: Float
    /// In an under-the-leg throw, whether the leg on the throwing side is raised (else the other one).
    public var raisesThrowingSideLeg: Bool

    /// A subject with the given properties.
    public init(identifier: Int, height: Float, limbScale: Float = 1, widthScale: Float = 1,
                isLeftHanded: Bool = false, tempo: Float = 1, amplitude: Float = 1,
                raisesThrowingSideLeg: Bool = true) {
        self.identifier = identifier
        self.height = height
        self.limbScale = limbScale
        self.widthScale = widthScale
        self.isLeftHanded = isLeftHanded
        self.tempo = tempo
        self.amplitude = amplitude
        self.raisesThrowingSideLeg = raisesThrowingSideLeg
    }

    /// A random adult drawn from `generator` (handedness is left to the caller).
    public static func random(identifier: Int, using generator: inout SeededGenerator) -> SyntheticSubject {
        let height = min(max(1.72 + 0.1 * generator.nextNormal(), 1.5), 1.98)
        return SyntheticSubject(
            identifier: identifier,
            height: height,
            limbScale: generator.nextUniform(0.93, 1.07),
            widthScale: generator.nextUniform(0.88, 1.12),
            isLeftHanded: false,
            tempo: generator.nextUniform(0.85, 1.2),
            amplitude: generator.nextUniform(0.9, 1.1),
            raisesThrowingSideLeg: generator.nextBool(probability: 0.7))
    }
}

/// Segment lengths of the stick figure in metres, derived from a subject (anthropometric
/// ratios of body height, after Drillis & Contini).
struct StickFigureLengths {
    var height: Float
    var thigh: Float
    var shank: Float
    var ankleHeight: Float
    var hipHalfWidth: Float
    var torso: Float
    var shoulderHalfWidth: Float
    var upperArm: Float
    var forearm: Float

    init(subject: SyntheticSubject) {
        let h = subject.height
        height = h
        thigh = 0.245 * h * subject.limbScale
        shank = 0.246 * h * subject.limbScale
        ankleHeight = 0.039 * h
        hipHalfWidth = 0.088 * h * subject.widthScale
        torso = 0.295 * h
        shoulderHalfWidth = 0.118 * h * subject.widthScale
        upperArm = 0.186 * h * subject.limbScale
        forearm = 0.146 * h * subject.limbScale
    }
}
