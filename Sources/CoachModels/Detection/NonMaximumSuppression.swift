import CoachData

/// Greedy non-maximum suppression, per class.
///
/// Within each class, detections are visited by decreasing confidence (ties keep their
/// input order); a detection is kept unless its IoU with an already kept detection of the
/// same class is strictly greater than `iouThreshold`. The result is sorted by decreasing
/// confidence (ties in input order).
public enum NonMaximumSuppression {
    /// The kept detections, most confident first.
    public static func apply(_ detections: [Detection], iouThreshold: Double, maximumCount: Int? = nil) -> [Detection] {
        let order = detections.indices.sorted { a, b in
            detections[a].confidence != detections[b].confidence
                ? detections[a].confidence > detections[b].confidence : a < b
        }
        var keptByClass: [Int: [BoundingBox]] = [:]
        var kept: [Detection] = []
        for index in order {
            let detection = detections[index]
            let others = keptByClass[detection.classIndex, default: []]
            if others.contains(where: { $0.intersectionOverUnion(detection.box) > iouThreshold }) { continue }
            keptByClass[detection.classIndex, default: []].append(detection.box)
            kept.append(detection)
            if let maximumCount, kept.count >= maximumCount { break }
        }
        return kept
    }
}
