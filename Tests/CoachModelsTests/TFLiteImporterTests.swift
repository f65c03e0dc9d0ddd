import CoachModels
import CoachTensor
import Foundation
import TestSupport
import XCTest

/// The imported MediaPipe models against Google's own runtime (ai-edge-litert) on the same
/// inputs, and the importer's handling of damaged files.
final class TFLiteImporterTests: XCTestCase {
    /// The folder with the four TFLite files (`make build` extracts them): `$COACH_MEDIAPIPE`
    /// or `.cache/mediapipe`.
    static var modelFolder: URL {
        if let env = ProcessInfo.processInfo.environment["COACH_MEDIAPIPE"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return SharedData.repositoryRoot.appendingPathComponent(".cache/mediapipe")
    }

    func tfliteFile(_ model: MediaPipeModel, file: String = #fileID, function: String = #function) throws -> URL {
        let url = TFLiteImporterTests.modelFolder.appendingPathComponent(model.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else {
            let message = "SKIPPED: \(url.path) is missing; `make build` extracts it from \(MediaPipeModel.package) (or set COACH_MEDIAPIPE)"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw skipTest(message, file: file, function: function)
        }
        return url
    }

    /// A Python with ai-edge-litert: `$COACH_PEER_PYTHON` or `.cache/venv/bin/python`.
    func litertPython(file: String = #fileID, function: String = #function) throws -> String {
        try PeerPython.require(importing: "ai_edge_litert.interpreter", packages: "ai-edge-litert", file: file, function: function)
    }

    /// A smooth image-like input in [-1, 1] with some texture, deterministic.
    func input(shape: [Int]) -> Tensor {
        let h = shape[1], w = shape[2], c = shape[3]
        var generator = SeededGenerator(seed: 7)
        return Tensor(shape: shape, scalars: (0..<(h * w * c)).map { i in
            let y = Float(i / (w * c)) / Float(h), x = Float((i / c) % w) / Float(w), k = Float(i % c)
            let smooth = sin(6 * x + 2 * k) * cos(5 * y - k) * 0.7
            return max(-1, min(1, smooth + (Float(generator.nextDouble()) - 0.5) * 0.3))
        })
    }

    /// LiteRT's outputs for `input` on the model at `url`.
    func litertOutputs(model url: URL, input: Tensor, python: String, referenceKernels: Bool = false) throws -> [Tensor] {
        let folder = try temporaryDirectory(self)
        let inputURL = folder.appendingPathComponent("input.f32")
        try input.scalars.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: inputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        let script = SharedData.repositoryRoot.appendingPathComponent("Sources/coach-bench/Peers/litert_reference.py").path
        process.arguments = [script, url.path, inputURL.path, folder.appendingPathComponent("out").path]
            + (referenceKernels ? ["--reference-kernels"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "LiteRT failed on \(url.lastPathComponent)")
        struct Report: Decodable { var outputs: [[Int]] }
        let report = try JSONDecoder().decode(Report.self, from: data)
        return try report.outputs.enumerated().map { index, shape in
            let bytes = try Data(contentsOf: folder.appendingPathComponent("out.\(index).f32"))
            let scalars = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            return Tensor(shape: shape, scalars: scalars)
        }
    }

    /// max |a − b| over max |b|.
    func relativeDifference(_ a: Tensor, _ b: Tensor) -> Float {
        let scale = b.scalars.map(abs).max() ?? 0
        return (zip(a.scalars, b.scalars).map { abs($0 - $1) }.max() ?? 0) / max(scale, 1e-6)
    }

    /// Every output, from the plain and the planned run, within 1e-4 (max difference over the
    /// output's largest magnitude) of LiteRT's default (XNNPACK) kernels — or, where LiteRT's own
    /// XNNPACK and reference kernels disagree by more than that (only the body model's 256²
    /// segmentation logits, which reach ±1,400 and which Coach does not use), within twice their
    /// disagreement of the nearer of the two.
    func testImportedModelsMatchLiteRT() throws {
        let python = try litertPython()
        for model in MediaPipeModel.allCases {
            let url = try tfliteFile(model)
            let graph = try GraphNetwork(file: try model.importModel(from: url))
            let x = input(shape: graph.inputs[0].shape)
            let xnnpack = try litertOutputs(model: url, input: x, python: python)
            let reference = try litertOutputs(model: url, input: x, python: python, referenceKernels: true)
            for (path, ours) in [("plain", graph.run([x])), ("planned", GraphExecutor(graph).run([x]))] {
            XCTAssertEqual(ours.count, xnnpack.count, "\(model)")
            for index in 0..<min(ours.count, xnnpack.count) {
                XCTAssertEqual(ours[index].shape, xnnpack[index].shape, "\(model) output \(index)")
                guard ours[index].shape == xnnpack[index].shape else { continue }
                let relative = relativeDifference(ours[index], xnnpack[index])
                let litertSpread = relativeDifference(xnnpack[index], reference[index])
                let toReference = relativeDifference(ours[index], reference[index])
                print("\(model.rawValue) (\(path)) output \(index) \(graph.outputs[index].name) \(xnnpack[index].shape): relative difference "
                      + "to LiteRT \(relative), to its reference kernels \(toReference) (LiteRT's two: \(litertSpread))")
                if litertSpread <= 1e-4 {
                    XCTAssertLessThanOrEqual(relative, 1e-4, "\(model) output \(index) (\(path))")
                } else {
                    XCTAssertLessThanOrEqual(min(relative, toReference), 2 * litertSpread, "\(model) output \(index) (\(path))")
                }
            }
            }
            // The pose estimators run only the outputs they read: the same numbers, fewer nodes.
            let used: [Int]? = model == .bodyLandmarks ? BodyPoseEstimator.usedLandmarkOutputs
                : model == .handLandmarks ? HandPoseEstimator.usedLandmarkOutputs : nil
            if let used {
                let pruned = graph.keepingOutputs(used)
                XCTAssertEqual(pruned.outputs.map(\.name), used.map { graph.outputs[$0].name })
                if model == .bodyLandmarks {
                    XCTAssertLessThan(pruned.nodes.count, graph.nodes.count, "the segmentation head is not computed")
                }
                let outputs = GraphExecutor(pruned).run([x])
                for (position, index) in used.enumerated() {
                    let spread = relativeDifference(xnnpack[index], reference[index])
                    XCTAssertLessThanOrEqual(relativeDifference(outputs[position], xnnpack[index]), max(1e-4, 2 * spread),
                                             "\(model) output \(index) (pruned)")
                }
            }
        }
    }
}

/// The importer and the graph format on small hand-made models and on damaged files.
final class TFLiteImporterErrorTests: XCTestCase {
    func fixture(_ name: String) -> URL {
        SharedData.repositoryRoot.appendingPathComponent("Tests/CoachModelsTests/Fixtures/\(name)")
    }

    /// A two-LOGISTIC, one-ADD model (made with TFLite's own schema code): the graph computes
    /// σ(σ(x) + x), checked by hand, and survives a model-file round trip.
    func testSmallModelImportsAndComputes() throws {
        let graph = try TFLiteImporter.graph(of: try TFLiteModel(contentsOf: fixture("logistic-add.tflite")))
        XCTAssertEqual(graph.nodes.map(\.operation), [.logistic, .add, .logistic])
        let x = Tensor(shape: [1, 4, 4, 1], scalars: (0..<16).map { Float($0) / 8 - 1 })
        let expected = x.scalars.map { v -> Float in
            let s = 1 / (1 + exp(-v))
            return 1 / (1 + exp(-(s + v)))
        }
        let y = graph.run([x])[0]
        XCTAssertEqual(y.shape, [1, 4, 4, 1])
        for (a, b) in zip(y.scalars, expected) { XCTAssertEqual(a, b, accuracy: 1e-6) }
        // LiteRT printed 0.32496247 0.358752 0.39432248 0.4313477 for the first four.
        XCTAssertEqual(y.scalars[0], 0.32496247, accuracy: 1e-6)
        XCTAssertEqual(y.scalars[3], 0.4313477, accuracy: 1e-6)

        let folder = try temporaryDirectory(self)
        let file = try graph.modelFile(metadata: ModelMetadata(task: "graph-test"))
        try file.write(to: folder.appendingPathComponent("a.h5"))
        try file.write(to: folder.appendingPathComponent("b.h5"))
        let loaded = try GraphNetwork(file: try ModelFile.read(from: folder.appendingPathComponent("a.h5")))
        XCTAssertEqual(loaded, graph)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("a.h5")),
                       try Data(contentsOf: folder.appendingPathComponent("b.h5")))
    }

    /// Every unsupported operator is named in one error, with where it is used.
    func testUnsupportedOperatorsAreListed() throws {
        let model = try TFLiteModel(contentsOf: fixture("unsupported-operators.tflite"))
        XCTAssertThrowsError(try TFLiteImporter.graph(of: model)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(text.contains("TANH (operator 0)"), text)
            XCTAssertTrue(text.contains("MUL (operator 1)"), text)
            XCTAssertTrue(text.contains("unsupported-operators.tflite"), text)
            XCTAssertFalse(text.contains("LOGISTIC"), text)
        }
    }

    /// Missing, empty, foreign, truncated and bit-flipped files give a `TFLiteError` naming the
    /// file (or, for flips in weight bytes, a model that still checks out) — never a crash.
    func testDamagedFilesGiveErrors() throws {
        let folder = try temporaryDirectory(self)
        XCTAssertThrowsError(try TFLiteModel(contentsOf: folder.appendingPathComponent("none.tflite"))) {
            XCTAssertEqual($0 as? TFLiteError, .fileNotFound(path: folder.appendingPathComponent("none.tflite").path))
        }
        XCTAssertThrowsError(try TFLiteModel(bytes: [], path: "empty.tflite")) {
            guard case .notTFLite(let path, _)? = $0 as? TFLiteError else { return XCTFail("\($0)") }
            XCTAssertEqual(path, "empty.tflite")
        }
        XCTAssertThrowsError(try TFLiteModel(bytes: Array("PK\u{3}\u{4} not a model at all".utf8), path: "x.tflite")) {
            XCTAssertTrue(($0 as? LocalizedError)?.errorDescription?.contains("TFL3") == true)
        }
        let source = TFLiteImporterTests.modelFolder.appendingPathComponent(MediaPipeModel.handLandmarks.fileName)
        let bytes: [UInt8]
        if FileManager.default.fileExists(atPath: source.path) {
            bytes = [UInt8](try Data(contentsOf: source))
        } else {
            bytes = [UInt8](try Data(contentsOf: fixture("logistic-add.tflite")))
        }
        for length in [8, 12, 64, 200, bytes.count / 3, bytes.count * 9 / 10] {
            XCTAssertThrowsError(try TFLiteImporter.graph(of: try TFLiteModel(bytes: Array(bytes.prefix(length)), path: "cut.tflite")),
                                 "truncated to \(length) bytes") { error in
                XCTAssertNotNil(error as? TFLiteError, "\(error)")
            }
        }
        var generator = SeededGenerator(seed: 3)
        var errors = 0
        for _ in 0..<60 {
            var damaged = bytes
            // Flip bytes in the structure (the first and last 64 KiB hold the tables; weights sit between).
            for _ in 0..<4 {
                let region = generator.nextInt(in: 0...1) == 0 ? 0..<min(65_536, bytes.count) : max(0, bytes.count - 65_536)..<bytes.count
                damaged[generator.nextInt(in: region.lowerBound...(region.upperBound - 1))] ^= UInt8(1 << generator.nextInt(in: 0...7))
            }
            do {
                let graph = try TFLiteImporter.graph(of: try TFLiteModel(bytes: damaged, path: "flipped.tflite"))
                if case .failure(let problems) = graph.shapes() { XCTFail("an imported graph must check out: \(problems)") }
            } catch let error as TFLiteError {
                errors += 1
                XCTAssertTrue(error.errorDescription?.contains("flipped.tflite") == true, "\(error)")
            }
        }
        XCTAssertGreaterThan(errors, 0, "some structural damage must be detected")
    }

    /// A model file whose graph reads an undefined value or has a filter of the wrong shape is a
    /// `ModelFileError` listing the problems.
    func testInconsistentGraphIsRejectedOnLoad() throws {
        let graph = try TFLiteImporter.graph(of: try TFLiteModel(contentsOf: fixture("logistic-add.tflite")))
        var broken = graph
        broken.nodes[1].inputs = [broken.nodes[1].inputs[0], 99]
        broken.valueCount = 100
        broken.nodes[2].operation = .conv2D
        let file = try broken.modelFile(metadata: ModelMetadata(task: "graph-test"))
        XCTAssertThrowsError(try GraphNetwork(file: file)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.contains("node 1 (add)"), text)
            XCTAssertTrue(text.contains("node 2 (conv2d)"), text)
        }
    }
}

/// The planned executor (reused buffers, fused 1×1 convolution + residual add): its numerics are
/// checked against LiteRT in `TFLiteImporterTests`; here, that reusing buffers leaks nothing
/// between runs.
final class GraphExecutorTests: XCTestCase {
    func testRunsDoNotLeakIntoEachOther() throws {
        let folder = try PoseEstimatorTests.modelFolder()
        var generator = SeededGenerator(seed: 9)
        for model in MediaPipeModel.allCases {
            let graph = try GraphNetwork(file: try ModelFile.read(from: folder.appendingPathComponent(model.modelFileName)))
            let used = GraphExecutor(graph)
            let first = Tensor.randomUniform(graph.inputs[0].shape, lower: 0, upper: 1, using: &generator)
            let second = Tensor.randomUniform(graph.inputs[0].shape, lower: 0, upper: 1, using: &generator)
            _ = used.run([first])
            XCTAssertEqual(used.run([second]), GraphExecutor(graph).run([second]), "\(model)")
        }
    }
}
