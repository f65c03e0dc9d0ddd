import Foundation

/// A strict check of JSON syntax (RFC 8259) before Foundation parses it: Foundation's parser
/// accepts trailing commas (`[1, 2,]`) and rejects an out-of-range number (`1e400`) without
/// saying where, so a data file with either would be read as something else or refused
/// unhelpfully (issue 14). The check is iterative (no recursion, any nesting is safe) and
/// reports the first problem with its line, column and JSON path.
public enum StrictJSON {
    /// The first thing wrong with a JSON document.
    public struct Problem: Error, Equatable, Sendable {
        public var line: Int
        public var column: Int
        /// Where in the document, as `$[0].annotations[2].coordinates`.
        public var path: String
        public var message: String
    }

    /// Containers nested deeper than this are refused (Foundation's parser stops at 512 too).
    public static let maximumDepth = 512

    private enum Frame {
        case array(index: Int)
        /// An object and the key whose value comes next (nil before the first key is read).
        case object(key: String?)
    }

    /// `data` without a leading UTF-8 byte-order mark. Windows editors write one; RFC 8259 lets a
    /// parser ignore it, and Coach's CSV reader already does, so a JSON file saved the same way is
    /// read the same way (neither `check` nor Foundation accepts the mark itself).
    public static func droppingByteOrderMark(_ data: Data) -> Data {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
    }

    /// The first syntax problem in `data`, or nil when it is one valid JSON value.
    public static func check(_ data: Data) -> Problem? {
        let bytes = [UInt8](data)
        var i = 0
        var stack: [Frame] = []

        func path() -> String {
            stack.reduce("$") { path, frame in
                switch frame {
                case .array(let index): return path + "[\(index)]"
                case .object(nil): return path
                case .object(let key?):
                    let plain = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
                    return plain ? path + "." + key : path + "[\"" + key + "\"]"
                }
            }
        }
        func problem(_ message: String, at offset: Int? = nil) -> Problem {
            let end = min(offset ?? i, bytes.count)
            var line = 1, column = 1
            for byte in bytes[0..<end] {
                if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            return Problem(line: line, column: column, path: path(), message: message)
        }
        func found() -> String {
            guard i < bytes.count else { return "the end of the file" }
            let byte = bytes[i]
            return byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
        }
        func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }
        /// A string starting at the quote at `i`; returns its raw contents.
        func string() -> Result<String, Problem> {
            let start = i
            i += 1
            while i < bytes.count {
                let byte = bytes[i]
                if byte == 0x22 {
                    i += 1
                    return .success(String(decoding: bytes[(start + 1)..<(i - 1)], as: UTF8.self))
                }
                if byte < 0x20 { return .failure(problem("a control character (0x\(String(byte, radix: 16))) inside a string: escape it")) }
                if byte == 0x5C {
                    i += 1
                    guard i < bytes.count else { break }
                    switch bytes[i] {
                    case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: i += 1
                    case 0x75:
                        let hex = bytes[min(i + 1, bytes.count)..<min(i + 5, bytes.count)]
                        guard hex.count == 4, hex.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }) else {
                            return .failure(problem("\\u must be followed by four hexadecimal digits"))
                        }
                        i += 5
                    default: return .failure(problem("an unknown escape \\\(found().dropFirst().dropLast()) in a string"))
                    }
                    continue
                }
                i += 1
            }
            return .failure(problem("a string that never ends (no closing quote)", at: start))
        }
        /// A number starting at `i`, by JSON's grammar and within Double's range.
        func number() -> Problem? {
            let start = i
            func digits() -> Int { let from = i; while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }; return i - from }
            if bytes[i] == 0x2D { i += 1 }
            guard i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 else { return problem("a '-' must be followed by digits") }
            if bytes[i] == 0x30 { i += 1 } else { _ = digits() }
            if i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { return problem("a number must not start with 0 (leading zeros)", at: start) }
            if i < bytes.count, bytes[i] == 0x2E {
                i += 1
                if digits() == 0 { return problem("a decimal point must be followed by digits") }
            }
            if i < bytes.count, bytes[i] | 0x20 == 0x65 {
                i += 1
                if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
                if digits() == 0 { return problem("an exponent must have digits") }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if let value = Double(text), !value.isFinite {
                return problem("the number \(text) is out of range (at most about ±1.8e308)", at: start)
            }
            return nil
        }
        /// After `{` or `,` in an object: a key and its colon.
        func key() -> Problem? {
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x22 else { return problem("expected a quoted key, found \(found())") }
            switch string() {
            case .failure(let failure): return failure
            case .success(let name): stack[stack.count - 1] = .object(key: name)
            }
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x3A else { return problem("expected ':' after the key, found \(found())") }
            i += 1
            return nil
        }

        while true {
            // A value is expected at i.
            skipSpace()
            guard i < bytes.count else { return problem(stack.isEmpty ? "the file holds no JSON value" : "the file ends where a value is expected") }
            var closedValue = true
            switch bytes[i] {
            case 0x7B, 0x5B:   // { [
                guard stack.count < maximumDepth else { return problem("containers nested more than \(maximumDepth) levels deep") }
                let isObject = bytes[i] == 0x7B
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == (isObject ? 0x7D : 0x5D) {
                    i += 1
                } else {
                    stack.append(isObject ? .object(key: nil) : .array(index: 0))
                    if isObject, let failure = key() { return failure }
                    closedValue = false
                }
            case 0x22:
                if case .failure(let failure) = string() { return failure }
            case 0x2D, 0x30...0x39:
                if let failure = number() { return failure }
            case 0x74, 0x66, 0x6E:   // true false null
                let literal: [UInt8] = bytes[i] == 0x74 ? Array("true".utf8) : bytes[i] == 0x66 ? Array("false".utf8) : Array("null".utf8)
                guard bytes.count - i >= literal.count, Array(bytes[i..<(i + literal.count)]) == literal else {
                    return problem("expected a value, found \(found()) (true, false and null are lower case)")
                }
                i += literal.count
            default:
                let letter = (0x41...0x5A).contains(bytes[i]) || (0x61...0x7A).contains(bytes[i])
                return problem("expected a value, found \(found())" + (letter ? " (strings need quotes; true, false and null are lower case)" : ""))
            }
            guard closedValue else { continue }
            // After a value: a comma, the end of its container, or the end of the document.
            while true {
                skipSpace()
                guard let frame = stack.last else {
                    return i < bytes.count ? problem("unexpected \(found()) after the JSON value") : nil
                }
                let isObject: Bool
                if case .object = frame { isObject = true } else { isObject = false }
                guard i < bytes.count else { return problem("the file ends inside \(isObject ? "an object" : "an array") (missing '\(isObject ? "}" : "]")')") }
                if bytes[i] == 0x2C {
                    i += 1
                    skipSpace()
                    if i < bytes.count, bytes[i] == 0x5D || bytes[i] == 0x7D {
                        return problem("a trailing comma before '\(found().dropFirst().dropLast())': remove it")
                    }
                    if case .array(let index) = frame {
                        stack[stack.count - 1] = .array(index: index + 1)
                    } else if let failure = key() {
                        return failure
                    }
                    break
                }
                if bytes[i] == (isObject ? 0x7D : 0x5D) {
                    i += 1
                    stack.removeLast()
                    continue
                }
                return problem("expected ',' or '\(isObject ? "}" : "]")', found \(found())")
            }
        }
    }
}
