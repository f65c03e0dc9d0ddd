import CoachModels
import CoachTensor
import Foundation
import TestSupport
import XCTest

final class TorchLegacyCheckpointTests: XCTestCase {
    /// A small checkpoint with a transposed (strided) view, an offset view and a scalar
    /// sharing one storage, an integer counter, an IntStorage and an empty tensor.
    static func sampleBuilder() -> LegacyCheckpointBuilder {
        var builder = LegacyCheckpointBuilder()
        builder.addFloatStorage("140001", [0, 1, 2, 3, 4, 5])
        builder.addFloatStorage("140002", [10, -.infinity, .nan, -0.0])
        builder.addLongStorage("140003", [7])
        builder.addIntStorage("140004", [-3, 4])
        builder.addFloatStorage("140005", [])
        // (i, j) = storage[i + 2j]: the transpose of a row-major [3, 2] matrix.
        builder.addTensor("layer.weight", storage: "140001", shape: [2, 3], strides: [1, 2])
        builder.addTensor("layer.bias", storage: "140002", offset: 1, shape: [2])
        builder.addTensor("layer.scale", storage: "140002", offset: 3, shape: [])
        builder.addTensor("bn.num_batches_tracked", storage: "140003", shape: [])
        builder.addTensor("steps", storage: "140004", shape: [2])
        builder.addTensor("empty", storage: "140005", shape: [0, 4])
        return builder
    }

    private func checkpointError(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> TorchCheckpointError? {
        do {
            _ = try TorchLegacyCheckpoint(bytes: bytes, path: "sample.pth")
            XCTFail("parsing succeeded", file: file, line: line)
        } catch let error as TorchCheckpointError {
            XCTAssertTrue(error.localizedDescription.contains("sample.pth"), error.localizedDescription, file: file, line: line)
            return error
        } catch {
            XCTFail("not a TorchCheckpointError: \(error)", file: file, line: line)
        }
        return nil
    }

    func testReadsTensorsMakingViewsContiguous() throws {
        let checkpoint = try TorchLegacyCheckpoint(bytes: Self.sampleBuilder().bytes(), path: "sample.pth")
        XCTAssertEqual(checkpoint.entries.map(\.name),
                       ["layer.weight", "layer.bias", "layer.scale", "bn.num_batches_tracked", "steps", "empty"])
        XCTAssertEqual(checkpoint["layer.weight"]?.floatTensor, Tensor(shape: [2, 3], scalars: [0, 2, 4, 1, 3, 5]))
        XCTAssertEqual(checkpoint["layer.weight"]?.storageType, "FloatStorage")
        let bias = try XCTUnwrap(checkpoint["layer.bias"]?.floatTensor)
        XCTAssertEqual(bias.shape, [2])
        XCTAssertEqual(bias.scalars[0], -.infinity)
        XCTAssertTrue(bias.scalars[1].isNaN)
        let scale = try XCTUnwrap(checkpoint["layer.scale"]?.floatTensor)
        XCTAssertEqual(scale.shape, [])
        XCTAssertEqual(scale.scalars.map(\.bitPattern), [(-0.0 as Float).bitPattern])
        XCTAssertEqual(checkpoint["bn.num_batches_tracked"]?.values, .integer([7]))
        XCTAssertEqual(checkpoint["bn.num_batches_tracked"]?.shape, [])
        XCTAssertNil(checkpoint["bn.num_batches_tracked"]?.floatTensor)
        XCTAssertEqual(checkpoint["steps"]?.values, .integer([-3, 4]))
        XCTAssertEqual(checkpoint["empty"]?.floatTensor, Tensor(shape: [0, 4], scalars: []))
    }

    func testZipCheckpointsAreRejectedWithAHint() throws {
        let error = checkpointError([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 100))
        XCTAssertEqual(error, .zipFormat(path: "sample.pth"))
        XCTAssertTrue(error?.localizedDescription.contains("zip-format PyTorch checkpoints are not supported") ?? false)
    }

    func testFilesThatAreNotLegacyCheckpoints() throws {
        guard case .notALegacyCheckpoint? = checkpointError([]) else { return XCTFail() }
        guard case .notALegacyCheckpoint? = checkpointError(Array("hello, world".utf8)) else { return XCTFail() }
        var builder = Self.sampleBuilder()
        builder.magic = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A]
        guard case .notALegacyCheckpoint(_, let reason)? = checkpointError(builder.bytes()) else { return XCTFail() }
        XCTAssertTrue(reason.contains("magic number"), reason)
    }

    /// Cutting the file at every byte gives a truncation error, never a crash.
    func testTruncationAtEveryOffset() throws {
        let whole = Self.sampleBuilder().bytes()
        for cut in 1..<whole.count {
            guard case .truncated(_, let offset, let what)? = checkpointError(Array(whole.prefix(cut))) else {
                XCTFail("cut at \(cut) of \(whole.count) was not reported as truncation")
                continue
            }
            XCTAssertLessThanOrEqual(offset, cut)
            XCTAssertFalse(what.isEmpty)
        }
    }

    func testUnknownOpcodeIsNamed() throws {
        var builder = Self.sampleBuilder()
        builder.injectedOpcodes = [0x64]  // DICT: valid pickle, never in a legacy state dict
        guard case .unsupportedOpcode(_, let offset, 0x64)? = checkpointError(builder.bytes()) else { return XCTFail() }
        XCTAssertGreaterThan(offset, 20)
        XCTAssertTrue(checkpointError(builder.bytes())?.localizedDescription.contains("opcode 0x64") ?? false)
    }

    /// The reader never calls anything but the few functions a state dict needs.
    func testArbitraryCallsAreRefused() throws {
        var builder = Self.sampleBuilder()
        builder.injectedOpcodes = [0x63] + Array("os\nsystem\n".utf8) + [0x58, 4, 0, 0, 0] + Array("true".utf8) + [0x85, 0x52, 0x30]
        guard case .unsupportedContent(_, let reason)? = checkpointError(builder.bytes()) else { return XCTFail() }
        XCTAssertTrue(reason.contains("os.system"), reason)
    }

    /// Nesting that would overflow the stack when the values are released is refused: a
    /// million TUPLE1s around an empty tuple, and a chain of lists grown beneath a list that
    /// was already nested (which no pickler writes: a child is complete before its parent takes it).
    func testDeepNestingIsMalformedNotACrash() throws {
        var deep = Self.sampleBuilder()
        deep.injectedOpcodes = [0x29] + [UInt8](repeating: 0x85, count: 1_000_000) + [0x30]
        guard case .malformed(_, _, let reason)? = checkpointError(deep.bytes()) else { return XCTFail() }
        XCTAssertTrue(reason.contains("nested more than 100 levels"), reason)

        var chain = Self.sampleBuilder()
        // L0 = []; L1 = []; L0.append(L1); then L1.append([]) through the memo.
        chain.injectedOpcodes = [0x5D, 0x71, 200, 0x5D, 0x71, 201, 0x61, 0x30, 0x68, 201, 0x5D, 0x61, 0x30]
        guard case .malformed(_, _, let chainReason)? = checkpointError(chain.bytes()) else { return XCTFail() }
        XCTAssertTrue(chainReason.contains("after being nested"), chainReason)

        var shallow = Self.sampleBuilder()   // the same lists built child first are fine
        shallow.injectedOpcodes = [0x5D, 0x5D, 0x5D, 0x61, 0x61, 0x30]
        XCTAssertNoThrow(try TorchLegacyCheckpoint(bytes: shallow.bytes(), path: "sample.pth"))
    }

    func testInconsistentStoragesAreMalformed() throws {
        var outOfRange = Self.sampleBuilder()
        outOfRange.addTensor("too.far", storage: "140001", offset: 2, shape: [3, 2], strides: [2, 1])
        guard case .malformed(_, _, let reason)? = checkpointError(outOfRange.bytes()) else { return XCTFail() }
        XCTAssertTrue(reason.contains("'too.far'"), reason)

        var trailing = Self.sampleBuilder()
        trailing.trailing = [1, 2, 3]
        guard case .malformed(_, _, let trailingReason)? = checkpointError(trailing.bytes()) else { return XCTFail() }
        XCTAssertTrue(trailingReason.contains("3 unexpected bytes"), trailingReason)

        var miscounted = Self.sampleBuilder()
        miscounted.writtenCounts["140002"] = 3
        guard case .malformed(_, _, let countReason)? = checkpointError(miscounted.bytes()) else { return XCTFail() }
        XCTAssertTrue(countReason.contains("declares 4 elements but the data holds 3"), countReason)
    }

    func testFileErrors() throws {
        let directory = try temporaryDirectory(self)
        XCTAssertThrowsError(try TorchLegacyCheckpoint.read(from: directory.appendingPathComponent("none.pth"))) { error in
            XCTAssertEqual(error as? TorchCheckpointError, .fileNotFound(path: directory.appendingPathComponent("none.pth").path))
        }
        XCTAssertThrowsError(try TorchLegacyCheckpoint.read(from: directory)) { error in
            guard case .unreadable? = error as? TorchCheckpointError else { return XCTFail("\(error)") }
        }
        let url = directory.appendingPathComponent("ok.pth")
        try Data(Self.sampleBuilder().bytes()).write(to: url)
        XCTAssertEqual(try TorchLegacyCheckpoint.read(from: url).entries.count, 6)
    }

    /// CPython's own pickler (protocol 2, with stand-ins for torch's classes) writes a
    /// legacy checkpoint; the Swift reader must see the tensors Python describes.
    func testReadsACheckpointWrittenByPythonsPickle() throws {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin"
        guard let python = path.split(separator: ":").map({ "\($0)/python3" }).first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            throw skipTest("SKIPPED: python3 is not installed")
        }
        let directory = try temporaryDirectory(self)
        let script = directory.appendingPathComponent("write.py")
        let checkpoint = directory.appendingPathComponent("python.pth")
        let expected = directory.appendingPathComponent("expected.json")
        try Self.pythonWriter.write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, checkpoint.path, expected.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, errorText)

        struct Expected: Decodable { var name: String; var shape: [Int]; var values: [Double]; var integer: Bool }
        let tensors = try JSONDecoder().decode([Expected].self, from: Data(contentsOf: expected))
        let read = try TorchLegacyCheckpoint.read(from: checkpoint)
        XCTAssertEqual(read.entries.map(\.name), tensors.map(\.name))
        for tensor in tensors {
            let entry = try XCTUnwrap(read[tensor.name])
            XCTAssertEqual(entry.shape, tensor.shape, tensor.name)
            if tensor.integer {
                XCTAssertEqual(entry.values, .integer(tensor.values.map { Int64($0) }), tensor.name)
            } else {
                XCTAssertEqual(entry.floatTensor?.scalars, tensor.values.map { Float($0) }, tensor.name)
            }
        }
    }

    /// Writes a legacy checkpoint with CPython's pickle module and the expected contiguous
    /// values (computed in Python from sizes, strides and offsets) as JSON.
    static let pythonWriter = #"""
    import collections, json, pickle, struct, sys, types

    torch = types.ModuleType("torch"); utils = types.ModuleType("torch._utils")
    torch._utils = utils; sys.modules["torch"] = torch; sys.modules["torch._utils"] = utils
    def _rebuild_tensor_v2(*args): raise RuntimeError("never called")
    _rebuild_tensor_v2.__module__ = "torch._utils"; utils._rebuild_tensor_v2 = _rebuild_tensor_v2
    class FloatStorage: pass
    class LongStorage: pass
    for cls in (FloatStorage, LongStorage):
        cls.__module__ = "torch"; setattr(torch, cls.__name__, cls)

    class Storage:
        def __init__(self, kind, key, values): self.kind, self.key, self.values = kind, key, values
    class View:
        def __init__(self, storage, offset, size, stride):
            self.storage, self.offset, self.size, self.stride = storage, offset, size, stride
        def __reduce_ex__(self, protocol):
            return (_rebuild_tensor_v2, (self.storage, self.offset, self.size, self.stride, False, collections.OrderedDict()))
        def contiguous(self):
            out = []
            def walk(axis, base):
                if axis == len(self.size): out.append(self.storage.values[base]); return
                for i in range(self.size[axis]): walk(axis + 1, base + i * self.stride[axis])
            if all(self.size) or not self.size: walk(0, self.offset)
            return out

    class Saver(pickle.Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, Storage):
                return ("storage", obj.kind, obj.key, "cpu", len(obj.values), None)
            return None

    weights = Storage(FloatStorage, "93824992", [0.5 * i - 3.0 for i in range(60)])
    counter = Storage(LongStorage, "93824993", [123456789012])
    state = collections.OrderedDict()
    state["conv.weight"] = View(weights, 0, (4, 3, 1, 1), (1, 4, 12, 12))   # HWIO memory, OIHW view
    state["fc.weight"] = View(weights, 12, (5, 8), (1, 5))                  # transposed view at an offset
    state["bn.bias"] = View(weights, 52, (8,), (1,))
    state["bn.num_batches_tracked"] = View(counter, 0, (), ())
    state._metadata = collections.OrderedDict([("", {"version": 1}), ("bn", {"version": 2})])

    with open(sys.argv[1], "wb") as f:
        pickle.dump(0x1950a86a20f9469cfc6c, f, protocol=2)
        pickle.dump(1001, f, protocol=2)
        pickle.dump({"protocol_version": 1001, "little_endian": True,
                     "type_sizes": {"short": 2, "int": 4, "long": 4}}, f, protocol=2)
        Saver(f, protocol=2).dump(state)
        storages = [weights, counter]
        pickle.dump([s.key for s in storages], f, protocol=2)
        for s in storages:
            f.write(struct.pack("<q", len(s.values)))
            fmt = "<%df" % len(s.values) if s.kind is FloatStorage else "<%dq" % len(s.values)
            f.write(struct.pack(fmt, *s.values))
    with open(sys.argv[2], "w") as f:
        json.dump([{"name": k, "shape": list(v.size), "values": v.contiguous(),
                    "integer": v.storage.kind is LongStorage} for k, v in state.items()], f)
    """#
}
