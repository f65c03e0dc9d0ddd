import ArgumentParser
import CoachExport
import Foundation

/// `coach export MODEL --format onnx --output FILE`: a trained model in another format.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a trained model to Core ML or ONNX.",
        discussion: """
        Image classifiers export to Core ML (.mlmodel, specification 4: iOS 13 / macOS \
        10.15 and later), a drop-in for a Create ML image classifier: input 'image', an \
        RGB 256 × 256 image (with Vision, imageCropAndScaleOption .centerCrop; the model \
        classifies its centre 224 × 224, the backbone inside), outputs 'classLabel' and \
        'classLabelProbs'. Core ML does not run on Linux: open the file in Xcode to check \
        it there. Action and hand-action classifiers export with the interface of Apple's \
        Action & Vision throw classifier: input 'poses' [frames, 3, joints] (x, y, \
        confidence, Vision's bottom-left origin, as keypointsMultiArray() gives them), \
        outputs 'label' and 'labelProbabilities'; hand-pose classifiers take 'poses' [1, \
        3, 21]; models that mirror left hands or read the hand take a second input \
        'chirality' [1] (VNChirality's raw value: -1 left, 1 right). Object detectors \
        export as the pipeline Vision reads as VNRecognizedObjectObservation (the network \
        and non-maximum suppression; optional iouThreshold and confidenceThreshold \
        inputs).

        Image classifiers also export to ONNX (opset 13): one graph with the backbone inside, \
        input 'image' float32 [1, 3, 224, 224] holding RGB 0…255 after Coach's resizing \
        (short side 256, anti-aliased bilinear, centre 224 × 224 crop; the (x − 127) / 128 \
        normalisation is in the graph), output 'classLabelProbs' [1, classes], class \
        labels in the metadata entry 'classLabels'. Object detectors export to ONNX \
        too: input 'image' float32 [1, 3, S, S] holding RGB 0…255 after Coach's \
        letterboxing (aspect kept, grey 127 around), outputs the head's raw tensors \
        'rawStride16'/'rawStride32' [1, rows, columns, anchors·(5 + classes)] and the \
        decoded 'confidence' [boxes, classes] and 'coordinates' [boxes, 4] (normalised \
        centre x, y, width, height), no NMS; anchors in the metadata entry 'anchors'. \
        Pose classifiers export to ONNX with the same inputs as their Core ML files and \
        one output, 'labelProbabilities' [classes]. The file is written atomically.

        Examples:
          coach export models/sports-gear.h5 --format coreml \\
                --output SportsGear.mlmodel
          coach export models/sports-gear.h5 --format onnx --output sports-gear.onnx
          coach export gear.h5 --format onnx --output gear.onnx --backbone b.h5
          coach export models/board.h5 --format onnx --output board.onnx
          coach export models/boards.h5 --format coreml --output Boards.mlmodel
          coach export models/throws.h5 --format coreml \\
                --output PlayerActionClassifier.mlmodel
        """)

    @Argument(help: "The model file (.h5) to export.")
    var model: String

    @Option(help: "The format: coreml or onnx.")
    var format: ExportFormat

    @Option(help: "The file to write (e.g. MODEL.mlmodel or MODEL.onnx).")
    var output: String

    @Option(help: ArgumentHelp(backboneOptionHelp))
    var backbone: String?

    @Flag(help: "Replace an existing output file (never the model or the backbone).")
    var overwrite = false

    func validate() throws {
        if output.isEmpty { throw ValidationError("--output must name the file to write") }
        if !FileManager.default.fileExists(atPath: model) { throw ValidationError("no such file: \(model)") }
        try OutputGuard.checkFileOutput(output, option: "--output", inputs: [model] + (backbone.map { [$0] } ?? []),
                                        overwrite: overwrite)
    }

    func run() throws {
        try reportingErrors {
            let data = try ModelExporter.export(modelAt: URL(fileURLWithPath: model), format: format,
                                                backbone: backbone.map { URL(fileURLWithPath: $0) })
            let outputURL = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: outputURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: outputURL, options: .atomic)
            Console.print("wrote \(output) (\(format.displayName), \(data.count) bytes)")
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
