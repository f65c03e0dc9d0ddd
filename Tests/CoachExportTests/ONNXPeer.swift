import Foundation
import TestSupport
import XCTest

/// The independent reference for exported ONNX files: the `onnx` Python package (parser and
/// checker) and `onnxruntime`, from `.cache/venv` (`make test` installs them) or
/// `$COACH_PEER_PYTHON`.
enum ONNXPeer {
    /// What the peer read from a file and computed.
    struct Report: Decodable {
        /// A graph input or output as onnx parsed it.
        struct Value: Decodable {
            var name: String
            var elementType: Int
            var shape: [Int]
        }
        var irVersion: Int
        var opsets: [String: Int]
        var producerName: String
        var producerVersion: String
        var inputs: [Value]
        var outputs: [Value]
        var metadata: [String: String]
        var operators: [String: Int]
        /// onnxruntime's first output for each input file, flattened.
        var results: [[Float]]
        /// onnxruntime's every output (graph order) for each input file, flattened.
        var allResults: [[[Float]]]
    }

    /// The Python with `onnx` and `onnxruntime`, or a loud skip.
    static func python(file: String = #fileID, function: String = #function) throws -> String {
        try PeerPython.require(importing: "onnx, onnxruntime", packages: "onnx and onnxruntime", file: file, function: function)
    }

    /// Checks `model` with `onnx.checker.check_model(full_check=True)` and runs it in
    /// onnxruntime on each raw little-endian float32 file of `inputs` (fed to the graph's
    /// only input, in its shape; see `run(model:feeds:python:in:)` for several inputs).
    static func run(model: URL, inputs: [URL], python: String, in folder: URL) throws -> Report {
        try run(model: model, arguments: inputs.map(\.path), python: python, in: folder)
    }

    private static func run(model: URL, arguments inputs: [String], python: String, in folder: URL) throws -> Report {
        let script = folder.appendingPathComponent("onnx_peer.py")
        try Data(source.utf8).write(to: script)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, model.path] + inputs
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("the onnx peer failed on \(model.lastPathComponent): \(errorText)")
            throw XCTSkip("the onnx peer failed")
        }
        return try JSONDecoder().decode(Report.self, from: data)
    }

    /// As `run(model:inputs:python:in:)`, each run feeding several inputs by name.
    static func run(model: URL, feeds: [[String: URL]], python: String, in folder: URL) throws -> Report {
        let arguments = feeds.map { feed in feed.keys.sorted().map { "\($0)=\(feed[$0]!.path)" }.joined(separator: ",") }
        return try run(model: model, arguments: arguments, python: python, in: folder)
    }

    /// The peer script: parse, full check, describe, run.
    static let source = """
    import json, sys
    import numpy as np
    import onnx
    import onnxruntime as ort

    path, inputs = sys.argv[1], sys.argv[2:]
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)

    def value(info):
        tensor = info.type.tensor_type
        return {"name": info.name, "elementType": tensor.elem_type,
                "shape": [d.dim_value for d in tensor.shape.dim]}

    operators = {}
    for node in model.graph.node:
        operators[node.op_type] = operators.get(node.op_type, 0) + 1

    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    feeds = {i.name: i for i in session.get_inputs()}
    feed = session.get_inputs()[0]
    results, all_results = [], []
    for name in inputs:
        # A path feeds the only input; "a=path,b=path" feeds inputs by name.
        pairs = [p.split("=", 1) for p in name.split(",")] if "=" in name else [(feed.name, name)]
        values = {n: np.fromfile(p, dtype="<f4").reshape(feeds[n].shape) for n, p in pairs}
        ys = session.run(None, values)
        all_results.append([[float(v) for v in y.reshape(-1)] for y in ys])
        results.append(all_results[-1][0])

    print(json.dumps({
        "irVersion": model.ir_version,
        "opsets": {o.domain: o.version for o in model.opset_import},
        "producerName": model.producer_name,
        "producerVersion": model.producer_version,
        "inputs": [value(i) for i in model.graph.input],
        "outputs": [value(o) for o in model.graph.output],
        "metadata": {p.key: p.value for p in model.metadata_props},
        "operators": operators,
        "results": results,
        "allResults": all_results,
    }))
    """
}
