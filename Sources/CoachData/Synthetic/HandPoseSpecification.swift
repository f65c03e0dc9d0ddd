/// Everything that decides one synthetic hand pose: the class, which hand, its
/// proportions, how it is turned and where it sits in the frame, plus the seeds of its
/// finger details and detector noise. Rendering a specification is a pure function.
public struct HandPoseSpecification: Equatable, Sendable {
    /// The pose class.
    public var handClass: SyntheticHandClass
    /// Left or right hand.
    public var chirality: SyntheticChirality
    /// Finger length relative to an average hand (about 0.92…1.08).
    public var fingerLengthScale: Float
    /// Palm width relative to an average hand (about 0.9…1.1).
    public var palmWidthScale: Float
    /// Seed of the finger angles within the class.
    public var shapeSeed: UInt64
    /// Rotation in the image plane, radians (0 = fingers up, positive turns clockwise on screen).
    public var rotation: Float
    /// Tilt about the image's horizontal axis, radians (the fingers lean toward or away from the camera).
    public var tiltAcross: Float
    /// Tilt about the image's vertical axis, radians (the hand turns sideways).
    public var tiltAlong: Float
    /// Whether the back of the hand faces the camera (else the palm).
    public var showsBack: Bool
    /// Wrist-to-middle-fingertip length, as a fraction of the frame height.
    public var size: Float
    /// Image width divided by height.
    public var aspectRatio: Float
    /// Where the hand sits in the room the frame leaves, 0…1 per axis (0 = left/top).
    public var placement: SIMD2<Float>
    /// Seed of the detector noise.
    public var noiseSeed: UInt64

    /// A specification with the given parts.
    public init(handClass: SyntheticHandClass, chirality: SyntheticChirality, fingerLengthScale: Float = 1,
                palmWidthScale: Float = 1, shapeSeed: UInt64, rotation: Float = 0, tiltAcross: Float = 0,
                tiltAlong: Float = 0, showsBack: Bool = false, size: Float = 0.25,
                aspectRatio: Float = 16.0 / 9.0, placement: SIMD2<Float> = SIMD2(0.5, 0.5), noiseSeed: UInt64 = 0) {
        self.handClass = handClass
        self.chirality = chirality
        self.fingerLengthScale = fingerLengthScale
        self.palmWidthScale = palmWidthScale
        self.shapeSeed = shapeSeed
        self.rotation = rotation
        self.tiltAcross = tiltAcross
        self.tiltAlong = tiltAlong
        self.showsBack = showsBack
        self.size = size
        self.aspectRatio = aspectRatio
        self.placement = placement
        self.noiseSeed = noiseSeed
    }

    /// The specification of the mirror image: the other hand, turned and placed the mirrored way.
    public var mirrored: HandPoseSpecification {
        var copy = self
        copy.chirality = chirality == .left ? .right : .left
        copy.rotation = -rotation
        copy.tiltAlong = -tiltAlong
        copy.placement.x = 1 - placement.x
        return copy
    }
}

/// One rendered synthetic hand pose.
public struct SyntheticHandPose: Equatable, Sendable {
    /// The specification it was rendered from.
    public var specification: HandPoseSpecification
    /// The class label written to the file.
    public var label: String
    /// Left or right hand.
    public var chirality: SyntheticChirality { specification.chirality }
    /// The 21 keypoints in `SyntheticJointNames.hand21` order, with detector noise, in
    /// normalised image coordinates (origin top-left).
    public var keypoints: [SIMD2<Float>]
    /// The same keypoints without noise.
    public var truePositions: [SIMD2<Float>]
}
