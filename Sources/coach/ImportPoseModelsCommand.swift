import ArgumentParser
import CoachModels
import Foundation

/// `coach import-pose-models`: MediaPipe's body and hand TFLite models into Coach model files.
struct ImportPoseModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-pose-models",
        abstract: "Import MediaPipe's body and hand pose models (TFLite) into Coach model files.",
        discussion: """
        Reads the four TFLite models the PyPI wheel mediapipe==0.10.21 ships \
        (pose_detection, pose_landmark_full, palm_detection_full, hand_landmark_full; \
        Apache-2.0) with Coach's own flatbuffer reader — no TensorFlow — folds their \
        weight-only operators (fp16 DEQUANTIZE, DENSIFY of sparse weights), and writes \
        body-detector.h5, body-landmarks.h5, palm-detector.h5 and hand-landmarks.h5. \
        Each file's SHA-256 must be the pinned wheel's. `make build` downloads the wheel, \
        extracts the models into .cache/mediapipe and runs this command. Importing again \
        gives byte-identical files.

        Example:
          coach import-pose-models .cache/mediapipe --output models/pose
        """)

    @Argument(help: "The folder holding the four .tflite files (as extracted from the wheel).")
    var source: String

    @Option(name: .shortAndLong, help: "The folder to write the model files into.")
    var output: String = "models/pose"

    @Flag(help: "Replace files at the model paths that are not Coach pose models.")
    var overwrite = false

    func run() throws {
        let folder = URL(fileURLWithPath: output)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isFolder), !isFolder.boolValue {
            throw ValidationError("--output '\(output)' is not a folder: import-pose-models writes a folder of model files; choose another --output")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ModelFileError.writeFailed(path: output, reason: "cannot create the folder: \(error.localizedDescription)")
        }
        for model in MediaPipeModel.allCases {
            let started = Date()
            let input = URL(fileURLWithPath: source).appendingPathComponent(model.fileName)
            let file = try model.importModel(from: input)
            let destination = folder.appendingPathComponent(model.modelFileName)
            try OutputGuard.checkModelOutput(destination.path, task: model.task, overwrite: overwrite)
            try file.write(to: destination)
            let graph = try GraphNetwork(file: file)
            let operations = graph.operationCounts.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
            print("Imported \(model.fileName) → \(destination.path)")
            print("  nodes       \(graph.nodes.count) (\(operations))")
            print("  parameters  \(groupedDigits(graph.parameterCount))")
            print("  inputs      " + graph.inputs.map { "\($0.name) \($0.shape)" }.joined(separator: ", "))
            print("  outputs     " + graph.outputs.map { "\($0.name) \($0.shape)" }.joined(separator: ", "))
            print("  time        \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        }
    }
}
