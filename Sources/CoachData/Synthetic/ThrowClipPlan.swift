/// Everything that decides one synthetic throw clip: who, what, in which order, filmed
/// how, and the seeds of its motion details and detector noise. Rendering a plan is a
/// pure function, so the same plan always gives the same clip.
public struct ThrowClipPlan: Equatable, Sendable {
    /// One action and how long it lasts.
    public struct Step: Equatable, Sendable {
        /// What the subject does.
        public var action: SyntheticAction
        /// Seconds.
        public var duration: Double

        /// A step of `action` lasting `duration` seconds.
        public init(action: SyntheticAction, duration: Double) {
            self.action = action
            self.duration = duration
        }
    }

    /// The clip's file stem (`clip-0001`).
    public var name: String
    /// The person performing.
    public var subject: SyntheticSubject
    /// The camera filming.
    public var camera: SyntheticCamera
    /// The actions, in order, from time 0.
    public var steps: [Step]
    /// Seed of the motion details (keyframe variation, headings, sway).
    public var motionSeed: UInt64
    /// Seed of the simulated detector (noise, confidences, missed joints, dropped frames).
    public var observationSeed: UInt64
    /// Whether the clip is written as JSON (FORMATS §3.3) rather than CSV (§3.2).
    public var writesJSON: Bool
    /// Whether missed joints are written as empty cells (else as zeros with confidence 0).
    public var writesMissingJointsAsEmptyCells: Bool

    /// A plan with the given parts.
    public init(name: String, subject: SyntheticSubject, camera: SyntheticCamera, steps: [Step],
                motionSeed: UInt64, observationSeed: UInt64, writesJSON: Bool = false,
                writesMissingJointsAsEmptyCells: Bool = true) {
        self.name = name
        self.subject = subject
        self.camera = camera
        self.steps = steps
        self.motionSeed = motionSeed
        self.observationSeed = observationSeed
        self.writesJSON = writesJSON
        self.writesMissingJointsAsEmptyCells = writesMissingJointsAsEmptyCells
    }

    /// The clip's length in seconds.
    public var duration: Double { steps.reduce(0) { $0 + $1.duration } }

    /// The throw in the clip, or `nil` for a background-only clip.
    public var throwKind: ThrowKind? { steps.lazy.compactMap { $0.action.throwKind }.first }

    /// The file name the clip is written under.
    public var fileName: String { name + (writesJSON ? ".json" : ".csv") }
}
