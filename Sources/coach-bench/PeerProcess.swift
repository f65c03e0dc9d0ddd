import Foundation

/// Runs a peer's Python script (the benchmarks' side-by-side comparisons) and captures its stdout;
/// nil when the interpreter cannot be started. Stderr is discarded unless `showErrors`.
enum PeerProcess {
    static func run(python: String, arguments: [String], showErrors: Bool = true) -> (status: Int32, output: Data)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        if !showErrors { process.standardError = FileHandle.nullDevice }
        do { try process.run() } catch { return nil }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
