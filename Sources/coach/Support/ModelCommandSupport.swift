import ArgumentParser
import CoachModels
import Foundation

/// Runs a command body, turning library errors into a clear message on stderr and exit
/// code 1 (argument errors keep ArgumentParser's usage output and exit code 64).
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch let error as CleanExit {
        throw error
    } catch {
        let readable = FileErrorDescription.readable(error)
        Console.error((readable as? LocalizedError)?.errorDescription ?? "\(readable)")
        throw ExitCode.failure
    }
}

/// Errors the CLI itself raises (bad combinations of options that need file contents to detect).
struct CLIError: Error, LocalizedError {
    let message: String
    init(_ message: String) { self.message = message }
    var errorDescription: String? { message }
}

/// Reads a model file's summary (task, metadata) without loading weights.
func readModelSummary(_ path: String) throws -> ModelFileSummary {
    try ModelFileSummary.read(from: URL(fileURLWithPath: path))
}
