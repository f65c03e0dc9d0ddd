import Foundation

/// Bytes a value is sent between ranks as: little-endian integers and floats, lengths before
/// contents. Plain and exact (floats travel as their bits), so gathered values equal the sent ones.
public struct WireWriter {
    /// What was written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Appends an integer.
    public mutating func write(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { bytes += $0 } }
    /// Appends a double by its bits.
    public mutating func write(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
    /// Appends raw bytes (the reader takes them back with `take`; the caller writes their length).
    mutating func append(_ raw: UnsafeRawBufferPointer) { bytes += raw }
    /// Appends a flag.
    public mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }
    /// Appends a string (UTF-8).
    public mutating func write(_ value: String) {
        let utf8 = Array(value.utf8)
        write(utf8.count)
        bytes += utf8
    }
    /// Appends floats by their bits.
    public mutating func write(_ values: [Float]) {
        write(values.count)
        let start = bytes.count
        bytes += repeatElement(0, count: 4 * values.count)
        bytes.withUnsafeMutableBytes { raw in
            for (index, value) in values.enumerated() {
                raw.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: start + 4 * index, as: UInt32.self)
            }
        }
    }
}

/// Reads what a `WireWriter` wrote; throws on bytes that end early or lie about a length.
public struct WireReader {
    let bytes: [UInt8]
    var position = 0

    /// A reader of `bytes` from the start.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether everything was read.
    public var isAtEnd: Bool { position == bytes.count }

    mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - position else { throw WireError.truncated }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// The next integer.
    public mutating func readInt() throws -> Int {
        let slice = try take(8)
        var value: UInt64 = 0
        for (shift, byte) in slice.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
        return Int(Int64(bitPattern: value))
    }

    /// The next double.
    public mutating func readDouble() throws -> Double {
        Double(bitPattern: UInt64(bitPattern: Int64(try readInt())))
    }

    /// The next float array.
    public mutating func readFloats() throws -> [Float] {
        let count = try readInt()
        guard count >= 0, count <= (bytes.count - position) / 4 else { throw WireError.truncated }
        let slice = try take(4 * count)
        return slice.withUnsafeBytes { raw in
            (0..<count).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }
}

/// Bytes from another rank that do not decode (a version mismatch between hosts, or a bug).
public enum WireError: Error, LocalizedError {
    case truncated
    public var errorDescription: String? {
        "the bytes another rank sent do not decode (are all hosts running the same coach build?)"
    }
}

/// A value that can travel between ranks.
public protocol WireCodable {
    /// Appends the value.
    func write(to writer: inout WireWriter)
    /// Reads a value written by `write(to:)`.
    init(from reader: inout WireReader) throws
}

extension WireCodable {
    /// The value's bytes alone.
    public var wireBytes: [UInt8] {
        var writer = WireWriter()
        write(to: &writer)
        return writer.bytes
    }
}

extension Int: WireCodable {
    public func write(to writer: inout WireWriter) { writer.write(self) }
    public init(from reader: inout WireReader) throws { self = try reader.readInt() }
}

extension Double: WireCodable {
    public func write(to writer: inout WireWriter) { writer.write(self) }
    public init(from reader: inout WireReader) throws { self = try reader.readDouble() }
}

extension Bool: WireCodable {
    public func write(to writer: inout WireWriter) { writer.write(self) }
    public init(from reader: inout WireReader) throws { self = try reader.take(1).first! != 0 }
}

extension String: WireCodable {
    public func write(to writer: inout WireWriter) { writer.write(self) }
    public init(from reader: inout WireReader) throws {
        let count = try reader.readInt()
        self = String(decoding: try reader.take(count), as: UTF8.self)
    }
}

extension Optional: WireCodable where Wrapped: WireCodable {
    public func write(to writer: inout WireWriter) {
        writer.write(self != nil)
        self?.write(to: &writer)
    }
    public init(from reader: inout WireReader) throws {
        self = try Bool(from: &reader) ? try Wrapped(from: &reader) : nil
    }
}

extension Array: WireCodable where Element: WireCodable {
    public func write(to writer: inout WireWriter) {
        writer.write(count)
        for element in self { element.write(to: &writer) }
    }
    public init(from reader: inout WireReader) throws {
        let count = try reader.readInt()
        guard count >= 0, count <= reader.bytes.count - reader.position else { throw WireError.truncated }
        self = []
        reserveCapacity(count)
        for _ in 0..<count { append(try Element(from: &reader)) }
    }
}

/// Floats that travel as their bits (one array, without a count per element).
public struct FloatVector: WireCodable, Equatable {
    public var values: [Float]
    public init(_ values: [Float]) { self.values = values }
    public func write(to writer: inout WireWriter) { writer.write(values) }
    public init(from reader: inout WireReader) throws { values = try reader.readFloats() }
}
