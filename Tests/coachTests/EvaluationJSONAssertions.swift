import Foundation
import XCTest

/// Checks `evaluate --json`'s `predictions` against the same object's confusion matrix: `count`
/// predictions, each with a source, a known label and predicted label, a probability and
/// `extraKeys`, which tallied by (label, predicted label) give the printed matrix cell by cell.
func assertPredictionsMatchConfusion(_ object: [String: Any], count: Int, extraKeys: [String] = [],
                                     file: StaticString = #filePath, line: UInt = #line) throws {
    let classes = try XCTUnwrap(object["classes"] as? [String], file: file, line: line)
    let matrix = try XCTUnwrap(object["confusionMatrix"] as? [[Int]], file: file, line: line)
    let predictions = try XCTUnwrap(object["predictions"] as? [[String: Any]], "no predictions in \(object.keys.sorted())",
                                    file: file, line: line)
    XCTAssertEqual(predictions.count, count, file: file, line: line)
    var tallied = [[Int]](repeating: [Int](repeating: 0, count: classes.count), count: classes.count)
    for prediction in predictions {
        XCTAssertFalse((prediction["source"] as? String ?? "").isEmpty, "\(prediction)", file: file, line: line)
        let confidence = try XCTUnwrap(prediction["confidence"] as? Double, "\(prediction)", file: file, line: line)
        XCTAssertTrue((0...1).contains(confidence), "\(prediction)", file: file, line: line)
        for key in extraKeys { XCTAssertNotNil(prediction[key], "\(key) missing from \(prediction)", file: file, line: line) }
        let truth = try XCTUnwrap(classes.firstIndex(of: prediction["label"] as? String ?? ""), "\(prediction)", file: file, line: line)
        let predicted = try XCTUnwrap(classes.firstIndex(of: prediction["predictedLabel"] as? String ?? ""), "\(prediction)",
                                      file: file, line: line)
        tallied[truth][predicted] += 1
    }
    XCTAssertEqual(tallied, matrix, "the predictions tallied give the confusion matrix", file: file, line: line)
}
