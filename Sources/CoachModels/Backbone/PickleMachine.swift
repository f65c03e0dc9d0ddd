import Foundation

/// A value on the pickle machine's stack, limited to what PyTorch's legacy checkpoints use.
indirect enum PickleValue {
    case none
    case bool(Bool)
    case int(Int)
    /// An integer too wide for `Int`: little-endian two's-complement bytes.
    case bigInt([UInt8])
    case float(Double)
    case string(String)
    /// A tuple and how deeply containers nest inside it (itself included).
    case tuple([PickleValue], nesting: Int)
    case list(PickleList)
    case dict(PickleDictionary)
    /// A `module.name` reference from GLOBAL / STACK_GLOBAL.
    case global(module: String, name: String)
    /// A storage named by a persistent id.
    case storage(PickleStorage)
    /// A tensor rebuilt by `torch._utils._rebuild_tensor(_v2)`.
    case tensor(PickleTensor)

    /// A short description for error messages ("a string", "a tuple of 3", …).
    var kind: String {
        switch self {
        case .none: return "None"
        case .bool: return "a Boolean"
        case .int, .bigInt: return "an integer"
        case .float: return "a float"
        case .string: return "a string"
        case .tuple(let items, _): return "a tuple of \(items.count)"
        case .list: return "a list"
        case .dict: return "a dict"
        case .global(let module, let name): return "\(module).\(name)"
        case .storage: return "a storage"
        case .tensor: return "a tensor"
        }
    }
}

extension PickleValue {
    /// The deepest nesting of containers a checkpoint may have. PyTorch's have a handful of
    /// levels; a hostile pickle can nest millions (TUPLE1 after TUPLE1), and releasing such a
    /// value would recurse once per level and overflow the stack.
    static let maximumNesting = 100

    /// Containers nested in this value, itself included (0 for a scalar, 1 for a flat list).
    var nesting: Int {
        switch self {
        case .tuple(_, let nesting): return nesting
        case .list(let list): return list.nesting
        case .dict(let dictionary): return dictionary.nesting
        default: return 0
        }
    }

    /// A tuple of `items`, or an error when it would nest too deeply.
    static func tuple(_ items: [PickleValue], offset: Int) throws -> PickleValue {
        .tuple(items, nesting: try PickleContainer.adopt(items, into: 1, contained: false, offset: offset))
    }
}

/// What lists and dicts share: how deeply they nest, and whether they already sit inside
/// another container (then they may only gain scalars, so no chain of containers can grow
/// beneath a container whose nesting was already counted).
class PickleContainer {
    var nesting = 1
    var contained = false

    /// Counts `children` into a container of nesting `current`, marks the child containers as
    /// contained, and returns the new nesting.
    static func adopt(_ children: [PickleValue], into current: Int, contained: Bool, offset: Int) throws -> Int {
        var nesting = current
        for child in children {
            let depth = child.nesting
            if depth > 0 && contained {
                throw PickleProblem.malformed(offset: offset, reason: "a container gains a container after being nested itself")
            }
            nesting = max(nesting, depth + 1)
            switch child {
            case .list(let list): list.contained = true
            case .dict(let dictionary): dictionary.contained = true
            default: break
            }
        }
        guard nesting <= PickleValue.maximumNesting else {
            throw PickleProblem.malformed(offset: offset, reason: "containers nested more than \(PickleValue.maximumNesting) levels deep")
        }
        return nesting
    }

    /// Counts `children` into this container.
    func adopt(_ children: [PickleValue], offset: Int) throws {
        nesting = try PickleContainer.adopt(children, into: nesting, contained: contained, offset: offset)
    }
}

/// A mutable Python list (shared through the memo, so a reference type).
final class PickleList: PickleContainer {
    var items: [PickleValue] = []
}

/// A mutable Python dict keeping insertion order (OrderedDict and dict alike).
final class PickleDictionary: PickleContainer {
    var entries: [(key: PickleValue, value: PickleValue)] = []
}

/// A storage from a persistent id `('storage', torch.<Type>Storage, key, location, size, view)`.
struct PickleStorage {
    var typeName: String
    var key: String
    var elementCount: Int
}

/// A tensor view: storage, element offset, shape and strides (in elements).
struct PickleTensor {
    var storage: PickleStorage
    var offset: Int
    var shape: [Int]
    var strides: [Int]
}

/// Why the pickle machine stopped; the checkpoint reader adds the file name.
enum PickleProblem: Error {
    /// The bytes ran out while `what` needed `needed` more bytes at `offset`.
    case truncated(offset: Int, what: String)
    /// An opcode this reader does not implement.
    case unsupportedOpcode(offset: Int, opcode: UInt8)
    /// The pickle is inconsistent (stack underflow, bad memo reference, wrong argument types).
    case malformed(offset: Int, reason: String)
    /// A construct Coach deliberately does not support (other callables, storage views).
    case unsupported(offset: Int, reason: String)
}

/// An unpickler for exactly the opcodes of PyTorch's legacy (non-zip) serialisation
/// (pickle protocol 2, plus the few protocol-4 opcodes a newer Python may emit).
///
/// It never executes anything: GLOBAL only names things, and REDUCE accepts exactly
/// `collections.OrderedDict()` and `torch._utils._rebuild_tensor(_v2)(…)`.
struct PickleMachine {
    private let bytes: [UInt8]
    /// The read position; after `load()` it is just past the STOP opcode.
    private(set) var position: Int

    /// A machine reading `bytes` from `position`.
    init(bytes: [UInt8], position: Int) {
        self.bytes = bytes
        self.position = position
    }

    /// Reads one pickle (up to and including STOP) and returns its value.
    mutating func load() throws -> PickleValue {
        var stack: [PickleValue] = []
        var marks: [Int] = []
        var memo: [Int: PickleValue] = [:]

        func pop(_ offset: Int) throws -> PickleValue {
            guard let value = stack.popLast() else {
                throw PickleProblem.malformed(offset: offset, reason: "stack underflow")
            }
            return value
        }
        func popToMark(_ offset: Int) throws -> [PickleValue] {
            guard let mark = marks.popLast(), mark <= stack.count else {
                throw PickleProblem.malformed(offset: offset, reason: "no MARK on the stack")
            }
            let items = Array(stack[mark...])
            stack.removeSubrange(mark...)
            return items
        }
        func top(_ offset: Int) throws -> PickleValue {
            guard let value = stack.last else { throw PickleProblem.malformed(offset: offset, reason: "stack underflow") }
            return value
        }

        while true {
            let offset = position
            let opcode = try readByte("an opcode")
            switch opcode {
            case 0x80:  // PROTO
                let version = try readByte("the protocol version")
                guard version <= 5 else {
                    throw PickleProblem.unsupported(offset: offset, reason: "pickle protocol \(version)")
                }
            case 0x95:  // FRAME (protocol 4): a length hint only
                try skip(8, "a frame length")
            case 0x2E:  // STOP
                return try pop(offset)
            case 0x63:  // GLOBAL
                let module = try readLine("a module name")
                let name = try readLine("a global name")
                stack.append(.global(module: module, name: name))
            case 0x93:  // STACK_GLOBAL
                guard case .string(let name) = try pop(offset), case .string(let module) = try pop(offset) else {
                    throw PickleProblem.malformed(offset: offset, reason: "STACK_GLOBAL needs two strings")
                }
                stack.append(.global(module: module, name: name))
            case 0x71:  // BINPUT
                memo[Int(try readByte("a memo index"))] = try top(offset)
            case 0x72:  // LONG_BINPUT
                memo[Int(try readUInt32("a memo index"))] = try top(offset)
            case 0x94:  // MEMOIZE
                memo[memo.count] = try top(offset)
            case 0x68, 0x6A:  // BINGET, LONG_BINGET
                let index = opcode == 0x68 ? Int(try readByte("a memo index")) : Int(try readUInt32("a memo index"))
                guard let value = memo[index] else {
                    throw PickleProblem.malformed(offset: offset, reason: "memo entry \(index) was never stored")
                }
                stack.append(value)
            case 0x28:  // MARK
                marks.append(stack.count)
            case 0x74:  // TUPLE
                stack.append(try .tuple(try popToMark(offset), offset: offset))
            case 0x29:  // EMPTY_TUPLE
                stack.append(.tuple([], nesting: 1))
            case 0x85, 0x86, 0x87:  // TUPLE1, TUPLE2, TUPLE3
                let count = Int(opcode - 0x84)
                guard stack.count >= count else { throw PickleProblem.malformed(offset: offset, reason: "stack underflow") }
                let items = Array(stack.suffix(count))
                stack.removeLast(count)
                stack.append(try .tuple(items, offset: offset))
            case 0x7D:  // EMPTY_DICT
                stack.append(.dict(PickleDictionary()))
            case 0x73:  // SETITEM
                let value = try pop(offset), key = try pop(offset)
                guard case .dict(let dictionary) = try top(offset) else {
                    throw PickleProblem.malformed(offset: offset, reason: "SETITEM on \(try top(offset).kind)")
                }
                try dictionary.adopt([key, value], offset: offset)
                dictionary.entries.append((key, value))
            case 0x75:  // SETITEMS
                let items = try popToMark(offset)
                guard items.count % 2 == 0, case .dict(let dictionary) = try top(offset) else {
                    throw PickleProblem.malformed(offset: offset, reason: "SETITEMS needs a dict and key/value pairs")
                }
                try dictionary.adopt(items, offset: offset)
                for index in stride(from: 0, to: items.count, by: 2) {
                    dictionary.entries.append((items[index], items[index + 1]))
                }
            case 0x5D:  // EMPTY_LIST
                stack.append(.list(PickleList()))
            case 0x61:  // APPEND
                let value = try pop(offset)
                guard case .list(let list) = try top(offset) else {
                    throw PickleProblem.malformed(offset: offset, reason: "APPEND on \(try top(offset).kind)")
                }
                try list.adopt([value], offset: offset)
                list.items.append(value)
            case 0x65:  // APPENDS
                let items = try popToMark(offset)
                guard case .list(let list) = try top(offset) else {
                    throw PickleProblem.malformed(offset: offset, reason: "APPENDS on \(try top(offset).kind)")
                }
                try list.adopt(items, offset: offset)
                list.items.append(contentsOf: items)
            case 0x4A:  // BININT
                stack.append(.int(Int(Int32(bitPattern: try readUInt32("a 4-byte integer")))))
            case 0x4B:  // BININT1
                stack.append(.int(Int(try readByte("a 1-byte integer"))))
            case 0x4D:  // BININT2
                let low = Int(try readByte("a 2-byte integer")), high = Int(try readByte("a 2-byte integer"))
                stack.append(.int(low | high << 8))
            case 0x8A, 0x8B:  // LONG1, LONG4
                let length = opcode == 0x8A ? Int(try readByte("a long's length")) : Int(try readUInt32("a long's length"))
                stack.append(PickleMachine.integer(fromLittleEndian: try read(length, "a long integer")))
            case 0x47:  // BINFLOAT (big-endian double)
                let raw = try read(8, "a float")
                stack.append(.float(Double(bitPattern: raw.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })))
            case 0x58, 0x8C:  // BINUNICODE, SHORT_BINUNICODE
                let length = opcode == 0x58 ? Int(try readUInt32("a string length")) : Int(try readByte("a string length"))
                let raw = try read(length, "a string")
                guard let string = String(validating: raw, as: UTF8.self) else {
                    throw PickleProblem.malformed(offset: offset, reason: "a string is not valid UTF-8")
                }
                stack.append(.string(string))
            case 0x55, 0x54:  // SHORT_BINSTRING, BINSTRING (Python 2 str, read as Latin-1)
                let length = opcode == 0x55 ? Int(try readByte("a string length"))
                                            : Int(Int32(bitPattern: try readUInt32("a string length")))
                guard length >= 0 else { throw PickleProblem.malformed(offset: offset, reason: "negative string length") }
                stack.append(.string(String(try read(length, "a string").map { Character(Unicode.Scalar($0)) })))
            case 0x4E:  // NONE
                stack.append(.none)
            case 0x88, 0x89:  // NEWTRUE, NEWFALSE
                stack.append(.bool(opcode == 0x88))
            case 0x30:  // POP
                _ = try pop(offset)
            case 0x31:  // POP_MARK
                _ = try popToMark(offset)
            case 0x51:  // BINPERSID
                stack.append(.storage(try PickleMachine.storage(fromPersistentID: try pop(offset), offset: offset)))
            case 0x52:  // REDUCE
                let arguments = try pop(offset), callable = try pop(offset)
                stack.append(try PickleMachine.call(callable, arguments, offset: offset))
            case 0x62:  // BUILD
                let state = try pop(offset)
                guard case .dict = try top(offset) else {
                    throw PickleProblem.unsupported(offset: offset, reason: "BUILD on \(try top(offset).kind)")
                }
                // A state dict carries attributes such as `_metadata` (module versions): not weights.
                switch state {
                case .dict, .tuple, .none: break
                default: throw PickleProblem.malformed(offset: offset, reason: "BUILD with \(state.kind) as state")
                }
            default:
                throw PickleProblem.unsupportedOpcode(offset: offset, opcode: opcode)
            }
        }
    }

    // MARK: - Calls the legacy format needs

    /// Evaluates the only REDUCE calls a legacy state dict contains.
    private static func call(_ callable: PickleValue, _ arguments: PickleValue, offset: Int) throws -> PickleValue {
        guard case .global(let module, let name) = callable, case .tuple(let args, _) = arguments else {
            throw PickleProblem.malformed(offset: offset, reason: "REDUCE needs a global and an argument tuple")
        }
        switch (module, name) {
        case ("collections", "OrderedDict"):
            return .dict(PickleDictionary())
        case ("torch._utils", "_rebuild_tensor_v2"), ("torch._utils", "_rebuild_tensor"):
            guard args.count >= 4, case .storage(let storage) = args[0], case .int(let start) = args[1],
                  let shape = integers(args[2]), let strides = integers(args[3]), shape.count == strides.count
            else {
                throw PickleProblem.malformed(
                    offset: offset, reason: "\(name) expects (storage, offset, size, stride, …), got \(args.map(\.kind))")
            }
            return .tensor(PickleTensor(storage: storage, offset: start, shape: shape, strides: strides))
        case ("torch._utils", "_rebuild_parameter"):
            guard let first = args.first, case .tensor = first else {
                throw PickleProblem.malformed(offset: offset, reason: "_rebuild_parameter expects a tensor")
            }
            return first
        default:
            throw PickleProblem.unsupported(offset: offset, reason: "a call to \(module).\(name)")
        }
    }

    /// `('storage', torch.FloatStorage, key, location, size, view)` → a storage.
    private static func storage(fromPersistentID id: PickleValue, offset: Int) throws -> PickleStorage {
        guard case .tuple(let fields, _) = id, fields.count == 6, case .string("storage") = fields[0] else {
            throw PickleProblem.malformed(offset: offset, reason: "persistent id \(id.kind) is not a storage record")
        }
        guard case .global(let module, let typeName) = fields[1], module == "torch", typeName.hasSuffix("Storage"),
              case .string(let key) = fields[2], case .int(let count) = fields[4], count >= 0
        else {
            throw PickleProblem.malformed(offset: offset, reason: "storage record has unexpected fields \(fields.map(\.kind))")
        }
        guard case .none = fields[5] else {
            throw PickleProblem.unsupported(offset: offset, reason: "storage views (storage '\(key)')")
        }
        return PickleStorage(typeName: typeName, key: key, elementCount: count)
    }

    private static func integers(_ value: PickleValue) -> [Int]? {
        guard case .tuple(let items, _) = value else { return nil }
        var result: [Int] = []
        for item in items {
            guard case .int(let number) = item else { return nil }
            result.append(number)
        }
        return result
    }

    /// A little-endian two's-complement integer: `.int` when it fits, `.bigInt` otherwise.
    static func integer(fromLittleEndian raw: [UInt8]) -> PickleValue {
        guard !raw.isEmpty else { return .int(0) }
        guard raw.count <= 8 else { return .bigInt(raw) }
        var value: UInt64 = 0
        for (index, byte) in raw.enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        if raw.count < 8, raw.last! & 0x80 != 0 { value |= ~UInt64(0) << (8 * UInt64(raw.count)) }
        return .int(Int(Int64(bitPattern: value)))
    }

    // MARK: - Reading bytes

    private mutating func readByte(_ what: String) throws -> UInt8 {
        guard position < bytes.count else { throw PickleProblem.truncated(offset: position, what: what) }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func readUInt32(_ what: String) throws -> UInt32 {
        let raw = try read(4, what)
        return raw.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// Moves past `count` bytes without copying them (a FRAME's length hint). (Reading them
    /// into an array that was then dropped was also where the address sanitizer, under
    /// `make fuzz`, reported that array's buffer written after its release.)
    private mutating func skip(_ count: Int, _ what: String) throws {
        guard count >= 0, count <= bytes.count - position else {
            throw PickleProblem.truncated(offset: position, what: what)
        }
        position += count
    }

    private mutating func read(_ count: Int, _ what: String) throws -> [UInt8] {
        guard count >= 0, count <= bytes.count - position else {
            throw PickleProblem.truncated(offset: position, what: what)
        }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    private mutating func readLine(_ what: String) throws -> String {
        guard let end = bytes[position...].firstIndex(of: 0x0A) else {
            throw PickleProblem.truncated(offset: position, what: what)
        }
        defer { position = end + 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }
}
