import CoachExport
import XCTest

/// The protobuf encoder against bytes worked out by hand from the wire-format specification
/// (protobuf.dev/programming-guides/encoding, whose examples several of these are).
final class ProtobufWriterTests: XCTestCase {
    func testVarints() {
        func varint(_ value: UInt64) -> [UInt8] {
            var writer = ProtobufWriter()
            writer.writeVarint(value)
            return writer.bytes
        }
        XCTAssertEqual(varint(0), [0x00])
        XCTAssertEqual(varint(1), [0x01])
        XCTAssertEqual(varint(127), [0x7F])
        XCTAssertEqual(varint(128), [0x80, 0x01])
        // 300 = 0b10_0101100: low seven bits 0101100 with the continuation bit, then 10.
        XCTAssertEqual(varint(300), [0xAC, 0x02])
        XCTAssertEqual(varint(UInt64.max), [UInt8](repeating: 0xFF, count: 9) + [0x01])

        // Field 1 = 150: tag 1 << 3 | 0 = 08, then 150 = 96 01.
        var writer = ProtobufWriter()
        writer.writeInteger(1, 150)
        XCTAssertEqual(writer.bytes, [0x08, 0x96, 0x01])
        // A negative int64 is its two's complement as ten varint bytes.
        writer = ProtobufWriter()
        writer.writeInteger(2, -1)
        XCTAssertEqual(writer.bytes, [0x10] + [UInt8](repeating: 0xFF, count: 9) + [0x01])
    }

    func testLengthDelimitedFields() {
        // Field 2 = "testing": tag 2 << 3 | 2 = 12, length 07, the UTF-8 bytes.
        var writer = ProtobufWriter()
        writer.writeString(2, "testing")
        XCTAssertEqual(writer.bytes, [0x12, 0x07, 0x74, 0x65, 0x73, 0x74, 0x69, 0x6E, 0x67])
        // An embedded message in field 3 holding field 1 = 150: 1A 03 08 96 01.
        writer = ProtobufWriter()
        writer.writeMessage(3) { $0.writeInteger(1, 150) }
        XCTAssertEqual(writer.bytes, [0x1A, 0x03, 0x08, 0x96, 0x01])
        // Non-ASCII text counts bytes, not characters: "é" is C3 A9.
        writer = ProtobufWriter()
        writer.writeString(1, "é")
        XCTAssertEqual(writer.bytes, [0x0A, 0x02, 0xC3, 0xA9])
        // A length of 300 bytes takes a two-byte varint.
        writer = ProtobufWriter()
        writer.writeBytes(9, [UInt8](repeating: 7, count: 300))
        XCTAssertEqual(Array(writer.bytes.prefix(3)), [0x4A, 0xAC, 0x02])
        XCTAssertEqual(writer.bytes.count, 303)
    }

    func testFloatsAndPackedFields() {
        // Field 2 = 0.5 as fixed32: tag 2 << 3 | 5 = 15, then 0x3F000000 little-endian.
        var writer = ProtobufWriter()
        writer.writeFloat(2, 0.5)
        XCTAssertEqual(writer.bytes, [0x15, 0x00, 0x00, 0x00, 0x3F])
        // Field 110 = 0.45 as fixed64: tag 110 << 3 | 1 = 881 = F1 06, then 0x3FDCCCCCCCCCCCCD little-endian.
        writer = ProtobufWriter()
        writer.writeDouble(110, 0.45)
        XCTAssertEqual(writer.bytes, [0xF1, 0x06, 0xCD, 0xCC, 0xCC, 0xCC, 0xCC, 0xCC, 0xDC, 0x3F])
        // Packed floats [1, −2] in field 4: tag 22, length 08, 0x3F800000 and 0xC0000000 little-endian.
        writer = ProtobufWriter()
        writer.writePackedFloats(4, [1, -2])
        XCTAssertEqual(writer.bytes, [0x22, 0x08, 0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0])
        // Packed int64s [3, 270, 86942] in field 4: 22 06 03 8E 02 9E A7 05.
        writer = ProtobufWriter()
        writer.writePackedIntegers(4, [3, 270, 86942])
        XCTAssertEqual(writer.bytes, [0x22, 0x06, 0x03, 0x8E, 0x02, 0x9E, 0xA7, 0x05])
        // Empty repeated fields write nothing.
        writer = ProtobufWriter()
        writer.writePackedFloats(4, [])
        writer.writePackedIntegers(7, [])
        XCTAssertEqual(writer.bytes, [])
    }

    func testONNXTensorAndAttributeMessages() {
        // TensorProto: dims 2 (08 02), data_type FLOAT (10 01), name "w" (42 01 77),
        // raw_data 8 bytes (4A 08 …).
        var writer = ProtobufWriter()
        ONNXTensor(name: "w", dimensions: [2], floats: [1, -2]).encode(into: &writer)
        XCTAssertEqual(writer.bytes, [0x08, 0x02, 0x10, 0x01, 0x42, 0x01, 0x77,
                                      0x4A, 0x08, 0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0])
        // An int64 tensor stores packed int64_data (field 7).
        writer = ProtobufWriter()
        ONNXTensor(name: "s", dimensions: [2], integers: [1, 300]).encode(into: &writer)
        XCTAssertEqual(writer.bytes, [0x08, 0x02, 0x10, 0x07, 0x3A, 0x03, 0x01, 0xAC, 0x02, 0x42, 0x01, 0x73])
        // AttributeProto "pads" INTS [0, 1]: name (0A 04 …), ints one tag each (40 00 40 01), type 7 (A0 01 07).
        writer = ProtobufWriter()
        ONNXAttribute("pads", .integers([0, 1])).encode(into: &writer)
        XCTAssertEqual(writer.bytes, [0x0A, 0x04, 0x70, 0x61, 0x64, 0x73, 0x40, 0x00, 0x40, 0x01, 0xA0, 0x01, 0x07])
    }
}
