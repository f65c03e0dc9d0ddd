/// Things people do around a cornhole game that are not throws; all are labeled with the
/// background label (`none`). Several are deliberately close to a throw in one respect —
/// warm-up arm swings, golf-like swings and catching move an arm fast — so that the classifier
/// learns what makes a throw rather than "an arm moved".
public enum BackgroundActivity: String, CaseIterable, Sendable {
    /// Standing: weight shifts, looking around, fiddling with a bag.
    case standing
    /// Walking up to the line or back from the board, turning around.
    case walking
    /// Bending or squatting to pick a bag up from the ground.
    case pickingUp
    /// Waving one raised hand.
    case waving
    /// Clapping.
    case clapping
    /// Stretching: arms overhead, side bends, an arm across the chest, a quadriceps stretch, a toe touch.
    case stretching
    /// Warm-up arm swings and circles that never release anything.
    case armSwings
    /// Jumping jacks.
    case jumpingJacks
    /// Squats.
    case squats
    /// A golf-like two-handed swing.
    case golfSwing
    /// Catching a tossed bag with one or both hands.
    case catching
    /// A forward or sideways kick.
    case kicking
    /// Sitting down on a bench or cooler and standing up again.
    case sittingDown
    /// Gesturing: one arm drawing shapes or pointing in front of the body, a call on the phone.
    case gesturing
    /// Hammering or chopping: one forearm beating up and down in front of the body.
    case hammering

    /// Relative frequency among background activities.
    public var weight: Float {
        switch self {
        case .standing: return 3
        case .walking: return 2.5
        case .pickingUp: return 1.5
        case .waving, .clapping, .stretching, .armSwings, .catching: return 1
        case .jumpingJacks, .squats, .golfSwing, .kicking, .sittingDown, .gesturing, .hammering: return 0.8
        }
    }
}
