import Foundation

/// The trainable part of an image classifier, on top of the backbone's pooled features:
/// a stack of dense layers with ReLU between them.
///
/// `logistic` is one layer (multinomial logistic regression); `mlp` is a hidden layer
/// then the output layer. Feature standardisation is folded into the first layer when
/// a model is saved, so the head reads raw backbone features.
/// Tensor names: `head.layers.<i>.weight` [inputs, outputs] and `head.layers.<i>.bias` [outputs].
public struct ImageClassifierHead: Equatable, Sendable {
    /// One dense layer: `y = x · weight + bias`.
    public struct Layer: Equatable, Sendable {
        /// [inputs, outputs].
        public var weight: Tensor
        /// [outputs].
        public var bias: Tensor

        /// A layer from its weight and bias.
        public init(weight: Tensor, bias: Tensor) {
            self.weight = weight
            self.bias = bias
        }
    }

    /// The layers, input first.
    public var layers: [Layer]

    /// A head from its layers.
    public init(layers: [Layer]) {
        self.layers = layers
    }

    /// `logistic` for one layer, `mlp` for more.
    public var kind: String { layers.count == 1 ? "logistic" : "mlp" }

    /// Features expected per image.
    public var inputCount: Int { layers.first?.weight.shape[0] ?? 0 }
    /// Outputs (classes).
    public var outputCount: Int { layers.last?.weight.shape[1] ?? 0 }

    /// Class logits [N, classes] for features [N, inputs].
    public func logits(features: Tensor) -> Tensor {
        var activations = features
        for (index, layer) in layers.enumerated() {
            activations = Tensor.matmul(activations, layer.weight) + layer.bias
            if index < layers.count - 1 { activations = activations.relu() }
        }
        return activations
    }

    /// Class probabilities [N, classes] (softmax of the logits).
    public func probabilities(features: Tensor) -> Tensor {
        logits(features: features).softmax(axis: -1)
    }

    /// The tensors a model file stores.
    public var tensors: [String: Tensor] {
        var result: [String: Tensor] = [:]
        for (index, layer) in layers.enumerated() {
            result["head.layers.\(index).weight"] = layer.weight
            result["head.layers.\(index).bias"] = layer.bias
        }
        return result
    }

    /// Rebuilds a head from model-file tensors, checking every shape (all problems listed).
    public init(tensors: [String: Tensor], featureCount: Int, classCount: Int, path: String) throws {
        var layers: [Layer] = [], problems: [String] = []
        var index = 0
        while let weight = tensors["head.layers.\(index).weight"] {
            guard let bias = tensors["head.layers.\(index).bias"] else {
                problems.append("tensor 'head.layers.\(index).bias' is missing")
                break
            }
            let expectedInputs = index == 0 ? featureCount : layers.last?.weight.shape.last ?? 0
            if weight.rank != 2 || weight.shape[0] != expectedInputs {
                problems.append("tensor 'head.layers.\(index).weight' has shape \(weight.shape), expected [\(expectedInputs), outputs]")
            } else if bias.shape != [weight.shape[1]] {
                problems.append("tensor 'head.layers.\(index).bias' has shape \(bias.shape), expected [\(weight.shape[1])]")
            }
            layers.append(Layer(weight: weight, bias: bias))
            index += 1
        }
        if layers.isEmpty { problems.append("tensor 'head.layers.0.weight' is missing") }
        if problems.isEmpty, let last = layers.last, last.weight.shape[1] != classCount {
            problems.append("the last layer has \(last.weight.shape[1]) outputs but the model has \(classCount) class labels")
        }
        let finite = layers.allSatisfy { $0.weight.scalars.allSatisfy(\.isFinite) && $0.bias.scalars.allSatisfy(\.isFinite) }
        if problems.isEmpty, !finite { problems.append("the head's weights contain NaN or infinity") }
        guard problems.isEmpty else { throw ImageClassifierModelError.malformed(path: path, problems: problems) }
        self.layers = layers
    }
}
