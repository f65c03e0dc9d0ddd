import Foundation

/// Why pose data cannot be given to an action classifier; messages name the clip and say what to do.
public enum ActionClassifierError: LocalizedError, Equatable, Sendable {
    /// The clip's joints are not the model's: `missing` joints the model needs, `unknown` extra ones.
    case jointsDoNotMatch(source: String, missing: [String], unknown: [String])
    /// The model was trained with z coordinates but the clip has none.
    case depthMissing(source: String)
    /// The clip has no frames.
    case emptyClip(source: String)

    /// A sentence naming the clip and the problem.
    public var errorDescription: String? {
        switch self {
        case let .jointsDoNotMatch(source, missing, unknown):
            var parts: [String] = []
            if !missing.isEmpty { parts.append("lacks the model's joints \(missing.joined(separator: ", "))") }
            if !unknown.isEmpty { parts.append("has joints the model does not know: \(unknown.joined(separator: ", "))") }
            return "\(source): \(parts.joined(separator: " and ")); give poses with exactly the joints the model was trained on"
        case let .depthMissing(source):
            return "\(source): has no z coordinates, but the model was trained on x, y, z; give poses with a z channel"
        case let .emptyClip(source):
            return "\(source): has no frames; expected at least one pose"
        }
    }
}
