import CoachData
import CoachExport
import CoachModels
import CoachNN
import CoachRuntime
import Foundation
import TestSupport
import XCTest

/// Exported Core ML object detectors against independent references: Apple's validator passes
/// the pipeline, and the NeuralNetwork and NonMaximumSuppression interpreter written from the
/// specification keeps the boxes Coach's own head, decoder and per-class NMS keep on the same pixels.
final class ObjectDetectorCoreMLExporterTests: XCTestCase {
    func testTheInterpreterKeepsCoachsBoxesAndAppleValidatesThePipeline() throws {
        let backbone = try BackboneFixture.load()
        let python = try CoreMLPeer.python()
        _ = try CoreMLPeer.validator()
        let directory = try temporaryDirectory(self)
        let modelURL = try ObjectDetectorExportFixture.trainedDetector(in: directory, backbone: backbone)
        let exported = directory.appendingPathComponent("Boards.mlmodel")
        let data = try ModelExporter.export(modelAt: modelURL, format: .coreml, backbone: BackboneFixture.url)
        try data.write(to: exported)
        XCTAssertEqual(try ModelExporter.export(modelAt: modelURL, format: .coreml, backbone: BackboneFixture.url), data,
                       "the same model exports to the same bytes")
        let validation = try CoreMLPeer.validate(exported)
        XCTAssertTrue(validation.passed, validation.output)
        XCTAssertTrue(validation.output.contains("specificationVersion=4 minimalNeeded=4"), validation.output)

        let model = try ObjectDetectorModel(file: ModelFile.read(from: modelURL))
        let c = model.configuration
        let photos = ["0001.jpg", "0002.jpg", "0003.jpg"].map { directory.appendingPathComponent("train/\($0)") }
        var runs: [[String: URL]] = [], encoded: [[Float]] = []
        for (index, photo) in photos.enumerated() {
            let input = directory.appendingPathComponent("input-\(index).f32")
            encoded.append(try ObjectDetectorExportFixture.writeLetterboxedInput(of: photo, configuration: c, to: input))
            runs.append(["image": input])
        }
        // A run with lower thresholds passed as the optional inputs: more boxes kept.
        let lowConfidence = directory.appendingPathComponent("confidence.f32"), lowIoU = directory.appendingPathComponent("iou.f32")
        try [Float(0.05)].withUnsafeBufferPointer { Data(buffer: $0) }.write(to: lowConfidence)
        try [Float(0.3)].withUnsafeBufferPointer { Data(buffer: $0) }.write(to: lowIoU)
        runs.append(["image": runs[0]["image"]!, "confidenceThreshold": lowConfidence, "iouThreshold": lowIoU])
        let report = try CoreMLPeer.run(model: exported, runs: runs, python: python)
        try CoreMLPeer.checkCoreMLToolsLoads(exported, report: report, python: python)

        // The interface Vision reads as VNRecognizedObjectObservation.
        XCTAssertEqual(report.specificationVersion, 4)
        XCTAssertEqual(report.type, "pipeline")
        XCTAssertEqual(report.description.inputs.map(\.name), ["image", "iouThreshold", "confidenceThreshold"])
        XCTAssertEqual(report.description.inputs.map(\.type), ["image", "double", "double"])
        XCTAssertEqual(report.description.inputs.map { $0.optional ?? false }, [false, true, true])
        XCTAssertEqual(report.description.inputs.first?.width, c.inputWidth)
        XCTAssertEqual(report.description.outputs.map(\.name), ["confidence", "coordinates"])
        XCTAssertEqual(report.classLabels, ["blue_bag", "board", "hole", "red_bag"])
        XCTAssertEqual(report.description.metadata?.shortDescription, "Boards, for the export test")
        XCTAssertEqual(report.description.metadata?.userDefined?["iouThreshold"], "0.45")
        XCTAssertEqual(report.description.metadata?.userDefined?["confidenceThreshold"], "0.5")

        // The numbers. Reference: Coach's head on the backbone's float32 maps of Coach's own
        // encoding, `DetectionBoxCoding`, then Coach's per-class NMS, in the letterboxed input.
        let batch = Tensor(shape: [encoded.count, c.inputHeight, c.inputWidth, 3], scalars: encoded.flatMap { $0 })
        let maps = backbone.network.forward(batch, keeping: [.stride16, .stride32])
        let features = DetectorFeatureBatch(count: encoded.count,
                                            stride32: maps.stride32!.reshaped(to: [-1, EfficientNetLite0.featureCount]),
                                            stride16: maps.stride16!.reshaped(to: [-1, EfficientNetLite0.stride16Channels]))
        let raws = model.head(features, tape: Tape(mode: .inference, recordsGradients: false)).map(\.value)
        XCTAssertEqual(report.results.count, runs.count)
        var confidenceDifference: Float = 0, boxDifference: Float = 0, kept = 0
        for (run, result) in report.results.enumerated() {
            let index = run < photos.count ? run : 0
            let thresholds = run < photos.count ? (confidence: 0.5, iou: 0.45) : (confidence: 0.05, iou: 0.3)
            var candidates: [Detection] = []
            for (level, coding) in model.codings.enumerated() {
                let perImage = raws[level].count / encoded.count
                candidates += raws[level].withUnsafeBufferPointer { p in
                    coding.decodeAll(UnsafeBufferPointer(rebasing: p[(index * perImage)..<((index + 1) * perImage)]),
                                     confidenceThreshold: Float(thresholds.confidence))
                }
            }
            let expected = NonMaximumSuppression.apply(candidates, iouThreshold: thresholds.iou)
            guard let confidence = result["confidence"]?.array, let coordinates = result["coordinates"]?.array else {
                XCTFail("run \(run): no confidence/coordinates in \(result.keys)")
                continue
            }
            XCTAssertEqual(confidence.shape, [expected.count, c.classCount], "run \(run)")
            XCTAssertEqual(coordinates.shape, [expected.count, 4], "run \(run)")
            guard confidence.shape.first == expected.count else { continue }
            // Both most confident first; match each expected box with the interpreter's row.
            for (row, detection) in expected.enumerated() {
                let b = detection.box
                let box = [b.centerX / Double(c.inputWidth), b.centerY / Double(c.inputHeight),
                           b.width / Double(c.inputWidth), b.height / Double(c.inputHeight)]
                for q in 0..<4 { boxDifference = max(boxDifference, abs(coordinates.values[row * 4 + q] - Float(box[q]))) }
                for k in 0..<c.classCount {
                    confidenceDifference = max(confidenceDifference,
                                               abs(confidence.values[row * c.classCount + k] - detection.classConfidences[k]))
                }
            }
            kept += expected.count
        }
        XCTAssertLessThanOrEqual(confidenceDifference, 1e-4)
        XCTAssertLessThanOrEqual(boxDifference, 1e-4)
        XCTAssertGreaterThan(kept, runs.count, "boxes should be kept, so the comparison means something")
        print("ObjectDetectorCoreMLExporterTests: \(kept) boxes kept in \(runs.count) runs; max interpreter − Coach difference: "
              + "confidence \(confidenceDifference), coordinates \(boxDifference)")
    }
}
