import CHDF5
import Foundation

/// A value read from an HDF5 attribute that Coach cannot use as asked.
///
/// Internal: the reader turns it into a `ModelFileError` naming the file and attribute.
struct HDF5AttributeProblem: Error {
    /// Why the attribute's value is unusable (e.g. "is a float, expected a string").
    var reason: String
}

/// Reading and writing the scalar attributes of a model file's root group.
///
/// Call these only inside `HDF5Library.withLock`.
enum HDF5Attributes {
    /// Writes `value` as a fixed-length, NUL-padded UTF-8 string attribute.
    ///
    /// Fixed-length strings live in the object header itself (no global heap), which keeps
    /// files byte-deterministic; h5py and h5dump read them directly.
    static func writeString(_ value: String, named name: String, on object: hid_t) throws {
        var bytes = Array(value.utf8)
        if bytes.isEmpty { bytes = [0] }  // HDF5 strings need at least one byte
        let type = try HDF5Library.check(H5Tcopy(coach_H5T_C_S1()), "copy the string type")
        defer { H5Tclose(type) }
        try HDF5Library.check(status: H5Tset_size(type, bytes.count), "size the string attribute '\(name)'")
        try HDF5Library.check(status: H5Tset_strpad(type, H5T_STR_NULLPAD), "pad the string attribute '\(name)'")
        try HDF5Library.check(status: H5Tset_cset(type, H5T_CSET_UTF8), "mark '\(name)' as UTF-8")
        try write(bytes, named: name, type: type, memoryType: type, on: object)
    }

    /// Writes `value` as a 64-bit little-endian integer attribute.
    static func writeInteger(_ value: Int64, named name: String, on object: hid_t) throws {
        try write([value], named: name, type: coach_H5T_STD_I64LE(), memoryType: coach_H5T_NATIVE_INT64(),
                  on: object)
    }

    private static func write<Element>(_ values: [Element], named name: String, type: hid_t, memoryType: hid_t,
                                       on object: hid_t) throws {
        let space = try HDF5Library.check(H5Screate(H5S_SCALAR), "create a scalar dataspace")
        defer { H5Sclose(space) }
        let attribute = try HDF5Library.check(
            H5Acreate2(object, name, type, space, coach_H5P_DEFAULT(), coach_H5P_DEFAULT()),
            "create attribute '\(name)'")
        defer { H5Aclose(attribute) }
        let status = values.withUnsafeBytes { H5Awrite(attribute, memoryType, $0.baseAddress) }
        try HDF5Library.check(status: status, "write attribute '\(name)'")
    }

    /// Whether `object` has an attribute called `name`.
    static func exists(_ name: String, on object: hid_t) throws -> Bool {
        try HDF5Library.check(truth: H5Aexists(object, name), "look for attribute '\(name)'")
    }

    /// Reads a one-element string attribute (fixed-length or variable-length).
    ///
    /// Throws `HDF5AttributeProblem` when the attribute holds something else or is not UTF-8.
    static func readString(named name: String, on object: hid_t) throws -> String {
        let attribute = try HDF5Library.check(H5Aopen(object, name, coach_H5P_DEFAULT()), "open attribute '\(name)'")
        defer { H5Aclose(attribute) }
        let type = try HDF5Library.check(H5Aget_type(attribute), "read the type of attribute '\(name)'")
        defer { H5Tclose(type) }
        guard H5Tget_class(type) == H5T_STRING else {
            throw HDF5AttributeProblem(reason: "holds \(describe(typeClass: H5Tget_class(type))), expected a string")
        }
        try requireOneElement(attribute, name: name)
        let bytes: [UInt8]
        if try HDF5Library.check(truth: H5Tis_variable_str(type), "inspect attribute '\(name)'") {
            let memoryType = try HDF5Library.check(H5Tcopy(coach_H5T_C_S1()), "copy the string type")
            defer { H5Tclose(memoryType) }
            try HDF5Library.check(status: H5Tset_size(memoryType, coach_H5T_VARIABLE()), "size a string type")
            try HDF5Library.check(status: H5Tset_cset(memoryType, H5Tget_cset(type)), "match the character set")
            var pointer: UnsafeMutablePointer<CChar>? = nil
            try HDF5Library.check(status: H5Aread(attribute, memoryType, &pointer), "read attribute '\(name)'")
            defer { if let pointer { H5free_memory(pointer) } }
            guard let pointer else { return "" }
            bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
        } else {
            let size = H5Tget_size(type)
            guard size > 0 else { throw HDF5Library.failure("read the size of attribute '\(name)'") }
            var buffer = [UInt8](repeating: 0, count: size)
            let status = buffer.withUnsafeMutableBytes { H5Aread(attribute, type, $0.baseAddress) }
            try HDF5Library.check(status: status, "read attribute '\(name)'")
            bytes = Array(buffer.prefix { $0 != 0 })
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw HDF5AttributeProblem(reason: "is not valid UTF-8 text")
        }
        return string
    }

    /// Reads a one-element integer attribute (any integer width; HDF5 converts it).
    static func readInteger(named name: String, on object: hid_t) throws -> Int64 {
        let attribute = try HDF5Library.check(H5Aopen(object, name, coach_H5P_DEFAULT()), "open attribute '\(name)'")
        defer { H5Aclose(attribute) }
        let type = try HDF5Library.check(H5Aget_type(attribute), "read the type of attribute '\(name)'")
        defer { H5Tclose(type) }
        guard H5Tget_class(type) == H5T_INTEGER else {
            throw HDF5AttributeProblem(reason: "holds \(describe(typeClass: H5Tget_class(type))), expected an integer")
        }
        try requireOneElement(attribute, name: name)
        var value: Int64 = 0
        try HDF5Library.check(status: H5Aread(attribute, coach_H5T_NATIVE_INT64(), &value),
                              "read attribute '\(name)'")
        return value
    }

    private static func requireOneElement(_ attribute: hid_t, name: String) throws {
        let space = try HDF5Library.check(H5Aget_space(attribute), "read the shape of attribute '\(name)'")
        defer { H5Sclose(space) }
        let count = H5Sget_simple_extent_npoints(space)
        guard count == 1 else {
            throw HDF5AttributeProblem(reason: "holds \(count) values, expected exactly one")
        }
    }

    /// A human description of an HDF5 type class ("a string", "an integer", …).
    static func describe(typeClass: H5T_class_t) -> String {
        switch typeClass {
        case H5T_INTEGER: return "an integer"
        case H5T_FLOAT: return "a floating-point number"
        case H5T_STRING: return "a string"
        case H5T_COMPOUND: return "a compound value"
        case H5T_ARRAY: return "an array"
        case H5T_VLEN: return "a variable-length sequence"
        case H5T_ENUM: return "an enumeration"
        default: return "a value of HDF5 type class \(typeClass.rawValue)"
        }
    }
}
