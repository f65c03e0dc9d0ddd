import CHDF5
import CoachTensor
import Foundation

/// A dataset in the weights group that is not a float32 tensor Coach can load.
///
/// Internal: the reader turns it into `ModelFileError.invalidTensor` naming the file.
struct HDF5DatasetProblem: Error {
    /// The dataset's name inside the weights group.
    var name: String
    /// Why it is unusable.
    var reason: String
}

/// Reading and writing the float32 datasets of a model file's weights group.
///
/// Call these only inside `HDF5Library.withLock`.
enum HDF5Datasets {
    /// Writes `tensor` as a contiguous little-endian float32 dataset of the same shape.
    ///
    /// A rank-0 tensor becomes a scalar dataset. `creationProperties` is the dataset
    /// creation property list (with time tracking off, for determinism).
    static func write(_ tensor: Tensor, named name: String, in group: hid_t, creationProperties: hid_t) throws {
        let space: hid_t
        if tensor.shape.isEmpty {
            space = try HDF5Library.check(H5Screate(H5S_SCALAR), "create a scalar dataspace for '\(name)'")
        } else {
            let dimensions = tensor.shape.map { hsize_t($0) }
            space = try HDF5Library.check(H5Screate_simple(Int32(dimensions.count), dimensions, nil),
                                          "create a dataspace of shape \(tensor.shape) for '\(name)'")
        }
        defer { H5Sclose(space) }
        let dataset = try HDF5Library.check(
            H5Dcreate2(group, name, coach_H5T_IEEE_F32LE(), space, coach_H5P_DEFAULT(), creationProperties,
                       coach_H5P_DEFAULT()),
            "create dataset '\(name)'")
        defer { H5Dclose(dataset) }
        guard tensor.count > 0 else { return }
        let status = tensor.withUnsafeBufferPointer {
            H5Dwrite(dataset, coach_H5T_NATIVE_FLOAT(), coach_H5S_ALL(), coach_H5S_ALL(), coach_H5P_DEFAULT(),
                     $0.baseAddress)
        }
        try HDF5Library.check(status: status, "write dataset '\(name)'")
    }

    /// The names of the links in `group`, in HDF5's name order.
    static func memberNames(of group: hid_t, groupName: String) throws -> [String] {
        var info = H5G_info_t()
        try HDF5Library.check(status: H5Gget_info(group, &info), "list group '\(groupName)'")
        var names: [String] = []
        names.reserveCapacity(Int(info.nlinks))
        for index in 0..<info.nlinks {
            let length = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, index, nil, 0,
                                            coach_H5P_DEFAULT())
            guard length >= 0 else { throw HDF5Library.failure("read member \(index) of group '\(groupName)'") }
            var buffer = [CChar](repeating: 0, count: length + 1)
            let written = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, index, &buffer,
                                             buffer.count, coach_H5P_DEFAULT())
            guard written >= 0 else { throw HDF5Library.failure("read member \(index) of group '\(groupName)'") }
            names.append(String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return names
    }

    /// The shape of dataset `name` after checking that it is a float32 dataset.
    static func shape(of name: String, in group: hid_t) throws -> [Int] {
        try withFloatDataset(name, in: group) { _, shape in shape }
    }

    /// Reads dataset `name` as a tensor of its own shape.
    static func read(_ name: String, in group: hid_t) throws -> Tensor {
        try withFloatDataset(name, in: group) { dataset, shape in
            let count = Tensor.count(of: shape)
            guard count > 0 else { return Tensor(shape: shape, scalars: []) }
            var status: herr_t = 0
            let tensor = Tensor(shape: shape) { buffer in
                status = H5Dread(dataset, coach_H5T_NATIVE_FLOAT(), coach_H5S_ALL(), coach_H5S_ALL(),
                                 coach_H5P_DEFAULT(), buffer.baseAddress)
                if status < 0 { buffer.initialize(repeating: 0) }
            }
            try HDF5Library.check(status: status, "read dataset '\(name)'")
            return tensor
        }
    }

    /// Opens `name`, checks it is a float32 dataset with a simple or scalar shape, and
    /// passes its id and shape to `body`.
    private static func withFloatDataset<R>(_ name: String, in group: hid_t,
                                            _ body: (hid_t, [Int]) throws -> R) throws -> R {
        let object = try HDF5Library.check(H5Oopen(group, name, coach_H5P_DEFAULT()), "open '\(name)'")
        defer { H5Oclose(object) }
        guard H5Iget_type(object) == H5I_DATASET else {
            throw HDF5DatasetProblem(name: name, reason: "is a group or named type, not a dataset")
        }
        let type = try HDF5Library.check(H5Dget_type(object), "read the type of '\(name)'")
        defer { H5Tclose(type) }
        let typeClass = H5Tget_class(type)
        guard typeClass == H5T_FLOAT, H5Tget_size(type) == 4 else {
            let what = typeClass == H5T_FLOAT
                ? "\(H5Tget_size(type) * 8)-bit floats"
                : HDF5Attributes.describe(typeClass: typeClass)
            throw HDF5DatasetProblem(name: name, reason: "holds \(what), expected 32-bit floats")
        }
        let space = try HDF5Library.check(H5Dget_space(object), "read the shape of '\(name)'")
        defer { H5Sclose(space) }
        let shape: [Int]
        switch H5Sget_simple_extent_type(space) {
        case H5S_SCALAR:
            shape = []
        case H5S_SIMPLE:
            let rank = H5Sget_simple_extent_ndims(space)
            guard rank >= 0 else { throw HDF5Library.failure("read the rank of '\(name)'") }
            var dimensions = [hsize_t](repeating: 0, count: Int(rank))
            guard H5Sget_simple_extent_dims(space, &dimensions, nil) >= 0 else {
                throw HDF5Library.failure("read the shape of '\(name)'")
            }
            guard dimensions.allSatisfy({ $0 <= hsize_t(Int32.max) }) else {
                throw HDF5DatasetProblem(name: name, reason: "has an implausible shape \(dimensions)")
            }
            shape = dimensions.map { Int($0) }
        default:
            throw HDF5DatasetProblem(name: name, reason: "has an empty (null) dataspace, expected a shape")
        }
        // A damaged header could claim any shape: insist that it matches the bytes stored,
        // before anything is allocated for it.
        var count = 1
        for extent in shape {
            let product = count.multipliedReportingOverflow(by: extent)
            guard !product.overflow else {
                throw HDF5DatasetProblem(name: name, reason: "has an implausible shape \(shape)")
            }
            count = product.partialValue
        }
        let stored = H5Dget_storage_size(object)
        guard count == 0 || hsize_t(count) * 4 == stored else {
            throw HDF5DatasetProblem(name: name, reason: "has shape \(shape) but stores \(stored) bytes, "
                                         + "not the \(count * 4) that shape needs")
        }
        return try body(object, shape)
    }
}
