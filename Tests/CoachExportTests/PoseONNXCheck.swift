import CoachExport
import Foundation
import TestSupport
import XCTest

/// The pose classifiers' ONNX exports against onnxruntime, on the same inputs as their Core ML
/// exports (`poses`, and `chirality` when the model uses it).
enum PoseONNXCheck {
    /// Exports `modelURL` to ONNX, has `onnx` fully check it and onnxruntime run `runs`, and
    /// compares with Coach's probabilities `expected` (≤ 1e-4; with a random-convolution
    /// member, `relaxed`: threshold flips allowed as in the Core ML tests). Returns the largest difference.
    @discardableResult
    static func compare(modelURL: URL, runs: [[String: URL]], expected: [[Float]], labels: [String], relaxed: Bool,
                        name: String, in directory: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Float {
        let python = try ONNXPeer.python()
        let onnx = directory.appendingPathComponent("\(name).onnx")
        let data = try ModelExporter.export(modelAt: modelURL, format: .onnx)
        try data.write(to: onnx)
        XCTAssertEqual(try ModelExporter.export(modelAt: modelURL, format: .onnx), data, "\(name): the same ONNX bytes twice", file: file, line: line)
        let report = try ONNXPeer.run(model: onnx, feeds: runs, python: python, in: directory)
        XCTAssertEqual(report.opsets, ["": 13], file: file, line: line)
        XCTAssertEqual(report.inputs.map(\.name), runs.first?["chirality"] == nil ? ["poses"] : ["poses", "chirality"], file: file, line: line)
        XCTAssertEqual(report.outputs.map(\.name), ["labelProbabilities"], file: file, line: line)
        XCTAssertEqual(report.outputs.first?.shape, [labels.count], file: file, line: line)
        XCTAssertEqual(report.metadata["classLabels"], "[" + labels.map { "\"\($0)\"" }.joined(separator: ",") + "]", file: file, line: line)
        XCTAssertEqual(report.results.count, expected.count, file: file, line: line)
        var largest: Float = 0, total: Float = 0
        for (result, coach) in zip(report.results, expected) {
            XCTAssertEqual(result.count, coach.count, file: file, line: line)
            for (value, reference) in zip(result, coach) {
                largest = max(largest, abs(value - reference))
                total += abs(value - reference) / Float(coach.count)
            }
        }
        let mean = total / Float(max(expected.count, 1))
        if relaxed {
            XCTAssertLessThanOrEqual(largest, 0.02, "\(name): max |onnxruntime − Coach| probability", file: file, line: line)
            XCTAssertLessThanOrEqual(mean, 2e-3, "\(name): mean |onnxruntime − Coach| probability", file: file, line: line)
        } else {
            XCTAssertLessThanOrEqual(largest, 1e-4, "\(name): max |onnxruntime − Coach| probability", file: file, line: line)
        }
        print("PoseONNXCheck \(name): \(expected.count) inputs, |onnxruntime − Coach| probability max \(largest), mean \(mean)")
        return largest
    }
}
