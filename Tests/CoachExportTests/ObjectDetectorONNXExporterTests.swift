import CoachData
import CoachExport
import CoachModels
import CoachNN
import CoachRuntime
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Exported object detectors against independent references: the `onnx` package parses and
/// fully checks the file, and onnxruntime's raw head tensors and decoded boxes on letterboxed
/// synthetic board photos equal Coach's own head and `DetectionBoxCoding` on the same pixels.
final class ObjectDetectorONNXExporterTests: XCTestCase {
    func testOnnxRuntimeGivesCoachsHeadOutputsAndBoxes() throws {
        let backbone = try BackboneFixture.load()
        let python = try ONNXPeer.python()
        let directory = try temporaryDirectory(self)
        let modelURL = try ObjectDetectorExportFixture.trainedDetector(in: directory, backbone: backbone)
        let onnxURL = directory.appendingPathComponent("board.onnx")
        let exported = try ModelExporter.export(modelAt: modelURL, format: .onnx, backbone: BackboneFixture.url)
        try exported.write(to: onnxURL)
        XCTAssertEqual(try ModelExporter.export(modelAt: modelURL, format: .onnx, backbone: BackboneFixture.url), exported,
                       "the same model exports to the same bytes")

        let model = try ObjectDetectorModel(file: ModelFile.read(from: modelURL))
        let c = model.configuration, grids = c.grids
        XCTAssertEqual(c.levels.map(\.stride), [16, 32])
        let photos = ["0001.jpg", "0002.jpg", "0003.jpg"].map { directory.appendingPathComponent("train/\($0)") }
        var inputs: [URL] = [], encoded: [[Float]] = []
        for (index, photo) in photos.enumerated() {
            let input = directory.appendingPathComponent("input-\(index).f32")
            encoded.append(try ObjectDetectorExportFixture.writeLetterboxedInput(of: photo, configuration: c, to: input))
            inputs.append(input)
        }
        let report = try ONNXPeer.run(model: onnxURL, inputs: inputs, python: python, in: directory)

        // The interface.
        let boxes = grids.map(\.slotCount).reduce(0, +), classes = c.classCount
        XCTAssertEqual(report.irVersion, 7)
        XCTAssertEqual(report.opsets, ["": 13])
        XCTAssertEqual(report.inputs.map(\.name), ["image"])
        XCTAssertEqual(report.inputs.first?.shape, [1, 3, 224, 224])
        XCTAssertEqual(report.outputs.map(\.name), ["rawStride16", "rawStride32", "confidence", "coordinates"])
        XCTAssertEqual(report.outputs.map(\.shape), [[1, 14, 14, grids[0].slotsPerCell * (5 + classes)],
                                                     [1, 7, 7, grids[1].slotsPerCell * (5 + classes)],
                                                     [boxes, classes], [boxes, 4]])
        XCTAssertEqual(report.metadata["classLabels"], "[\"blue_bag\",\"board\",\"hole\",\"red_bag\"]")
        XCTAssertEqual(report.metadata["task"], "object-detector")
        XCTAssertEqual(report.metadata["description"], "Boards, for the export test")
        let anchors = try JSONDecoder().decode([DetectionLevel].self, from: Data(report.metadata["anchors"]!.utf8))
        XCTAssertEqual(anchors, c.levels)
        XCTAssertEqual(report.operators["Resize"], 1)
        XCTAssertEqual(report.operators["AveragePool"], 1)
        XCTAssertNil(report.operators["NonMaxSuppression"])

        // The numbers. Reference: Coach's head on the backbone's float32 maps of Coach's own
        // encoding (the runtime caches the maps as bfloat16; that path is measured below).
        let batch = Tensor(shape: [encoded.count, c.inputHeight, c.inputWidth, 3], scalars: encoded.flatMap { $0 })
        let maps = backbone.network.forward(batch, keeping: [.stride16, .stride32])
        let features = DetectorFeatureBatch(count: encoded.count,
                                            stride32: maps.stride32!.reshaped(to: [-1, EfficientNetLite0.featureCount]),
                                            stride16: maps.stride16!.reshaped(to: [-1, EfficientNetLite0.stride16Channels]))
        let reference = model.head(features, tape: Tape(mode: .inference, recordsGradients: false)).map(\.value)
        let runtime = model.rawOutputs(DetectorFeatureExtractor(backbone: backbone.network, configuration: c).maps(of: encoded))
        var rawDifference: Float = 0, runtimeDifference: Float = 0, confidenceDifference: Float = 0, boxDifference: Float = 0
        var confident = 0
        XCTAssertEqual(report.allResults.count, photos.count)
        for (index, outputs) in report.allResults.enumerated() {
            XCTAssertEqual(outputs.count, 4)
            for level in 0..<2 {
                let perImage = reference[level].count / encoded.count
                let coach = Array(reference[level].scalars[(index * perImage)..<((index + 1) * perImage)])
                let coachRuntime = Array(runtime[level].scalars[(index * perImage)..<((index + 1) * perImage)])
                XCTAssertEqual(outputs[level].count, perImage)
                for (onnx, (value, runtimeValue)) in zip(outputs[level], zip(coach, coachRuntime)) {
                    // Absolute below 1, relative above.
                    rawDifference = max(rawDifference, abs(onnx - value) / max(1, abs(value)))
                    runtimeDifference = max(runtimeDifference, abs(onnx - runtimeValue) / max(1, abs(runtimeValue)))
                }
            }
            // Coach's decoder on its own raw outputs, every slot (threshold 0: no slot dropped), before NMS.
            var detections: [Detection] = []
            for (level, coding) in model.codings.enumerated() {
                let perImage = reference[level].count / encoded.count
                detections += reference[level].withUnsafeBufferPointer { p in
                    coding.decodeAll(UnsafeBufferPointer(rebasing: p[(index * perImage)..<((index + 1) * perImage)]), confidenceThreshold: 0)
                }
            }
            XCTAssertEqual(detections.count, boxes)
            XCTAssertEqual(outputs[2].count, boxes * classes)
            XCTAssertEqual(outputs[3].count, boxes * 4)
            for (slot, detection) in detections.enumerated() {
                for k in 0..<classes {
                    confidenceDifference = max(confidenceDifference, abs(outputs[2][slot * classes + k] - detection.classConfidences[k]))
                }
                if detection.confidence >= 0.5 { confident += 1 }
                let b = detection.box
                let expected = [b.centerX / Double(c.inputWidth), b.centerY / Double(c.inputHeight),
                                b.width / Double(c.inputWidth), b.height / Double(c.inputHeight)]
                for q in 0..<4 {
                    let value = Float(expected[q])
                    boxDifference = max(boxDifference, abs(outputs[3][slot * 4 + q] - value) / max(1, abs(value)))
                }
            }
        }
        XCTAssertLessThanOrEqual(rawDifference, 1e-4, "raw head outputs (absolute below 1, relative above)")
        XCTAssertLessThanOrEqual(confidenceDifference, 1e-4)
        XCTAssertLessThanOrEqual(boxDifference, 1e-4, "normalised boxes (absolute below 1, relative above)")
        XCTAssertGreaterThan(confident, 0, "some slots should hold confident boxes, so the comparison means something")
        print("ObjectDetectorONNXExporterTests: max onnxruntime − Coach difference: raw \(rawDifference), "
              + "confidence \(confidenceDifference), coordinates \(boxDifference); raw vs the runtime's bfloat16-cached maps "
              + "\(runtimeDifference); \(confident) slots with confidence ≥ 0.5")
    }

    func testDetectorsExportButOtherKindsAreRefused() throws {
        XCTAssertTrue(ModelExporter.supports(task: .objectDetector, format: .onnx))
        XCTAssertTrue(ModelExporter.supports(task: .objectDetector, format: .coreml))
        XCTAssertTrue(ModelExporter.supports(task: .actionClassifier, format: .onnx))
        XCTAssertTrue(ModelExporter.supports(task: .handPoseClassifier, format: .onnx))
        XCTAssertFalse(ModelExporter.supports(task: "pose-regressor", format: .onnx))
        XCTAssertTrue(ModelExporter.supports(task: .actionClassifier, format: .coreml))
        XCTAssertTrue(ModelExporter.supports(task: .handPoseClassifier, format: .coreml))
    }
}
