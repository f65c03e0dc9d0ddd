import CHDF5
import Foundation
import TestSupport
import XCTest

/// Builds small HDF5 files directly with libhdf5, to give the model-file reader files
/// that Coach itself would never write (foreign, newer, malformed).
final class HDF5Fixture {
    private let file: hid_t

    /// Creates (truncating) an HDF5 file at `url`.
    init(_ url: URL) throws {
        H5open()
        coach_H5_silence_errors()
        file = H5Fcreate(url.path, coach_H5F_ACC_TRUNC(), coach_H5P_DEFAULT(), coach_H5P_DEFAULT())
        guard file >= 0 else { throw skipTest("cannot create HDF5 fixture \(url.path)") }
    }

    /// Adds a fixed-length string attribute to the root group.
    func stringAttribute(_ name: String, _ value: String) {
        let bytes = Array(value.utf8) + [0]
        let type = H5Tcopy(coach_H5T_C_S1())
        H5Tset_size(type, bytes.count)
        let space = H5Screate(H5S_SCALAR)
        let attribute = H5Acreate2(file, name, type, space, coach_H5P_DEFAULT(), coach_H5P_DEFAULT())
        bytes.withUnsafeBytes { _ = H5Awrite(attribute, type, $0.baseAddress) }
        H5Aclose(attribute); H5Sclose(space); H5Tclose(type)
    }

    /// Adds a variable-length UTF-8 string attribute to the root group (h5py's default for str).
    func variableLengthStringAttribute(_ name: String, _ value: String) {
        let type = H5Tcopy(coach_H5T_C_S1())
        H5Tset_size(type, coach_H5T_VARIABLE())
        H5Tset_cset(type, H5T_CSET_UTF8)
        let space = H5Screate(H5S_SCALAR)
        let attribute = H5Acreate2(file, name, type, space, coach_H5P_DEFAULT(), coach_H5P_DEFAULT())
        value.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            _ = H5Awrite(attribute, type, &p)
        }
        H5Aclose(attribute); H5Sclose(space); H5Tclose(type)
    }

    /// Adds a 64-bit integer attribute to the root group.
    func integerAttribute(_ name: String, _ value: Int64) {
        var value = value
        let space = H5Screate(H5S_SCALAR)
        let attribute = H5Acreate2(file, name, coach_H5T_STD_I64LE(), space, coach_H5P_DEFAULT(), coach_H5P_DEFAULT())
        H5Awrite(attribute, coach_H5T_NATIVE_INT64(), &value)
        H5Aclose(attribute); H5Sclose(space)
    }

    /// Adds a float attribute to the root group.
    func floatAttribute(_ name: String, _ value: Float) {
        var value = value
        let space = H5Screate(H5S_SCALAR)
        let attribute = H5Acreate2(file, name, coach_H5T_IEEE_F32LE(), space, coach_H5P_DEFAULT(), coach_H5P_DEFAULT())
        H5Awrite(attribute, coach_H5T_NATIVE_FLOAT(), &value)
        H5Aclose(attribute); H5Sclose(space)
    }

    /// Creates group `name` (e.g. "weights" or "weights/sub").
    func group(_ name: String) {
        let group = H5Gcreate2(file, name, coach_H5P_DEFAULT(), coach_H5P_DEFAULT(), coach_H5P_DEFAULT())
        H5Gclose(group)
    }

    /// Creates a float32 dataset.
    func floatDataset(_ name: String, shape: [Int], values: [Float]) {
        dataset(name, shape: shape, fileType: coach_H5T_IEEE_F32LE(), memoryType: coach_H5T_NATIVE_FLOAT(), values: values)
    }

    /// Creates a 64-bit integer dataset.
    func integerDataset(_ name: String, shape: [Int], values: [Int64]) {
        dataset(name, shape: shape, fileType: coach_H5T_STD_I64LE(), memoryType: coach_H5T_NATIVE_INT64(), values: values)
    }

    /// Creates a float64 dataset.
    func doubleDataset(_ name: String, shape: [Int], values: [Double]) {
        dataset(name, shape: shape, fileType: H5T_IEEE_F64LE_g, memoryType: H5T_NATIVE_DOUBLE_g, values: values)
    }

    private func dataset<T>(_ name: String, shape: [Int], fileType: hid_t, memoryType: hid_t, values: [T]) {
        let dimensions = shape.map { hsize_t($0) }
        let space = H5Screate_simple(Int32(dimensions.count), dimensions, nil)
        let dataset = H5Dcreate2(file, name, fileType, space, coach_H5P_DEFAULT(), coach_H5P_DEFAULT(), coach_H5P_DEFAULT())
        values.withUnsafeBytes { _ = H5Dwrite(dataset, memoryType, coach_H5S_ALL(), coach_H5S_ALL(), coach_H5P_DEFAULT(), $0.baseAddress) }
        H5Dclose(dataset); H5Sclose(space)
    }

    /// Closes the file.
    func close() { H5Fclose(file) }
}
