import CoachModels
import CoachRandom
import CoachTensor
import Foundation
import TestSupport
import XCTest

/// The real checkpoint: `$COACH_BACKBONE_PTH`, or `<repository>/.cache/efficientnet-lite0-57934424.pth`
/// (where `make weights` puts it); skips loudly when absent.
func requireBackboneCheckpoint(file: String = #fileID, function: String = #function) throws -> URL {
    let environment = ProcessInfo.processInfo.environment["COACH_BACKBONE_PTH"] ?? ""
    let url = environment.isEmpty
        ? SharedData.repositoryRoot.appendingPathComponent(".cache/efficientnet-lite0-57934424.pth")
        : URL(fileURLWithPath: environment)
    guard FileManager.default.fileExists(atPath: url.path) else {
        let message = "SKIPPED: the backbone checkpoint is not at \(url.path); run `make weights` or set COACH_BACKBONE_PTH"
        FileHandle.standardError.write(Data((message + "\n").utf8))
        throw skipTest(message, file: file, function: function)
    }
    return url
}

final class EfficientNetLite0ImporterTests: XCTestCase {
    /// The PyTorch state dict of EfficientNet-Lite0, restated here from the reference's
    /// STAGES table (kernel, stride, expand, out channels, repeats) independently of the importer.
    static func torchShapes() -> [(String, [Int])] {
        let stages = [(3, 1, 1, 16, 1), (3, 2, 6, 24, 2), (5, 2, 6, 40, 2), (3, 2, 6, 80, 3),
                      (5, 1, 6, 112, 3), (5, 2, 6, 192, 4), (3, 1, 6, 320, 1)]
        var shapes: [(String, [Int])] = []
        func bn(_ prefix: String, _ channels: Int) {
            for suffix in ["weight", "bias", "running_mean", "running_var"] { shapes.append(("\(prefix).\(suffix)", [channels])) }
            shapes.append(("\(prefix).num_batches_tracked", []))
        }
        shapes.append(("_conv_stem.weight", [32, 3, 3, 3])); bn("_bn0", 32)
        var channels = 32, index = 0
        for (kernel, _, expand, output, repeats) in stages {
            for _ in 0..<repeats {
                let middle = channels * expand, prefix = "_blocks.\(index)"
                if expand != 1 { shapes.append(("\(prefix)._expand_conv.weight", [middle, channels, 1, 1])); bn("\(prefix)._bn0", middle) }
                shapes.append(("\(prefix)._depthwise_conv.weight", [middle, 1, kernel, kernel])); bn("\(prefix)._bn1", middle)
                shapes.append(("\(prefix)._project_conv.weight", [output, middle, 1, 1])); bn("\(prefix)._bn2", output)
                channels = output
                index += 1
            }
        }
        shapes.append(("_conv_head.weight", [1280, 320, 1, 1])); bn("_bn1", 1280)
        shapes.append(("_fc.weight", [1000, 1280])); shapes.append(("_fc.bias", [1000]))
        return shapes
    }

    /// A synthetic checkpoint with EfficientNet-Lite0's names and shapes and seeded random values.
    static func syntheticCheckpoint(seed: UInt64 = 1) -> TorchLegacyCheckpoint {
        var generator = SeededGenerator(seed: seed)
        return TorchLegacyCheckpoint(entries: torchShapes().map { name, shape in
            if name.hasSuffix("num_batches_tracked") {
                return .init(name: name, storageType: "LongStorage", shape: [], values: .integer([0]))
            }
            let count = shape.reduce(1, *)
            return .init(name: name, storageType: "FloatStorage", shape: shape,
                         values: .float32((0..<count).map { _ in generator.nextNormal() }))
        })
    }

    /// Row-major flat index.
    private func flat(_ index: [Int], _ shape: [Int]) -> Int { zip(index, shape).reduce(0) { $0 * $1.1 + $1.0 } }

    func testSyntheticCheckpointMapsEveryTensorWithCoachLayouts() throws {
        let checkpoint = Self.syntheticCheckpoint()
        let imported = try EfficientNetLite0Importer.convert(checkpoint, path: "synthetic.pth",
                                                             sourceFileName: "synthetic.pth", sourceSHA256: "abc123")
        XCTAssertEqual(imported.importedTensorCount, 247)
        XCTAssertEqual(imported.droppedTensorNames.count, 49)
        XCTAssertTrue(imported.droppedTensorNames.allSatisfy { $0.hasSuffix(".num_batches_tracked") })
        XCTAssertEqual(imported.parameterCount, 4_694_024)  // shared/README.md: weights, biases and BN statistics
        let model = imported.model
        XCTAssertNoThrow(try model.checkTensors(EfficientNetLite0Layout.parameterShapes))

        func source(_ name: String) -> [Float] {
            guard case .float32(let values)? = checkpoint[name]?.values else { return [] }
            return values
        }
        var generator = SeededGenerator(seed: 9)
        // Convolutions: HWIO[h, w, i, o] = OIHW[o, i, h, w].
        for (torchName, coachName) in [("_conv_stem.weight", "stem.conv.weight"),
                                        ("_blocks.5._expand_conv.weight", "blocks.5.expand.conv.weight"),
                                        ("_blocks.15._project_conv.weight", "blocks.15.project.conv.weight"),
                                        ("_conv_head.weight", "head.conv.weight")] {
            let torchShape = checkpoint[torchName]!.shape
            let tensor = try XCTUnwrap(model.tensors[coachName])
            XCTAssertEqual(tensor.shape, [torchShape[2], torchShape[3], torchShape[1], torchShape[0]])
            for _ in 0..<50 {
                let (o, i) = (generator.nextInt(below: torchShape[0]), generator.nextInt(below: torchShape[1]))
                let (h, w) = (generator.nextInt(below: torchShape[2]), generator.nextInt(below: torchShape[3]))
                XCTAssertEqual(tensor[h, w, i, o], source(torchName)[flat([o, i, h, w], torchShape)], coachName)
            }
        }
        // Depthwise: [kh, kw, C][h, w, c] = [C, 1, kh, kw][c, 0, h, w].
        let depthwise = try XCTUnwrap(model.tensors["blocks.3.depthwise.conv.weight"])
        XCTAssertEqual(depthwise.shape, [5, 5, 144])
        for _ in 0..<50 {
            let (c, h, w) = (generator.nextInt(below: 144), generator.nextInt(below: 5), generator.nextInt(below: 5))
            XCTAssertEqual(depthwise[h, w, c], source("_blocks.3._depthwise_conv.weight")[flat([c, 0, h, w], [144, 1, 5, 5])])
        }
        // Classifier: [in, out][i, o] = fc[out, in][o, i].
        let classifier = try XCTUnwrap(model.tensors["classifier.weight"])
        XCTAssertEqual(classifier.shape, [1280, 1000])
        for _ in 0..<50 {
            let (o, i) = (generator.nextInt(below: 1000), generator.nextInt(below: 1280))
            XCTAssertEqual(classifier[i, o], source("_fc.weight")[o * 1280 + i])
        }
        // Batch norm renamed, values unchanged.
        XCTAssertEqual(model.tensors["blocks.7.depthwise.bn.runningVariance"]?.scalars, source("_blocks.7._bn1.running_var"))
        XCTAssertEqual(model.tensors["blocks.7.expand.bn.scale"]?.scalars, source("_blocks.7._bn0.weight"))
        XCTAssertEqual(model.tensors["head.bn.offset"]?.scalars, source("_bn1.bias"))
        XCTAssertEqual(model.tensors["stem.bn.runningMean"]?.scalars, source("_bn0.running_mean"))
        XCTAssertEqual(model.tensors["classifier.bias"]?.scalars, source("_fc.bias"))
        XCTAssertNil(model.tensors["blocks.0.expand.conv.weight"], "block 0 has expand ratio 1")

        // Metadata.
        let metadata = model.metadata
        XCTAssertEqual(metadata.task, .backbone)
        XCTAssertEqual(metadata.name, "efficientnet-lite0")
        XCTAssertEqual(metadata.input?.image?.width, 224)
        XCTAssertEqual(metadata.input?.image?.height, 224)
        XCTAssertEqual(metadata.input?.image?.mean, [127, 127, 127])
        XCTAssertEqual(metadata.input?.image?.standardDeviation, [128, 128, 128])
        XCTAssertEqual(metadata.input?.image?.pixelRange, ValueRange(minimum: 0, maximum: 255))
        XCTAssertEqual(metadata.input?.image?.layout, "NHWC")
        let architecture = try XCTUnwrap(metadata.extra["architecture"]?.objectValue)
        XCTAssertEqual(architecture["batchNormEpsilon"]?.numberValue, 1e-3)
        XCTAssertEqual(architecture["padding"]?.stringValue, "tensorflow-same")
        let blocks = try XCTUnwrap(architecture["blocks"]).decoded(as: [MBConvBlockSpecification].self)
        XCTAssertEqual(blocks, EfficientNetLite0Layout.blocks)
        XCTAssertEqual(blocks.count, 16)
        XCTAssertEqual(blocks[3], MBConvBlockSpecification(kernelSize: 5, stride: 2, expandRatio: 6, inputChannels: 24, outputChannels: 40))
        XCTAssertEqual(metadata.extra["source"]?.objectValue?["sha256"]?.stringValue, "abc123")
        XCTAssertEqual(metadata.extra["source"]?.objectValue?["file"]?.stringValue, "synthetic.pth")
    }

    func testEveryMismatchIsListed() throws {
        var entries = Self.syntheticCheckpoint().entries
        entries.removeAll { $0.name == "_blocks.4._bn1.running_var" }
        entries.append(.init(name: "_blocks.16._depthwise_conv.weight", storageType: "FloatStorage", shape: [1],
                             values: .float32([0])))
        let index = entries.firstIndex { $0.name == "_fc.bias" }!
        entries[index] = .init(name: "_fc.bias", storageType: "FloatStorage", shape: [10], values: .float32(Array(repeating: 0, count: 10)))
        let counter = entries.firstIndex { $0.name == "_bn0.num_batches_tracked" }!
        entries[counter] = .init(name: "_bn0.num_batches_tracked", storageType: "FloatStorage", shape: [], values: .float32([0]))
        let half = entries.firstIndex { $0.name == "_bn0.bias" }!
        entries[half] = .init(name: "_bn0.bias", storageType: "HalfStorage", shape: [32], values: .unsupported(storageType: "HalfStorage"))
        let short = entries.firstIndex { $0.name == "_bn1.bias" }!
        entries[short] = .init(name: "_bn1.bias", storageType: "FloatStorage", shape: [1280], values: .float32([1, 2, 3]))

        XCTAssertThrowsError(try EfficientNetLite0Importer.convert(
            TorchLegacyCheckpoint(entries: entries), path: "odd.pth", sourceFileName: "odd.pth", sourceSHA256: "")) { error in
            guard case .architectureMismatch(let path, _, let problems)? = error as? TorchCheckpointError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(path, "odd.pth")
            XCTAssertEqual(problems.count, 6, problems.joined(separator: "\n"))
            let message = error.localizedDescription
            for fragment in ["missing tensor '_blocks.4._bn1.running_var' [240]", "unexpected tensor '_blocks.16._depthwise_conv.weight'",
                             "'_fc.bias' has shape [10], expected [1000]", "'_bn0.num_batches_tracked' should be an integer scalar",
                             "'_bn0.bias' is stored as HalfStorage",
                             "'_bn1.bias' has 3 values for shape [1280]", "6 problems"] {
                XCTAssertTrue(message.contains(fragment), "'\(fragment)' not in \(message)")
            }
        }
    }

    func testImportedModelRoundTripsDeterministically() throws {
        let directory = try temporaryDirectory(self)
        let imported = try EfficientNetLite0Importer.convert(Self.syntheticCheckpoint(), path: "s.pth",
                                                             sourceFileName: "s.pth", sourceSHA256: "00")
        let first = directory.appendingPathComponent("first.h5"), second = directory.appendingPathComponent("second.h5")
        try imported.model.write(to: first)
        let again = try EfficientNetLite0Importer.convert(Self.syntheticCheckpoint(), path: "s.pth",
                                                          sourceFileName: "s.pth", sourceSHA256: "00")
        try again.model.write(to: second)
        XCTAssertEqual(try Data(contentsOf: first), try Data(contentsOf: second))
        let read = try ModelFile.read(from: first)
        XCTAssertEqual(read, imported.model)
        XCTAssertNoThrow(try read.checkTensors(EfficientNetLite0Layout.parameterShapes))
    }

    /// The real weights. Expected numbers were computed once with python3 + numpy using
    /// `effnet_reference.load_weights` from ../shared/reference/efficientnet-lite0 (then
    /// transposed to Coach's layouts in numpy) — an independent reader of the same file.
    func testRealCheckpoint() throws {
        let url = try requireBackboneCheckpoint()
        let checkpoint = try TorchLegacyCheckpoint.read(from: url)
        XCTAssertEqual(checkpoint.entries.count, 296)
        XCTAssertEqual(checkpoint.entries.filter { $0.floatTensor != nil }.count, 247)
        XCTAssertEqual(checkpoint.entries.filter { if case .integer = $0.values { return true } else { return false } }.count, 49)
        // Raw torch layout; _fc.weight is stored transposed (strides (1, 1000)) in the file.
        XCTAssertEqual(checkpoint["_fc.weight"]?.floatTensor?[999, 1279], 0.04085797071456909)
        XCTAssertEqual(checkpoint["_fc.weight"]?.floatTensor?[1, 0], -0.0049702562391757965)
        XCTAssertEqual(checkpoint["_conv_stem.weight"]?.floatTensor?[31, 2, 0, 1], 0.0)
        var total = 0.0
        for entry in checkpoint.entries { total += entry.floatTensor?.scalars.reduce(0.0) { $0 + Double($1) } ?? 0 }
        XCTAssertEqual(total, 425663.2450015556, accuracy: 1e-6 * 425663)

        let imported = try EfficientNetLite0Importer.importCheckpoint(at: url)
        XCTAssertEqual(imported.sourceSHA256, "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db")
        XCTAssertEqual(imported.importedTensorCount, 247)
        XCTAssertEqual(imported.droppedTensorNames.count, 49)
        XCTAssertEqual(imported.parameterCount, 4_694_024)
        let tensors = imported.model.tensors
        func bitsAt(_ name: String, _ index: Int...) -> UInt32? {
            guard let tensor = tensors[name] else { return nil }
            return tensor.scalars[flat(index, tensor.shape)].bitPattern
        }
        // Bit patterns from numpy (`array[index].view(np.uint32)`).
        XCTAssertEqual(bitsAt("stem.conv.weight", 0, 0, 0, 0), 3_213_762_430)  // -1.1103360652923584
        XCTAssertEqual(bitsAt("stem.conv.weight", 2, 1, 2, 31), 847_249_408)  // 1.4901161193847656e-08
        XCTAssertEqual(bitsAt("blocks.3.depthwise.conv.weight", 4, 0, 143), 3_171_258_328)  // -0.03260788321495056
        XCTAssertEqual(bitsAt("classifier.weight", 1279, 999), 1_025_989_296)  // 0.04085797071456909
        XCTAssertEqual(bitsAt("classifier.weight", 0, 1), 3_148_012_936)  // -0.0049702562391757965
        XCTAssertEqual(bitsAt("blocks.15.project.bn.runningVariance", 319), 1_080_540_160)  // 3.620849609375
        XCTAssertEqual(bitsAt("head.bn.offset", 7), 3_230_109_348)  // -4.236162185668945
        XCTAssertEqual(bitsAt("blocks.1.expand.conv.weight", 0, 0, 15, 95), 3_185_318_740)  // -0.10747399926185608
        // Sums and absolute sums in float64, from numpy.
        let sums: [(String, Double, Double)] = [
            ("stem.conv.weight", -26.811376610887237, 387.1200224778149),
            ("blocks.3.depthwise.conv.weight", 25.451435315888375, 513.314901556354),
            ("classifier.weight", -470.63256730128705, 65336.67289497613),
            ("classifier.bias", -0.04981697298353538, 32.85884447465651),
            ("head.bn.runningVariance", 13721.746045589447, 13721.746045589447),
            ("blocks.12.expand.conv.weight", -144.2477153401269, 10205.61857692618),
        ]
        for (name, sum, absoluteSum) in sums {
            let scalars = try XCTUnwrap(tensors[name]).scalars
            XCTAssertEqual(scalars.reduce(0.0) { $0 + Double($1) }, sum, accuracy: 1e-9 * absoluteSum, name)
            XCTAssertEqual(scalars.reduce(0.0) { $0 + Double(abs($1)) }, absoluteSum, accuracy: 1e-9 * absoluteSum, name)
        }
        XCTAssertEqual(imported.model.metadata.extra["source"]?.objectValue?["file"]?.stringValue, url.lastPathComponent)
    }
}
