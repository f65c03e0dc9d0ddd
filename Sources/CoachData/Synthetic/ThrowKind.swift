/// The three cornhole throws of Apple's PlayerActionClassifier; the raw value is the label
/// written to annotation files.
public enum ThrowKind: String, CaseIterable, Sendable {
    /// Arm raised above the shoulder, released high and forward (a dart-like throw).
    case overhand
    /// The standard cornhole throw: the arm swings like a pendulum below the waist.
    case underhand
    /// A trick throw: one leg is raised and the arm swings forward under it.
    case underleg

    /// Seconds an average subject takes from wind-up to recovered follow-through.
    public var typicalDuration: Double {
        switch self {
        case .overhand: return 1.4
        case .underhand: return 1.5
        case .underleg: return 1.7
        }
    }
}

/// Things people do around a cornhole lane that are not throws; all are labeled with the
/// background label (`none`).
public enum BackgroundAction: String, CaseIterable, Sendable {
    /// Standing and idling: weight shifts, looking around, holding or bouncing a bag.
    case standing
    /// Walking, starting and stopping.
    case walking
    /// Bending or squatting to pick a bag up from the ground.
    case pickingUp
    /// Stretching: arms overhead, quadriceps, toe touch, knee hug, trunk twist, arm across the chest.
    case stretching
    /// Waving one raised hand.
    case waving

    /// The shortest and longest natural duration in seconds.
    public var durationRange: ClosedRange<Double> {
        switch self {
        case .standing: return 0.8...3.0
        case .walking: return 1.2...2.6
        case .pickingUp: return 1.6...2.6
        case .stretching: return 2.0...3.5
        case .waving: return 1.2...2.5
        }
    }
}

/// One action of a synthetic clip: a throw or a background action.
public enum SyntheticAction: Hashable, Sendable {
    /// A throw of the given kind.
    case throwing(ThrowKind)
    /// A background (non-throw) action.
    case background(BackgroundAction)

    /// The action's own name (`overhand`, `walking`, …).
    public var name: String {
        switch self {
        case .throwing(let kind): return kind.rawValue
        case .background(let action): return action.rawValue
        }
    }

    /// The throw kind, or `nil` for background actions.
    public var throwKind: ThrowKind? {
        if case .throwing(let kind) = self { return kind }
        return nil
    }
}
