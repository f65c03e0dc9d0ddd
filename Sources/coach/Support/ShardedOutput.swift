import ArgumentParser
import CoachTraining
import Foundation

/// Work over many inputs whose output is one block per input (`coach predict`), shared among the
/// ranks of an MPI job: each rank runs the command on its share of the inputs (contiguous, in input
/// order) with what it prints kept, then rank 0 prints every rank's output in rank order, so the
/// job prints what one process would: the same lines, one JSON array, each warning once.
enum ShardedOutput {
    /// One rank's kept output and how its share ended.
    struct Outcome: WireCodable {
        /// What it printed, in order: (on standard error, text).
        var chunks: [(standardError: Bool, text: String)]
        /// Its exit status (0: success).
        var exitCode: Int32
        /// The inputs of its share that failed, when the command carries on past them.
        var failedInputs: [String]

        func write(to writer: inout WireWriter) {
            chunks.map(\.standardError).write(to: &writer)
            chunks.map(\.text).write(to: &writer)
            writer.write(Int(exitCode))
            failedInputs.write(to: &writer)
        }

        init(chunks: [(standardError: Bool, text: String)], exitCode: Int32, failedInputs: [String]) {
            self.chunks = chunks
            self.exitCode = exitCode
            self.failedInputs = failedInputs
        }

        init(from reader: inout WireReader) throws {
            let streams = try [Bool](from: &reader), texts = try [String](from: &reader)
            guard streams.count == texts.count else { throw WireError.truncated }
            chunks = Array(zip(streams, texts))
            exitCode = Int32(truncatingIfNeeded: try reader.readInt())
            failedInputs = try [String](from: &reader)
        }
    }

    /// Runs `body` on this rank's share of `count` inputs (it receives the range) and prints the
    /// job's output on rank 0; ends the process with the job's exit status when a share failed.
    /// `allOrNothing`: a command that prints no result when any input fails (it reads them all
    /// first) prints none when any share failed, only the errors.
    /// `body` returns the inputs of its share that failed (for commands that carry on past a
    /// failed input and then sum up: `failureSummary` makes rank 0's closing error of all of them).
    static func run(job: Communicator, count: Int, json: Bool, allOrNothing: Bool = false,
                    failureSummary: (([String]) -> String)? = nil, _ body: (Range<Int>) throws -> [String]) throws {
        let share = job.share(of: count)
        Console.captured = []
        var exitCode: Int32 = 0, failedInputs: [String] = []
        if !share.isEmpty {
            do {
                failedInputs = try body(share)
                if !failedInputs.isEmpty { exitCode = ExitCode.failure.rawValue }
            } catch let error as ExitCode {
                exitCode = error.rawValue
            } catch {
                Console.error((FileErrorDescription.readable(error) as? LocalizedError)?.errorDescription ?? "\(error)")
                exitCode = ExitCode.failure.rawValue
            }
        }
        let outcome = Outcome(chunks: Console.captured ?? [], exitCode: exitCode, failedInputs: failedInputs)
        Console.captured = nil
        let outcomes = try job.allGather(outcome.wireBytes).map { bytes -> Outcome in
            var reader = WireReader(bytes)
            return try Outcome(from: &reader)
        }
        guard job.isRoot else { return }
        var written = Set<String>()
        for chunk in outcomes.flatMap(\.chunks) where chunk.standardError {
            // The same warning or error from several ranks (about the model, say) is printed once.
            if written.insert(chunk.text).inserted { Console.writeDiagnostic(chunk.text) }
        }
        let results = outcomes.map { $0.chunks.filter { !$0.standardError }.map(\.text).joined() }
        let failed = outcomes.map(\.exitCode).first(where: { $0 != 0 })
        let text = allOrNothing && failed != nil ? "" : json ? mergedJSONArrays(results) : results.joined()
        if !text.isEmpty { Console.print(String(text.dropLast(text.hasSuffix("\n") ? 1 : 0))) }
        if let failed {
            let failedInputs = outcomes.flatMap(\.failedInputs)
            if let failureSummary, !failedInputs.isEmpty { Console.error(failureSummary(failedInputs)) }
            Console.finishStandardOutput()
            exit(failed)
        }
    }

    /// Pretty-printed JSON arrays (one per rank, some empty) as the one array a single process
    /// prints: their elements in order.
    static func mergedJSONArrays(_ texts: [String]) -> String {
        let present = texts.filter { !$0.isEmpty }
        let elements = present.compactMap { text -> String? in
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.hasPrefix("["), trimmed.hasSuffix("]") else { return nil }
            var inner = Substring(trimmed.dropFirst().dropLast())
            while inner.first == "\n" { inner = inner.dropFirst() }
            while inner.last == "\n" { inner = inner.dropLast() }
            return inner.allSatisfy(\.isWhitespace) ? nil : String(inner)
        }
        guard !elements.isEmpty else { return present.first ?? "" }
        return "[\n" + elements.joined(separator: ",\n") + "\n]\n"
    }
}
