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
    /// custom set in the given order; `sourceIndices[j]` is the position in `names` of joint `j`,
    /// nil for a joint of the layout that `names` lack.
    ///
    /// Names that are all a layout's and at least half of it are that layout with the rest never
    /// detected: 13-joint sports annotations and Kinect skeletons mapped to body18 names come
    /// without eye and ear columns, and are the same data as files with those columns left empty.
    public static func identify(_ names: [String]) -> (jointSet: JointSet, sourceIndices: [Int?])? {
        guard let given = JointSet(names: names) else { return nil }
        let nameSet = Set(names)
        for known in [JointSet.body18, JointSet.hand21]
        where nameSet.isSubset(of: known.names) && 2 * nameSet.count >= known.count {
            return (known, known.names.map { given.index(of: $0) })
        }
        return (given, names.indices.map { $0 })
    }

    /// The number of joints (J).
    public var count: Int { names.count }

    /// The index of the joint called `name`, or nil.
    public func index(of name: String) -> Int? { indexByName[name] }

    /// The left/right pairs as index pairs (left-or-first index first), each pair once.
    public var mirrorPairs: [(Int, Int)] {
        mirroredIndices.enumerated().compactMap { i, j in i < j ? (i, j) : nil }
    }

    /// The bones of a built-in layout as joint-index pairs, the end nearer `skeletonCentre` first:
    /// OpenPose's COCO-18 bones for `body18` (the layout ST-GCN uses; the hips hang from the
    /// shoulders), each finger from the wrist and the palm's knuckle line for `hand21`; empty for a
    /// custom set, whose bones are not known.
    public var bones: [(Int, Int)] {
        let pairs: [(String, String)]
        switch kind {
        case .body18:
            pairs = [
                ("nose", "neck"), ("neck", "rightShoulder"), ("rightShoulder", "rightElbow"),
                ("rightElbow", "rightWrist"), ("neck", "leftShoulder"), ("leftShoulder", "leftElbow"),
                ("leftElbow", "leftWrist"), ("rightShoulder", "rightHip"), ("rightHip", "rightKnee"),
                ("rightKnee", "rightAnkle"), ("leftShoulder", "leftHip"), ("leftHip", "leftKnee"),
                ("leftKnee", "leftAnkle"), ("nose", "rightEye"), ("rightEye", "rightEar"),
                ("nose", "leftEye"), ("leftEye", "leftEar"),
            ]
        case .hand21:
            var list: [(String, String)] = []
            for finger in ["thumb", "index", "middle", "ring", "little"] {
                let names = finger == "thumb" ? ["thumbCMC", "thumbMP", "thumbIP", "thumbTip"]
                                              : ["\(finger)MCP", "\(finger)PIP", "\(finger)DIP", "\(finger)Tip"]
                list.append(("wrist", names[0]))
                for k in 1..<names.count { list.append((names[k - 1], names[k])) }
            }
            // The palm's knuckle line, as MediaPipe's hand connections have it.
            pairs = list + [("indexMCP", "middleMCP"), ("middleMCP", "ringMCP"), ("ringMCP", "littleMCP")]
        case .custom:
            pairs = []
        }
        return pairs.compactMap { a, b in index(of: a).flatMap { i in index(of: b).map { (i, $0) } } }
    }

    /// The joint a built-in layout's skeleton is centred on (the neck, the wrist); nil for a custom set.
    public var skeletonCentre: Int? {
        switch kind {
        case .body18: return index(of: "neck")
        case .hand21: return index(of: "wrist")
        case .custom: return nil
        }
    }

    /// For each joint, the joint it hangs from in the skeleton rooted at `skeletonCentre` (the
    /// first bone reaching it, breadth first), or nil for the centre, for joints no bone reaches
    /// and for every joint of a custom set.
    public var skeletonParents: [Int?] {
        var parents = [Int?](repeating: nil, count: count)
        guard let centre = skeletonCentre else { return parents }
        var neighbours = [[Int]](repeating: [], count: count)
        for (a, b) in bones {
            neighbours[a].append(b)
            neighbours[b].append(a)
        }
        var reached = [Bool](repeating: false, count: count)
        reached[centre] = true
        var queue = [centre], head = 0
        while head < queue.count {
            let joint = queue[head]
            head += 1
            for next in neighbours[joint] where !reached[next] {
                reached[next] = true
                parents[next] = joint
                queue.append(next)
            }
        }
        return parents
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
