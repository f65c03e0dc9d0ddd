import CoachData
import CoachRandom
import CoachTraining
import Foundation
import XCTest

/// AP, matching, precision/recall and the detection confusion matrix on hand-worked cases.
final class DetectionMetricsTests: XCTestCase {
    func box(_ x: Double, _ y: Double = 0, size: Double = 10) -> BoundingBox {
        BoundingBox(minX: x, minY: y, maxX: x + size, maxY: y + size)
    }

    func truth(_ c: Int, _ b: BoundingBox) -> LabeledBox { LabeledBox(classIndex: c, box: b) }
    func guess(_ c: Int, _ confidence: Double, _ b: BoundingBox) -> ScoredBox { ScoredBox(classIndex: c, confidence: confidence, box: b) }

    /// TP (0.9), FP (0.8), TP (0.7) against two true boxes: the precision envelope is 1 up
    /// to recall 0.5 and 2/3 after, so 51 of the 101 recall points score 1 and 50 score 2/3.
    func testInterpolatedAveragePrecision() {
        let image = EvaluatedImage(groundTruth: [truth(0, box(0)), truth(0, box(20))],
                                   predictions: [guess(0, 0.9, box(0)), guess(0, 0.8, box(50, 50)), guess(0, 0.7, box(20))])
        let matching = AveragePrecision.match([image], classIndex: 0, iouThreshold: 0.5)
        XCTAssertEqual(matching.isTruePositive, [true, false, true])
        XCTAssertEqual(AveragePrecision.value(of: matching)!, (51 + 50 * 2.0 / 3) / 101, accuracy: 1e-12)
    }

    func testPredictionsAcrossImagesAreRankedTogether() {
        // Image 1's FP (0.95) outranks image 2's TP (0.6): precision 1/2 at recall 1 → AP 0.5.
        let images = [EvaluatedImage(groundTruth: [], predictions: [guess(0, 0.95, box(0))]),
                      EvaluatedImage(groundTruth: [truth(0, box(0))], predictions: [guess(0, 0.6, box(0))])]
        XCTAssertEqual(AveragePrecision.compute(images, classIndex: 0, iouThreshold: 0.5)!, 0.5, accuracy: 1e-12)
    }

    /// Equal confidences keep their input order (a stable sort), which decides AP.
    func testTiesKeepInputOrder() {
        let hitFirst = EvaluatedImage(groundTruth: [truth(0, box(0))], predictions: [guess(0, 0.8, box(0)), guess(0, 0.8, box(40))])
        let missFirst = EvaluatedImage(groundTruth: [truth(0, box(0))], predictions: [guess(0, 0.8, box(40)), guess(0, 0.8, box(0))])
        XCTAssertEqual(AveragePrecision.compute([hitFirst], classIndex: 0, iouThreshold: 0.5)!, 1, accuracy: 1e-12)
        XCTAssertEqual(AveragePrecision.compute([missFirst], classIndex: 0, iouThreshold: 0.5)!, 0.5, accuracy: 1e-12)
    }

    func testDuplicatesAndThresholds() {
        // A second box on an already matched truth is a false positive.
        let duplicate = EvaluatedImage(groundTruth: [truth(0, box(0))], predictions: [guess(0, 0.9, box(0)), guess(0, 0.8, box(1))])
        XCTAssertEqual(AveragePrecision.match([duplicate], classIndex: 0, iouThreshold: 0.5).isTruePositive, [true, false])
        // IoU 100/150 = 0.667 is a hit at 0.50, 0.55, 0.60, 0.65 and a miss at 0.70…0.95: COCO AP 4/10.
        let tall = BoundingBox(minX: 0, minY: 0, maxX: 10, maxY: 15)
        let image = EvaluatedImage(groundTruth: [truth(0, box(0))], predictions: [guess(0, 0.9, tall)])
        let metrics = DetectionMetrics(classes: ["a"], images: [image], confidenceThreshold: 0.5)
        XCTAssertEqual(metrics.perClass[0].ap50!, 1, accuracy: 1e-12)
        XCTAssertEqual(metrics.perClass[0].ap!, 0.4, accuracy: 1e-12)
        XCTAssertEqual(metrics.meanAveragePrecision, 0.4, accuracy: 1e-12)
    }

    /// No predictions: AP 0. No true boxes: no AP (nil), left out of the means; its
    /// predictions are all false positives.
    func testNoPredictionsAndNoGroundTruth() {
        let image = EvaluatedImage(groundTruth: [truth(0, box(0)), truth(1, box(30))],
                                   predictions: [guess(1, 0.9, box(30)), guess(2, 0.8, box(60))])
        let metrics = DetectionMetrics(classes: ["a", "b", "c"], images: [image], confidenceThreshold: 0.5)
        XCTAssertEqual(metrics.perClass.map(\.ap50), [0, 1, nil])
        XCTAssertEqual(metrics.perClass.map(\.ap), [0, 1, nil])
        XCTAssertEqual(metrics.meanAveragePrecision50, 0.5, accuracy: 1e-12)
        XCTAssertEqual(metrics.perClass.map(\.precision), [0, 1, 0])
        XCTAssertEqual(metrics.perClass.map(\.recall), [0, 1, 0])
        XCTAssertNil(AveragePrecision.compute([EvaluatedImage(groundTruth: [], predictions: [])], classIndex: 0, iouThreshold: 0.5))
        XCTAssertEqual(AveragePrecision.compute([EvaluatedImage(groundTruth: [truth(0, box(0))], predictions: [])],
                                                classIndex: 0, iouThreshold: 0.5), 0)
    }

    func testPrecisionRecallAndConfusionMatrixAtTheThreshold() {
        // Truth: a@0 (class 0), b@20 (class 1), c@40 (class 0).
        // Predictions: class 1 on a (confused), class 1 on b (right), class 0 on empty space
        // (false detection), class 0 on c at 0.3 (below the threshold: c counts as missed).
        let image = EvaluatedImage(groundTruth: [truth(0, box(0)), truth(1, box(20)), truth(0, box(40))],
                                   predictions: [guess(1, 0.9, box(0)), guess(1, 0.8, box(20)), guess(0, 0.7, box(100, 100)),
                                                 guess(0, 0.3, box(40))])
        let metrics = DetectionMetrics(classes: ["a", "b"], images: [image], confidenceThreshold: 0.5)
        XCTAssertEqual(metrics.confusionMatrix, [[0, 1, 1], [0, 1, 0], [1, 0, 0]])
        XCTAssertEqual(metrics.perClass[0].precision, 0)
        XCTAssertEqual(metrics.perClass[0].recall, 0)
        XCTAssertEqual(metrics.perClass[1].precision, 0.5, accuracy: 1e-12)
        XCTAssertEqual(metrics.perClass[1].recall, 1)
        // AP still sees the 0.3 detection of c: class a ranks FP (0.7) then TP (0.3) of 2 truths.
        XCTAssertEqual(metrics.perClass[0].ap50!, 51 * 0.5 / 101, accuracy: 1e-12)
    }

    func testConfusionMatrixPairsByHighestIoUFirst() {
        // Two predictions overlap one truth; the better-overlapping one (class 1) pairs with it.
        let image = EvaluatedImage(groundTruth: [truth(0, box(0))],
                                   predictions: [guess(0, 0.9, box(3)), guess(1, 0.6, box(1))])
        XCTAssertEqual(DetectionMetrics.confusionMatrix([image], classCount: 2, iouThreshold: 0.5), [[0, 1, 0], [0, 0, 0], [1, 0, 0]])
    }

    func testJSONHasTheDocumentedKeysAndNullForMissingAP() throws {
        let image = EvaluatedImage(groundTruth: [truth(0, box(0))], predictions: [guess(0, 0.9, box(0))])
        let metrics = DetectionMetrics(classes: ["board", "bag"], images: [image], confidenceThreshold: 0.5)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(metrics)) as! [String: Any]
        for key in ["task", "classes", "meanAveragePrecision50", "meanAveragePrecision", "perClass", "confusionMatrix"] {
            XCTAssertNotNil(object[key], "missing key \(key)")
        }
        XCTAssertEqual(object["task"] as? String, "object-detector")
        let perClass = object["perClass"] as! [[String: Any]]
        XCTAssertEqual(perClass[0]["label"] as? String, "board")
        XCTAssertEqual(perClass[0]["ap50"] as? Double, 1)
        XCTAssertTrue(perClass[1]["ap50"] is NSNull, "a class without true boxes has ap50 null, got \(String(describing: perClass[1]["ap50"]))")
        XCTAssertTrue(perClass[1]["ap"] is NSNull)
        for key in ["precision", "recall"] { XCTAssertNotNil(perClass[1][key]) }
        XCTAssertEqual(try JSONDecoder().decode(DetectionMetrics.self, from: JSONEncoder().encode(metrics)), metrics)
    }
    /// One image's outcome at the threshold: the surer of two boxes on one object is right and the
    /// other wrong, a box of the wrong class is wrong and its object missed, a box too far off is
    /// wrong, and a prediction under the threshold neither finds its object nor counts as wrong.
    func testOutcomeOfOneImage() {
        let image = EvaluatedImage(
            groundTruth: [truth(0, box(0)), truth(1, box(40)), truth(1, box(80)), truth(0, box(120))],
            predictions: [guess(0, 0.8, box(1)), guess(0, 0.9, box(0)), guess(0, 0.7, box(40)), guess(1, 0.3, box(80)),
                          guess(0, 0.6, box(125))])
        let outcome = DetectionOutcome(image, imageIndex: 4, confidenceThreshold: 0.5)
        XCTAssertEqual(outcome.imageIndex, 4)
        XCTAssertEqual(outcome.correct, [1])
        XCTAssertEqual(outcome.wrong, [0, 2, 4], "a duplicate, a box of the wrong class, a box at IoU 0.33")
        XCTAssertEqual(outcome.missed, [1, 2, 3])
        XCTAssertEqual(outcome.mistakeCount, 6)
        // At IoU 0.3 the shifted box finds its object.
        XCTAssertEqual(DetectionOutcome(image, imageIndex: 4, confidenceThreshold: 0.5, matchingIoU: 0.3).correct, [1, 4])
    }

    /// Over many random images the outcomes add up to the metrics' own per-class counts (matched
    /// over all images at once), and the images with mistakes come most mistakes first.
    func testOutcomesAddUpToPrecisionAndRecall() {
        var generator = SeededGenerator(seed: 7)
        var images: [EvaluatedImage] = []
        for _ in 0..<40 {
            let truths = (0..<generator.nextInt(in: 0...4)).map { _ in
                truth(generator.nextInt(in: 0...2), box(Double(generator.nextInt(in: 0...59))))
            }
            let guesses = (0..<generator.nextInt(in: 0...5)).map { _ in
                guess(generator.nextInt(in: 0...2), Double(generator.nextInt(in: 0...99)) / 100, box(Double(generator.nextInt(in: 0...59))))
            }
            images.append(EvaluatedImage(groundTruth: truths, predictions: guesses))
        }
        let metrics = DetectionMetrics(classes: ["a", "b", "c"], images: images, confidenceThreshold: 0.4)
        let outcomes = images.enumerated().map { DetectionOutcome($1, imageIndex: $0, confidenceThreshold: 0.4) }
        let truePositives = metrics.perClass.map { Int(($0.recall * Double($0.groundTruthCount)).rounded()) }.reduce(0, +)
        XCTAssertEqual(outcomes.map(\.correct.count).reduce(0, +), truePositives)
        XCTAssertEqual(outcomes.map(\.wrong.count).reduce(0, +), metrics.perClass.map(\.predictionCount).reduce(0, +) - truePositives)
        XCTAssertEqual(outcomes.map(\.missed.count).reduce(0, +), metrics.perClass.map(\.groundTruthCount).reduce(0, +) - truePositives)

        let mistakes = DetectionOutcome.mistakes(in: images, confidenceThreshold: 0.4)
        XCTAssertEqual(Set(mistakes.map(\.imageIndex)), Set(outcomes.filter { $0.mistakeCount > 0 }.map(\.imageIndex)))
        XCTAssertEqual(mistakes.map(\.mistakeCount), mistakes.map(\.mistakeCount).sorted(by: >))
    }
}

