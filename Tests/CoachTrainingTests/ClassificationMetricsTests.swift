import Foundation
import XCTest
import CoachTraining

final class ClassificationMetricsTests: XCTestCase {
    func testHandWorkedConfusionMatrix() throws {
        // truth:      a a a b b c
        // prediction: a a b b c c
        let m = ClassificationMetrics(task: "test", classes: ["a", "b", "c"],
                                      truth: [0, 0, 0, 1, 1, 2], predictions: [0, 0, 1, 1, 2, 2])
        XCTAssertEqual(m.confusionMatrix, [[2, 1, 0], [0, 1, 1], [0, 0, 1]])
        XCTAssertEqual(m.accuracy, 4.0 / 6.0, accuracy: 1e-12)
        XCTAssertEqual(m.perClass[0].precision, 1)
        XCTAssertEqual(m.perClass[0].recall, 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(m.perClass[1].precision, 0.5)
        XCTAssertEqual(m.perClass[1].recall, 0.5)
        XCTAssertEqual(m.perClass[2].precision, 0.5)
        XCTAssertEqual(m.perClass[2].recall, 1)
        XCTAssertEqual(m.perClass[2].f1, 2 * 0.5 / 1.5, accuracy: 1e-12)
        XCTAssertEqual(m.perClass.map(\.support), [3, 2, 1])
        XCTAssertEqual(m.balancedAccuracy, (2.0 / 3.0 + 0.5 + 1) / 3, accuracy: 1e-12)

        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(m)) as! [String: Any]
        for key in ["task", "accuracy", "classes", "confusionMatrix", "perClass"] { XCTAssertNotNil(json[key], key) }
        let first = (json["perClass"] as! [[String: Any]])[0]
        for key in ["label", "precision", "recall", "f1", "support"] { XCTAssertNotNil(first[key], key) }
    }

    func testClassesWithoutPredictionsOrExamplesGiveZerosNotNaN() {
        let m = ClassificationMetrics(task: "t", classes: ["a", "b"], truth: [0, 0], predictions: [0, 0])
        XCTAssertEqual(m.perClass[1].precision, 0)
        XCTAssertEqual(m.perClass[1].recall, 0)
        XCTAssertEqual(m.perClass[1].f1, 0)
        XCTAssertEqual(m.balancedAccuracy, 1, "classes without examples do not count")
        let empty = ClassificationMetrics(task: "t", classes: ["a"], truth: [], predictions: [])
        XCTAssertEqual(empty.accuracy, 0)
    }

    func testEarlyStopping() {
        var e = EarlyStopping(patience: 2, higherIsBetter: true)
        XCTAssertTrue(e.record(0.5, iteration: 0))
        XCTAssertTrue(e.record(0.6, iteration: 1))
        XCTAssertFalse(e.record(0.6, iteration: 2))
        XCTAssertFalse(e.shouldStop)
        XCTAssertFalse(e.record(0.55, iteration: 3))
        XCTAssertTrue(e.shouldStop)
        XCTAssertEqual(e.bestIteration, 1)
        var loss = EarlyStopping(patience: 1, minimumDelta: 0.01, higherIsBetter: false)
        loss.record(1.0, iteration: 0)
        XCTAssertFalse(loss.record(0.995, iteration: 1), "below minimumDelta is not an improvement")
        XCTAssertTrue(loss.shouldStop)
    }
}
