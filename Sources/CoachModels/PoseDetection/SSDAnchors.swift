import Foundation

/// The anchor centres of MediaPipe's single-shot detectors (its `SsdAnchorsCalculator` with
/// fixed-size anchors, aspect ratio 1 and an interpolated scale: two anchors per cell per layer,
/// layers of equal stride sharing one grid).
public enum SSDAnchors {
    /// Anchor centres (normalised to the input) for an input of `height`×`width` and the layers'
    /// `strides`, in the order the detector's outputs list them.
    public static func centers(height: Int, width: Int, strides: [Int], offset: Float = 0.5) -> [(x: Float, y: Float)] {
        var result: [(x: Float, y: Float)] = []
        var layer = 0
        while layer < strides.count {
            var last = layer
            var perCell = 0
            while last < strides.count && strides[last] == strides[layer] {
                perCell += 2
                last += 1
            }
            let stride = strides[layer]
            let rows = (height + stride - 1) / stride, columns = (width + stride - 1) / stride
            for y in 0..<rows {
                for x in 0..<columns {
                    let center = ((Float(x) + offset) / Float(columns), (Float(y) + offset) / Float(rows))
                    for _ in 0..<perCell { result.append(center) }
                }
            }
            layer = last
        }
        return result
    }
}

/// One detection of a single-shot detector: a box and keypoints normalised to the image, and a score.
public struct KeypointDetection: Equatable, Sendable {
    public var xMin: Float, yMin: Float, xMax: Float, yMax: Float
    public var keypoints: [(x: Float, y: Float)]
    public var score: Float

    public static func == (a: KeypointDetection, b: KeypointDetection) -> Bool {
        a.xMin == b.xMin && a.yMin == b.yMin && a.xMax == b.xMax && a.yMax == b.yMax && a.score == b.score
            && a.keypoints.count == b.keypoints.count && zip(a.keypoints, b.keypoints).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    /// Intersection over union with `other`.
    func overlap(_ other: KeypointDetection) -> Float {
        let w = min(xMax, other.xMax) - max(xMin, other.xMin), h = min(yMax, other.yMax) - max(yMin, other.yMin)
        guard w > 0, h > 0 else { return 0 }
        let intersection = w * h
        let union = (xMax - xMin) * (yMax - yMin) + (other.xMax - other.xMin) * (other.yMax - other.yMin) - intersection
        return union > 0 ? intersection / union : 0
    }
}

/// Decodes MediaPipe detector outputs as its `TensorsToDetectionsCalculator` does (boxes and
/// keypoints as x-first offsets scaled by the input size around fixed-size anchors, sigmoid scores
/// clipped at ±100) and merges them by weighted non-maximum suppression.
public struct SSDDetectionDecoder: Sendable {
    public var anchors: [(x: Float, y: Float)]
    /// The input size the raw offsets are scaled by.
    public var inputSize: Float
    public var keypointCount: Int
    public var minimumScore: Float = 0.5
    public var suppressionOverlap: Float = 0.3

    public init(anchors: [(x: Float, y: Float)], inputSize: Float, keypointCount: Int) {
        self.anchors = anchors
        self.inputSize = inputSize
        self.keypointCount = keypointCount
    }

    /// Detections (normalised to the detector's input) from `boxes` [1, anchors, 4 + 2·keypoints]
    /// and `scores` [1, anchors, 1], merged, best first.
    public func detections(boxes: [Float], scores: [Float]) -> [KeypointDetection] {
        let stride = 4 + 2 * keypointCount
        precondition(boxes.count == anchors.count * stride && scores.count == anchors.count, "detector outputs do not fit the anchors")
        var found: [KeypointDetection] = []
        for (index, anchor) in anchors.enumerated() {
            let score = 1 / (1 + exp(-min(max(scores[index], -100), 100)))
            guard score >= minimumScore else { continue }
            let raw = boxes[(index * stride)..<((index + 1) * stride)].map { $0 / inputSize }
            let cx = raw[raw.startIndex] + anchor.x, cy = raw[raw.startIndex + 1] + anchor.y
            let w = raw[raw.startIndex + 2], h = raw[raw.startIndex + 3]
            let keypoints = (0..<keypointCount).map { k in
                (x: raw[raw.startIndex + 4 + 2 * k] + anchor.x, y: raw[raw.startIndex + 5 + 2 * k] + anchor.y)
            }
            found.append(KeypointDetection(xMin: cx - w / 2, yMin: cy - h / 2, xMax: cx + w / 2, yMax: cy + h / 2,
                                           keypoints: keypoints, score: score))
        }
        return weightedSuppression(found)
    }

    /// MediaPipe's weighted non-maximum suppression: the best remaining detection absorbs every
    /// detection overlapping it by more than `suppressionOverlap` (IoU), its box and keypoints
    /// becoming their score-weighted mean; its score stays its own.
    public func weightedSuppression(_ detections: [KeypointDetection]) -> [KeypointDetection] {
        var remaining = detections.enumerated().sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }
            .map(\.element)
        var result: [KeypointDetection] = []
        while let best = remaining.first {
            var merged = best
            var total: Float = 0
            var sums = [Float](repeating: 0, count: 4 + 2 * keypointCount)
            var rest: [KeypointDetection] = []
            for candidate in remaining {
                guard best.overlap(candidate) > suppressionOverlap || candidate == best else {
                    rest.append(candidate)
                    continue
                }
                let s = candidate.score
                total += s
                sums[0] += candidate.xMin * s; sums[1] += candidate.yMin * s
                sums[2] += candidate.xMax * s; sums[3] += candidate.yMax * s
                for (k, point) in candidate.keypoints.enumerated() {
                    sums[4 + 2 * k] += point.x * s
                    sums[5 + 2 * k] += point.y * s
                }
            }
            if total > 0 {
                merged.xMin = sums[0] / total; merged.yMin = sums[1] / total
                merged.xMax = sums[2] / total; merged.yMax = sums[3] / total
                merged.keypoints = (0..<keypointCount).map { (x: sums[4 + 2 * $0] / total, y: sums[5 + 2 * $0] / total) }
            }
            result.append(merged)
            remaining = rest
        }
        return result
    }
}
