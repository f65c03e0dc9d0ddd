import CoachModels
import CoachRandom
import CoachTensor
import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A model with awkward tensors (special values, scalar and empty shapes) and full metadata.
func sampleModel(seed: UInt64 = 7) -> ModelFile {
    var generator = SeededGenerator(seed: seed)
    func random(_ shape: [Int]) -> Tensor {
        Tensor(shape: shape, scalars: (0..<Tensor.count(of: shape)).map { _ in generator.nextNormal() })
    }
    let specials: [Float] = [
        .nan, -.nan, Float(bitPattern: 0x7FC0_1234), Float(bitPattern: 0x7F80_0001),  // quiet/signalling NaN payloads
        .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1, -1, .ulpOfOne,
    ]
    let tensors: [String: Tensor] = [
        "stem.conv.weight": random([3, 3, 3, 32]),
        "stem.bn.scale": random([32]),
        "blocks.2.depthwise.conv.weight": random([5, 5, 144]),
        "blocks.10.project.conv.weight": random([1, 1, 672, 112]),
        "special.values": Tensor(shape: [4, 4], scalars: specials),
        "scalar.temperature": Tensor(1.5),
        "empty.rows": Tensor(shape: [0, 3], scalars: []),
        "empty.middle": Tensor(shape: [2, 0, 4], scalars: []),
        "rank.five": random([2, 1, 3, 1, 2]),
    ]
    let metadata = ModelMetadata(
        task: .imageClassifier, name: "board-or-not", summary: "Ünïcode ✓ summary",
        classLabels: ["board", "no board", "ünïcødé 🎯"],
        input: InputSpecification(image: ImageInputSpecification(
            width: 224, height: 224, mean: [127, 127, 127], standardDeviation: [128, 128, 128],
            resize: ImageResize(method: "short-side-center-crop", shortSide: 256))),
        training: ["epochs": 25, "learningRate": 0.001, "augmentations": ["flip", "crop"], "seed": 42],
        metrics: ["validation.accuracy": 0.9375, "training.loss": 0.125, "validation.f1.board": .nan],
        backbone: BackboneReference(name: "efficientnet-lite0", sha256: String(repeating: "ab", count: 32),
                                    fileName: "efficientnet-lite0.h5"),
        creator: CreatorInfo(tool: "tests"),
        extra: ["anchors": [[0.5, 0.5], [1, 2]], "note": nil])
    return ModelFile(metadata: metadata, tensors: tensors)
}

/// Bit patterns, so NaN payloads and signed zeros compare exactly.
func bits(_ tensor: Tensor) -> [UInt32] { tensor.scalars.map(\.bitPattern) }

final class ModelFileTests: XCTestCase {
    func testRoundTripIsBitExact() throws {
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("model.h5")
        let model = sampleModel()
        try model.write(to: url)
        let read = try ModelFile.read(from: url)

        XCTAssertEqual(read.fileFormatVersion, ModelFile.formatVersion)
        XCTAssertEqual(read.sourcePath, url.path)
        XCTAssertEqual(Set(read.tensors.keys), Set(model.tensors.keys))
        for (name, tensor) in model.tensors {
            let loaded = try XCTUnwrap(read.tensors[name], name)
            XCTAssertEqual(loaded.shape, tensor.shape, name)
            XCTAssertEqual(bits(loaded), bits(tensor), name)
        }
        // Metadata: equal except the NaN metric (NaN ≠ NaN), which must come back as NaN.
        var expected = model.metadata, actual = read.metadata
        XCTAssertTrue(actual.metrics["validation.f1.board"]?.isNaN ?? false)
        expected.metrics["validation.f1.board"] = nil
        actual.metrics["validation.f1.board"] = nil
        XCTAssertEqual(actual, expected)
        XCTAssertEqual(read.parameterCount, model.parameterCount)
        XCTAssertEqual(read.parameterCount, 3 * 3 * 3 * 32 + 32 + 5 * 5 * 144 + 672 * 112 + 16 + 1 + 12)
    }

    func testNamesAreListedInNaturalOrder() {
        let names = sampleModel().tensorNames
        XCTAssertEqual(names, ["blocks.2.depthwise.conv.weight", "blocks.10.project.conv.weight", "empty.middle",
                               "empty.rows", "rank.five", "scalar.temperature", "special.values", "stem.bn.scale",
                               "stem.conv.weight"])
        XCTAssertTrue(TensorNameOrder.areInIncreasingOrder("a.9", "a.10"))
        XCTAssertFalse(TensorNameOrder.areInIncreasingOrder("a.10", "a.9"))
        XCTAssertTrue(TensorNameOrder.areInIncreasingOrder("a", "a.1"))
        XCTAssertFalse(TensorNameOrder.areInIncreasingOrder("x", "x"))
    }

    func testSummaryReadsShapesWithoutWeights() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("model.h5")
        let model = sampleModel()
        try model.write(to: url)
        let summary = try ModelFileSummary.read(from: url)
        XCTAssertEqual(summary.formatVersion, 1)
        XCTAssertEqual(summary.tensorShapes, model.tensors.mapValues(\.shape))
        XCTAssertEqual(summary.parameterCount, model.parameterCount)
        XCTAssertEqual(summary.tensorNames, model.tensorNames)
        XCTAssertEqual(summary.metadata.classLabels, model.metadata.classLabels)
    }

    /// HDF5 records object modification times by default; Coach turns them off, so
    /// writing the same model twice — a second apart, in a fresh dictionary — gives the same bytes.
    func testWritingTheSameModelTwiceGivesIdenticalBytes() throws {
        let directory = try temporaryDirectory(self)
        let first = directory.appendingPathComponent("first.h5")
        let second = directory.appendingPathComponent("second.h5")
        try sampleModel().write(to: first)
        Thread.sleep(forTimeInterval: 1.1)  // time stamps have one-second resolution
        var rebuilt = sampleModel()
        rebuilt.tensors = Dictionary(uniqueKeysWithValues: rebuilt.tensors.sorted { $0.key > $1.key })
        try rebuilt.write(to: second)
        let a = try Data(contentsOf: first), b = try Data(contentsOf: second)
        XCTAssertGreaterThan(a.count, 0)
        XCTAssertEqual(a, b, "two writes of the same model differ")
        // Overwriting in place gives the same bytes again.
        try sampleModel().write(to: first)
        XCTAssertEqual(try Data(contentsOf: first), b)
        // A different model gives different bytes (the comparison can fail).
        try sampleModel(seed: 8).write(to: second)
        XCTAssertNotEqual(try Data(contentsOf: second), a)
    }

    func testLargeMetadataRoundTrips() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("labels.h5")
        var model = ModelFile(metadata: ModelMetadata(task: .imageClassifier), tensors: ["w": Tensor([1, 2])])
        model.metadata.classLabels = (0..<20_000).map { "class number \($0) with a rather long label" }
        XCTAssertGreaterThan(try model.metadata.jsonString().utf8.count, 65_536 * 10)
        try model.write(to: url)
        XCTAssertEqual(try ModelFile.read(from: url).metadata.classLabels, model.metadata.classLabels)
    }

    func testEmptyModelRoundTrips() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("empty.h5")
        let model = ModelFile(metadata: ModelMetadata(task: "some-future-task"))
        try model.write(to: url)
        let read = try ModelFile.read(from: url)
        XCTAssertEqual(read, model)
        XCTAssertEqual(read.metadata.task.rawValue, "some-future-task")
        XCTAssertEqual(read.parameterCount, 0)
    }

    func testInvalidTensorNamesAreAllListedAndNothingIsWritten() throws {
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("bad.h5")
        let model = ModelFile(metadata: ModelMetadata(task: .backbone),
                              tensors: ["ok": Tensor([1]), "": Tensor([1]), "a/b": Tensor([1]), ".": Tensor([2])])
        XCTAssertThrowsError(try model.write(to: url)) { error in
            XCTAssertEqual(error as? ModelFileError, .invalidTensorNames(names: ["", ".", "a/b"]))
            XCTAssertTrue(error.localizedDescription.contains("'a/b'"), error.localizedDescription)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    func testWritingIntoAMissingFolderFailsClearly() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("no/such/folder/model.h5")
        XCTAssertThrowsError(try sampleModel().write(to: url)) { error in
            guard case .writeFailed(let path, let reason)? = error as? ModelFileError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, url.path)
            XCTAssertTrue(reason.contains("does not exist"), reason)
        }
    }

    /// A write that fails midway (the file-size limit is hit while HDF5 writes the
    /// datasets) leaves the previous file byte-for-byte intact and no temporary file.
    func testAFailingWriteLeavesThePreviousFileIntact() throws {
        let directory = try temporaryDirectory(self)
        let url = directory.appendingPathComponent("model.h5")
        let small = ModelFile(metadata: ModelMetadata(task: .backbone), tensors: ["w": Tensor([1, 2, 3])])
        try small.write(to: url)
        let before = try Data(contentsOf: url)

        var big = sampleModel()
        big.tensors["huge"] = Tensor(repeating: 0.5, shape: [256, 1024])  // 1 MiB
        var original = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &original), 0)
        let previousHandler = signal(SIGXFSZ, SIG_IGN)  // EFBIG instead of a signal
        var limited = original
        limited.rlim_cur = 200_000
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limited), 0)
        var writeError: Error?
        do { try big.write(to: url) } catch { writeError = error }
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &original), 0)
        signal(SIGXFSZ, previousHandler)

        guard case .writeFailed(let path, let reason)? = writeError as? ModelFileError else {
            return XCTFail("expected writeFailed, got \(String(describing: writeError))")
        }
        XCTAssertEqual(path, url.path)
        XCTAssertTrue(reason.contains("stopped after 200000"), reason)  // it failed midway
        XCTAssertEqual(try Data(contentsOf: url), before, "the previous file changed")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["model.h5"])
        XCTAssertEqual(try ModelFile.read(from: url), small)
        // With the limit lifted, the same write succeeds.
        try big.write(to: url)
        XCTAssertEqual(try ModelFile.read(from: url).tensors["huge"]?.shape, [256, 1024])
    }

    func testTensorCheckListsEveryMismatch() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("model.h5")
        try sampleModel().write(to: url)
        let model = try ModelFile.read(from: url)
        var expected = model.tensors.mapValues(\.shape)
        XCTAssertNoThrow(try model.checkTensors(expected))
        expected["stem.conv.weight"] = [3, 3, 3, 16]
        expected["head.conv.weight"] = [1, 1, 320, 1280]
        expected["rank.five"] = nil
        XCTAssertNoThrow(try model.checkTensors(expected.filter { $0.key != "stem.conv.weight" && $0.key != "head.conv.weight" },
                                                allowingUnexpected: true))
        XCTAssertThrowsError(try model.checkTensors(expected)) { error in
            guard case .tensorMismatch(let path, let mismatches)? = error as? ModelFileError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(path, url.path)
            XCTAssertEqual(mismatches, [
                TensorMismatch(name: "head.conv.weight", kind: .missing(expectedShape: [1, 1, 320, 1280])),
                TensorMismatch(name: "rank.five", kind: .unexpected(actualShape: [2, 1, 3, 1, 2])),
                TensorMismatch(name: "stem.conv.weight", kind: .wrongShape(expected: [3, 3, 3, 16], actual: [3, 3, 3, 32])),
            ])
            let message = error.localizedDescription
            for fragment in ["3 problems", "missing tensor 'head.conv.weight'", "unexpected tensor 'rank.five'",
                             "'stem.conv.weight' has shape [3, 3, 3, 32], expected [3, 3, 3, 16]", url.path] {
                XCTAssertTrue(message.contains(fragment), "'\(fragment)' not in: \(message)")
            }
        }
        XCTAssertEqual(try model.tensor("stem.bn.scale", shape: [32]).shape, [32])
        XCTAssertThrowsError(try model.tensor("stem.bn.scale", shape: [16]))
        XCTAssertThrowsError(try model.tensor("nope", shape: [1]))
    }

    /// `h5dump` (Debian hdf5-tools) is an independent reader: it must see Coach's layout
    /// and the same values in row-major order.
    func testStandardToolsReadTheFile() throws {
        guard let h5dump = ["/usr/bin/h5dump", "/usr/local/bin/h5dump"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            throw skipTest("SKIPPED: h5dump not installed (Debian package hdf5-tools)")
        }
        let url = try temporaryDirectory(self).appendingPathComponent("model.h5")
        var model = sampleModel()
        model.tensors["probe"] = Tensor(shape: [2, 3], scalars: [0.5, -1.25, 3, 4.75, 1e-3, -7])
        try model.write(to: url)

        let header = try run(h5dump, ["-H", url.path])
        for fragment in ["ATTRIBUTE \"format\"", "ATTRIBUTE \"format_version\"", "H5T_STD_I64LE",
                         "ATTRIBUTE \"metadata\"", "CSET H5T_CSET_UTF8", "GROUP \"weights\"",
                         "DATASET \"blocks.10.project.conv.weight\"", "H5T_IEEE_F32LE",
                         "DATASPACE  SIMPLE { ( 1, 1, 672, 112 ) / ( 1, 1, 672, 112 ) }",
                         "DATASET \"scalar.temperature\"", "DATASPACE  SCALAR"] {
            XCTAssertTrue(header.contains(fragment), "h5dump -H lacks '\(fragment)':\n\(header)")
        }
        XCTAssertTrue(try run(h5dump, ["-a", "/format", url.path]).contains("\"coach-model\""))
        XCTAssertTrue(try run(h5dump, ["-a", "/format_version", url.path]).contains("(0): 1"))
        let metadata = try run(h5dump, ["-a", "/metadata", url.path])
        XCTAssertTrue(metadata.contains("\"task\":\"image-classifier\""), metadata)

        // h5dump prints "(i,j): v," per element; the values must be the tensor's, row-major.
        let dump = try run(h5dump, ["-d", "/weights/probe", "-m", "%.9g", url.path])
        let printed = dump.split(separator: "\n").compactMap { line -> Float? in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("("), let colon = text.firstIndex(of: ":") else { return nil }
            return Float(text[text.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " ,")))
        }
        XCTAssertEqual(printed, [0.5, -1.25, 3, 4.75, 1e-3, -7], dump)
    }

    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(executable) \(arguments)")
        return String(decoding: data, as: UTF8.self)
    }
}
