import Foundation

/// A minimal Protocol Buffers encoder: the wire types the exported formats need (varints,
/// length-delimited bytes, strings and messages, fixed32 floats, fixed64 doubles, packed repeated
/// fields).
///
/// Fields are written in the order they are called, so the same calls give the same bytes.
/// Wire format: each field is a tag `(field number << 3) | wire type` as a varint, then its
/// value — wire type 0 a varint, 1 eight little-endian bytes, 2 a varint length and that many
/// bytes, 5 four little-endian bytes.
public struct ProtobufWriter {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// The bytes written so far, as `Data`.
    public var data: Data { Data(bytes) }

    /// Appends `value` as a base-128 varint (7 bits per byte, least significant first).
    public mutating func writeVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    /// Appends the tag of field `number` with `wireType` (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
    public mutating func writeTag(_ number: Int, wireType: Int) {
        writeVarint(UInt64(number << 3 | wireType))
    }

    /// An `int64`/`int32`/enum field (negative values take ten bytes, as protobuf encodes them).
    public mutating func writeInteger(_ number: Int, _ value: Int64) {
        writeTag(number, wireType: 0)
        writeVarint(UInt64(bitPattern: value))
    }

    /// A `float` field (fixed32, little-endian).
    public mutating func writeFloat(_ number: Int, _ value: Float) {
        writeTag(number, wireType: 5)
        appendLittleEndian(value.bitPattern)
    }

    /// A `double` field (fixed64, little-endian).
    public mutating func writeDouble(_ number: Int, _ value: Double) {
        writeTag(number, wireType: 1)
        appendLittleEndian(UInt32(truncatingIfNeeded: value.bitPattern))
        appendLittleEndian(UInt32(truncatingIfNeeded: value.bitPattern >> 32))
    }

    /// A `bytes` field.
    public mutating func writeBytes<Bytes: Collection>(_ number: Int, _ value: Bytes) where Bytes.Element == UInt8 {
        writeTag(number, wireType: 2)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A `string` field (UTF-8).
    public mutating func writeString(_ number: Int, _ value: String) {
        writeBytes(number, Array(value.utf8))
    }

    /// An embedded message field whose contents `body` writes.
    public mutating func writeMessage(_ number: Int, _ body: (inout ProtobufWriter) -> Void) {
        var nested = ProtobufWriter()
        body(&nested)
        writeBytes(number, nested.bytes)
    }

    /// A packed `repeated float` field (nothing when `values` is empty).
    public mutating func writePackedFloats(_ number: Int, _ values: [Float]) {
        guard !values.isEmpty else { return }
        writeTag(number, wireType: 2)
        writeVarint(UInt64(values.count * 4))
        for value in values { appendLittleEndian(value.bitPattern) }
    }

    /// A packed `repeated int64` field (nothing when `values` is empty).
    public mutating func writePackedIntegers(_ number: Int, _ values: [Int64]) {
        guard !values.isEmpty else { return }
        var packed = ProtobufWriter()
        for value in values { packed.writeVarint(UInt64(bitPattern: value)) }
        writeBytes(number, packed.bytes)
    }

    /// Floats as little-endian IEEE 754 bytes (a tensor's raw data).
    public static func littleEndianBytes(of values: [Float]) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.bytes.reserveCapacity(values.count * 4)
        for value in values { writer.appendLittleEndian(value.bitPattern) }
        return writer.bytes
    }

    private mutating func appendLittleEndian(_ value: UInt32) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8 & 0xFF))
        bytes.append(UInt8(value >> 16 & 0xFF))
        bytes.append(UInt8(value >> 24))
    }
}
