/// The joint names the synthetic generators write, in the orders of FORMATS.md §3.1.
public enum SyntheticJointNames {
    /// Create ML's 18 body joints, in the tensor order of a Create ML action classifier.
    public static let body18: [String] = [
        "nose", "neck",
        "rightShoulder", "rightElbow", "rightWrist",
        "leftShoulder", "leftElbow", "leftWrist",
        "rightHip", "rightKnee", "rightAnkle",
        "leftHip", "leftKnee", "leftAnkle",
        "rightEye", "leftEye", "rightEar", "leftEar",
    ]

    /// Vision's 21 hand joints, wrist first, then thumb, index, middle, ring and little finger.
    public static let hand21: [String] = [
        "wrist",
        "thumbCMC", "thumbMP", "thumbIP", "thumbTip",
        "indexMCP", "indexPIP", "indexDIP", "indexTip",
        "middleMCP", "middlePIP", "middleDIP", "middleTip",
        "ringMCP", "ringPIP", "ringDIP", "ringTip",
        "littleMCP", "littlePIP", "littleDIP", "littleTip",
    ]

    /// For every joint of `names`, the index of its mirror partner (`left…` ↔ `right…`),
    /// or its own index when it has none.
    public static func mirrorPartners(of names: [String]) -> [Int] {
        var indexOfName: [String: Int] = [:]
        for (index, name) in names.enumerated() { indexOfName[name] = index }
        return names.enumerated().map { index, name in
            let partner: String
            if name.hasPrefix("left") {
                partner = "right" + name.dropFirst(4)
            } else if name.hasPrefix("right") {
                partner = "left" + name.dropFirst(5)
            } else {
                return index
            }
            return indexOfName[partner] ?? index
        }
    }
}
