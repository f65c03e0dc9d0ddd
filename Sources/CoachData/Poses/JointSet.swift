/// An ordered set of named joints: Create ML's `body18`, Vision's `hand21`, or a custom set.
///
/// The order is the tensor order of the joint axis J. Left/right pairs (for horizontal-flip
/// augmentation) are found from the names: a `left`/`right` prefix (`leftWrist` ↔ `rightWrist`)
/// or a `Left`/`Right` suffix (`handTipLeft` ↔ `handTipRight`).
public struct JointSet: Hashable, Sendable, CustomStringConvertible {
    /// Which layout a joint set is.
    public enum Kind: String, Codable, Hashable, Sendable {
        /// Create ML's 18 body joints in Create ML's order.
        case body18
        /// Vision's 21 hand joints in Vision's order.
        case hand21
        /// Any other names, in the order of the file that defined them.
        case custom
    }

    /// Create ML's body layout, in the order of a Create ML action classifier's `poses` input.
    public static let body18 = JointSet(checkedNames: [
        "nose", "neck", "rightShoulder", "rightElbow", "rightWrist", "leftShoulder", "leftElbow",
        "leftWrist", "rightHip", "rightKnee", "rightAnkle", "leftHip", "leftKnee", "leftAnkle",
        "rightEye", "leftEye", "rightEar", "leftEar",
    ], kind: .body18)

    /// Vision's hand layout (wrist, then thumb, index, middle, ring and little finger from base to tip).
    public static let hand21 = JointSet(checkedNames: [
        "wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip", "indexMCP", "indexPIP", "indexDIP",
        "indexTip", "middleMCP", "middlePIP", "middleDIP", "middleTip", "ringMCP", "ringPIP",
        "ringDIP", "ringTip", "littleMCP", "littlePIP", "littleDIP", "littleTip",
    ], kind: .hand21)

    /// The layout this set is.
    public let kind: Kind
    /// The joint names in tensor order.
    public let names: [String]
    /// For each joint, the index of its left/right counterpart (itself when it has none).
    public let mirroredIndices: [Int]
    private let indexByName: [String: Int]

    /// A joint set with `names` in this order; nil when `names` is empty, has an empty name or repeats one.
    ///
    /// The kind is `body18` or `hand21` only when `names` are exactly those layouts in their order;
    /// use `identify(_:)` to recognise them in any order.
    public init?(names: [String]) {
        guard !names.isEmpty, !names.contains(where: \.isEmpty), Set(names).count == names.count else { return nil }
        let kind: Kind = names == JointSet.body18.names ? .body18 : names == JointSet.hand21.names ? .hand21 : .custom
        self.init(checkedNames: names, kind: kind)
    }

    private init(checkedNames names: [String], kind: Kind) {
        self.kind = kind
        self.names = names
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() { index[name] = i }
        indexByName = index
        mirroredIndices = names.enumerated().map { i, name in
            JointSet.mirroredName(of: name).flatMap { index[$0] } ?? i
        }
    }

    /// Recognises `names` (distinct, non-empty) as `body18` or `hand21` in any order, or else as a
    /// custom set in the given order; `sourceIndices[j]` is the position in `names` of joint `j`.
    public static func identify(_ names: [String]) -> (jointSet: JointSet, sourceIndices: [Int])? {
        guard let given = JointSet(names: names) else { return nil }
        let nameSet = Set(names)
        for known in [JointSet.body18, JointSet.hand21] where Set(known.names) == nameSet {
            return (known, known.names.compactMap { given.index(of: $0) })
        }
        return (given, Array(names.indices))
    }

    /// The number of joints (J).
    public var count: Int { names.count }

    /// The index of the joint called `name`, or nil.
    public func index(of name: String) -> Int? { indexByName[name] }

    /// The left/right pairs as index pairs (left-or-first index first), each pair once.
    public var mirrorPairs: [(Int, Int)] {
        mirroredIndices.enumerated().compactMap { i, j in i < j ? (i, j) : nil }
    }

    /// `body18`, `hand21`, or `custom(a, b, …)`.
    public var description: String {
        kind == .custom ? "custom(\(names.joined(separator: ", ")))" : kind.rawValue
    }

    /// The name of the counterpart joint on the other side (`leftWrist` → `rightWrist`,
    /// `handTipLeft` → `handTipRight`), or nil when the name carries no side.
    public static func mirroredName(of name: String) -> String? {
        let sides = [("left", "right"), ("right", "left"), ("Left", "Right"), ("Right", "Left")]
        for (side, other) in sides {
            // Prefix: `leftWrist`, `left_wrist`, `LeftWrist` (the rest must start a new word).
            if name.hasPrefix(side), name.count > side.count {
                let rest = name.dropFirst(side.count)
                if let first = rest.first, first.isUppercase || first == "_" || first.isNumber {
                    return other + rest
                }
            }
            // Suffix: `handTipLeft`, `hand_left` (it must end a word).
            if name.hasSuffix(side), name.count > side.count, side.first!.isUppercase || name.dropLast(side.count).hasSuffix("_") {
                return name.dropLast(side.count) + other
            }
        }
        return nil
    }
}
