import Foundation

/// A bounds-checked reader of FlatBuffers binary data (the container of TFLite models):
/// every offset is checked against the file, so a damaged file gives a `TFLiteError`
/// naming what was being read, never a crash.
///
/// Layout (flatbuffers.dev, "FlatBuffers internals"): little-endian; the root is a `uoffset`
/// (u32, relative to where it is stored) to a table; a table starts with an `soffset` (i32)
/// back to its vtable; a vtable lists u16 byte offsets of the fields (0 = absent); vectors and
/// strings are a u32 length followed by the elements; offsets to tables, vectors and strings are
/// u32 relative to the field's own position.
struct FlatBuffer {
    let bytes: [UInt8]
    let path: String

    func malformed(_ what: String) -> TFLiteError { .malformed(path: path, what: what) }

    func check(_ position: Int, _ size: Int, _ what: @autoclosure () -> String) throws {
        guard position >= 0, size >= 0, position <= bytes.count - size else {
            throw malformed("\(what()) at byte \(position) lies outside the \(bytes.count)-byte file")
        }
    }

    func u8(_ p: Int, _ what: @autoclosure () -> String) throws -> UInt8 {
        try check(p, 1, what())
        return bytes[p]
    }

    func u16(_ p: Int, _ what: @autoclosure () -> String) throws -> Int {
        try check(p, 2, what())
        return Int(bytes[p]) | Int(bytes[p + 1]) << 8
    }

    func u32(_ p: Int, _ what: @autoclosure () -> String) throws -> UInt32 {
        try check(p, 4, what())
        return UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24
    }

    func i32(_ p: Int, _ what: @autoclosure () -> String) throws -> Int32 {
        Int32(bitPattern: try u32(p, what()))
    }

    func u64(_ p: Int, _ what: @autoclosure () -> String) throws -> UInt64 {
        UInt64(try u32(p, what())) | UInt64(try u32(p + 4, what())) << 32
    }

    /// The table the root offset points at.
    func root(_ what: String) throws -> FlatTable {
        try table(at: Int(try u32(0, "the root offset")), what)
    }

    /// The table starting at `position`.
    func table(at position: Int, _ what: String) throws -> FlatTable {
        let back = Int(try i32(position, "\(what)'s vtable offset"))
        let vtable = position - back
        let vtableSize = try u16(vtable, "\(what)'s vtable")
        guard vtableSize >= 4, vtableSize % 2 == 0 else { throw malformed("\(what)'s vtable has size \(vtableSize)") }
        try check(vtable, vtableSize, "\(what)'s vtable")
        return FlatTable(buffer: self, position: position, vtable: vtable, fieldCount: (vtableSize - 4) / 2, what: what)
    }
}

/// One table of a `FlatBuffer`; fields are addressed by their id in the schema (0, 1, …).
struct FlatTable {
    let buffer: FlatBuffer
    let position: Int
    let vtable: Int
    let fieldCount: Int
    /// What the table is, for error messages ("operator 12 of subgraph 0").
    let what: String

    /// Where field `id` is stored, nil when absent.
    func field(_ id: Int) throws -> Int? {
        guard id < fieldCount else { return nil }
        let offset = try buffer.u16(vtable + 4 + 2 * id, "\(what)'s vtable")
        return offset == 0 ? nil : position + offset
    }

    func int32(_ id: Int, default value: Int = 0) throws -> Int {
        guard let p = try field(id) else { return value }
        return Int(try buffer.i32(p, "field \(id) of \(what)"))
    }

    func uint32(_ id: Int, default value: Int = 0) throws -> Int {
        guard let p = try field(id) else { return value }
        return Int(try buffer.u32(p, "field \(id) of \(what)"))
    }

    func uint64(_ id: Int, default value: UInt64 = 0) throws -> UInt64 {
        guard let p = try field(id) else { return value }
        return try buffer.u64(p, "field \(id) of \(what)")
    }

    func int8(_ id: Int, default value: Int = 0) throws -> Int {
        guard let p = try field(id) else { return value }
        return Int(Int8(bitPattern: try buffer.u8(p, "field \(id) of \(what)")))
    }

    func uint8(_ id: Int, default value: Int = 0) throws -> Int {
        guard let p = try field(id) else { return value }
        return Int(try buffer.u8(p, "field \(id) of \(what)"))
    }

    func bool(_ id: Int, default value: Bool = false) throws -> Bool {
        guard let p = try field(id) else { return value }
        return try buffer.u8(p, "field \(id) of \(what)") != 0
    }

    /// Where the object an offset field points at starts.
    private func target(_ id: Int) throws -> Int? {
        guard let p = try field(id) else { return nil }
        return p + Int(try buffer.u32(p, "field \(id) of \(what)"))
    }

    /// The sub-table in field `id`.
    func table(_ id: Int, _ what: String) throws -> FlatTable? {
        guard let p = try target(id) else { return nil }
        return try buffer.table(at: p, what)
    }

    /// The element range of the vector in field `id` whose elements are `size` bytes.
    func vector(_ id: Int, elementSize size: Int, _ name: String) throws -> (start: Int, count: Int)? {
        guard let p = try target(id) else { return nil }
        let count = Int(try buffer.u32(p, "the length of \(name) of \(what)"))
        guard count <= buffer.bytes.count / max(size, 1) else {
            throw buffer.malformed("\(name) of \(what) claims \(count) elements")
        }
        try buffer.check(p + 4, count * size, "\(name) of \(what)")
        return (p + 4, count)
    }

    /// The vector of tables in field `id`; `describe(i)` names element i.
    func tables(_ id: Int, _ name: String, describe: (Int) -> String) throws -> [FlatTable] {
        guard let (start, count) = try vector(id, elementSize: 4, name) else { return [] }
        return try (0..<count).map { i in
            let p = start + 4 * i
            return try buffer.table(at: p + Int(try buffer.u32(p, "\(name) of \(what)")), describe(i))
        }
    }

    /// The vector of int32 in field `id` (empty when absent).
    func int32s(_ id: Int, _ name: String) throws -> [Int] {
        guard let (start, count) = try vector(id, elementSize: 4, name) else { return [] }
        return try (0..<count).map { Int(try buffer.i32(start + 4 * $0, "\(name) of \(what)")) }
    }

    /// The vector of uint16 in field `id` (empty when absent).
    func uint16s(_ id: Int, _ name: String) throws -> [Int] {
        guard let (start, count) = try vector(id, elementSize: 2, name) else { return [] }
        return try (0..<count).map { try buffer.u16(start + 2 * $0, "\(name) of \(what)") }
    }

    /// The byte range of the ubyte vector in field `id`.
    func byteRange(_ id: Int, _ name: String) throws -> Range<Int>? {
        guard let (start, count) = try vector(id, elementSize: 1, name) else { return nil }
        return start..<(start + count)
    }

    /// The string in field `id`.
    func string(_ id: Int, _ name: String) throws -> String? {
        guard let range = try byteRange(id, name) else { return nil }
        return String(decoding: buffer.bytes[range], as: UTF8.self)
    }
}
