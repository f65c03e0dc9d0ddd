import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// The detector's building blocks: GIoU, box coding, slot assignment, the loss's gradient,
/// non-maximum suppression, and saving then loading a model.
final class ObjectDetectorModelTests: XCTestCase {
    func testIntersectionOverUnionHandWorked() {
        let a = BoundingBox(minX: 0, minY: 0, maxX: 10, maxY: 10)
        XCTAssertEqual(a.intersectionOverUnion(a), 1)
        XCTAssertEqual(a.intersectionOverUnion(BoundingBox(minX: 5, minY: 0, maxX: 15, maxY: 10)), 50.0 / 150, accuracy: 1e-12)
        XCTAssertEqual(a.intersectionOverUnion(BoundingBox(minX: 10, minY: 0, maxX: 20, maxY: 10)), 0, "touching boxes do not overlap")
        XCTAssertEqual(a.intersectionOverUnion(BoundingBox(minX: 2, minY: 2, maxX: 4, maxY: 4)), 4.0 / 100, accuracy: 1e-12)
    }

    func testGeneralizedIoUValuesAndGradient() {
        // Identical boxes: 1. Disjoint unit boxes one apart: IoU 0, union 2, hull 3 → −1/3.
        XCTAssertEqual(GeneralizedIoU.valueAndGradient((0, 0, 2, 2), (0, 0, 2, 2)).value, 1, accuracy: 1e-6)
        XCTAssertEqual(GeneralizedIoU.valueAndGradient((0, 0, 1, 1), (2, 0, 3, 1)).value, -1.0 / 3, accuracy: 1e-6)
        // Overlap 1, union 7, hull 3×3: 1/7 − (9 − 7)/9.
        XCTAssertEqual(GeneralizedIoU.valueAndGradient((0, 0, 2, 2), (1, 1, 3, 3)).value, Float(1.0 / 7 - 2.0 / 9), accuracy: 1e-6)
        // Gradient against central differences (in Double) at overlapping, disjoint and nested positions.
        let cases: [(GeneralizedIoU.Corners, GeneralizedIoU.Corners)] = [
            ((0.3, 0.2, 2.1, 1.7), (1.1, 0.4, 3.3, 2.6)),
            ((0.0, 0.0, 1.0, 1.3), (2.2, 0.5, 3.4, 1.9)),
            ((1.0, 1.2, 2.0, 2.1), (0.4, 0.3, 3.3, 2.9)),
            ((0.2, 0.1, 4.4, 3.9), (1.0, 1.5, 2.5, 2.0)),
        ]
        for (box, target) in cases {
            let analytic = GeneralizedIoU.valueAndGradient(box, target).gradient
            let analyticValues = [analytic.x1, analytic.y1, analytic.x2, analytic.y2]
            for k in 0..<4 {
                func value(_ delta: Float) -> Float {
                    var b = [box.x1, box.y1, box.x2, box.y2]
                    b[k] += delta
                    return GeneralizedIoU.valueAndGradient((b[0], b[1], b[2], b[3]), target).value
                }
                let numeric = (value(1e-3) - value(-1e-3)) / 2e-3
                XCTAssertEqual(analyticValues[k], numeric, accuracy: 2e-3, "box \(box) coordinate \(k)")
            }
        }
    }

    /// One 4×4 grid of 16-pixel cells over a 64×64 input, two classes.
    func configuration(anchors: [AnchorSize] = [], stride: Int = 16) -> DetectionGrid {
        DetectorConfiguration(inputWidth: 64, inputHeight: 64, stride: stride, anchors: anchors, headWidth: 8, headBlocks: 1,
                              classCount: 2).grid(0)
    }

    func testBoxCodingRoundTrips() {
        for c in [configuration(), configuration(anchors: [AnchorSize(width: 10, height: 20), AnchorSize(width: 30, height: 30)])] {
            let coding = DetectionBoxCoding(grid: c)
            let box = BoundingBox(minX: 22, minY: 22, maxX: 46, maxY: 40)  // centre (34, 31) in cell row 1, column 2
            for slot in 0..<c.slotsPerCell {
                let t = coding.encode(box, row: 1, column: 2, slot: slot)
                let d = coding.decode(tx: t.tx, ty: t.ty, tw: t.tw, th: t.th, row: 1, column: 2, slot: slot)
                XCTAssertEqual(d.centerX, 34, accuracy: 1e-3)
                XCTAssertEqual(d.centerY, 31, accuracy: 1e-3)
                XCTAssertEqual(d.width, 24, accuracy: 1e-3)
                XCTAssertEqual(d.height, 18, accuracy: 1e-3)
            }
        }
        // Anchor-free coding: (0, 0, 0, 0) is the cell's centre with the stride's size.
        let d = DetectionBoxCoding(grid: configuration()).decode(tx: 0, ty: 0, tw: 0, th: 0, row: 2, column: 1, slot: 0)
        XCTAssertEqual([d.centerX, d.centerY, d.width, d.height], [24, 40, 16, 16])
    }

    func testSlotAssignment() {
        // Grid 4×4 of 16 px cells; cell centres at 8, 24, 40, 56.
        let c = configuration()
        // A 40×40 box centred at (32, 32): centre sampling radius 1.5 cells = 24 px covers
        // centres 8…56, but only those inside the box (12…52) count: 24 and 40 → 2×2 cells.
        let big = BoundingBox(minX: 12, minY: 12, maxX: 52, maxY: 52)
        let owners = SlotAssignment.assign(DetectionTarget(boxes: [big], classIndices: [0]), grids: [c])[0]
        XCTAssertEqual(owners.enumerated().filter { $0.element == 0 }.map(\.offset), [5, 6, 9, 10])
        // A small box inside it takes its centre cell (the smaller box wins shared cells).
        let small = BoundingBox(minX: 36, minY: 36, maxX: 44, maxY: 44)
        let both = SlotAssignment.assign(DetectionTarget(boxes: [big, small], classIndices: [0, 1]), grids: [c])[0]
        XCTAssertEqual(both[10], 1)
        XCTAssertEqual(both.filter { $0 == 0 }.count, 3)
        // A box smaller than a cell still gets the cell holding its centre.
        let tiny = BoundingBox(minX: 1, minY: 1, maxX: 5, maxY: 5)
        XCTAssertEqual(SlotAssignment.assign(DetectionTarget(boxes: [tiny], classIndices: [1]), grids: [c])[0][0], 0)
        // Anchors: the centre cell and the best-shaped anchor.
        let anchored = configuration(anchors: [AnchorSize(width: 10, height: 30), AnchorSize(width: 30, height: 10)])
        let wide = BoundingBox(minX: 20, minY: 36, maxX: 48, maxY: 44)  // 28×8, centre (34, 40) → cell (2, 2)
        let slots = SlotAssignment.assign(DetectionTarget(boxes: [wide], classIndices: [0]), grids: [anchored])[0]
        XCTAssertEqual(slots.enumerated().filter { $0.element == 0 }.map(\.offset), [(2 * 4 + 2) * 2 + 1])
        // Three wide boxes centred in the same cell choose smallest first: the first takes the
        // wide anchor, the second the remaining one, the largest finds no free slot.
        let wider = BoundingBox(minX: 18, minY: 35, maxX: 50, maxY: 45)
        let shared = SlotAssignment.assign(DetectionTarget(boxes: [wider, wide, wide], classIndices: [0, 1, 1]),
                                           grids: [anchored])[0]
        XCTAssertEqual(shared[(2 * 4 + 2) * 2 + 1], 1)
        XCTAssertEqual(shared[(2 * 4 + 2) * 2], 2)
        XCTAssertFalse(shared.contains(0))
    }

    func testDetectionLossGradientMatchesFiniteDifferences() {
        for anchors in [[], [AnchorSize(width: 20, height: 20), AnchorSize(width: 40, height: 24)]] {
            let c = configuration(anchors: anchors)
            let coding = DetectionBoxCoding(grid: c)
            var g = SeededGenerator(seed: 9)
            let raw = Tensor.randomNormal([2, 4, 4, c.slotsPerCell * c.valuesPerSlot], standardDeviation: 0.5, using: &g)
            let targets = [
                DetectionTarget(boxes: [BoundingBox(minX: 10, minY: 12, maxX: 40, maxY: 30), BoundingBox(minX: 44, minY: 40, maxX: 60, maxY: 60)],
                                classIndices: [0, 1]),
                DetectionTarget(boxes: [], classIndices: []),
            ]
            checkGradients([raw], epsilon: 2e-3, tolerance: 2e-2, maxChecksPerInput: 300) { inputs in
                DetectionLoss.compute([inputs[0]], targets: targets, codings: [coding]).loss
            }
        }
    }

    /// Two levels: small anchors on the 4×4 grid of stride 16, a large one on the 2×2 grid of
    /// stride 32. Each box goes to its best-shaped anchor's level; a box whose slot is taken
    /// falls back to the next best anchor, on either level.
    func testTwoLevelAssignmentAndLossGradient() {
        let detector = DetectorConfiguration(inputWidth: 64, inputHeight: 64,
                                             levels: [DetectionLevel(stride: 16, anchors: [AnchorSize(width: 12, height: 12)]),
                                                      DetectionLevel(stride: 32, anchors: [AnchorSize(width: 40, height: 30)])],
                                             headWidth: 8, headBlocks: 1, classCount: 2)
        let grids = detector.grids
        XCTAssertEqual(grids.map(\.gridWidth), [4, 2])
        let big = BoundingBox(minX: 10, minY: 20, maxX: 50, maxY: 48)    // centre (30, 34): stride-32 cell (1, 0)
        let small = BoundingBox(minX: 40, minY: 4, maxX: 52, maxY: 16)   // centre (46, 10): stride-16 cell (0, 2)
        let twin = BoundingBox(minX: 41, minY: 4, maxX: 53, maxY: 16)    // same cell as `small`: falls back to stride 32
        let owners = SlotAssignment.assign(DetectionTarget(boxes: [big, small, twin], classIndices: [0, 1, 1]), grids: grids)
        XCTAssertEqual(owners[0].enumerated().filter { $0.element >= 0 }.map { [$0.offset, $0.element] }, [[2, 1]])
        XCTAssertEqual(owners[1].enumerated().filter { $0.element >= 0 }.map { [$0.offset, $0.element] }, [[1, 2], [2, 0]])

        var g = SeededGenerator(seed: 4)
        let raws = grids.map { Tensor.randomNormal([2, $0.gridHeight, $0.gridWidth, $0.slotsPerCell * $0.valuesPerSlot],
                                                   standardDeviation: 0.5, using: &g) }
        let targets = [DetectionTarget(boxes: [big, small], classIndices: [0, 1]), DetectionTarget(boxes: [twin], classIndices: [1])]
        let codings = grids.map { DetectionBoxCoding(grid: $0) }
        checkGradients(raws, epsilon: 2e-3, tolerance: 2e-2, maxChecksPerInput: 200) { inputs in
            DetectionLoss.compute(inputs, targets: targets, codings: codings).loss
        }
    }

    func detection(_ classIndex: Int, _ confidence: Float, _ box: BoundingBox) -> Detection {
        Detection(classIndex: classIndex, confidence: confidence, classConfidences: [], box: box)
    }

    func testNonMaximumSuppressionHandWorked() {
        let a = BoundingBox(minX: 0, minY: 0, maxX: 10, maxY: 10)
        let shifted = BoundingBox(minX: 2, minY: 0, maxX: 12, maxY: 10)   // IoU with a: 80/120 = 0.667
        let half = BoundingBox(minX: 5, minY: 0, maxX: 15, maxY: 10)      // IoU with a: 50/150 = 0.333
        let far = BoundingBox(minX: 50, minY: 50, maxX: 60, maxY: 60)
        XCTAssertEqual(NonMaximumSuppression.apply([], iouThreshold: 0.5), [])
        // Same class: the overlapping weaker box goes; a different class at the same place stays.
        let kept = NonMaximumSuppression.apply([detection(0, 0.6, shifted), detection(0, 0.9, a), detection(1, 0.7, a),
                                                detection(0, 0.5, half), detection(0, 0.4, far)], iouThreshold: 0.5)
        XCTAssertEqual(kept.map(\.confidence), [0.9, 0.7, 0.5, 0.4])
        XCTAssertEqual(kept.map(\.classIndex), [0, 1, 0, 0])
        // Suppression needs IoU strictly above the threshold.
        XCTAssertEqual(NonMaximumSuppression.apply([detection(0, 0.9, a), detection(0, 0.8, half)], iouThreshold: 50.0 / 150).count, 2)
        XCTAssertEqual(NonMaximumSuppression.apply([detection(0, 0.9, a), detection(0, 0.8, half)], iouThreshold: 0.33).count, 1)
        // Ties in confidence: the earlier input wins.
        let tie = NonMaximumSuppression.apply([detection(0, 0.8, shifted), detection(0, 0.8, a)], iouThreshold: 0.5)
        XCTAssertEqual(tie.map(\.box), [shifted])
        // A suppressed box does not suppress others: a > b (0.667) and b > c, but a and c overlap 0.333.
        let chain = NonMaximumSuppression.apply([detection(0, 0.9, a), detection(0, 0.8, shifted),
                                                 detection(0, 0.7, BoundingBox(minX: 4, minY: 0, maxX: 14, maxY: 10))],
                                                iouThreshold: 0.5)
        XCTAssertEqual(chain.count, 2)
        XCTAssertEqual(NonMaximumSuppression.apply([detection(0, 0.9, a), detection(0, 0.8, far)], iouThreshold: 0.5,
                                                   maximumCount: 1).count, 1)
    }

    func testAnchorClusteringFindsTheShapes() {
        var g = SeededGenerator(seed: 1)
        var sizes: [AnchorSize] = []
        for _ in 0..<50 { sizes.append(AnchorSize(width: 20 + Double(g.nextUniform()), height: 60 + Double(g.nextUniform()))) }
        for _ in 0..<50 { sizes.append(AnchorSize(width: 80 + Double(g.nextUniform()), height: 30 + Double(g.nextUniform()))) }
        let anchors = AnchorClustering.anchors(sizes: sizes, count: 2, using: &g)
        XCTAssertEqual(anchors.count, 2)
        XCTAssertEqual(anchors[0].width, 20.5, accuracy: 0.5)
        XCTAssertEqual(anchors[0].height, 60.5, accuracy: 0.5)
        XCTAssertEqual(anchors[1].width, 80.5, accuracy: 0.5)
        XCTAssertEqual(anchors[1].height, 30.5, accuracy: 0.5)
    }

    func testSaveThenLoadGivesTheSameDetector() throws {
        let c = DetectorConfiguration(inputWidth: 96, inputHeight: 64,
                                      levels: [DetectionLevel(stride: 16, anchors: [AnchorSize(width: 10, height: 12)]),
                                               DetectionLevel(stride: 32, anchors: [AnchorSize(width: 40, height: 30),
                                                                                     AnchorSize(width: 60, height: 50)])],
                                      headWidth: 12, headBlocks: 2, classCount: 3)
        var g = SeededGenerator(seed: 3)
        let model = try ObjectDetectorModel(configuration: c, classLabels: ["a", "b", "c"], generator: &g)
        // Move every weight and running statistic off its initial value.
        for (_, p) in model.head.namedParameters {
            p.value = p.value + Tensor.randomUniform(p.value.shape, lower: 0.1, upper: 0.3, using: &g)
        }
        let names = Set(model.head.stateDictionary.keys)
        for name in ["lateral32.weight", "lateral16.bias", "levels.0.norm.runningVariance", "levels.0.blocks.1.depthwise.weight",
                     "levels.1.blocks.0.pointwise.weight", "levels.1.blocks.1.norm2.scale", "levels.0.output.weight",
                     "levels.1.output.bias"] {
            XCTAssertTrue(names.contains(name), "missing parameter \(name) in \(names.sorted())")
        }
        let url = try temporaryDirectory(self).appendingPathComponent("detector.h5")
        try model.modelFile(backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "a", count: 64)))
            .write(to: url)
        let file = try ModelFile.read(from: url)
        XCTAssertEqual(file.metadata.task, .objectDetector)
        XCTAssertEqual(file.metadata.extra["gridSize"], .array([.number(6), .number(4)]))
        XCTAssertEqual(file.metadata.extra["gridSizes"], .array([.array([.number(6), .number(4)]), .array([.number(3), .number(2)])]))
        XCTAssertEqual(model.head.stateDictionary["levels.1.output.weight"]?.shape, [12, 2 * 8])
        let loaded = try ObjectDetectorModel(file: file)
        XCTAssertEqual(loaded.configuration, c)
        XCTAssertEqual(loaded.classLabels, ["a", "b", "c"])
        XCTAssertEqual(loaded.head.stateDictionary, model.head.stateDictionary)
        let maps = DetectorFeatureMaps(
            stride32: Tensor.randomUniform([2 * 3 * 1280], lower: 0, upper: 6, using: &g).scalars.withUnsafeBufferPointer { CompactFloats($0) },
            stride16: Tensor.randomUniform([4 * 6 * 112], lower: 0, upper: 6, using: &g).scalars.withUnsafeBufferPointer { CompactFloats($0) })
        XCTAssertEqual(loaded.rawOutputs([maps]), model.rawOutputs([maps]))
        // A file with a missing tensor is rejected naming it.
        var damaged = file
        damaged.tensors["levels.1.blocks.1.norm2.scale"] = nil
        XCTAssertThrowsError(try ObjectDetectorModel(file: damaged)) { error in
            XCTAssertTrue("\(error.localizedDescription)".contains("levels.1.blocks.1.norm2.scale"), error.localizedDescription)
        }
        // Labels edited to disagree with the class count: the error names the file and the metadata key.
        var relabelled = try ModelFile.read(from: url)
        relabelled.metadata.classLabels = ["a", "b", "c", "d"]
        XCTAssertThrowsError(try ObjectDetectorModel(file: relabelled)) { error in
            let text = error.localizedDescription
            XCTAssertTrue(text.contains(url.path) && text.contains("$.extra.detector") && text.contains("4 class labels"), text)
        }
    }

    func testCompactFloatsRoundToNearestBFloat16() {
        let values: [Float] = [0, 1, -2.5, 3.14159, 1e-3, 6]
        let compact = values.withUnsafeBufferPointer { CompactFloats($0) }
        var expanded = [Float](repeating: 0, count: values.count)
        expanded.withUnsafeMutableBufferPointer { compact.expand(into: $0.baseAddress!) }
        for (a, b) in zip(values, expanded) { XCTAssertEqual(a, b, accuracy: abs(a) / 256 + 1e-9) }
        XCTAssertEqual(expanded[1], 1)
        XCTAssertEqual(expanded[2], -2.5)
    }
}
