import CoachData
import CoachExport
import CoachModels
import Foundation
import TestSupport
import XCTest

/// The independent references for exported Core ML files (Core ML itself does not run on Linux):
/// - Apple's specification validator, `../shared/tools/coreml-validate` — what Core ML checks
///   when it loads a file;
/// - `CoreML/coreml_nn.py`, an interpreter of the NeuralNetwork layers written from the
///   comments of `NeuralNetwork.proto` (not from Coach's exporter), which parses the file with
///   `coremltools`' own protobuf classes and runs it in numpy.
enum CoreMLPeer {
    /// What the interpreter read from a file and computed.
    struct Report: Decodable {
        struct Feature: Decodable {
            var name: String
            var type: String
            var shape: [Int]?
            var dataType: String?
            var width: Int?
            var height: Int?
            var colorSpace: String?
            var optional: Bool?
            var shortDescription: String?
        }
        struct Metadata: Decodable {
            var author: String?
            var shortDescription: String?
            var license: String?
            var versionString: String?
            var userDefined: [String: String]?
        }
        struct Description: Decodable {
            var inputs: [Feature]
            var outputs: [Feature]
            var predictedFeatureName: String?
            var predictedProbabilitiesName: String?
            var metadata: Metadata?
        }
        /// An output's value in one run.
        enum Value: Decodable {
            case array(shape: [Int], values: [Float])
            case probabilities([String: Double])
            case string(String)

            private struct ArrayValue: Decodable {
                var shape: [Int]
                var values: [Float]
            }

            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) {
                    self = .string(text)
                } else if let array = try? container.decode(ArrayValue.self) {
                    self = .array(shape: array.shape, values: array.values)
                } else {
                    self = .probabilities(try container.decode([String: Double].self))
                }
            }

            var probabilities: [String: Double]? {
                if case let .probabilities(value) = self { return value }
                return nil
            }
            var string: String? {
                if case let .string(value) = self { return value }
                return nil
            }
            var array: (shape: [Int], values: [Float])? {
                if case let .array(shape, values) = self { return (shape, values) }
                return nil
            }
        }

        var specificationVersion: Int
        var type: String
        var description: Description
        var classLabels: [String]?
        var layers: [String: Int]
        var results: [[String: Value]]
    }

    /// The validator's path, or a loud skip.
    static func validator(file: String = #fileID, function: String = #function) throws -> URL {
        let url = SharedData.root.appendingPathComponent("tools/coreml-validate/coreml-validate")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            let message = "SKIPPED: Apple's Core ML validator is missing at \(url.path) (set COACH_SHARED to the shared folder)"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw skipTest(message, file: file, function: function)
        }
        return url
    }

    /// The validator's verdict on `model`: its output line, and whether it passed.
    static func validate(_ model: URL, file: String = #fileID, function: String = #function) throws -> (passed: Bool, output: String) {
        let (status, output) = try run(try validator(file: file, function: function), [model.path])
        return (status == 0, output)
    }

    /// Writes `modelFile` as `NAME.h5` in `directory` (its summary "NAME, for the export test"),
    /// exports it to `NAME.mlmodel`, checks that a second export gives the same bytes and that
    /// Apple's validator passes the file at specification version 4; returns the exported file.
    static func exportAndValidate(_ modelFile: ModelFile, name: String, in directory: URL,
                                  file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        var modelFile = modelFile
        modelFile.metadata.summary = "\(name), for the export test"
        let modelURL = directory.appendingPathComponent("\(name).h5")
        try modelFile.write(to: modelURL)
        let exported = directory.appendingPathComponent("\(name).mlmodel")
        let data = try ModelExporter.export(modelAt: modelURL, format: .coreml)
        try data.write(to: exported)
        XCTAssertEqual(try ModelExporter.export(modelAt: modelURL, format: .coreml), data, "the same bytes twice", file: file, line: line)
        let validation = try validate(exported)
        XCTAssertTrue(validation.passed, validation.output, file: file, line: line)
        XCTAssertTrue(validation.output.contains("specificationVersion=4 minimalNeeded=4"), validation.output, file: file, line: line)
        return exported
    }

    /// What `coremltools.models.MLModel` (the PyPI package's own loader; it cannot compile or run a
    /// model on Linux) reads from `model`: its type, specification version, inputs, outputs and
    /// class labels.
    struct Loaded: Decodable, Equatable {
        var type: String
        var specificationVersion: Int
        var inputs: [String]
        var outputs: [String]
        var classLabels: [String]
    }

    /// Loads `model` with `coremltools.models.MLModel(path, skip_model_load=True)`.
    static func loadWithCoreMLTools(_ model: URL, python: String) throws -> Loaded {
        let script = """
        import json, logging, sys
        logging.disable(logging.WARNING)
        import coremltools as ct
        model = ct.models.MLModel(sys.argv[1], skip_model_load=True)
        spec = model.get_spec()
        kind = spec.WhichOneof("Type")
        labels = []
        if kind == "neuralNetworkClassifier":
            labels = list(spec.neuralNetworkClassifier.stringClassLabels.vector)
        elif kind == "pipeline":
            for sub in spec.pipeline.models:
                if sub.WhichOneof("Type") == "nonMaximumSuppression":
                    labels = list(sub.nonMaximumSuppression.stringClassLabels.vector)
        print(json.dumps({"type": kind, "specificationVersion": spec.specificationVersion,
                          "inputs": [i.name for i in spec.description.input],
                          "outputs": [o.name for o in spec.description.output], "classLabels": labels}))
        """
        let (status, output) = try run(URL(fileURLWithPath: python), ["-c", script, model.path])
        guard status == 0 else {
            XCTFail("coremltools could not load \(model.lastPathComponent): \(output)")
            throw XCTSkip("coremltools failed")
        }
        let json = output.split(separator: "\n").last.map(String.init) ?? ""
        return try JSONDecoder().decode(Loaded.self, from: Data(json.utf8))
    }

    /// Checks that coremltools loads `model` and reads the same interface as the interpreter's `report`.
    static func checkCoreMLToolsLoads(_ model: URL, report: Report, python: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let loaded = try loadWithCoreMLTools(model, python: python)
        XCTAssertEqual(loaded.type, report.type, file: file, line: line)
        XCTAssertEqual(loaded.specificationVersion, report.specificationVersion, file: file, line: line)
        XCTAssertEqual(loaded.inputs, report.description.inputs.map(\.name), file: file, line: line)
        XCTAssertEqual(loaded.outputs, report.description.outputs.map(\.name), file: file, line: line)
        XCTAssertEqual(loaded.classLabels, report.classLabels ?? [], file: file, line: line)
    }

    /// One run of a pose classifier: `poses` (raw float32 `values`) and, when the model uses it,
    /// `chirality` as `VNChirality`'s raw value (−1 left, 1 right, 0 unknown), written as `NAME-INDEX*.f32`.
    static func poseRun(_ values: [Float], chirality: Chirality?, usesChirality: Bool, name: String, index: Int,
                        in directory: URL) throws -> [String: URL] {
        let input = directory.appendingPathComponent("\(name)-\(index).f32")
        try values.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: input)
        var run = ["poses": input]
        if usesChirality {
            let hand = directory.appendingPathComponent("\(name)-\(index)-chirality.f32")
            let raw: Float = chirality == .left ? -1 : chirality == .right ? 1 : 0
            try [raw].withUnsafeBufferPointer { Data(buffer: $0) }.write(to: hand)
            run["chirality"] = hand
        }
        return run
    }

    /// The Python with `numpy` and `coremltools`, or a loud skip.
    static func python(file: String = #fileID, function: String = #function) throws -> String {
        try PeerPython.require(importing: "numpy, coremltools.proto.Model_pb2", packages: "numpy and coremltools",
                               file: file, function: function)
    }

    /// The interpreter's script, beside this file.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("CoreML/coreml_nn.py")

    /// Runs `model` in the interpreter once per element of `runs` (input name → raw
    /// little-endian float32 file; an image as [3, H, W] RGB 0…255; inputs left out take the
    /// model's defaults).
    static func run(model: URL, runs: [[String: URL]], python: String) throws -> Report {
        var report: Report?
        for inputs in runs {
            var arguments = [script.path, model.path]
            for name in inputs.keys.sorted() { arguments += ["--input", "\(name)=\(inputs[name]!.path)"] }
            let (status, output) = try run(URL(fileURLWithPath: python), arguments)
            guard status == 0 else {
                XCTFail("the Core ML interpreter failed on \(model.lastPathComponent): \(output)")
                throw XCTSkip("the Core ML interpreter failed")
            }
            let json = output.split(separator: "\n").last.map(String.init) ?? ""
            let single = try JSONDecoder().decode(Report.self, from: Data(json.utf8))
            if report == nil { report = single } else { report!.results += single.results }
        }
        guard let report else { throw XCTSkip("no runs") }
        return report
    }

    /// What the interpreter reads from `model`'s description, without running it.
    static func describe(model: URL, python: String) throws -> Report {
        let (status, output) = try run(URL(fileURLWithPath: python), [script.path, model.path, "--runs", "0"])
        guard status == 0 else {
            XCTFail("the Core ML interpreter could not read \(model.lastPathComponent): \(output)")
            throw XCTSkip("the Core ML interpreter failed")
        }
        let json = output.split(separator: "\n").last.map(String.init) ?? ""
        return try JSONDecoder().decode(Report.self, from: Data(json.utf8))
    }

    /// Runs `executable`; returns its status and its standard error then output (through files,
    /// so neither stream can fill a pipe while the other is read).
    private static func run(_ executable: URL, _ arguments: [String]) throws -> (Int32, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coreml-peer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputURL = folder.appendingPathComponent("stdout"), errorURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL), errors = try FileHandle(forWritingTo: errorURL)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        try output.close()
        try errors.close()
        let text = try String(decoding: Data(contentsOf: errorURL) + Data(contentsOf: outputURL), as: UTF8.self)
        return (process.terminationStatus, text)
    }
}
