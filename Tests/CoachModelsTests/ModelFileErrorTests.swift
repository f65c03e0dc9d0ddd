import CoachModels
import CoachTensor
import Foundation
import TestSupport
import XCTest

/// Every way a model file can be wrong gets its own typed error naming the file — never a crash.
final class ModelFileErrorTests: XCTestCase {
    private func readError(_ url: URL, file: StaticString = #filePath, line: UInt = #line) -> ModelFileError? {
        do {
            _ = try ModelFile.read(from: url)
            XCTFail("reading \(url.lastPathComponent) succeeded", file: file, line: line)
            return nil
        } catch let error as ModelFileError {
            XCTAssertTrue(error.localizedDescription.contains(url.path),
                          "message does not name the file: \(error.localizedDescription)", file: file, line: line)
            return error
        } catch {
            XCTFail("not a ModelFileError: \(error)", file: file, line: line)
            return nil
        }
    }

    func testMissingFile() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("absent.h5")
        XCTAssertEqual(readError(url), .fileNotFound(path: url.path))
        XCTAssertThrowsError(try ModelFileSummary.read(from: url))
    }

    func testFolderInsteadOfFile() throws {
        let url = try temporaryDirectory(self)
        guard case .unreadable(_, let reason)? = readError(url) else { return XCTFail() }
        XCTAssertTrue(reason.contains("folder"), reason)
    }

    func testFilesThatAreNotHDF5SayWhatTheyLookLike() throws {
        let directory = try temporaryDirectory(self)
        let cases: [(String, [UInt8], String?)] = [
            ("notes.h5", Array("just some text\nsecond line\n".utf8), "a text file"),
            ("photo.h5", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [UInt8](repeating: 0x42, count: 200), "a JPEG image"),
            ("image.h5", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], "a PNG image"),
            ("weights.h5", [0x80, 0x02, 0x8A, 0x0A, 0x6C, 0xFC], "a Python pickle, e.g. a PyTorch checkpoint"),
            ("archive.h5", [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00], "a zip archive, e.g. a PyTorch checkpoint or Core ML package"),
            ("config.h5", Array("  {\"task\": \"image-classifier\"}".utf8), "a JSON file"),
            ("empty.h5", [], "an empty file"),
            ("noise.h5", [0x00, 0x01, 0x02, 0xFE, 0x03, 0x9C], nil),
        ]
        for (name, bytes, kind) in cases {
            let url = directory.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            XCTAssertEqual(readError(url), .notHDF5(path: url.path, looksLike: kind), name)
        }
    }

    /// Cutting a model file anywhere — inside the signature, the superblock, the object
    /// headers, the metadata or the raw weights — is reported as truncation.
    func testTruncationAtManyOffsetsIsReported() throws {
        let directory = try temporaryDirectory(self)
        let source = directory.appendingPathComponent("whole.h5")
        try sampleModel().write(to: source)
        let whole = try Data(contentsOf: source)
        XCTAssertGreaterThan(whole.count, 300_000)
        var offsets = Array(1..<96) + [whole.count / 2, whole.count - 1, whole.count - 4]
        offsets += stride(from: 96, to: whole.count, by: whole.count / 97).map { $0 }
        for offset in offsets.sorted() {
            let url = directory.appendingPathComponent("cut-\(offset).h5")
            try whole.prefix(offset).write(to: url)
            let error = readError(url)
            guard case .truncated(_, let detail)? = error else {
                XCTFail("cut at \(offset) of \(whole.count): \(String(describing: error))")
                continue
            }
            if offset >= 48 {  // past the superblock, HDF5 states the size it expected
                XCTAssertTrue(detail.contains("\(offset) bytes on disk, but its header says \(whole.count)"), detail)
            }
            XCTAssertThrowsError(try ModelFileSummary.read(from: url))
            try FileManager.default.removeItem(at: url)
        }
    }

    /// Flipped bytes anywhere never crash the reader and are always detected: the header's
    /// SHA-256 covers every byte after it, and the header itself must be well formed.
    func testCorruptedBytesNeverCrash() throws {
        let directory = try temporaryDirectory(self)
        let source = directory.appendingPathComponent("whole.h5")
        var model = sampleModel()
        model.tensors = model.tensors.filter { $0.value.count < 10_000 }
        try model.write(to: source)
        let whole = try Data(contentsOf: source)
        var failures = 0, flips = 0
        for offset in Array(0..<80) + Array(stride(from: 80, to: whole.count, by: max(1, whole.count / 250))) {
            flips += 1
            var damaged = whole
            damaged[offset] ^= 0x5A
            let url = directory.appendingPathComponent("flip.h5")
            try damaged.write(to: url)
            do {
                _ = try ModelFile.read(from: url)
            } catch is ModelFileError {
                failures += 1
            } catch {
                XCTFail("flip at \(offset): not a ModelFileError: \(error)")
            }
        }
        XCTAssertEqual(failures, flips, "every flipped byte must be detected")
    }

    /// A named pipe is refused at once (opening it would block until a writer appears).
    func testNamedPipeIsRefusedWithoutBlocking() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("model.h5")
        XCTAssertEqual(mkfifo(url.path, 0o644), 0)
        guard case .unreadable(_, let reason)? = readError(url) else { return XCTFail("\(String(describing: readError(url)))") }
        XCTAssertTrue(reason.contains("not a regular file"), reason)
    }

    /// Files written before the header existed (HDF5 from offset 0) still read.
    func testFilesWithoutTheHeaderStillRead() throws {
        let directory = try temporaryDirectory(self)
        let source = directory.appendingPathComponent("new.h5")
        let model = sampleModel()
        try model.write(to: source)
        let bytes = try Data(contentsOf: source)
        XCTAssertTrue(bytes.starts(with: Array("coach-model \(bytes.count) ".utf8)))
        XCTAssertEqual(Array(bytes[512..<520]), [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A])
        // An HDF5 file with the user block removed is what older Coach versions wrote: the
        // addresses inside are relative to the superblock, so it stays a valid file.
        let old = directory.appendingPathComponent("old.h5")
        try bytes.dropFirst(512).write(to: old)
        let read = try ModelFile.read(from: old)
        func bits(_ file: ModelFile) -> [String: [UInt32]] { file.tensors.mapValues { $0.scalars.map(\.bitPattern) } }
        XCTAssertEqual(bits(read), bits(try ModelFile.read(from: source)))
        XCTAssertEqual(read.metadata.classLabels, model.metadata.classLabels)
    }

    func testHDF5FileWithoutFormatIsNotACoachModel() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("foreign.h5")
        let fixture = try HDF5Fixture(url)
        fixture.floatDataset("data", shape: [2], values: [1, 2])
        fixture.close()
        XCTAssertEqual(readError(url), .notACoachModel(path: url.path, reason: "it has no root attribute 'format'"))
        XCTAssertTrue(readError(url)?.localizedDescription.contains("format = \"coach-model\"") ?? false)
    }

    func testHDF5FileWithAnotherFormatIsNotACoachModel() throws {
        let directory = try temporaryDirectory(self)
        let other = directory.appendingPathComponent("keras.h5")
        var fixture = try HDF5Fixture(other)
        fixture.stringAttribute("format", "keras")
        fixture.close()
        XCTAssertEqual(readError(other), .notACoachModel(path: other.path, reason: "its format is \"keras\""))

        let numeric = directory.appendingPathComponent("numeric.h5")
        fixture = try HDF5Fixture(numeric)
        fixture.floatAttribute("format", 1)
        fixture.close()
        XCTAssertEqual(readError(numeric), .notACoachModel(
            path: numeric.path, reason: "its root attribute 'format' holds a floating-point number, expected a string"))
    }

    /// A backbone file without the weights checksum (what an older Coach imported) is refused with
    /// how to import it again (issue 14: a bit-flipped one classified a photo as "100 % sorrel").
    func testBackboneWithoutItsWeightsChecksumIsRefused() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("efficientnet-lite0.h5")
        try coachLike(url, weights: { fixture in
            fixture.group("weights")
            fixture.floatDataset("weights/stem.conv.weight", shape: [2], values: [1, 2])
        })
        XCTAssertFalse(try ModelFile.read(from: url).weightsAreChecked)
        // What `coach inspect` prints instead of calling the file fine (issue 14, the campaign's fourth run).
        let warning = try XCTUnwrap(try ModelFile.read(from: url).unverifiedWeightsWarning)
        XCTAssertTrue(warning.contains(url.path) && warning.contains("every command refuses it"), warning)
        XCTAssertThrowsError(try Backbone.load(from: url)) { error in
            guard case .unverified(let path)? = error as? BackboneError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, url.path)
            XCTAssertTrue(error.localizedDescription.contains("make weights"), error.localizedDescription)
        }
        let written = url.deletingLastPathComponent().appendingPathComponent("new.h5")
        try ModelFile(metadata: ModelMetadata(task: .backbone), tensors: ["w": Tensor([1, 2])]).write(to: written)
        XCTAssertTrue(try ModelFile.read(from: written).weightsAreChecked)
        XCTAssertNil(try ModelFile.read(from: written).unverifiedWeightsWarning)
    }

    /// Writes a file shaped like a Coach model, with the given root attributes.
    private func coachLike(_ url: URL, version: Int64? = 1, metadata: String? = #"{"task":"backbone"}"#,
                           variableLength: Bool = false, weights: ((HDF5Fixture) -> Void)? = { $0.group("weights") }) throws {
        let fixture = try HDF5Fixture(url)
        if variableLength {
            fixture.variableLengthStringAttribute("format", "coach-model")
        } else {
            fixture.stringAttribute("format", "coach-model")
        }
        if let version { fixture.integerAttribute("format_version", version) }
        if let metadata {
            if variableLength {
                fixture.variableLengthStringAttribute("metadata", metadata)
            } else {
                fixture.stringAttribute("metadata", metadata)
            }
        }
        weights?(fixture)
        fixture.close()
    }

    func testFilesFromOtherWritersWithVariableLengthStringsRead() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("h5py-style.h5")
        try coachLike(url, metadata: #"{"task":"image-classifier","classLabels":["a","b"],"future":{"x":1}}"#,
                      variableLength: true, weights: {
                          $0.group("weights")
                          $0.floatDataset("weights/fc.weight", shape: [2, 3], values: [1, 2, 3, 4, 5, 6])
                      })
        let model = try ModelFile.read(from: url)
        XCTAssertEqual(model.metadata.task, .imageClassifier)
        XCTAssertEqual(model.metadata.classLabels, ["a", "b"])
        XCTAssertEqual(model.metadata.creator.coachVersion, "unknown")
        XCTAssertEqual(model.tensors["fc.weight"], Tensor(shape: [2, 3], scalars: [1, 2, 3, 4, 5, 6]))
    }

    func testNewerFormatVersionIsRejectedWithAnUpgradeHint() throws {
        let url = try temporaryDirectory(self).appendingPathComponent("future.h5")
        try coachLike(url, version: 2)
        let error = readError(url)
        XCTAssertEqual(error, .unsupportedFormatVersion(path: url.path, found: 2, supported: 1))
        XCTAssertTrue(error?.localizedDescription.contains("upgrade Coach") ?? false)
    }

    func testMissingOrInvalidFormatVersion() throws {
        let directory = try temporaryDirectory(self)
        let missing = directory.appendingPathComponent("missing.h5")
        try coachLike(missing, version: nil)
        XCTAssertEqual(readError(missing), .damaged(path: missing.path, detail: "the root attribute 'format_version' is missing"))
        let zero = directory.appendingPathComponent("zero.h5")
        try coachLike(zero, version: 0)
        guard case .damaged? = readError(zero) else { return XCTFail() }
    }

    func testMalformedMetadataNamesTheJSONPath() throws {
        let directory = try temporaryDirectory(self)
        let cases: [(String?, String, String)] = [
            (nil, "$", "the root attribute 'metadata' is missing"),
            (#"{"task": "image-classifier", "#, "$", "not valid JSON"),
            (#"{"name": "no task"}"#, "$.task", "required key 'task' is missing"),
            (#"{"task": "image-classifier", "classLabels": "board"}"#, "$.classLabels", "expected an array"),
            (#"{"task": "x", "input": {"image": {"width": "224", "height": 224}}}"#, "$.input.image.width", "expected an integer"),
            (#"{"task": "x", "classLabels": ["a", 3]}"#, "$.classLabels[1]", "expected a string"),
            (#"{"task": "x", "metrics": {"accuracy": "high"}}"#, "$.metrics.accuracy", "expected a number"),
            (#"["task"]"#, "$", "expected an object"),
        ]
        for (index, (json, path, reason)) in cases.enumerated() {
            let url = directory.appendingPathComponent("metadata-\(index).h5")
            try coachLike(url, metadata: json)
            guard case .malformedMetadata(let file, let jsonPath, let message)? = readError(url) else {
                XCTFail("case \(index): expected malformedMetadata")
                continue
            }
            XCTAssertEqual(file, url.path)
            XCTAssertEqual(jsonPath, path, "case \(index)")
            XCTAssertTrue(message.contains(reason), "case \(index): '\(message)' lacks '\(reason)'")
        }
    }

    func testWeightsThatAreNotFloat32TensorsAreNamed() throws {
        let directory = try temporaryDirectory(self)
        let noGroup = directory.appendingPathComponent("no-weights.h5")
        try coachLike(noGroup, weights: nil)
        XCTAssertEqual(readError(noGroup), .damaged(path: noGroup.path, detail: "the group '/weights' is missing"))

        let doubles = directory.appendingPathComponent("doubles.h5")
        try coachLike(doubles, weights: {
            $0.group("weights")
            $0.floatDataset("weights/a", shape: [1], values: [1])
            $0.doubleDataset("weights/b", shape: [2], values: [1, 2])
        })
        XCTAssertEqual(readError(doubles), .invalidTensor(path: doubles.path, name: "b", reason: "holds 64-bit floats, expected 32-bit floats"))
        XCTAssertThrowsError(try ModelFileSummary.read(from: doubles))

        let integers = directory.appendingPathComponent("integers.h5")
        try coachLike(integers, weights: {
            $0.group("weights")
            $0.integerDataset("weights/steps", shape: [], values: [3])
        })
        XCTAssertEqual(readError(integers), .invalidTensor(path: integers.path, name: "steps", reason: "holds an integer, expected 32-bit floats"))

        let nested = directory.appendingPathComponent("nested.h5")
        try coachLike(nested, weights: {
            $0.group("weights")
            $0.group("weights/blocks")
        })
        XCTAssertEqual(readError(nested), .invalidTensor(path: nested.path, name: "blocks", reason: "is a group or named type, not a dataset"))
    }
}

/// A byte changed in a model file's weights after writing is found on load (issue 14: a backbone
/// with flipped bits trained without complaint).
final class WeightsChecksumTests: XCTestCase {
    func testFlippedWeightIsDetected() throws {
        let folder = try temporaryDirectory(self)
        let url = folder.appendingPathComponent("m.h5")
        let marker: Float = 1234.5678
        let file = ModelFile(metadata: ModelMetadata(task: "checksum-test"),
                             tensors: ["layer.weight": Tensor(shape: [64], scalars: [Float](repeating: marker, count: 64)),
                                       "layer.empty": Tensor(shape: [0], scalars: [])])
        try file.write(to: url)
        XCTAssertEqual(try ModelFile.read(from: url).tensors["layer.weight"]?.scalars.first, marker)
        var bytes = [UInt8](try Data(contentsOf: url))
        let pattern = withUnsafeBytes(of: marker.bitPattern.littleEndian) { Array($0) }
        let start = try XCTUnwrap((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == pattern })
        bytes[start + 100] ^= 0x40
        try Data(bytes).write(to: url)
        XCTAssertThrowsError(try ModelFile.read(from: url)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.contains("m.h5") && text.contains("do not match"), text)
        }
    }
}
