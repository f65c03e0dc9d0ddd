import Foundation

/// Reading JSON with Foundation's `JSONSerialization`, turning its syntax errors into lines and
/// telling numbers from booleans (both arrive as `NSNumber`).
enum PoseJSON {
    private static let booleanType = type(of: NSNumber(value: true))

    /// The parsed top-level value of `file`, or nil with the problem logged (unreadable, empty, not JSON).
    static func read(_ file: URL, log: inout PoseProblemLog) -> Any? {
        let data: Data
        if let problem = DataFiles.problem(with: file) {
            log.add(file, "cannot be read (\(problem)): expected a readable JSON file")
            return nil
        }
        do {
            data = StrictJSON.droppingByteOrderMark(try Data(contentsOf: file))
        } catch {
            log.add(file, "cannot be read (\(error.localizedDescription)): expected a readable JSON file")
            return nil
        }
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            log.add(file, "is empty: expected a JSON document")
            return nil
        }
        if let problem = StrictJSON.check(data) {
            log.add(file, line: problem.line, "is not valid JSON at column \(problem.column) (\(problem.path)): \(problem.message)")
            return nil
        }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? error.localizedDescription
            log.add(PoseDataProblem(file: file.path, line: line(in: data, describedBy: detail),
                                    message: "is not valid JSON (\(detail)): expected a JSON document"))
            return nil
        }
    }

    /// The line of the "around character N" a Foundation JSON error names, when it names one.
    private static func line(in data: Data, describedBy detail: String) -> Int? {
        guard let range = detail.range(of: "character ") else { return nil }
        let digits = detail[range.upperBound...].prefix { $0.isNumber }
        guard let offset = Int(digits) else { return nil }
        return 1 + data.prefix(offset).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// The number in `value`, or nil when it is not a JSON number (booleans are not numbers).
    static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber, type(of: number) != booleanType else { return nil }
        return number.doubleValue
    }

    /// A short name for the JSON type of `value`, for messages.
    static func typeName(_ value: Any) -> String {
        if value is NSNull { return "null" }
        if let number = value as? NSNumber { return type(of: number) == booleanType ? "a boolean" : "the number \(number)" }
        if let text = value as? String { return "the string \"\(text.prefix(40))\"" }
        if value is [Any] { return "an array" }
        if value is [String: Any] { return "an object" }
        return "\(type(of: value))"
    }
}
