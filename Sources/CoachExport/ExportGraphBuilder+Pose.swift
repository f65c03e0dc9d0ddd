import CoachModels
import CoachNN
import Foundation

/// The pose classifiers' pieces, for any format: the window encoding (`ActionInputEncoding`) and
/// the action network (`ActionClassifierNetwork`), with activations laid out [1, C, T, J]
/// (channels, frames, joints) so temporal convolutions are `kernel × 1` convolutions and the
/// graph convolutions' joint mixing is a matrix product along the last axis.
extension ExportGraphBuilder {
    // MARK: - Helpers

    /// `reduceSum` keeping the reduced axes.
    mutating func sum(_ name: String, _ input: String, axes: [Int]) -> String {
        reduceSum(name, input: input, axes: axes, keepDimensions: true)
    }

    /// `max(x, 1)`, for counts used as divisors.
    mutating func atLeastOne(_ name: String, _ input: String, rank: Int) -> String {
        maximum(name, input, constant("\(name).one", dimensions: [Int](repeating: 1, count: rank), values: [1]))
    }

    /// Coach's inference-mode batch norm (`x · a + b`, a = γ / √(σ² + ε), b = β − μ · a) over
    /// axis 1 of a rank-4 value, then its activation.
    mutating func batchNorm(_ name: String, _ input: String, _ norm: BatchNorm) -> String {
        let (a, b) = ExportedBatchNorm.scaleAndShift(norm)
        let shifted = scaleAndShift(name, input: input, scale: a, shift: b)
        switch norm.activation {
        case .none: return shifted
        case .relu: return relu("\(name).relu", input: shifted)
        case .swish: return multiply("\(name).swish", shifted, sigmoid("\(name).sigmoid", input: shifted))
        }
    }

    /// A convolution over frames of [1, C_in, T, J] (`frames` = T): `weight` [k, C_in, C_out] (or a
    /// `Linear`'s [C_in, C_out] when k = 1), TensorFlow SAME padding, temporal `stride`, optional bias.
    mutating func temporalConvolution(_ name: String, _ input: String, frames: Int, weight: Tensor, bias: [Float]? = nil,
                                      stride: Int) -> String {
        let shape = weight.shape
        let (k, inputs, outputs) = shape.count == 3 ? (shape[0], shape[1], shape[2]) : (1, shape[0], shape[1])
        let w = weight.scalars
        var oihw = [Float](repeating: 0, count: outputs * inputs * k)
        for o in 0..<outputs { for i in 0..<inputs { for t in 0..<k { oihw[(o * inputs + i) * k + t] = w[(t * inputs + i) * outputs + o] } } }
        return frameConvolution(name, input: input, frames: frames, outputChannels: outputs, inputChannels: inputs, groups: 1,
                                kernel: k, stride: stride, dilation: 1, padding: nil, weights: oihw, bias: bias)
    }

    /// A depthwise convolution over frames of [1, C, T, J]: `weight` [k, C].
    mutating func depthwiseTemporalConvolution(_ name: String, _ input: String, frames: Int, weight: Tensor, stride: Int) -> String {
        let k = weight.shape[0], channels = weight.shape[1], w = weight.scalars
        var oihw = [Float](repeating: 0, count: channels * k)
        for c in 0..<channels { for t in 0..<k { oihw[c * k + t] = w[t * channels + c] } }
        return frameConvolution(name, input: input, frames: frames, outputChannels: channels, inputChannels: channels,
                                groups: channels, kernel: k, stride: stride, dilation: 1, padding: nil, weights: oihw, bias: nil)
    }

    // MARK: - The window encoding

    /// Adds `ActionInputEncoding` on input `poses` [T, channels, J] (x, y, [z,] confidence per
    /// frame and joint, y pointing up: Vision's bottom-left origin) and, when the encoding uses
    /// chirality, input `chirality` [1] (Vision's `VNChirality`: −1 left, 1 right, 0 unknown);
    /// returns the encoded window [1, K, T, J] (x, y, [z,] confidence, the velocities when the
    /// encoding has them, then left and right when chirality is an input).
    mutating func actionEncoding(_ encoding: ActionInputEncoding, input: String, chirality: String?) -> String {
        let t = encoding.windowLength, j = encoding.jointCount
        let channels = transpose("encode.channels", input: input, permutation: [1, 0, 2], output: nil)   // [channels, T, J]
        let raw = encoding.keypointChannels.indices.map { slice("encode.\(encoding.keypointChannels[$0])", channels, [$0..<($0 + 1), nil, nil]) }
        var positions = Array(raw.dropLast())
        // Coach works with y pointing down (top-left origin): y ← 1 − y.
        positions[1] = affine("encode.y.topLeft", positions[1], alpha: -1, beta: 1)
        let confidence = raw.last!
        let mask = greater("encode.detected", confidence, than: 0)   // [1, T, J]
        let count = atLeastOne("encode.count", sum("encode.count.sum", mask, axes: [0, 1, 2]), rank: 3)
        let names = ["x", "y", "z"]
        // The centroid of the detected keypoints (PoseWindow.centroid).
        let centres = positions.indices.map { i in
            divide("encode.centre.\(names[i])", sum("encode.centre.\(names[i]).sum", multiply("encode.masked.\(names[i])", positions[i], mask),
                                                   axes: [0, 1, 2]), count)
        }
        let centred = positions.indices.map { i in
            multiply("encode.centred.\(names[i])", subtract("encode.offset.\(names[i])", positions[i], centres[i]), mask)
        }
        var scale: String?
        switch encoding.normalization {
        case .centre:
            scale = nil
        case .centreAndExtent:
            // The RMS distance of every detected keypoint from the centroid (PoseWindow.extent).
            let squares = sumOfSquares("encode.extent", centred)
            scale = squareRoot("encode.extent.value", input: divide("encode.extent.mean", sum("encode.extent.sum", squares, axes: [0, 1, 2]), count))
        case .centreAndSpread:
            // Per frame with two or more joints, the RMS distance from that frame's mean; averaged (PoseWindow.spread).
            let frameCount = sum("encode.spread.joints", mask, axes: [2])   // [1, T, 1]
            let safeFrameCount = atLeastOne("encode.spread.joints.safe", frameCount, rank: 3)
            let deviations = positions.indices.map { i in
                let mean = divide("encode.spread.mean.\(names[i])", sum("encode.spread.sum.\(names[i])", multiply("encode.spread.masked.\(names[i])", positions[i], mask), axes: [2]),
                                  safeFrameCount)
                return multiply("encode.spread.deviation.\(names[i])", subtract("encode.spread.offset.\(names[i])", positions[i], mean), mask)
            }
            let perFrame = squareRoot("encode.spread.rms", input: divide("encode.spread.meanSquare", sum("encode.spread.squares.sum", sumOfSquares("encode.spread", deviations), axes: [2]),
                                                                      safeFrameCount))
            let valid = greater("encode.spread.valid", frameCount, than: 1.5)
            let total = sum("encode.spread.total", multiply("encode.spread.counted", perFrame, valid), axes: [0, 1, 2])
            let frames = atLeastOne("encode.spread.frames", sum("encode.spread.frames.sum", valid, axes: [0, 1, 2]), rank: 3)
            scale = divide("encode.spread.value", total, frames)
        }
        var normalised = centred
        if let value = scale {
            // A scale that is not > 1e-12 becomes 1 (ActionInputEncoding.normalizer).
            let usable = greater("encode.scale.usable", value, than: 1e-12)
            let fallback = affine("encode.scale.fallback", usable, alpha: -1, beta: 1)
            let divisor = add("encode.scale", multiply("encode.scale.kept", value, usable), fallback)
            normalised = centred.indices.map { divide("encode.normalised.\(names[$0])", centred[$0], divisor) }
        }
        let hands = chirality.map { handFlags($0) }
        if encoding.chirality == .mirrorLeftHands, let hands {
            normalised[0] = mirrored("encode.mirrored.x", normalised[0], left: hands.left)
        }
        var encoded = normalised + [multiply("encode.confidence.detected", confidence, mask)]
        if encoding.includesVelocity {
            // Frame-to-frame change of joints detected in both frames; 0 at the first frame.
            let zeros = constant("encode.velocity.zeros", dimensions: [1, 1, j], values: [Float](repeating: 0, count: j))
            let previousMask = concatenate("encode.velocity.previousDetected", inputs: [zeros, slice("encode.velocity.mask.head", mask, [nil, 0..<(t - 1), nil])],
                                           axis: 1, output: nil)
            let both = multiply("encode.velocity.both", mask, previousMask)
            for (i, value) in normalised.enumerated() {
                let previous = concatenate("encode.velocity.previous.\(names[i])",
                                           inputs: [zeros, slice("encode.velocity.head.\(names[i])", value, [nil, 0..<(t - 1), nil])],
                                           axis: 1, output: nil)
                encoded.append(multiply("encode.velocity.\(names[i])", subtract("encode.velocity.change.\(names[i])", value, previous), both))
            }
        }
        if encoding.chirality == .input, let hands {
            encoded += [multiply("encode.hand.left", mask, hands.left), multiply("encode.hand.right", mask, hands.right)]
        }
        let joined = concatenate("encode.joined", inputs: encoded, axis: 0, output: nil)   // [K, T, J]
        return reshape("encode.window", input: joined, shape: [1, encoding.channelCount, t, j])
    }

    /// 1 for a left hand and for a right hand, from a `VNChirality` value (−1 left, 1 right, 0 unknown).
    mutating func handFlags(_ chirality: String) -> (left: String, right: String) {
        (greater("chirality.left", affine("chirality.negated", chirality, alpha: -1, beta: 0), than: 0.5),
         greater("chirality.right", chirality, than: 0.5))
    }

    /// `x`, negated for a left hand (`left` = 1): x · (1 − 2 · left).
    mutating func mirrored(_ name: String, _ x: String, left: String) -> String {
        multiply(name, x, affine("\(name).sign", left, alpha: -2, beta: 1))
    }

    /// The sum of the squares of `values`.
    private mutating func sumOfSquares(_ name: String, _ values: [String]) -> String {
        var total = multiply("\(name).square.0", values[0], values[0])
        for i in 1..<values.count { total = add("\(name).squares.\(i)", total, multiply("\(name).square.\(i)", values[i], values[i])) }
        return total
    }

    // MARK: - The network

    /// Adds `ActionClassifierNetwork` on an encoded window [1, K, T, J]; returns its logits [classes].
    mutating func actionNetwork(_ network: ActionClassifierNetwork, input: String, frames t: Int, prefix: String = "network") -> String {
        let j = network.jointCount, k = network.inputChannels
        // The input batch norm's feature j · K + k sits at [k, j].
        let (a, b) = ExportedBatchNorm.scaleAndShift(network.inputNorm)
        var scale = [Float](repeating: 0, count: k * j), shift = scale
        for joint in 0..<j { for channel in 0..<k { scale[channel * j + joint] = a[joint * k + channel]; shift[channel * j + joint] = b[joint * k + channel] } }
        let scaled = multiply("\(prefix).inputNorm.scale", input, constant("\(prefix).inputNorm.a", dimensions: [1, k, 1, j], values: scale))
        var h = add("\(prefix).inputNorm", scaled, constant("\(prefix).inputNorm.b", dimensions: [1, k, 1, j], values: shift))
        if network.architecture.kind == .temporalConvolution {
            // The temporal network reads [T, J · K] features j · K + k: as channels of a [1, J·K, T, 1] value.
            h = reshape("\(prefix).features", input: transpose("\(prefix).jointsFirst", input: h, permutation: [0, 3, 1, 2], output: nil),
                        shape: [1, j * k, t, 1])
        }
        var frames = t
        for (index, block) in network.blocks.enumerated() {
            let name = "\(prefix).blocks.\(index)"
            if let graph = block as? GraphConvolutionBlock {
                h = graphBlock(name, h, graph, frames: frames)
                frames = (frames + graph.stride - 1) / graph.stride
            } else if let temporal = block as? TemporalConvolutionBlock {
                var y = batchNorm("\(name).firstNorm", temporalConvolution("\(name).first", h, frames: frames, weight: temporal.first.weight.value,
                                                                           stride: temporal.first.stride), temporal.firstNorm)
                let strided = (frames + temporal.first.stride - 1) / temporal.first.stride
                y = batchNorm("\(name).secondNorm", temporalConvolution("\(name).second", y, frames: strided, weight: temporal.second.weight.value,
                                                                        stride: temporal.second.stride), temporal.secondNorm)
                h = residualSum(name, y, h, temporal.residual, temporal.residualNorm, frames: frames)
                frames = strided
            }
        }
        let pooled = reduceMean("\(prefix).pool", input: h, axes: [2, 3], keepDimensions: false)   // [1, C]
        let weight = network.classifier.weight.value
        let logits = matMul("\(prefix).classifier", input: pooled, inputs: weight.shape[0], outputs: weight.shape[1],
                            weights: weight.scalars, bias: network.classifier.bias?.value.scalars)
        return reshape("\(prefix).logits", input: logits, shape: [weight.shape[1]])
    }

    /// An action classifier's probabilities [classes], the last value named `output`: each
    /// member's network softmax and, when it has one, its random-convolution head's, mixed at the
    /// head's share, then averaged over the members — as `ActionClassifierModel.probabilities`.
    /// Member i's values (from the second) carry the prefix `member<i>.`.
    mutating func actionProbabilities(_ classifier: ActionClassifierModel, window: String, frames t: Int, output: String) -> String {
        let members = classifier.members, classes = classifier.labels.count
        if members.count == 1 && classifier.randomConvolution == nil {
            return softmax(output, input: actionNetwork(classifier.network, input: window, frames: t), axis: -1)
        }
        var terms: [String] = []
        for (index, member) in members.enumerated() {
            let prefix = index == 0 ? "" : "member\(index + 1)."
            let share = member.randomConvolution == nil ? 0 : member.randomConvolutionWeight
            func weighted(_ name: String, _ probabilities: String, _ weight: Float) -> String {
                multiply("\(prefix)ensemble.\(name)", probabilities,
                         constant("\(prefix)ensemble.\(name)Share", dimensions: [classes],
                                  values: [Float](repeating: weight / Float(members.count), count: classes)))
            }
            let logits = actionNetwork(member.network, input: window, frames: t, prefix: prefix + "network")
            terms.append(weighted("network", softmax("\(prefix)network.probabilities", input: logits, axis: -1), 1 - share))
            if let head = member.randomConvolution {
                let headLogits = randomConvolutionHead(head, encoding: member.encoding, encoded: window, prefix: prefix + "head")
                terms.append(weighted("head", softmax("\(prefix)head.probabilities", input: headLogits, axis: -1), share))
            }
        }
        var sum = terms[0]
        for (index, term) in terms.dropFirst().enumerated() {
            sum = add(index == terms.count - 2 ? output : "ensemble.sum.\(index + 1)", sum, term)
        }
        return sum
    }

    /// One ST-GCN block on [1, C, T, J] (`frames` = T).
    private mutating func graphBlock(_ name: String, _ x: String, _ block: GraphConvolutionBlock, frames: Int) -> String {
        let adjacency = block.adjacency.value, p = adjacency.shape[0], j = adjacency.shape[1]
        let values = adjacency.scalars
        // Partition p mixes joints: out[…, i] = Σ_j A[p, i, j] · x[…, j] — a product with Aᵖᵀ on the last axis.
        var mixed: [String] = []
        for partition in 0..<p {
            var transposed = [Float](repeating: 0, count: j * j)
            for i in 0..<j { for source in 0..<j { transposed[source * j + i] = values[(partition * j + i) * j + source] } }
            mixed.append(matMul("\(name).mix.\(partition)", input: x, inputs: j, outputs: j, weights: transposed, bias: nil))
        }
        let partitions = concatenate("\(name).partitions", inputs: mixed, axis: 1, output: nil)   // channel p · C + c
        var h = batchNorm("\(name).spatialNorm", temporalConvolution("\(name).spatial", partitions, frames: frames, weight: block.spatial.weight.value,
                                                                     bias: block.spatial.bias?.value.scalars, stride: 1), block.spatialNorm)
        if let temporal = block.temporal {
            h = temporalConvolution("\(name).temporal", h, frames: frames, weight: temporal.weight.value, stride: temporal.stride)
        } else if let depthwise = block.temporalDepthwise, let pointwise = block.temporalPointwise {
            h = depthwiseTemporalConvolution("\(name).temporalDepthwise", h, frames: frames, weight: depthwise.weight.value,
                                             stride: depthwise.stride)
            h = temporalConvolution("\(name).temporalPointwise", h, frames: (frames + depthwise.stride - 1) / depthwise.stride,
                                    weight: pointwise.weight.value, stride: 1)
        }
        h = batchNorm("\(name).temporalNorm", h, block.temporalNorm)
        return residualSum(name, h, x, block.residual, block.residualNorm, frames: frames)
    }

    /// `relu(h + shortcut)`, the shortcut being `x` or its 1 × 1 convolution and batch norm.
    private mutating func residualSum(_ name: String, _ h: String, _ x: String, _ residual: TemporalConvolution?,
                                      _ residualNorm: BatchNorm?, frames: Int) -> String {
        var shortcut = x
        if let residual, let residualNorm {
            shortcut = batchNorm("\(name).residualNorm", temporalConvolution("\(name).residual", x, frames: frames, weight: residual.weight.value,
                                                                             stride: residual.stride), residualNorm)
        }
        return relu("\(name).relu", input: add("\(name).sum", h, shortcut))
    }
}
