import CoachModels
import Foundation
import XCTest

/// The imported backbone for tests: `$COACH_BACKBONE`, else `<repo>/models/efficientnet-lite0.h5`
/// (written by `make build`). Loaded once per test process.
public enum BackboneFixture {
    /// The file's location.
    public static var url: URL {
        if let env = ProcessInfo.processInfo.environment["COACH_BACKBONE"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return SharedData.repositoryRoot.appendingPathComponent("models/\(Backbone.defaultFileName)")
    }

    nonisolated(unsafe) private static var cached: Backbone?
    private static let lock = NSLock()

    /// The loaded backbone, or an `XCTSkip` saying how to make it.
    public static func load(file: String = #fileID, function: String = #function) throws -> Backbone {
        lock.lock(); defer { lock.unlock() }
        if let cached { return cached }
        guard FileManager.default.fileExists(atPath: url.path) else {
            let message = "SKIPPED: the backbone \(url.path) is missing; run 'make build' (or set COACH_BACKBONE)"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            throw skipTest(message, file: file, function: function)
        }
        let backbone = try Backbone.load(from: url)
        cached = backbone
        return backbone
    }
}
