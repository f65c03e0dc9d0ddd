import Foundation
import XCTest

/// The Python the tests compare Coach with: `$COACH_PEER_PYTHON`, else `.cache/venv/bin/python`
/// (`make test` installs the peers there).
public enum PeerPython {
    /// The Python that can `import modules` (e.g. `"onnx, onnxruntime"`), or a loud skip naming
    /// `packages` (what `make test` installs).
    public static func require(importing modules: String, packages: String,
                               file: String = #fileID, function: String = #function) throws -> String {
        let python = ProcessInfo.processInfo.environment["COACH_PEER_PYTHON"]
            ?? SharedData.repositoryRoot.appendingPathComponent(".cache/venv/bin/python").path
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import \(modules)"]
        probe.standardError = FileHandle.nullDevice
        if FileManager.default.isExecutableFile(atPath: python), (try? probe.run()) != nil {
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return python }
        }
        let message = "SKIPPED: no Python with \(packages) at \(python); `make test` installs the peers into .cache/venv (or set COACH_PEER_PYTHON)"
        FileHandle.standardError.write(Data((message + "\n").utf8))
        throw skipTest(message, file: file, function: function)
    }
}
