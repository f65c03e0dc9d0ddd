import Foundation

/// Where a pose sequence or single pose came from, for messages and for tracing examples back to files.
public struct PoseSource: Hashable, Sendable, CustomStringConvertible {
    /// The file it was read from.
    public var file: URL
    /// The `sequence` value of a table file (FORMATS §3.4), or nil for one-clip files.
    public var sequence: String?
    /// The 1-based line where it starts in a CSV file (the first data row), or nil for JSON.
    public var line: Int?
    /// The header line of a CSV file (for problems about its columns).
    var headerLine: Int?

    /// A source in `file`, optionally naming a table sequence and a starting line.
    public init(file: URL, sequence: String? = nil, line: Int? = nil) {
        self.file = file
        self.sequence = sequence
        self.line = line
    }

    /// `path`, `path:line` or `path:line (sequence s)`.
    public var description: String { described(file.path) }

    /// `description` with the file's name instead of its path (`clip.csv:2`), for captions.
    public var shortDescription: String { described(file.lastPathComponent) }

    private func described(_ name: String) -> String {
        var text = name
        if let line { text += ":\(line)" }
        if let sequence { text += " (sequence \(sequence))" }
        return text
    }
}
