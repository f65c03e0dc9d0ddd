import CoachData
import Foundation

/// How one level's raw head outputs become boxes, and back.
///
/// A level's output is [N, gridHeight, gridWidth, slots · (5 + K)]; slot `a` of cell
/// (row `i`, column `j`) holds `(tx, ty, tw, th, to, c₁…c_K)`. With stride `s`, in
/// input-tensor pixels (origin top-left):
///
/// - **anchor-free, centre-based** (one slot per cell):
///   `cx = (j + ½ + tx)·s`, `cy = (i + ½ + ty)·s`, `w = s·e^tw`, `h = s·e^th`.
/// - **anchors** (YOLOv2): `cx = (j + σ(tx))·s`, `cy = (i + σ(ty))·s`,
///   `w = anchorWidth·e^tw`, `h = anchorHeight·e^th`.
///
/// Objectness is `σ(to)`; class probabilities are `softmax(c)`; the confidence of class k
/// is `σ(to) · softmax(c)_k`. `tw`/`th` are clamped to ±`maximumLogScale` before `exp`.
public struct DetectionBoxCoding: Sendable {
    /// The level's grid and anchors.
    public let grid: DetectionGrid

    /// The bound on `tw`, `th` before exponentiation (e^8 ≈ 2981 strides).
    public static let maximumLogScale: Float = 8

    /// The coding of one level's `grid`.
    public init(grid: DetectionGrid) {
        self.grid = grid
    }

    /// The decoded box (input pixels) of slot `slot` in cell (`row`, `column`) from raw `t`
    /// (`t[0…3]` = tx, ty, tw, th).
    @inline(__always)
    public func decode(tx: Float, ty: Float, tw: Float, th: Float, row: Int, column: Int, slot: Int)
        -> (centerX: Float, centerY: Float, width: Float, height: Float)
    {
        let s = Float(grid.stride)
        let lw = min(max(tw, -Self.maximumLogScale), Self.maximumLogScale)
        let lh = min(max(th, -Self.maximumLogScale), Self.maximumLogScale)
        if grid.usesAnchors {
            let anchor = grid.anchors[slot]
            return ((Float(column) + sigmoid(tx)) * s, (Float(row) + sigmoid(ty)) * s,
                    Float(anchor.width) * Foundation.exp(lw), Float(anchor.height) * Foundation.exp(lh))
        }
        return ((Float(column) + 0.5 + tx) * s, (Float(row) + 0.5 + ty) * s, s * Foundation.exp(lw), s * Foundation.exp(lh))
    }

    /// The raw `(tx, ty, tw, th)` that decode to `box` in slot `slot` of cell (`row`, `column`)
    /// (the inverse of `decode`; anchor offsets are clamped into the open interval (0, 1)).
    public func encode(_ box: BoundingBox, row: Int, column: Int, slot: Int) -> (tx: Float, ty: Float, tw: Float, th: Float) {
        let s = Double(grid.stride)
        if grid.usesAnchors {
            let anchor = grid.anchors[slot]
            func logit(_ p: Double) -> Float {
                let q = min(max(p, 1e-4), 1 - 1e-4)
                return Float(Foundation.log(q / (1 - q)))
            }
            return (logit(box.centerX / s - Double(column)), logit(box.centerY / s - Double(row)),
                    Float(Foundation.log(box.width / anchor.width)), Float(Foundation.log(box.height / anchor.height)))
        }
        return (Float(box.centerX / s - Double(column) - 0.5), Float(box.centerY / s - Double(row) - 0.5),
                Float(Foundation.log(box.width / s)), Float(Foundation.log(box.height / s)))
    }

    /// Every detection in one image's raw output of this level (`values`: gridHeight·gridWidth·slots·(5+K)
    /// floats, NHWC order) whose best-class confidence is at least `confidenceThreshold`,
    /// boxes in input pixels, before non-maximum suppression.
    public func decodeAll(_ values: UnsafeBufferPointer<Float>, confidenceThreshold: Float) -> [Detection] {
        let c = grid
        let k = c.classCount, perSlot = c.valuesPerSlot
        var result: [Detection] = []
        var probabilities = [Float](repeating: 0, count: k)
        for row in 0..<c.gridHeight {
            for column in 0..<c.gridWidth {
                for slot in 0..<c.slotsPerCell {
                    let base = ((row * c.gridWidth + column) * c.slotsPerCell + slot) * perSlot
                    let objectness = sigmoid(values[base + 4])
                    if objectness < confidenceThreshold { continue }
                    var maximum = -Float.infinity
                    for q in 0..<k { maximum = max(maximum, values[base + 5 + q]) }
                    var total: Float = 0
                    for q in 0..<k {
                        probabilities[q] = Foundation.exp(values[base + 5 + q] - maximum)
                        total += probabilities[q]
                    }
                    var best = 0
                    for q in 0..<k {
                        probabilities[q] = objectness * probabilities[q] / total
                        if probabilities[q] > probabilities[best] { best = q }
                    }
                    if probabilities[best] < confidenceThreshold { continue }
                    let b = decode(tx: values[base], ty: values[base + 1], tw: values[base + 2], th: values[base + 3],
                                   row: row, column: column, slot: slot)
                    let box = BoundingBox(centerX: Double(b.centerX), centerY: Double(b.centerY),
                                          width: Double(b.width), height: Double(b.height))
                    result.append(Detection(classIndex: best, confidence: probabilities[best],
                                            classConfidences: probabilities, box: box))
                }
            }
        }
        return result
    }
}

/// The logistic function.
@inline(__always)
func sigmoid(_ x: Float) -> Float { 1 / (1 + Foundation.exp(-x)) }

/// One detected object: class, confidences and box (in whatever pixel space the caller
/// works in: input-tensor pixels from the coding, original-image pixels after mapping back).
public struct Detection: Equatable, Sendable {
    /// The index of the most confident class.
    public var classIndex: Int
    /// The confidence of that class, `objectness · P(class | object)`, in 0…1.
    public var confidence: Float
    /// The confidence of every class, in class order.
    public var classConfidences: [Float]
    /// The box in pixels, origin top-left.
    public var box: BoundingBox

    /// A detection of class `classIndex`.
    public init(classIndex: Int, confidence: Float, classConfidences: [Float], box: BoundingBox) {
        self.classIndex = classIndex
        self.confidence = confidence
        self.classConfidences = classConfidences
        self.box = box
    }
}
