import Foundation
import TestSupport
import XCTest

/// Runs the built `coach` executable (the one beside the test bundle) and captures its output.
enum CoachExecutable {
    /// What one run printed and how it ended.
    struct Result {
        var exitCode: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The `coach` binary: `$COACH_EXECUTABLE`, or `coach` in the folder holding the test
    /// bundle (`.build/<triple>/release/`), or `.build/release/coach`.
    static func location(file: String = #fileID, function: String = #function) throws -> URL {
        let environment = ProcessInfo.processInfo.environment["COACH_EXECUTABLE"] ?? ""
        var candidates: [URL] = environment.isEmpty ? [] : [URL(fileURLWithPath: environment)]
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("coach"))
        }
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("coach"))
        }
        candidates.append(SharedData.repositoryRoot.appendingPathComponent(".build/release/coach"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw skipTest("SKIPPED: no built coach executable (looked at \(candidates.map(\.path))); run swift build -c release",
                           file: file, function: function)
        }
        return found
    }

    /// Runs `coach arguments…` in `directory` (with `environment` added to this process's) and waits for it.
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                    file: String = #fileID, function: String = #function) throws -> Result {
        let process = Process()
        process.executableURL = try location(file: file, function: function)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        return try finish(process)
    }

    /// Runs `process` (configured but not started) and waits for it, capturing its output.
    static func finish(_ process: Process) throws -> Result {
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes concurrently so a full pipe can never block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let errorBox = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorBox.data = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let errorData = errorBox.data
        process.waitUntilExit()
        return Result(exitCode: process.terminationStatus,
                      standardOutput: String(decoding: outputData, as: UTF8.self),
                      standardError: String(decoding: errorData, as: UTF8.self))
    }
}
