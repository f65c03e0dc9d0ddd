/// The three cornhole throws of Apple's PlayerActionClassifier; the raw value is the label
/// written to annotation files.
public enum ThrowKind: String, CaseIterable, Sendable {
    /// Arm raised above the shoulder, released above and in front of it.
    case overhand
    /// The standard cornhole toss: the arm swings like a pendulum and releases in front of the body.
    case underhand
    /// A trick throw: one leg lifted, the arm swinging forward under the thigh.
    case underleg
}

/// A scripted throw: its key poses (right-handed, in the throw's own frame: the thrower starts
/// at the origin facing +z, the target) and when its phases happen.
public struct ThrowPerformance: Sendable {
    /// The throw.
    public var kind: ThrowKind
    /// The key poses, from the ready stance to the recovered stance.
    public var script: MotionScript
    /// When the throwing motion proper starts (the first move of the wind-up), in seconds.
    public var motionStart: Double
    /// When the bag leaves the hand.
    public var release: Double
    /// When the follow-through ends.
    public var followThroughEnd: Double
    /// Whether the foot that steps towards the target is the left one (the one opposite the
    /// throwing hand for a right-hander); `nil` when the thrower does not step.
    public var stepsWithLeftFoot: Bool?
    /// Whether the underhand throw is a bowling-style delivery released near the floor.
    public var isLowRelease: Bool
}
