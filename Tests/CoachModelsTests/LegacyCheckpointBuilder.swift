import Foundation

/// Writes PyTorch legacy (non-zip) checkpoints byte by byte, the way
/// `torch.save(state_dict, f, _use_new_zipfile_serialization=False)` lays them out:
/// five protocol-2 pickles (magic number, protocol version, system info, the state dict
/// with storages as persistent ids, the storage keys), then each storage's 8-byte element
/// count and raw little-endian elements.
struct LegacyCheckpointBuilder {
    struct Storage {
        var key: String
        var type: String
        var raw: [UInt8]
        var count: Int
    }

    struct TensorView {
        var name: String
        var storageKey: String
        var offset: Int
        var shape: [Int]
        var strides: [Int]
    }

    var storages: [Storage] = []
    var tensors: [TensorView] = []
    /// Bytes spliced into the state-dict pickle right after its PROTO opcode.
    var injectedOpcodes: [UInt8] = []
    /// The magic number pickle's payload (little-endian LONG1 bytes).
    var magic: [UInt8] = [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]
    /// Extra bytes after the last storage.
    var trailing: [UInt8] = []
    /// Overrides the element count written before a storage's data (by key).
    var writtenCounts: [String: Int] = [:]

    mutating func addFloatStorage(_ key: String, _ values: [Float]) {
        storages.append(Storage(key: key, type: "FloatStorage",
                                raw: values.flatMap { littleEndian(UInt64($0.bitPattern), bytes: 4) }, count: values.count))
    }

    mutating func addLongStorage(_ key: String, _ values: [Int64]) {
        storages.append(Storage(key: key, type: "LongStorage",
                                raw: values.flatMap { littleEndian(UInt64(bitPattern: $0), bytes: 8) }, count: values.count))
    }

    mutating func addIntStorage(_ key: String, _ values: [Int32]) {
        storages.append(Storage(key: key, type: "IntStorage",
                                raw: values.flatMap { littleEndian(UInt64(UInt32(bitPattern: $0)), bytes: 4) },
                                count: values.count))
    }

    mutating func addTensor(_ name: String, storage: String, offset: Int = 0, shape: [Int], strides: [Int]? = nil) {
        tensors.append(TensorView(name: name, storageKey: storage, offset: offset, shape: shape,
                                  strides: strides ?? LegacyCheckpointBuilder.contiguousStrides(shape)))
    }

    static func contiguousStrides(_ shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        var running = 1
        for axis in stride(from: shape.count - 1, through: 0, by: -1) {
            strides[axis] = running
            running *= shape[axis]
        }
        return strides
    }

    /// The whole file.
    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        // 1. magic number: PROTO 2, LONG1, STOP
        out += [0x80, 0x02, 0x8A, UInt8(magic.count)] + magic + [0x2E]
        // 2. protocol version 1001: BININT2
        out += [0x80, 0x02, 0x4D] + littleEndian(1001, bytes: 2) + [0x2E]
        // 3. system info
        var info = Pickle()
        info.op(0x7D); info.put()
        info.op(0x28)
        info.unicode("protocol_version"); info.int(1001)
        info.unicode("little_endian"); info.op(0x88)
        info.unicode("type_sizes"); info.op(0x7D); info.put(); info.op(0x28)
        info.unicode("short"); info.int(2); info.unicode("int"); info.int(4); info.unicode("long"); info.int(4)
        info.op(0x75)
        info.op(0x75)
        out += info.finish()
        // 4. the state dict
        var state = Pickle()
        state.bytes += injectedOpcodes
        state.global("collections", "OrderedDict"); let orderedDict = state.put()
        state.op(0x29); state.op(0x52); state.put()  // OrderedDict()
        state.op(0x28)
        var rebuild: Int?
        var storageTypes: [String: Int] = [:]
        for tensor in tensors {
            let storage = storages.first { $0.key == tensor.storageKey }!
            state.unicode(tensor.name); state.put()
            if let memo = rebuild { state.get(memo) } else {
                state.global("torch._utils", "_rebuild_tensor_v2"); rebuild = state.put()
            }
            state.op(0x28)
            state.op(0x28)  // persistent id tuple
            state.unicode("storage")
            if let memo = storageTypes[storage.type] { state.get(memo) } else {
                state.global("torch", storage.type); storageTypes[storage.type] = state.put()
            }
            state.unicode(storage.key); state.unicode("cpu"); state.int(storage.count); state.op(0x4E)
            state.op(0x74); state.put()
            state.op(0x51)  // BINPERSID
            state.int(tensor.offset)
            state.tuple(tensor.shape); state.put()
            state.tuple(tensor.strides); state.put()
            state.op(0x89)  // requires_grad False
            state.get(orderedDict); state.op(0x29); state.op(0x52); state.put()  // backward hooks
            state.op(0x74); state.put()
            state.op(0x52); state.put()
        }
        state.op(0x75)  // SETITEMS
        // BUILD with {'_metadata': OrderedDict([('', {'version': 1})])}, as torch's state dicts carry.
        state.op(0x7D); state.put()
        state.unicode("_metadata"); state.put()
        state.get(orderedDict); state.op(0x29); state.op(0x52); state.put()
        state.op(0x28); state.unicode(""); state.op(0x7D); state.unicode("version"); state.int(1); state.op(0x73); state.op(0x75)
        state.op(0x73)
        state.op(0x62)  // BUILD
        out += state.finish()
        // 5. storage keys
        var keys = Pickle()
        keys.op(0x5D); keys.put(); keys.op(0x28)
        for storage in storages { keys.unicode(storage.key); keys.put() }
        keys.op(0x65)
        out += keys.finish()
        // 6. storage data
        for storage in storages {
            out += littleEndian(UInt64(writtenCounts[storage.key] ?? storage.count), bytes: 8)
            out += storage.raw
        }
        return out + trailing
    }

    /// A protocol-2 pickle under construction.
    struct Pickle {
        var bytes: [UInt8] = []
        private var memoCount = 0

        mutating func op(_ opcode: UInt8) { bytes.append(opcode) }

        @discardableResult
        mutating func put() -> Int {
            if memoCount < 256 { bytes += [0x71, UInt8(memoCount)] } else { bytes += [0x72] + littleEndian(UInt64(memoCount), bytes: 4) }
            memoCount += 1
            return memoCount - 1
        }

        mutating func get(_ index: Int) {
            if index < 256 { bytes += [0x68, UInt8(index)] } else { bytes += [0x6A] + littleEndian(UInt64(index), bytes: 4) }
        }

        mutating func unicode(_ text: String) {
            let utf8 = Array(text.utf8)
            bytes += [0x58] + littleEndian(UInt64(utf8.count), bytes: 4) + utf8
        }

        mutating func global(_ module: String, _ name: String) {
            bytes += [0x63] + Array("\(module)\n\(name)\n".utf8)
        }

        mutating func int(_ value: Int) {
            switch value {
            case 0..<256: bytes += [0x4B, UInt8(value)]
            case 256..<65_536: bytes += [0x4D] + littleEndian(UInt64(value), bytes: 2)
            default: bytes += [0x4A] + littleEndian(UInt64(UInt32(truncatingIfNeeded: value)), bytes: 4)
            }
        }

        /// Python's choice: EMPTY_TUPLE, TUPLE1–3, or MARK … TUPLE.
        mutating func tuple(_ values: [Int]) {
            switch values.count {
            case 0: op(0x29)
            case 1...3: values.forEach { int($0) }; op(0x84 + UInt8(values.count))
            default: op(0x28); values.forEach { int($0) }; op(0x74)
            }
        }

        func finish() -> [UInt8] { [0x80, 0x02] + bytes + [0x2E] }
    }
}

func littleEndian(_ value: UInt64, bytes count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}
