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

    func tfliteFile(_ model: MediaPipeModel) throws -> URL {
        let url = TFLiteImporterTests.modelFolder.appendingPathComponent(model.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else {
            let message = "SKIPPED: \(url.path) is missing; `make build` extracts it from \(MediaPipeModel.package) (or set COACH_MEDIAPIPE)"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw skipTest(message)
        }
        return url
    }

    /// A Python with ai-edge-litert: `$COACH_PEER_PYTHON` or `.cache/venv/bin/python`.
    func litertPython() throws -> String {
        let python = ProcessInfo.processInfo.environment["COACH_PEER_PYTHON"]
            ?? SharedData.repositoryRoot.appendingPathComponent(".cache/venv/bin/python").path
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import ai_edge_litert.interpreter"]
        probe.standardError = FileHandle.nullDevice
        if FileManager.default.isExecutableFile(atPath: python), (try? probe.run()) != nil {
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return python }
        }
        let message = "SKIPPED: no Python with ai-edge-litert at \(python); `make test` installs it into .cache/venv (or set COACH_PEER_PYTHON)"
        FileHandle.standardError.write(Data((message + "\n").utf8))
        throw skipTest(message)
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

    /// Every output within 1e-4 (max difference over the output's largest magnitude) of LiteRT's
    /// default (XNNPACK) kernels — or, where LiteRT's own XNNPACK and reference kernels disagree by
    /// more than that (the body model's 256² segmentation logits, which reach ±1,400), no farther from
    /// the reference kernels than XNNPACK is.
    func testImportedModelsMatchLiteRT() throws {
        let python = try litertPython()
        for model in MediaPipeModel.allCases {
            let url = try tfliteFile(model)
            let graph = try GraphNetwork(file: try model.importModel(from: url))
            let x = input(shape: graph.inputs[0].shape)
            let ours = graph.run([x])
            let xnnpack = try litertOutputs(model: url, input: x, python: python)
            let reference = try litertOutputs(model: url, input: x, python: python, referenceKernels: true)
            XCTAssertEqual(ours.count, xnnpack.count, "\(model)")
            for index in 0..<min(ours.count, xnnpack.count) {
                XCTAssertEqual(ours[index].shape, xnnpack[index].shape, "\(model) output \(index)")
                guard ours[index].shape == xnnpack[index].shape else { continue }
                let relative = relativeDifference(ours[index], xnnpack[index])
                let litertSpread = relativeDifference(xnnpack[index], reference[index])
                let toReference = relativeDifference(ours[index], reference[index])
                print("\(model.rawValue) output \(index) \(graph.outputs[index].name) \(xnnpack[index].shape): relative difference "
                      + "to LiteRT \(relative), to its reference kernels \(toReference) (LiteRT's two: \(litertSpread))")
                if litertSpread <= 1e-4 {
                    XCTAssertLessThanOrEqual(relative, 1e-4, "\(model) output \(index)")
                } else {
                    XCTAssertLessThanOrEqual(toReference, litertSpread, "\(model) output \(index)")
                }
            }
        }
    }
}
