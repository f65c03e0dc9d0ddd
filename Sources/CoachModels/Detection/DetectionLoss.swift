import CoachData
import Foundation

/// The detector's training objective, with its gradient written by hand (one pass over
/// the raw output map):
///
/// `L = (λ_box · Σ_pos (1 − GIoU) + λ_obj · Σ_slots BCE(to, t) + λ_cls · Σ_pos CE(c, class)) / max(1, #positives)`
///
/// Positives come from `SlotAssignment`; their objectness target is 1, every other slot's
/// 0. With anchors, a negative slot whose decoded box already overlaps some ground-truth
/// box with IoU > `ignoreThreshold` is left out of the objectness term (YOLOv2), so
/// near-duplicates of a match are not pushed to zero. Positives are counted over the
/// whole batch.
public enum DetectionLoss {
    /// Term weights (YOLOX's: box 5, objectness 1, classification 1).
    public struct Weights: Equatable, Sendable {
        /// Weight of the box term (1 − GIoU).
        public var box: Float
        /// Weight of the objectness term (binary cross-entropy).
        public var objectness: Float
        /// Weight of the class term (softmax cross-entropy).
        public var classification: Float
        /// The defaults above.
        public init(box: Float = 5, objectness: Float = 1, classification: Float = 1) {
            self.box = box
            self.objectness = objectness
            self.classification = classification
        }
    }

    /// The value of each term (already divided by the positive count and weighted).
    public struct Components: Equatable, Sendable {
        /// The whole loss.
        public var total: Float = 0
        /// The weighted box term.
        public var box: Float = 0
        /// The weighted objectness term.
        public var objectness: Float = 0
        /// The weighted class term.
        public var classification: Float = 0
        /// Positive slots in the batch.
        public var positives: Int = 0
        /// Mean IoU of positive slots' decoded boxes with their targets.
        public var meanIoU: Float = 0
    }

    /// IoU above which an unassigned anchor slot is not penalised for objectness.
    public static let ignoreThreshold: Double = 0.6

    /// The loss of raw head outputs, one [N, gridHeight, gridWidth, slots·(5+K)] per level
    /// (with that level's coding), against one target per image, recorded on the outputs'
    /// tape with its gradient.
    public static func compute(_ raws: [Variable], targets: [DetectionTarget], codings: [DetectionBoxCoding],
                               weights: Weights = Weights()) -> (loss: Variable, components: Components) {
        precondition(raws.count == codings.count && !raws.isEmpty, "one raw output per level")
        let n = targets.count
        let grids = codings.map(\.grid)
        for (raw, c) in zip(raws, grids) {
            precondition(raw.shape == [n, c.gridHeight, c.gridWidth, c.slotsPerCell * c.valuesPerSlot],
                         "raw output \(raw.shape) does not match its level or \(n) targets")
        }
        let owners = targets.map { SlotAssignment.assign($0, grids: grids) }
        let positives = owners.reduce(0) { total, levels in total + levels.reduce(0) { $0 + $1.filter { $0 >= 0 }.count } }
        let normalizer = 1 / Float(max(1, positives))
        var components = Components()
        components.positives = positives
        var iouSum: Float = 0
        var gradients: [Tensor] = []
        for (level, raw) in raws.enumerated() {
            let coding = codings[level], c = grids[level]
            let slotsPerImage = c.slotCount
            let perSlot = c.valuesPerSlot, k = c.classCount
            let values = raw.value
            var gradient = [Float](repeating: 0, count: values.count)
            var probabilities = [Float](repeating: 0, count: k)
            values.withUnsafeBufferPointer { v in
                for image in 0..<n {
                    let target = targets[image], owner = owners[image][level]
                    let corners = target.boxes.map { (x1: Float($0.minX), y1: Float($0.minY), x2: Float($0.maxX), y2: Float($0.maxY)) }
                    for slotIndex in 0..<slotsPerImage {
                        let base = (image * slotsPerImage + slotIndex) * perSlot
                        let slot = slotIndex % c.slotsPerCell, cell = slotIndex / c.slotsPerCell
                        let row = cell / c.gridWidth, column = cell % c.gridWidth
                        let box = owner[slotIndex]
                        let decoded = coding.decode(tx: v[base], ty: v[base + 1], tw: v[base + 2], th: v[base + 3],
                                                    row: row, column: column, slot: slot)
                        let predicted = (x1: decoded.centerX - decoded.width / 2, y1: decoded.centerY - decoded.height / 2,
                                         x2: decoded.centerX + decoded.width / 2, y2: decoded.centerY + decoded.height / 2)
                        // Objectness.
                        var objectnessWeight: Float = 1
                        if box < 0 && c.usesAnchors && !corners.isEmpty {
                            let predictedBox = BoundingBox(minX: Double(predicted.x1), minY: Double(predicted.y1),
                                                           maxX: Double(predicted.x2), maxY: Double(predicted.y2))
                            if target.boxes.contains(where: { $0.intersectionOverUnion(predictedBox) > ignoreThreshold }) {
                                objectnessWeight = 0
                            }
                        }
                        let logit = v[base + 4], t: Float = box >= 0 ? 1 : 0
                        if objectnessWeight > 0 {
                            components.objectness += weights.objectness * normalizer * (t * softplus(-logit) + (1 - t) * softplus(logit))
                            gradient[base + 4] = weights.objectness * normalizer * (sigmoid(logit) - t)
                        }
                        guard box >= 0 else { continue }
                        // Classification: softmax cross-entropy.
                        var maximum = -Float.infinity
                        for q in 0..<k { maximum = max(maximum, v[base + 5 + q]) }
                        var total: Float = 0
                        for q in 0..<k { probabilities[q] = Foundation.exp(v[base + 5 + q] - maximum); total += probabilities[q] }
                        let label = target.classIndices[box]
                        for q in 0..<k {
                            probabilities[q] /= total
                            gradient[base + 5 + q] = weights.classification * normalizer * (probabilities[q] - (q == label ? 1 : 0))
                        }
                        components.classification -= weights.classification * normalizer * Foundation.log(max(probabilities[label], 1e-12))
                        // Box: 1 − GIoU, chained through the decoding.
                        let (giou, g) = GeneralizedIoU.valueAndGradient(predicted, corners[box])
                        components.box += weights.box * normalizer * (1 - giou)
                        let iou = Float(target.boxes[box].intersectionOverUnion(
                            BoundingBox(minX: Double(predicted.x1), minY: Double(predicted.y1),
                                        maxX: Double(predicted.x2), maxY: Double(predicted.y2))))
                        iouSum += iou
                        let scale = -weights.box * normalizer
                        let dCenterX = (g.x1 + g.x2) * scale, dCenterY = (g.y1 + g.y2) * scale
                        let dWidth = (g.x2 - g.x1) / 2 * scale, dHeight = (g.y2 - g.y1) / 2 * scale
                        let s = Float(c.stride)
                        if c.usesAnchors {
                            let sx = sigmoid(v[base]), sy = sigmoid(v[base + 1])
                            gradient[base] = dCenterX * s * sx * (1 - sx)
                            gradient[base + 1] = dCenterY * s * sy * (1 - sy)
                        } else {
                            gradient[base] = dCenterX * s
                            gradient[base + 1] = dCenterY * s
                        }
                        let bound = DetectionBoxCoding.maximumLogScale
                        gradient[base + 2] = abs(v[base + 2]) < bound ? dWidth * decoded.width : 0
                        gradient[base + 3] = abs(v[base + 3]) < bound ? dHeight * decoded.height : 0
                    }
                }
            }
            gradients.append(Tensor(shape: values.shape, scalars: gradient))
        }
        components.meanIoU = positives > 0 ? iouSum / Float(positives) : 0
        components.total = components.box + components.objectness + components.classification
        let loss = raws[0].tape.record(Tensor(components.total), inputs: raws) { g in
            gradients.map { $0 * g.scalar }
        }
        return (loss, components)
    }

    @inline(__always)
    static func softplus(_ x: Float) -> Float {
        x > 0 ? x + Foundation.log1p(Foundation.exp(-x)) : Foundation.log1p(Foundation.exp(x))
    }
}
