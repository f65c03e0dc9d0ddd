import Foundation

// The messages of Core ML's specification (`Model.proto`, `FeatureTypes.proto`,
// `NeuralNetwork.proto`, `DataStructures.proto`, `NonMaximumSuppression.proto`; proto3) that
// Coach's exports need, each with that schema's field numbers. As protobuf's own serialiser
// does for proto3, fields holding their default value (0, false, "", empty) are not written
// and repeated numbers are packed, so the same model gives the same bytes.

/// A whole `.mlmodel` file (`Model`).
public struct CoreMLModel: Sendable {
    /// What the model is.
    public enum Body: Sendable {
        /// `NeuralNetwork` (500): multi-array or image outputs.
        case neuralNetwork(CoreMLNeuralNetwork)
        /// `NeuralNetworkClassifier` (403): the network, its class labels, and the blob that
        /// holds the class probabilities (`labelProbabilityLayerName`).
        case neuralNetworkClassifier(CoreMLNeuralNetwork, labels: [String], probabilities: String)
        /// `Pipeline` (202): models run in order, each reading earlier features.
        case pipeline([CoreMLModel])
        /// `NonMaximumSuppression` (610).
        case nonMaximumSuppression(CoreMLNonMaximumSuppression)
    }

    /// `specificationVersion`: the oldest Core ML that reads the file (4 = Core ML 3: iOS 13, macOS 10.15).
    public var specificationVersion: Int
    /// `description`.
    public var description: CoreMLModelDescription
    /// The `Type` oneof.
    public var body: Body

    /// A model.
    public init(specificationVersion: Int, description: CoreMLModelDescription, body: Body) {
        self.specificationVersion = specificationVersion
        self.description = description
        self.body = body
    }

    /// A `NeuralNetworkClassifier` of `network`, whose blob `probabilities` holds the class
    /// probabilities: outputs `probabilities` (label → probability) and `label` (the most probable).
    public static func classifier(_ network: CoreMLNeuralNetwork, inputs: [CoreMLFeature], labels: [String], label: String,
                                  probabilities: String, labelDescription: String, probabilitiesDescription: String,
                                  metadata: CoreMLMetadata, specificationVersion: Int) -> CoreMLModel {
        let description = CoreMLModelDescription(
            inputs: inputs,
            outputs: [CoreMLFeature(name: probabilities, shortDescription: probabilitiesDescription, type: .stringKeyedDictionary),
                      CoreMLFeature(name: label, shortDescription: labelDescription, type: .string)],
            predictedFeature: label, predictedProbabilities: probabilities, metadata: metadata)
        return CoreMLModel(specificationVersion: specificationVersion, description: description,
                           body: .neuralNetworkClassifier(network, labels: labels, probabilities: probabilities))
    }

    /// The file's bytes.
    public func serialized() -> Data { Data(encoded()) }

    func encoded() -> [UInt8] {
        var writer = ProtobufWriter()
        writer.writeInteger(1, Int64(specificationVersion))
        writer.writeMessage(2) { description.encode(into: &$0) }
        switch body {
        case let .neuralNetwork(network):
            writer.writeMessage(500) { network.encode(into: &$0) }
        case let .neuralNetworkClassifier(network, labels, probabilities):
            writer.writeMessage(403) { writer in
                network.encode(into: &writer)
                writer.writeMessage(100) { vector in for label in labels { vector.writeString(1, label) } }
                writer.writeString(200, probabilities)
            }
        case let .pipeline(models):
            writer.writeMessage(202) { pipeline in
                for model in models { pipeline.writeBytes(1, model.encoded()) }
            }
        case let .nonMaximumSuppression(suppression):
            writer.writeMessage(610) { suppression.encode(into: &$0) }
        }
        return writer.bytes
    }
}

/// `ModelDescription`: the interface and the metadata.
public struct CoreMLModelDescription: Sendable {
    /// `input` (1).
    public var inputs: [CoreMLFeature]
    /// `output` (10).
    public var outputs: [CoreMLFeature]
    /// `predictedFeatureName` (11): a classifier's label output.
    public var predictedFeature: String?
    /// `predictedProbabilitiesName` (12): a classifier's probability dictionary.
    public var predictedProbabilities: String?
    /// `metadata` (100).
    public var metadata: CoreMLMetadata

    /// A description.
    public init(inputs: [CoreMLFeature], outputs: [CoreMLFeature], predictedFeature: String? = nil,
                predictedProbabilities: String? = nil, metadata: CoreMLMetadata = CoreMLMetadata()) {
        self.inputs = inputs
        self.outputs = outputs
        self.predictedFeature = predictedFeature
        self.predictedProbabilities = predictedProbabilities
        self.metadata = metadata
    }

    func encode(into writer: inout ProtobufWriter) {
        for input in inputs { writer.writeMessage(1) { input.encode(into: &$0) } }
        for output in outputs { writer.writeMessage(10) { output.encode(into: &$0) } }
        if let predictedFeature { writer.writeString(11, predictedFeature) }
        if let predictedProbabilities { writer.writeString(12, predictedProbabilities) }
        writer.writeMessage(100) { metadata.encode(into: &$0) }
    }
}

/// `Metadata`: what Xcode shows about a model.
public struct CoreMLMetadata: Sendable {
    /// `shortDescription` (1).
    public var shortDescription = ""
    /// `versionString` (2).
    public var version = ""
    /// `author` (3).
    public var author = ""
    /// `license` (4).
    public var license = ""
    /// `userDefined` (100), written in key order.
    public var userDefined: [String: String] = [:]

    /// Empty metadata.
    public init() {}

    func encode(into writer: inout ProtobufWriter) {
        writer.writeNonEmptyString(1, shortDescription)
        writer.writeNonEmptyString(2, version)
        writer.writeNonEmptyString(3, author)
        writer.writeNonEmptyString(4, license)
        for key in userDefined.keys.sorted() {
            writer.writeMessage(100) { entry in
                entry.writeString(1, key)
                entry.writeString(2, userDefined[key]!)
            }
        }
    }
}

/// `FeatureDescription`: one input or output.
public struct CoreMLFeature: Sendable {
    /// `FeatureType`'s `Type` oneof.
    public enum FeatureType: Sendable {
        /// `doubleType` (2).
        case double
        /// `stringType` (3).
        case string
        /// `imageType` (4): an RGB image of exactly `width × height`.
        case rgbImage(width: Int, height: Int)
        /// `multiArrayType` (5), float32 or (`double`) float64, exactly `shape`.
        case multiArray(shape: [Int], double: Bool = false)
        /// `multiArrayType` (5), float32 or (`double`) float64, each dimension within a range
        /// (`shapeRange`, 31; an upper bound of -1 is unbounded) — NMS outputs, whose box count varies.
        case flexibleMultiArray(ranges: [(lower: Int, upper: Int)], double: Bool = false)
        /// `dictionaryType` (6) with string keys (a classifier's probabilities).
        case stringKeyedDictionary
    }

    /// `name` (1).
    public var name: String
    /// `shortDescription` (2).
    public var shortDescription: String
    /// `type` (3).
    public var type: FeatureType
    /// `FeatureType.isOptional` (1000).
    public var isOptional: Bool

    /// A feature.
    public init(name: String, shortDescription: String, type: FeatureType, isOptional: Bool = false) {
        self.name = name
        self.shortDescription = shortDescription
        self.type = type
        self.isOptional = isOptional
    }

    func encode(into writer: inout ProtobufWriter) {
        writer.writeString(1, name)
        writer.writeNonEmptyString(2, shortDescription)
        writer.writeMessage(3) { type in
            switch self.type {
            case .double:
                type.writeMessage(2) { _ in }
            case .string:
                type.writeMessage(3) { _ in }
            case let .rgbImage(width, height):
                type.writeMessage(4) { image in
                    image.writeInteger(1, Int64(width))
                    image.writeInteger(2, Int64(height))
                    image.writeInteger(3, 20)   // ColorSpace.RGB
                }
            case let .multiArray(shape, double):
                type.writeMessage(5) { array in
                    array.writePackedIntegers(1, shape.map(Int64.init))
                    array.writeInteger(2, double ? 65600 : 65568)   // ArrayDataType.DOUBLE / FLOAT32
                }
            case let .flexibleMultiArray(ranges, double):
                type.writeMessage(5) { array in
                    array.writeInteger(2, double ? 65600 : 65568)   // ArrayDataType.DOUBLE / FLOAT32
                    array.writeMessage(31) { shapeRange in
                        for range in ranges {
                            shapeRange.writeMessage(1) { size in
                                if range.lower != 0 { size.writeInteger(1, Int64(range.lower)) }
                                if range.upper != 0 { size.writeInteger(2, Int64(range.upper)) }
                            }
                        }
                    }
                }
            case .stringKeyedDictionary:
                type.writeMessage(6) { dictionary in dictionary.writeMessage(2) { _ in } }
            }
            if isOptional { type.writeInteger(1000, 1) }
        }
    }
}

/// `NeuralNetwork` (and the shared fields of `NeuralNetworkClassifier`).
public struct CoreMLNeuralNetwork: Sendable {
    /// `layers` (1), in execution order.
    public var layers: [CoreMLLayer] = []
    /// `preprocessing` (2): an image input's `NeuralNetworkImageScaler`, by input name.
    public var imageScalers: [(input: String, scale: Float, redBias: Float, greenBias: Float, blueBias: Float)] = []
    /// `arrayInputShapeMapping` (5) = EXACT_ARRAY_MAPPING: a multi-array input keeps its rank
    /// (the N-D layers' semantics); otherwise RANK5_ARRAY_MAPPING.
    public var exactArrayMapping = false
    /// `imageInputShapeMapping` (6) = RANK4_IMAGE_MAPPING: an image is [1, C, H, W].
    public var rank4ImageMapping = false

    /// An empty network.
    public init() {}

    func encode(into writer: inout ProtobufWriter) {
        for layer in layers { writer.writeMessage(1) { layer.encode(into: &$0) } }
        for scaler in imageScalers {
            writer.writeMessage(2) { preprocessing in
                preprocessing.writeString(1, scaler.input)
                preprocessing.writeMessage(10) { message in
                    message.writeNonZeroFloat(10, scaler.scale)
                    message.writeNonZeroFloat(20, scaler.blueBias)
                    message.writeNonZeroFloat(21, scaler.greenBias)
                    message.writeNonZeroFloat(22, scaler.redBias)
                }
            }
        }
        if exactArrayMapping { writer.writeInteger(5, 1) }
        if rank4ImageMapping { writer.writeInteger(6, 1) }
    }
}

/// `NeuralNetworkLayer`: one named layer with its input and output blobs.
public struct CoreMLLayer: Sendable {
    /// Padding of a convolution or pooling window (`ValidPadding` / `SamePadding`).
    public enum Padding: Sendable {
        /// `valid` with explicit `[top, bottom, left, right]` amounts.
        case valid(top: Int, bottom: Int, left: Int, right: Int)
        /// `same`, BOTTOM_RIGHT_HEAVY (TensorFlow's SAME: the odd pixel goes bottom/right).
        case same
    }

    /// An `ActivationParams` nonlinearity.
    public enum Activation: Sendable {
        /// `ReLU` (10).
        case relu
        /// `sigmoid` (40).
        case sigmoid
        /// `linear` (5): `alpha · x + beta`.
        case linear(alpha: Float, beta: Float)
    }

    /// The `layer` oneof.
    public enum Kind: Sendable {
        /// `convolution` (100): weights `[C_out, C_in / groups, kH, kW]`, taps `dilationHeight` rows apart.
        case convolution(outputChannels: Int, kernelChannels: Int, groups: Int, kernel: (height: Int, width: Int),
                         stride: (height: Int, width: Int), padding: Padding, weights: [Float], bias: [Float]?,
                         dilationHeight: Int = 1)
        /// `pooling` (120), global average over height and width.
        case globalAveragePooling
        /// `pooling` (120), average over `size × size` windows at stride `size`, no padding.
        case averagePooling(size: Int)
        /// `batchnorm` (160) with fixed statistics: `γ (x − μ) / √(σ² + ε) + β` per channel.
        case batchNorm(gamma: [Float], beta: [Float], mean: [Float], variance: [Float], epsilon: Float)
        /// `upsample` (210), nearest neighbour, by `factor` in height and width.
        case upsampleNearest(factor: Int)
        /// `unary` (220) EXP: `eˣ`.
        case exp
        /// `activation` (130).
        case activation(Activation)
        /// `innerProduct` (140): weights `[C_out, C_in]`.
        case innerProduct(inputChannels: Int, outputChannels: Int, weights: [Float], bias: [Float]?)
        /// `softmax` (175) over the channel axis (rank-5 blobs).
        case softmax
        /// `crop` (190): `[top, bottom, left, right]`.
        case crop(top: Int, bottom: Int, left: Int, right: Int)
        /// `add` (230) of the inputs.
        case add
        /// `clip` (660) to `[minimum, maximum]`.
        case clip(minimum: Float, maximum: Float)
        /// `addBroadcastable` (880): NumPy-broadcast sum of two inputs.
        case addBroadcastable
        /// `multiplyBroadcastable` (900): NumPy-broadcast product of two inputs.
        case multiplyBroadcastable
        /// `softmaxND` (950) along `axis`.
        case softmaxND(axis: Int)
        /// `concat` (320) along the channel axis (−3).
        case concat
        /// `concatND` (980) along `axis`.
        case concatND(axis: Int)
        /// `transpose` (985): output axis i is input axis `axes[i]`.
        case transpose(axes: [Int])
        /// `sliceStatic` (995): `[begin, end)` along every axis, step 1; a nil range keeps the whole axis.
        case sliceStatic([Range<Int>?])
        /// `loadConstantND` (1070): a constant of `shape`.
        case loadConstantND(shape: [Int], values: [Float])
        /// `reshapeStatic` (1140) to `shape`.
        case reshapeStatic(shape: [Int])
        /// `greaterThan` (830) of one input and `alpha`: 1 where `x > alpha`, else 0.
        case greaterThan(alpha: Float)
        /// `subtractBroadcastable` (905): first − second.
        case subtractBroadcastable
        /// `divideBroadcastable` (890): first / second.
        case divideBroadcastable
        /// `maxBroadcastable` (875).
        case maxBroadcastable
        /// `unary` (220) SQRT.
        case squareRoot
        /// `reduceSum` (1270) along `axes`.
        case reduceSum(axes: [Int], keepDimensions: Bool)
        /// `reduceMean` (1280) along `axes`.
        case reduceMean(axes: [Int], keepDimensions: Bool)
        /// `unary` (220) ABS.
        case absolute
        /// `reduceMax` (1260) along `axes`.
        case reduceMax(axes: [Int], keepDimensions: Bool)
        /// `batchedMatmul` (1045) of two inputs' last two axes (NumPy's `matmul`).
        case matrixProduct
        /// `batchedMatmul` (1045) of the input's last axis with `weights` [X1, X2] (given row-major;
        /// the file stores them column-major, as the specification says), plus `bias` [X2].
        case batchedMatMul(inputs: Int, outputs: Int, weights: [Float], bias: [Float]?)
    }

    /// `name` (1).
    public var name: String
    /// `input` (2).
    public var inputs: [String]
    /// `output` (3).
    public var outputs: [String]
    /// The layer's parameters.
    public var kind: Kind

    /// A layer.
    public init(_ name: String, inputs: [String], outputs: [String], _ kind: Kind) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.kind = kind
    }

    func encode(into writer: inout ProtobufWriter) {
        writer.writeString(1, name)
        for input in inputs { writer.writeString(2, input) }
        for output in outputs { writer.writeString(3, output) }
        switch kind {
        case let .convolution(outputChannels, kernelChannels, groups, kernel, stride, padding, weights, bias, dilationHeight):
            writer.writeMessage(100) { message in
                message.writeInteger(1, Int64(outputChannels))
                message.writeInteger(2, Int64(kernelChannels))
                if groups != 1 { message.writeInteger(10, Int64(groups)) }
                message.writePackedIntegers(20, [Int64(kernel.height), Int64(kernel.width)])
                message.writePackedIntegers(30, [Int64(stride.height), Int64(stride.width)])
                message.writePackedIntegers(40, [Int64(dilationHeight), 1])
                Self.encode(padding, validField: 50, sameField: 51, into: &message)
                if bias != nil { message.writeInteger(70, 1) }
                message.writeMessage(90) { $0.writePackedFloats(1, weights) }
                if let bias { message.writeMessage(91) { $0.writePackedFloats(1, bias) } }
            }
        case .globalAveragePooling:
            writer.writeMessage(120) { message in
                message.writeInteger(1, 1)   // AVERAGE
                message.writePackedIntegers(10, [1, 1])
                message.writePackedIntegers(20, [1, 1])
                message.writeMessage(30) { _ in }   // valid, no padding
                message.writeInteger(60, 1)   // globalPooling
            }
        case let .averagePooling(size):
            writer.writeMessage(120) { message in
                message.writeInteger(1, 1)   // AVERAGE
                message.writePackedIntegers(10, [Int64(size), Int64(size)])
                message.writePackedIntegers(20, [Int64(size), Int64(size)])
                message.writeMessage(30) { _ in }   // valid, no padding
            }
        case let .batchNorm(gamma, beta, mean, variance, epsilon):
            writer.writeMessage(160) { message in
                message.writeInteger(1, Int64(gamma.count))
                message.writeNonZeroFloat(10, epsilon)
                message.writeMessage(15) { $0.writePackedFloats(1, gamma) }
                message.writeMessage(16) { $0.writePackedFloats(1, beta) }
                message.writeMessage(17) { $0.writePackedFloats(1, mean) }
                message.writeMessage(18) { $0.writePackedFloats(1, variance) }
            }
        case let .upsampleNearest(factor):
            writer.writeMessage(210) { $0.writePackedIntegers(1, [Int64(factor), Int64(factor)]) }   // mode NN (0)
        case .exp:
            writer.writeMessage(220) { message in
                message.writeInteger(1, 4)   // EXP
                message.writeFloat(5, 1)   // scale
            }
        case let .activation(activation):
            writer.writeMessage(130) { message in
                switch activation {
                case .relu: message.writeMessage(10) { _ in }
                case .sigmoid: message.writeMessage(40) { _ in }
                case let .linear(alpha, beta):
                    message.writeMessage(5) { linear in
                        linear.writeNonZeroFloat(1, alpha)
                        linear.writeNonZeroFloat(2, beta)
                    }
                }
            }
        case let .innerProduct(inputChannels, outputChannels, weights, bias):
            writer.writeMessage(140) { message in
                message.writeInteger(1, Int64(inputChannels))
                message.writeInteger(2, Int64(outputChannels))
                if bias != nil { message.writeInteger(10, 1) }
                message.writeMessage(20) { $0.writePackedFloats(1, weights) }
                if let bias { message.writeMessage(21) { $0.writePackedFloats(1, bias) } }
            }
        case .softmax:
            writer.writeMessage(175) { _ in }
        case let .crop(top, bottom, left, right):
            writer.writeMessage(190) { message in
                message.writeMessage(1) { Self.encodeBorders(top, bottom, left, right, into: &$0) }
            }
        case .add:
            writer.writeMessage(230) { _ in }
        case let .clip(minimum, maximum):
            writer.writeMessage(660) { message in
                message.writeNonZeroFloat(1, minimum)
                message.writeNonZeroFloat(2, maximum)
            }
        case .addBroadcastable:
            writer.writeMessage(880) { _ in }
        case .multiplyBroadcastable:
            writer.writeMessage(900) { _ in }
        case let .softmaxND(axis):
            writer.writeMessage(950) { if axis != 0 { $0.writeInteger(1, Int64(axis)) } }
        case .concat:
            writer.writeMessage(320) { _ in }
        case let .concatND(axis):
            writer.writeMessage(980) { if axis != 0 { $0.writeInteger(1, Int64(axis)) } }
        case let .transpose(axes):
            writer.writeMessage(985) { $0.writePackedIntegers(1, axes.map(Int64.init)) }
        case let .sliceStatic(ranges):
            writer.writeMessage(995) { message in
                // A masked begin or end is ignored (the axis' start or end).
                message.writePackedIntegers(1, ranges.map { Int64($0?.lowerBound ?? 0) })
                message.writePackedIntegers(2, ranges.map { $0 == nil ? 1 : 0 })   // beginMasks
                message.writePackedIntegers(3, ranges.map { Int64($0?.upperBound ?? -1) })
                message.writePackedIntegers(4, ranges.map { $0 == nil ? 1 : 0 })   // endMasks
                message.writePackedIntegers(5, ranges.map { _ in 1 })   // strides
            }
        case let .loadConstantND(shape, values):
            writer.writeMessage(1070) { message in
                message.writePackedIntegers(1, shape.map(Int64.init))
                message.writeMessage(2) { $0.writePackedFloats(1, values) }
            }
        case let .reshapeStatic(shape):
            writer.writeMessage(1140) { $0.writePackedIntegers(1, shape.map(Int64.init)) }
        case let .greaterThan(alpha):
            writer.writeMessage(830) { $0.writeNonZeroFloat(2, alpha) }
        case .subtractBroadcastable:
            writer.writeMessage(905) { _ in }
        case .divideBroadcastable:
            writer.writeMessage(890) { _ in }
        case .maxBroadcastable:
            writer.writeMessage(875) { _ in }
        case .squareRoot:
            writer.writeMessage(220) { $0.writeFloat(5, 1) }   // SQRT (0), scale 1
        case .absolute:
            writer.writeMessage(220) { message in
                message.writeInteger(1, 6)   // ABS
                message.writeFloat(5, 1)   // scale
            }
        case let .reduceMax(axes, keepDimensions):
            writer.writeMessage(1260) { Self.encodeReduction(axes: axes, keepDimensions: keepDimensions, into: &$0) }
        case .matrixProduct:
            writer.writeMessage(1045) { _ in }
        case let .reduceSum(axes, keepDimensions):
            writer.writeMessage(1270) { Self.encodeReduction(axes: axes, keepDimensions: keepDimensions, into: &$0) }
        case let .reduceMean(axes, keepDimensions):
            writer.writeMessage(1280) { Self.encodeReduction(axes: axes, keepDimensions: keepDimensions, into: &$0) }
        case let .batchedMatMul(inputs, outputs, weights, bias):
            writer.writeMessage(1045) { message in
                message.writeInteger(5, Int64(inputs))
                message.writeInteger(6, Int64(outputs))
                if bias != nil { message.writeInteger(7, 1) }
                // "Weight matrix representing shape [X1, X2]. Values are however stored in column major order."
                var columnMajor = [Float](repeating: 0, count: weights.count)
                for i in 0..<inputs { for o in 0..<outputs { columnMajor[o * inputs + i] = weights[i * outputs + o] } }
                message.writeMessage(8) { $0.writePackedFloats(1, columnMajor) }
                if let bias { message.writeMessage(9) { $0.writePackedFloats(1, bias) } }
            }
        }
    }

    /// `axes` (1), `keepDims` (2) of a reduction.
    private static func encodeReduction(axes: [Int], keepDimensions: Bool, into writer: inout ProtobufWriter) {
        writer.writePackedIntegers(1, axes.map(Int64.init))
        if keepDimensions { writer.writeInteger(2, 1) }
    }

    private static func encode(_ padding: Padding, validField: Int, sameField: Int, into writer: inout ProtobufWriter) {
        switch padding {
        case let .valid(top, bottom, left, right):
            writer.writeMessage(validField) { valid in
                if top != 0 || bottom != 0 || left != 0 || right != 0 {
                    valid.writeMessage(1) { encodeBorders(top, bottom, left, right, into: &$0) }
                }
            }
        case .same:
            writer.writeMessage(sameField) { _ in }   // asymmetryMode BOTTOM_RIGHT_HEAVY (0)
        }
    }

    /// `BorderAmounts`: `borderAmounts` (10) = [height edges, width edges], each
    /// `EdgeSizes` (`startEdgeSize` 1, `endEdgeSize` 2).
    private static func encodeBorders(_ top: Int, _ bottom: Int, _ left: Int, _ right: Int, into writer: inout ProtobufWriter) {
        for (start, end) in [(top, bottom), (left, right)] {
            writer.writeMessage(10) { edges in
                if start != 0 { edges.writeInteger(1, Int64(start)) }
                if end != 0 { edges.writeInteger(2, Int64(end)) }
            }
        }
    }
}

/// `NonMaximumSuppression`: Vision's last step of an object detector.
public struct CoreMLNonMaximumSuppression: Sendable {
    /// `iouThreshold` (110).
    public var iouThreshold: Double
    /// `confidenceThreshold` (111).
    public var confidenceThreshold: Double
    /// `pickTop.perClass` (1).
    public var perClass: Bool
    /// `stringClassLabels` (100).
    public var labels: [String]
    /// `confidenceInputFeatureName` (200), `coordinatesInputFeatureName` (201),
    /// `iouThresholdInputFeatureName` (202), `confidenceThresholdInputFeatureName` (203),
    /// `confidenceOutputFeatureName` (210), `coordinatesOutputFeatureName` (211).
    public var confidenceInput, coordinatesInput, iouThresholdInput, confidenceThresholdInput,
               confidenceOutput, coordinatesOutput: String

    /// A suppression step.
    public init(iouThreshold: Double, confidenceThreshold: Double, perClass: Bool, labels: [String],
                confidenceInput: String, coordinatesInput: String, iouThresholdInput: String,
                confidenceThresholdInput: String, confidenceOutput: String, coordinatesOutput: String) {
        self.iouThreshold = iouThreshold
        self.confidenceThreshold = confidenceThreshold
        self.perClass = perClass
        self.labels = labels
        self.confidenceInput = confidenceInput
        self.coordinatesInput = coordinatesInput
        self.iouThresholdInput = iouThresholdInput
        self.confidenceThresholdInput = confidenceThresholdInput
        self.confidenceOutput = confidenceOutput
        self.coordinatesOutput = coordinatesOutput
    }

    func encode(into writer: inout ProtobufWriter) {
        writer.writeMessage(1) { pickTop in if perClass { pickTop.writeInteger(1, 1) } }
        writer.writeMessage(100) { vector in for label in labels { vector.writeString(1, label) } }
        writer.writeDouble(110, iouThreshold)
        writer.writeDouble(111, confidenceThreshold)
        writer.writeString(200, confidenceInput)
        writer.writeString(201, coordinatesInput)
        writer.writeString(202, iouThresholdInput)
        writer.writeString(203, confidenceThresholdInput)
        writer.writeString(210, confidenceOutput)
        writer.writeString(211, coordinatesOutput)
    }
}

extension ProtobufWriter {
    /// A proto3 `string` field, left out when empty (its default).
    mutating func writeNonEmptyString(_ number: Int, _ value: String) {
        if !value.isEmpty { writeString(number, value) }
    }

    /// A proto3 `float` field, left out when zero (its default).
    mutating func writeNonZeroFloat(_ number: Int, _ value: Float) {
        if value != 0 { writeFloat(number, value) }
    }
}
