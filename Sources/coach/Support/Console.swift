import CoachTraining
import Foundation

/// Everything `coach` writes goes through here: results to stdout, progress, warnings
/// and errors to stderr (so `--json` output stays machine-readable).
enum Console {
    /// Whether stderr is a terminal (progress lines are redrawn in place only then).
    static let stderrIsTerminal = isatty(STDERR_FILENO) != 0

    /// Set on the ranks of an MPI job other than 0 ("rank 1 of 2 on host"): they print no results,
    /// notes or progress (rank 0 speaks for the job), only their own errors, named by this.
    nonisolated(unsafe) static var followerName: String?

    /// When set, results, notes, warnings and errors are kept here in order instead of written
    /// (a rank's share of `predict`, whose output rank 0 prints: `ShardedOutput`); rank 0 still
    /// shows its own progress.
    nonisolated(unsafe) static var captured: [(standardError: Bool, text: String)]?

    /// Writes a result line to stdout. A result that cannot be written (a full disk, `/dev/full`, a
    /// closed pipe) ends the command with an error and exit status 74 (EX_IOERR) — never a silent 0.
    static func print(_ line: String = "") {
        if captured != nil { captured!.append((false, line + "\n")); return }
        guard followerName == nil else { return }
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                let reason = String(cString: strerror(errno))
                writeDiagnostic("error: cannot write the results to standard output: \(reason)\n")
                exit(74)
            }
            written += result
        }
    }

    /// Flushes what `print` buffered; a failure (full disk, `/dev/full`) is an error with exit
    /// status 74 instead of a success whose output vanished.
    static func finishStandardOutput() {
        if fflush(stdout) != 0 || ferror(stdout) != 0 {
            let reason = String(cString: strerror(errno))
            writeDiagnostic("error: cannot write the results to standard output: \(reason)\n")
            exit(74)
        }
    }

    /// Writes `text` to stderr. Diagnostics that cannot be written (stderr closed, `/dev/full`)
    /// are dropped: the command's own outcome — its output files and exit status — must not
    /// depend on whether anyone reads its progress (Foundation's FileHandle traps on such errors).
    static func writeDiagnostic(_ text: String) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return }
            written += result
        }
    }

    /// Writes a line to stderr.
    static func note(_ line: String) {
        if captured != nil { captured!.append((true, line + "\n")); return }
        guard followerName == nil else { return }
        clearProgress()
        writeDiagnostic((line + "\n"))
    }

    /// Writes a warning to stderr.
    static func warning(_ line: String) { note("warning: \(line)") }

    /// Writes an error to stderr.
    static func error(_ line: String) {
        if captured != nil { return note("error: \(line)") }
        if let followerName { return writeDiagnostic("error (\(followerName)): \(line)\n") }
        note("error: \(line)")
    }

    nonisolated(unsafe) private static var progressShown = false
    nonisolated(unsafe) private static var lastLoggedProgress: (phase: String, time: Double)? = nil

    /// How often a progress line is written when stderr is not a terminal (a CI log or a
    /// file), in seconds: often enough to show the run is alive, not a line per update.
    static let loggedProgressInterval = 10.0

    /// Shows a one-line progress status of `phase` on stderr: redrawn in place on a terminal,
    /// otherwise written as a line when the phase starts and then every
    /// `loggedProgressInterval` seconds.
    static func progress(_ line: String, phase: String) {
        guard followerName == nil else { return }
        if stderrIsTerminal {
            writeDiagnostic(("\r\u{1B}[K" + line))
            progressShown = true
            return
        }
        let now = Date().timeIntervalSinceReferenceDate
        if let last = lastLoggedProgress, last.phase == phase, now - last.time < loggedProgressInterval { return }
        lastLoggedProgress = (phase, now)
        writeDiagnostic((line + "\n"))
    }

    /// Ends an in-place progress line.
    static func clearProgress() {
        if progressShown {
            writeDiagnostic("\r\u{1B}[K")
            progressShown = false
        }
    }

    /// Prints `value` as pretty, key-sorted JSON on stdout.
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Renders training events: progress with rate and ETA, iteration lines, warnings.
    static func observer(quiet: Bool = false) -> TrainingObserver {
        return { event in
            switch event {
            case let .progress(phase, completed, total, rate, remaining):
                if quiet { return }
                // No ETA from the first second or two: a phase's first items carry its start-up
                // (an ensemble's first batch once showed 7m 53s for a run of 2m 40s).
                let running = rate > 0 ? Double(completed) / rate : 0
                let eta = running >= 2 ? remaining.map { " · ETA \(duration($0))" } ?? "" : ""
                if completed < total {
                    progress("\(phase): \(completed)/\(total) · \(String(format: "%.1f", rate))/s\(eta)", phase: phase)
                } else {
                    note("\(phase): \(total)/\(total) in \(duration(Double(total) / max(rate, 1e-9))) · \(String(format: "%.1f", rate))/s")
                }
            case let .iteration(s):
                if quiet { return }
                var parts = (s.member.map { ["member \($0)"] } ?? []) + ["iteration \(s.iteration)/\(s.totalIterations)", "loss \(String(format: "%.4f", s.trainingLoss))"]
                if let a = s.trainingAccuracy { parts.append("accuracy \(percent(a))") }
                if let l = s.validationLoss { parts.append("validation loss \(String(format: "%.4f", l))") }
                if let a = s.validationAccuracy { parts.append("validation accuracy \(percent(a))") }
                note(parts.joined(separator: " · ") + (s.isBest ? " *" : ""))
            case let .warning(text):
                warning(text)
            case let .note(text):
                if !quiet { note(text) }
            }
        }
    }

    /// "1m 05s" style durations.
    static func duration(_ seconds: Double) -> String {
        if !seconds.isFinite { return "?" }
        let s = Int(seconds.rounded())
        if s < 60 { return seconds < 10 ? String(format: "%.1fs", seconds) : "\(s)s" }
        return "\(s / 60)m \(String(format: "%02d", s % 60))s"
    }

    /// "97.5%".
    static func percent(_ x: Double) -> String { String(format: "%.1f%%", x * 100) }
}
