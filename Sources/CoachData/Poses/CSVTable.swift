import Foundation

/// A CSV file split into a header and records (RFC 4180), each record knowing the line it starts on.
///
/// Coach reads CSV with this small reader rather than yaslab/CSV.swift or SwiftCSV because neither
/// reports where a record is: with quoted fields spanning lines, record numbers are not line numbers,
/// and errors must name the line. Both packages also accept an unterminated quote silently, and
/// CSV.swift merges the following records into a field after a stray character behind a closing quote.
/// This reader works on bytes: quoted fields (with `""` escapes and line breaks), `\n`, `\r\n` and `\r`
/// line ends, a UTF-8 byte-order mark, and blank lines (skipped). Malformed quoting is reported
/// with its line, and a record with the wrong number of fields is reported and left out.
struct CSVTable {
    /// One data record: the line it starts on and its fields.
    struct Record {
        var line: Int
        var fields: [String]
    }

    var file: URL
    var header: [String]
    var headerLine: Int
    var records: [Record]

    /// Reads and splits `file`; nil (with the problem logged) when it cannot be read, is empty,
    /// or its header is unusable. Header names are trimmed of surrounding spaces.
    static func read(_ file: URL, log: inout PoseProblemLog) -> CSVTable? {
        let data: Data
        if let problem = DataFiles.problem(with: file) {
            log.add(file, "cannot be read (\(problem)): expected a readable CSV file")
            return nil
        }
        do {
            data = try Data(contentsOf: file)
        } catch {
            log.add(file, "cannot be read (\(error.localizedDescription)): expected a readable CSV file")
            return nil
        }
        return parse([UInt8](data), file: file, log: &log)
    }

    /// Splits CSV `bytes` read from `file` (used for messages).
    static func parse(_ bytes: [UInt8], file: URL, log: inout PoseProblemLog) -> CSVTable? {
        var rawRecords: [Record] = []
        bytes.withUnsafeBufferPointer { buffer in
            rawRecords = tokenize(buffer, file: file, log: &log)
        }
        guard let first = rawRecords.first else {
            log.add(file, "is empty: expected a header line naming the columns, then one line per row")
            return nil
        }
        let header = first.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        var seen: [String: Int] = [:]
        var headerIsUsable = true
        for (column, name) in header.enumerated() {
            if name.isEmpty {
                log.add(file, line: first.line, "column \(column + 1) has an empty name: expected every column to be named")
                headerIsUsable = false
            } else if let earlier = seen[name] {
                log.add(file, line: first.line, "duplicate column name '\(name)' (columns \(earlier + 1) and \(column + 1)): expected each column once")
                headerIsUsable = false
            } else {
                seen[name] = column
            }
        }
        var records: [Record] = []
        records.reserveCapacity(rawRecords.count - 1)
        for record in rawRecords.dropFirst() {
            if record.fields.count != header.count {
                log.add(file, line: record.line, "has \(record.fields.count) fields: expected \(header.count), one per header column")
            } else {
                records.append(record)
            }
        }
        guard headerIsUsable else { return nil }
        return CSVTable(file: file, header: header, headerLine: first.line, records: records)
    }

    /// The column index of each header name.
    var columnIndexByName: [String: Int] {
        var index: [String: Int] = [:]
        for (column, name) in header.enumerated() { index[name] = column }
        return index
    }

    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","),
        newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")

    private static func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, file: URL, log: inout PoseProblemLog) -> [Record] {
        var records: [Record] = []
        var index = 0
        let end = bytes.count
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        var line = 1
        var fields: [String] = []
        var recordLine = 1
        var escaped: [UInt8] = []

        func isBlank(_ fields: [String]) -> Bool {
            fields.count == 1 && fields[0].allSatisfy { $0 == " " || $0 == "\t" }
        }
        /// Consumes a line end at `index` (if any) and counts it.
        func consumeLineEnd() {
            if bytes[index] == carriageReturn, index + 1 < end, bytes[index + 1] == newline { index += 1 }
            index += 1
            line += 1
        }

        while index < end {
            // At the start of a field.
            if fields.isEmpty { recordLine = line }
            if bytes[index] == quote {
                let openingLine = line
                index += 1
                escaped.removeAll(keepingCapacity: true)
                var closed = false
                while index < end {
                    let byte = bytes[index]
                    if byte == quote {
                        if index + 1 < end, bytes[index + 1] == quote {
                            escaped.append(quote)
                            index += 2
                        } else {
                            index += 1
                            closed = true
                            break
                        }
                    } else if byte == newline || byte == carriageReturn {
                        if byte == carriageReturn, index + 1 < end, bytes[index + 1] == newline {
                            escaped.append(carriageReturn)
                            index += 1
                        }
                        escaped.append(bytes[index])
                        index += 1
                        line += 1
                    } else {
                        escaped.append(byte)
                        index += 1
                    }
                }
                fields.append(String(decoding: escaped, as: UTF8.self))
                if !closed {
                    log.add(file, line: openingLine, "quoted field never closed: expected a closing '\"' before the end of the file")
                    fields.removeAll()  // the unfinished record is not trustworthy
                    break
                }
                // After a closing quote: spaces, then a comma, a line end or the end of the file.
                while index < end, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
                if index < end, bytes[index] != comma, bytes[index] != newline, bytes[index] != carriageReturn {
                    log.add(file, line: line, "unexpected character after a closing quote: expected ',' or the end of the line (write a quote inside a quoted field as \"\")")
                    while index < end, bytes[index] != comma, bytes[index] != newline, bytes[index] != carriageReturn { index += 1 }
                }
            } else {
                let start = index
                while index < end, bytes[index] != comma, bytes[index] != newline, bytes[index] != carriageReturn { index += 1 }
                fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            }
            // After a field.
            if index >= end { break }
            if bytes[index] == comma {
                index += 1
                if index >= end { fields.append("") }  // a trailing comma ends with an empty field
                continue
            }
            consumeLineEnd()
            if !isBlank(fields) { records.append(Record(line: recordLine, fields: fields)) }
            fields.removeAll(keepingCapacity: true)
        }
        if !fields.isEmpty, !isBlank(fields) { records.append(Record(line: recordLine, fields: fields)) }
        return records
    }
}
