import CoachData

/// How a hand-pose or hand-action model treats chirality (which hand a pose belongs to), inside
/// its input encoding so training and the runtime agree.
public enum ChiralityHandling: String, Codable, CaseIterable, Hashable, Sendable {
    /// Left hands are mirrored (x negated) so the network sees every hand as a right hand: a model
    /// trained on right hands recognises left ones. Right for shapes (open, fist, peace); wrong
    /// when a class is defined by a direction on screen (pointing left vs right), where mirroring
    /// a left hand turns one class into the other.
    case mirrorLeftHands = "mirror"
    /// Two channels per joint tell the network the hand: left (1, 0), right (0, 1), unknown (0, 0).
    /// It can then learn hand-specific classes, given examples of both hands (or `flip` augmentation).
    case input
    /// Chirality is not used.
    case ignore

    /// Parses `mirror`, `input` or `ignore` (also `mirror-left`, `none`), any case.
    public init?(name: String) {
        switch name.lowercased() {
        case "mirror", "mirror-left", "mirrorleft", "mirrorlefthands", "canonical": self = .mirrorLeftHands
        case "input", "channel", "channels": self = .input
        case "ignore", "none", "off": self = .ignore
        default: return nil
        }
    }

    /// The channels this handling adds to every joint (`left`, `right` for `input`).
    public var channelNames: [String] { self == .input ? ["left", "right"] : [] }

    /// The factor x is multiplied by (after centring) for a pose of `chirality`: −1 for a left hand
    /// under `mirrorLeftHands`, else 1.
    public func horizontalSign(for chirality: Chirality?) -> Float {
        self == .mirrorLeftHands && chirality == .left ? -1 : 1
    }

    /// The `input` channels' values for `chirality`: (1, 0) left, (0, 1) right, (0, 0) unknown.
    public func channelValues(for chirality: Chirality?) -> (left: Float, right: Float) {
        switch chirality {
        case .left?: return (1, 0)
        case .right?: return (0, 1)
        default: return (0, 0)
        }
    }
}
