import CoachData
import CoachTensor
import Foundation

/// The tensors of a PyTorch checkpoint in the LEGACY (non-zip) serialisation, read
/// without PyTorch.
///
/// The legacy layout is five pickles — magic number, protocol version, system info, the
/// state dict (tensors whose storages are persistent ids), the list of storage keys —
/// followed by each storage's raw little-endian elements, preceded by an 8-byte count.
/// Strided and offset views are copied out contiguously (row-major).
public struct TorchLegacyCheckpoint: Sendable {
    /// The element values of one tensor.
    public enum Values: Sendable, Equatable {
        /// From a FloatStorage.
        case float32([Float])
        /// From a LongStorage or IntStorage (e.g. `num_batches_tracked`).
        case integer([Int64])
        /// From a storage type Coach does not convert (half, double, bytes, …).
        case unsupported(storageType: String)
    }

    /// One named tensor of the state dict.
    public struct Entry: Sendable, Equatable {
        /// The state-dict key, e.g. `_blocks.3._bn1.running_var`.
        public var name: String
        /// The PyTorch storage type, e.g. `FloatStorage`.
        public var storageType: String
        /// The tensor's shape (`[]` for a scalar).
        public var shape: [Int]
        /// The elements, contiguous in row-major order.
        public var values: Values

        /// An entry (tests and other importers build checkpoints in memory).
        public init(name: String, storageType: String, shape: [Int], values: Values) {
            self.name = name
            self.storageType = storageType
            self.shape = shape
            self.values = values
        }

        /// The values as a `Tensor` when they are float32 (and as many as the shape needs).
        public var floatTensor: Tensor? {
            guard case .float32(let scalars) = values, scalars.count == TorchLegacyCheckpoint.elementCount(of: shape)
            else { return nil }
            return Tensor(shape: shape, scalars: scalars)
        }
    }

    /// The tensors in the state dict's order.
    public var entries: [Entry]

    /// A checkpoint holding `entries` (in state-dict order).
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// The entry called `name`, if any.
    public subscript(name: String) -> Entry? { entries.first { $0.name == name } }

    /// The number of elements of `shape`, or `nil` for a negative extent or an overflowing product.
    static func elementCount(of shape: [Int]) -> Int? {
        var count = 1
        for extent in shape {
            guard extent >= 0 else { return nil }
            let product = count.multipliedReportingOverflow(by: extent)
            guard !product.overflow else { return nil }
            count = product.partialValue
        }
        return count
    }

    /// PyTorch's magic number 0x1950a86a20f9469cfc6c, as the pickle's little-endian bytes.
    static let magicNumber: [UInt8] = [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]
    /// The only legacy protocol version PyTorch ever wrote.
    static let protocolVersion = 1001

    /// Bytes per element of the storage types the reader can skip or convert.
    static let elementSizes: [String: Int] = [
        "FloatStorage": 4, "DoubleStorage": 8, "HalfStorage": 2, "BFloat16Storage": 2,
        "LongStorage": 8, "IntStorage": 4, "ShortStorage": 2, "CharStorage": 1, "ByteStorage": 1,
        "BoolStorage": 1,
    ]

    /// Reads the checkpoint at `url`; throws `TorchCheckpointError`.
    public static func read(from url: URL) throws -> TorchLegacyCheckpoint {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw TorchCheckpointError.fileNotFound(path: url.path)
        }
        guard !isDirectory.boolValue else {
            throw TorchCheckpointError.unreadable(path: url.path, reason: "it is a folder, not a file")
        }
        if let problem = DataFiles.problem(with: url) {
            throw TorchCheckpointError.unreadable(path: url.path, reason: problem)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TorchCheckpointError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        return try TorchLegacyCheckpoint(bytes: [UInt8](data), path: url.path)
    }

    /// Parses checkpoint `bytes`; `path` names the file in errors.
    public init(bytes: [UInt8], path: String) throws {
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { throw TorchCheckpointError.zipFormat(path: path) }
        guard bytes.first == 0x80 else {
            throw TorchCheckpointError.notALegacyCheckpoint(
                path: path, reason: bytes.isEmpty ? "the file is empty" : "it does not start with a pickle")
        }
        var machine = PickleMachine(bytes: bytes, position: 0)
        func load() throws -> PickleValue {
            do {
                return try machine.load()
            } catch let problem as PickleProblem {
                throw TorchLegacyCheckpoint.error(for: problem, path: path)
            }
        }

        guard case .bigInt(let magic) = try load(), magic == TorchLegacyCheckpoint.magicNumber else {
            throw TorchCheckpointError.notALegacyCheckpoint(
                path: path, reason: "the first pickle is not PyTorch's magic number")
        }
        guard case .int(let version) = try load(), version == TorchLegacyCheckpoint.protocolVersion else {
            throw TorchCheckpointError.notALegacyCheckpoint(
                path: path, reason: "the protocol version is not \(TorchLegacyCheckpoint.protocolVersion)")
        }
        guard case .dict(let systemInfo) = try load() else {
            throw TorchCheckpointError.malformed(path: path, offset: nil, reason: "the system-info pickle is not a dict")
        }
        for (key, value) in systemInfo.entries {
            if case .string("little_endian") = key, case .bool(false) = value {
                throw TorchCheckpointError.unsupportedContent(path: path, reason: "big-endian storages")
            }
        }
        let stateDictOffset = machine.position
        let tensors = try TorchLegacyCheckpoint.namedTensors(try load(), path: path, offset: stateDictOffset)
        let keysOffset = machine.position
        guard case .list(let keyList) = try load() else {
            throw TorchCheckpointError.malformed(path: path, offset: keysOffset, reason: "the storage-key pickle is not a list")
        }
        var storageKeys: [String] = []
        for item in keyList.items {
            guard case .string(let key) = item else {
                throw TorchCheckpointError.malformed(path: path, offset: keysOffset, reason: "a storage key is \(item.kind)")
            }
            storageKeys.append(key)
        }
        let storages = try TorchLegacyCheckpoint.readStorages(
            bytes, from: machine.position, keys: storageKeys, tensors: tensors.map(\.1), path: path)
        entries = try tensors.map { name, tensor in
            try TorchLegacyCheckpoint.materialise(name: name, tensor, storage: storages[tensor.storage.key]!, path: path)
        }
    }

    /// The state dict as (name, tensor) pairs, in order.
    private static func namedTensors(_ value: PickleValue, path: String, offset: Int) throws -> [(String, PickleTensor)] {
        guard case .dict(let dictionary) = value else {
            throw TorchCheckpointError.unsupportedContent(
                path: path, reason: "\(value.kind) at the top level instead of a state dict of tensors")
        }
        var result: [(String, PickleTensor)] = []
        var problems: [String] = []
        for (key, item) in dictionary.entries {
            guard case .string(let name) = key else {
                problems.append("a key that is \(key.kind)")
                continue
            }
            guard case .tensor(let tensor) = item else {
                problems.append("'\(name)' holds \(item.kind)")
                continue
            }
            result.append((name, tensor))
        }
        guard problems.isEmpty else {
            throw TorchCheckpointError.unsupportedContent(
                path: path, reason: "a top-level dict that is not a plain state dict (" + problems.joined(separator: "; ") + ")")
        }
        return result
    }

    /// Reads each storage's count and raw bytes, in the order of the key list.
    private static func readStorages(_ bytes: [UInt8], from start: Int, keys: [String], tensors: [PickleTensor],
                                     path: String) throws -> [String: (type: String, raw: ArraySlice<UInt8>)] {
        var declared: [String: PickleStorage] = [:]
        for tensor in tensors { declared[tensor.storage.key] = tensor.storage }
        var storages: [String: (type: String, raw: ArraySlice<UInt8>)] = [:]
        var position = start
        for key in keys {
            guard let storage = declared[key] else {
                throw TorchCheckpointError.malformed(path: path, offset: position,
                                                     reason: "storage '\(key)' is listed but no tensor uses it")
            }
            guard let elementSize = elementSizes[storage.typeName] else {
                throw TorchCheckpointError.unsupportedContent(path: path, reason: "storage type torch.\(storage.typeName)")
            }
            guard bytes.count - position >= 8 else {
                throw TorchCheckpointError.truncated(path: path, offset: bytes.count, what: "the size of storage '\(key)'")
            }
            let count = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[position + $1]) << (8 * UInt64($1)) }
            position += 8
            guard count == UInt64(storage.elementCount) else {
                throw TorchCheckpointError.malformed(
                    path: path, offset: position - 8,
                    reason: "storage '\(key)' declares \(storage.elementCount) elements but the data holds \(count)")
            }
            let length = storage.elementCount * elementSize
            guard bytes.count - position >= length else {
                throw TorchCheckpointError.truncated(
                    path: path, offset: bytes.count,
                    what: "the \(length) bytes of storage '\(key)' (starting at byte \(position))")
            }
            storages[key] = (storage.typeName, bytes[position..<position + length])
            position += length
        }
        for key in declared.keys where storages[key] == nil {
            throw TorchCheckpointError.malformed(path: path, offset: nil,
                                                 reason: "storage '\(key)' is used by a tensor but has no data")
        }
        guard position == bytes.count else {
            throw TorchCheckpointError.malformed(
                path: path, offset: position,
                reason: "\(bytes.count - position) unexpected bytes after the last storage")
        }
        return storages
    }

    /// Copies a (possibly strided, offset) view out of its storage, row-major.
    private static func materialise(name: String, _ tensor: PickleTensor,
                                    storage: (type: String, raw: ArraySlice<UInt8>), path: String) throws -> Entry {
        let shape = tensor.shape, strides = tensor.strides
        let elementSize = elementSizes[storage.type]!
        let available = storage.raw.count / elementSize
        guard shape.allSatisfy({ $0 >= 0 }), strides.allSatisfy({ $0 >= 0 }), tensor.offset >= 0 else {
            throw TorchCheckpointError.malformed(path: path, offset: nil,
                                                 reason: "tensor '\(name)' has a negative size, stride or offset")
        }
        // Checked arithmetic: a damaged file must not overflow or allocate without bound.
        var count = 1, last = tensor.offset, overflow = false
        for (extent, stride) in zip(shape, strides) {
            let product = count.multipliedReportingOverflow(by: extent)
            let reach = max(extent - 1, 0).multipliedReportingOverflow(by: stride)
            let sum = last.addingReportingOverflow(reach.partialValue)
            overflow = overflow || product.overflow || reach.overflow || sum.overflow
            count = product.partialValue
            last = sum.partialValue
        }
        if count > 0 {
            guard !overflow, last < available, count <= available else {
                throw TorchCheckpointError.malformed(
                    path: path, offset: nil,
                    reason: "tensor '\(name)' (shape \(shape), strides \(strides), offset \(tensor.offset)) "
                        + "does not fit its \(available)-element storage")
            }
        }
        // Flat storage indices of the view's elements in row-major order.
        var indices = [Int](repeating: tensor.offset, count: count)
        var blockSize = count
        for (extent, stride) in zip(shape, strides) where extent > 0 {
            blockSize /= extent
            for position in 0..<count { indices[position] += (position / blockSize) % extent * stride }
        }
        let values: Values
        switch storage.type {
        case "FloatStorage":
            values = .float32(indices.map { Float(bitPattern: littleEndian32(storage.raw, at: $0)) })
        case "LongStorage":
            values = .integer(indices.map { Int64(bitPattern: littleEndian64(storage.raw, at: $0)) })
        case "IntStorage":
            values = .integer(indices.map { Int64(Int32(bitPattern: littleEndian32(storage.raw, at: $0))) })
        default:
            values = .unsupported(storageType: storage.type)
        }
        return Entry(name: name, storageType: storage.type, shape: shape, values: values)
    }

    private static func littleEndian32(_ raw: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        let base = raw.startIndex + index * 4
        return UInt32(raw[base]) | UInt32(raw[base + 1]) << 8 | UInt32(raw[base + 2]) << 16 | UInt32(raw[base + 3]) << 24
    }

    private static func littleEndian64(_ raw: ArraySlice<UInt8>, at index: Int) -> UInt64 {
        let base = raw.startIndex + index * 8
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(raw[base + $1]) << (8 * UInt64($1)) }
    }

    private static func error(for problem: PickleProblem, path: String) -> TorchCheckpointError {
        switch problem {
        case .truncated(let offset, let what): return .truncated(path: path, offset: offset, what: what)
        case .unsupportedOpcode(let offset, let opcode): return .unsupportedOpcode(path: path, offset: offset, opcode: opcode)
        case .malformed(let offset, let reason): return .malformed(path: path, offset: offset, reason: reason)
        case .unsupported(_, let reason): return .unsupportedContent(path: path, reason: reason)
        }
    }
}
