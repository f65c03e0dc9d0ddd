/// A pose-sequence augmentation, named as in Create ML's action-classifier template.
///
/// The raw value is the short name `--augment` takes; `init?(name:)` also accepts the long
/// names (`horizontal-flip`, `keypoint-jitter`, `interpolate-frames`, `time-warp`, `drop-frames`).
public enum PoseAugmentation: String, CaseIterable, Codable, Hashable, Sendable, Comparable {
    /// Mirror the poses left-right: x is reflected about the window's centre and every left joint
    /// swaps places with its right counterpart (`JointSet.mirroredIndices`); chirality flips too.
    case horizontalFlip = "flip"
    /// Rotate the poses in the image plane about the window's centre; poses with depth also turn
    /// about the vertical and horizontal axes (a person facing a little away, a higher camera).
    case rotate
    /// Shift the poses by an offset that drifts linearly across the window (a camera pan).
    case translate
    /// Stretch x and y about the window's centre by independent factors (changes the aspect).
    case scale
    /// Add Gaussian noise to every detected keypoint (detector jitter).
    case jitter
    /// Play the motion faster or slower: the window is sampled at a random speed, interpolating
    /// between frames (Create ML's "interpolate frames"; a time warp).
    case interpolateFrames = "interpolate"
    /// Skip random frames while the window is cut (as a detector that misses frames would).
    case dropFrames = "drop"
    /// Hide some joints in a window — one for the whole window (out of frame), one for a stretch
    /// (behind the body), others in single frames (missed detections) — as a detector that loses
    /// joints would; the hidden keypoints become undetected. Windows of a single joint are kept.
    case occlude
    /// Lengthen or shorten each bone of a built-in skeleton (`body18`, `hand21`) by its own
    /// factor for the whole window — left and right alike — as another person's proportions
    /// would; whatever hangs from the bone moves with its end. Custom joint sets have no known
    /// bones and are left as they are.
    case proportions

    /// Parses a short or long augmentation name (case-insensitive; `-` and `_` ignored).
    public init?(name: String) {
        let key = name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " }
        switch key {
        case "flip", "horizontalflip", "hflip", "mirror": self = .horizontalFlip
        case "rotate", "rotation": self = .rotate
        case "translate", "translation", "shift": self = .translate
        case "scale", "scaling": self = .scale
        case "jitter", "keypointjitter", "noise": self = .jitter
        case "interpolate", "interpolateframes", "timewarp", "speed": self = .interpolateFrames
        case "drop", "dropframes", "framedrop": self = .dropFrames
        case "occlude", "occlusion", "hide", "hidejoints", "dropjoints", "jointdropout": self = .occlude
        case "proportions", "bones", "bonelength", "bonelengths", "limbs": self = .proportions
        default: return nil
        }
    }

    /// The action classifier's default: the augmentations that keep any action's label and that
    /// new people, cameras and detectors bring — `interpolate`, `drop`, `jitter`, `scale`,
    /// `rotate`, `occlude` (which the trainer applies only as often as its data misses joints) —
    /// not `flip`, which turns a left-handed signal into a right-handed one, nor `translate`,
    /// which each window's centring undoes.
    public static let labelSafe: Set<PoseAugmentation> = [.interpolateFrames, .dropFrames, .jitter, .scale, .rotate, .occlude]

    /// Parses a comma-separated list such as `flip,rotate,jitter`; `all` means every augmentation,
    /// `default` the label-safe ones (`labelSafe`), and `none` (or an empty text) none. Unknown
    /// names are returned in `unknown`, in order.
    public static func parseList(_ text: String) -> (augmentations: Set<PoseAugmentation>, unknown: [String]) {
        var result: Set<PoseAugmentation> = []
        var unknown: [String] = []
        for part in text.split(separator: ",") {
            let name = trimmingSpaces(String(part))
            if name.isEmpty || name.lowercased() == "none" { continue }
            if name.lowercased() == "all" { result.formUnion(PoseAugmentation.allCases); continue }
            if name.lowercased() == "default" { result.formUnion(PoseAugmentation.labelSafe); continue }
            if let augmentation = PoseAugmentation(name: name) { result.insert(augmentation) } else { unknown.append(name) }
        }
        return (result, unknown)
    }

    /// Orders augmentations as `allCases` lists them.
    public static func < (lhs: PoseAugmentation, rhs: PoseAugmentation) -> Bool {
        let order = PoseAugmentation.allCases
        return (order.firstIndex(of: lhs) ?? 0) < (order.firstIndex(of: rhs) ?? 0)
    }
}
