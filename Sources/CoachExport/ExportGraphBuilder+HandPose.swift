import CoachModels
import CoachNN
import Foundation

/// The hand-pose classifier's pieces, for any format.
extension ExportGraphBuilder {
    /// Adds `HandPoseInputEncoding` on input `poses` [1, channels, J] (y pointing up, Vision's
    /// origin) and, when the encoding uses chirality, input `chirality` [1]; returns the encoded
    /// pose [1, K, 1, J].
    mutating func handPoseEncoding(_ encoding: HandPoseInputEncoding, input: String, chirality: String?) -> String {
        let j = encoding.jointCount
        let channels = reshape("encode.channels", input: input, shape: [encoding.keypointChannels.count, 1, j])
        let raw = encoding.keypointChannels.indices.map { slice("encode.\(encoding.keypointChannels[$0])", channels, [$0..<($0 + 1), nil, nil]) }
        var positions = Array(raw.dropLast())   // each [1, 1, J]
        positions[1] = affine("encode.y.topLeft", positions[1], alpha: -1, beta: 1)
        let confidence = raw.last!
        let mask = greater("encode.detected", confidence, than: 0)
        let count = atLeastOne("encode.count", sum("encode.count.sum", mask, axes: [2]), rank: 3)
        let names = ["x", "y", "z"]
        func maskedMean(_ name: String, _ value: String, _ weights: String, _ divisor: String) -> String {
            divide(name, sum("\(name).sum", multiply("\(name).masked", value, weights), axes: [2]), divisor)
        }
        // The detected joints' mean and their RMS distance from it.
        let means = positions.indices.map { maskedMean("encode.mean.\(names[$0])", positions[$0], mask, count) }
        var squares: [String] = []
        for i in positions.indices {
            let offset = subtract("encode.spread.offset.\(names[i])", positions[i], means[i])
            squares.append(multiply("encode.spread.square.\(names[i])", offset, offset))
        }
        var squareSum = squares[0]
        for i in 1..<squares.count { squareSum = add("encode.spread.squares.\(i)", squareSum, squares[i]) }
        let spread = squareRoot("encode.spread", input: maskedMean("encode.spread.mean", squareSum, mask, count))
        // The anchor: the wrist when detected, else the mean.
        var anchors = means
        var anchored: String?
        if let wrist = encoding.anchorJoint {
            let wristDetected = slice("encode.wrist.detected", mask, [nil, nil, wrist..<(wrist + 1)])
            anchored = wristDetected
            anchors = positions.indices.map { i in
                let wristValue = slice("encode.wrist.\(names[i])", positions[i], [nil, nil, wrist..<(wrist + 1)])
                return add("encode.anchor.\(names[i])", multiply("encode.anchor.\(names[i]).wrist", wristValue, wristDetected),
                           multiply("encode.anchor.\(names[i]).mean", means[i], affine("encode.anchor.\(names[i]).notWrist", wristDetected, alpha: -1, beta: 1)))
            }
        }
        var offsets = positions.indices.map { subtract("encode.offset.\(names[$0])", positions[$0], anchors[$0]) }
        let hands = chirality.map { handFlags($0) }
        if encoding.chirality == .mirrorLeftHands, let hands {
            offsets[0] = mirrored("encode.offset.x.mirrored", offsets[0], left: hands.left)
        }
        // The detected knuckles relative to the anchor: the palm's direction and size.
        var size = spread
        var rotation: (c: String, s: String)?
        if let anchored, !encoding.palmJoints.isEmpty, encoding.scale == .palm || encoding.rotation == .upright {
            var selector = [Float](repeating: 0, count: j)
            for joint in encoding.palmJoints where joint < j { selector[joint] = 1 }
            let knuckles = multiply("encode.knuckles", mask, constant("encode.knuckles.selector", dimensions: [1, 1, j], values: selector))
            let knuckleCount = sum("encode.knuckles.count", knuckles, axes: [2])
            let palmValid = multiply("encode.palm.valid", anchored, greater("encode.knuckles.any", knuckleCount, than: 0.5))
            let safeKnuckleCount = atLeastOne("encode.knuckles.count.safe", knuckleCount, rank: 3)
            if encoding.scale == .palm {
                var lengthSquared = multiply("encode.palm.square.0", offsets[0], offsets[0])
                for i in 1..<offsets.count {
                    lengthSquared = add("encode.palm.squares.\(i)", lengthSquared, multiply("encode.palm.square.\(i)", offsets[i], offsets[i]))
                }
                let palmSize = multiply("encode.palm.size", maskedMean("encode.palm.size.raw", squareRoot("encode.palm.length", input: lengthSquared),
                                                                       knuckles, safeKnuckleCount), palmValid)
                let usePalm = greater("encode.palm.use", palmSize, than: 0)
                size = add("encode.size.chosen", multiply("encode.size.palm", palmSize, usePalm),
                           multiply("encode.size.spread", spread, affine("encode.size.notPalm", usePalm, alpha: -1, beta: 1)))
            }
            if encoding.rotation == .upright {
                // Turn the palm direction (a, b) onto straight up: c = −b / |(a, b)|, s = −a / |(a, b)|.
                let a = maskedMean("encode.palm.a", offsets[0], knuckles, safeKnuckleCount)
                let b = maskedMean("encode.palm.b", offsets[1], knuckles, safeKnuckleCount)
                let length = squareRoot("encode.palm.direction.length", input: add("encode.palm.direction.square",
                    multiply("encode.palm.a.square", a, a), multiply("encode.palm.b.square", b, b)))
                let turns = multiply("encode.rotation.turns", palmValid, greater("encode.rotation.long", length, than: 1e-12))
                let still = affine("encode.rotation.still", turns, alpha: -1, beta: 1)
                let safeLength = add("encode.rotation.length.safe", length, still)
                let cosine = add("encode.rotation.c", multiply("encode.rotation.c.turned", affine("encode.rotation.minusB", divide("encode.rotation.b", b, safeLength), alpha: -1, beta: 0), turns), still)
                let sine = multiply("encode.rotation.s", affine("encode.rotation.minusA", divide("encode.rotation.a", a, safeLength), alpha: -1, beta: 0), turns)
                rotation = (cosine, sine)
            }
        }
        // A size that is not > 1e-12 becomes 1.
        let usable = greater("encode.size.usable", size, than: 1e-12)
        let divisor = add("encode.size", multiply("encode.size.kept", size, usable), affine("encode.size.fallback", usable, alpha: -1, beta: 1))
        var turned = offsets
        if let rotation {
            turned[0] = subtract("encode.turned.x", multiply("encode.turned.x.c", rotation.c, offsets[0]), multiply("encode.turned.x.s", rotation.s, offsets[1]))
            turned[1] = add("encode.turned.y", multiply("encode.turned.y.s", rotation.s, offsets[0]), multiply("encode.turned.y.c", rotation.c, offsets[1]))
        }
        var encoded = turned.indices.map { i in
            multiply("encode.value.\(names[i])", divide("encode.scaled.\(names[i])", turned[i], divisor), mask)
        }
        encoded.append(multiply("encode.confidence.detected", confidence, mask))
        if encoding.chirality == .input, let hands {
            encoded += [multiply("encode.hand.left", mask, hands.left), multiply("encode.hand.right", mask, hands.right)]
        }
        let joined = concatenate("encode.joined", inputs: encoded, axis: 0, output: nil)   // [K, 1, J]
        return reshape("encode.pose", input: joined, shape: [1, encoding.channelCount, 1, j])
    }

    /// Adds the perceptron on an encoded pose [1, K, 1, J]; returns its logits [classes].
    mutating func perceptron(_ perceptron: HandPosePerceptron, input: String, joints j: Int, channels k: Int) -> String {
        // The flattened pose, feature j · K + k.
        let flat = reshape("network.features", input: transpose("network.jointsFirst", input: reshape("network.pose", input: input, shape: [k, j]),
                                                                permutation: [1, 0], output: nil), shape: [1, j * k])
        let (a, b) = ExportedBatchNorm.scaleAndShift(perceptron.inputNorm)
        var h = add("network.inputNorm", multiply("network.inputNorm.scale", flat, constant("network.inputNorm.a", dimensions: [1, a.count], values: a)),
                    constant("network.inputNorm.b", dimensions: [1, b.count], values: b))
        for (index, (linear, norm)) in zip(perceptron.hidden, perceptron.hiddenNorms).enumerated() {
            let weight = linear.weight.value
            h = matMul("network.hidden.\(index)", input: h, inputs: weight.shape[0], outputs: weight.shape[1], weights: weight.scalars, bias: linear.bias?.value.scalars)
            let (scale, shift) = ExportedBatchNorm.scaleAndShift(norm)
            h = add("network.hiddenNorm.\(index)", multiply("network.hiddenNorm.\(index).scale", h,
                                                            constant("network.hiddenNorm.\(index).a", dimensions: [1, scale.count], values: scale)),
                    constant("network.hiddenNorm.\(index).b", dimensions: [1, shift.count], values: shift))
            if norm.activation == .relu { h = relu("network.hiddenNorm.\(index).relu", input: h) }
        }
        let weight = perceptron.classifier.weight.value
        let logits = matMul("network.classifier", input: h, inputs: weight.shape[0], outputs: weight.shape[1], weights: weight.scalars, bias: perceptron.classifier.bias?.value.scalars)
        return reshape("network.logits", input: logits, shape: [weight.shape[1]])
    }
}
