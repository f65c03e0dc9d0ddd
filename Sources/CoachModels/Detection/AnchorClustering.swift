import CoachRandom
import Foundation

/// Anchor boxes from k-means on training box sizes with the distance 1 − IoU of the two
/// sizes centred together (YOLOv2), seeded k-means++ initialisation, at most 100 Lloyd steps.
public enum AnchorClustering {
    /// `count` anchors (fewer when there are fewer distinct sizes), sorted by area.
    public static func anchors(sizes: [AnchorSize], count: Int, using generator: inout SeededGenerator) -> [AnchorSize] {
        let distinct = Array(Set(sizes)).sorted { ($0.width, $0.height) < ($1.width, $1.height) }
        guard count > 0, !distinct.isEmpty else { return [] }
        if distinct.count <= count { return distinct.sorted { $0.width * $0.height < $1.width * $1.height } }
        func distance(_ a: AnchorSize, _ b: AnchorSize) -> Double {
            1 - SlotAssignment.shapeIoU(a.width, a.height, b.width, b.height)
        }
        var centres = [sizes[generator.nextInt(below: sizes.count)]]
        while centres.count < count {
            let weights = sizes.map { size in centres.map { distance(size, $0) }.min()! }
            let total = weights.reduce(0, +)
            guard total > 0 else { break }
            var pick = generator.nextDouble() * total, chosen = sizes.count - 1
            for (i, w) in weights.enumerated() {
                pick -= w
                if pick <= 0 { chosen = i; break }
            }
            centres.append(sizes[chosen])
        }
        var assignment = [Int](repeating: -1, count: sizes.count)
        for _ in 0..<100 {
            var changed = false
            for (i, size) in sizes.enumerated() {
                var best = 0
                for c in 1..<centres.count where distance(size, centres[c]) < distance(size, centres[best]) { best = c }
                if assignment[i] != best { assignment[i] = best; changed = true }
            }
            if !changed { break }
            for c in centres.indices {
                let members = sizes.indices.filter { assignment[$0] == c }
                guard !members.isEmpty else { continue }
                // The median is robust to the odd huge or tiny box (as in many YOLO tools).
                let widths = members.map { sizes[$0].width }.sorted(), heights = members.map { sizes[$0].height }.sorted()
                centres[c] = AnchorSize(width: widths[widths.count / 2], height: heights[heights.count / 2])
            }
        }
        return centres.sorted { $0.width * $0.height < $1.width * $1.height }
    }
}
