import Foundation
import XCTest

/// Locates `../shared` (the read-only datasets and references) for tests.
///
/// `COACH_SHARED` overrides the default, which is the `shared` folder beside the
/// repository. Tests that need it call `try requireShared("data/natops")`, which skips
/// the test — loudly, naming what is missing — when it is absent.
public enum SharedData {
    /// The repository root (found from this file's path).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shared folder: `$COACH_SHARED`, or `<repository>/../shared`.
    public static var root: URL {
        if let env = ProcessInfo.processInfo.environment["COACH_SHARED"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }

    /// The URL of `relativePath` inside the shared folder, or an `XCTSkip` saying what is missing.
    public static func require(_ relativePath: String, file: String = #fileID, function: String = #function) throws -> URL {
        let url = root.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            let message = "SKIPPED: shared data '\(relativePath)' is not at \(url.path); set COACH_SHARED to the shared folder to run this test"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw skipTest(message, file: file, function: function)
        }
        return url
    }

    /// The imported pose models (`$COACH_POSE_MODELS`, or `models/pose`, which `make build` writes)
    /// holding `modelFile`, or an `XCTSkip` saying they are missing.
    public static func poseModels(holding modelFile: String = "hand-landmarks.h5", file: String = #fileID,
                                  function: String = #function) throws -> URL {
        let folder: URL
        if let env = ProcessInfo.processInfo.environment["COACH_POSE_MODELS"], !env.isEmpty {
            folder = URL(fileURLWithPath: env)
        } else {
            folder = repositoryRoot.appendingPathComponent("models/pose")
        }
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(modelFile).path) else {
            let message = "SKIPPED: no imported pose models in \(folder.path); `make build` imports them (or set COACH_POSE_MODELS)"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw skipTest(message, file: file, function: function)
        }
        return folder
    }
}

/// A fresh temporary directory, removed when the test ends.
public func temporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("coach-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// An `XCTSkip` with `message`, also appended as a line to the file `$COACH_SKIP_LOG` names (if
/// set) — parallel `swift test` reports no skips, so `make test` counts them from there.
public func skipTest(_ message: String, file: String = #fileID, function: String = #function) -> XCTSkip {
    if let path = ProcessInfo.processInfo.environment["COACH_SKIP_LOG"], !path.isEmpty {
        // The log names the skipped test, so `make test`'s list says which tests did not run.
        let test = "\(file.split(separator: "/").last.map(String.init) ?? file): \(function)"
        let line = Data((message.replacingOccurrences(of: "\n", with: " ") + " [\(test)]\n").utf8)
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(line)
            handle.closeFile()
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: line)
        }
    }
    return XCTSkip(message)
}
