import Foundation
import TestSupport
import XCTest

/// The Core ML interpreter the export tests trust (`CoreML/coreml_nn.py`) against its own
/// checks: small models built with coremltools' `NeuralNetworkBuilder`, every layer kind it
/// implements compared with naive numpy formulas and the worked examples of `NeuralNetwork.proto`.
final class CoreMLInterpreterTests: XCTestCase {
    func testTheInterpreterPassesItsChecksAgainstTheSpecification() throws {
        let python = try CoreMLPeer.python()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [CoreMLPeer.script.deletingLastPathComponent().appendingPathComponent("test_coreml_nn.py").path]
        let log = try temporaryDirectory(self).appendingPathComponent("self-test.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let output = try String(contentsOf: log, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 0, output)
        XCTAssertTrue(output.contains(" passed, 0 failed"), output)
    }
}
