import CoachModels
import CoachTensor
import Foundation

/// The action classifier's second member (`RandomConvolutionHead`), for any format:
/// gap filling as a per-joint interpolation matrix, MiniRocket's kernels as one dilated
/// convolution per dilation, PPV and MPV for every bias by broadcasting, then the logistic
/// regression.
extension ExportGraphBuilder {
    /// Adds `head` on the encoded window [1, K, T, J]; returns its logits [classes].
    mutating func randomConvolutionHead(_ head: RandomConvolutionHead, encoding: ActionInputEncoding, encoded: String,
                                        prefix: String = "head") -> String {
        let t = encoding.windowLength, j = encoding.jointCount
        let positionCount = encoding.includesDepth ? 3 : 2
        // Channel k of the encoded window as [J, T].
        func channel(_ k: Int) -> String {
            let plane = reshape("\(prefix).channel.\(k).plane", input: slice("\(prefix).channel.\(k)", encoded, [nil, k..<(k + 1), nil, nil]),
                                shape: [t, j])
            return transpose("\(prefix).channel.\(k).joints", input: plane, permutation: [1, 0], output: nil)
        }
        var positions = (0..<positionCount).map { channel($0) }
        var velocities = encoding.includesVelocity ? (0..<positionCount).map { channel(positionCount + 1 + $0) } : []
        if head.fillsGaps {
            let detected = greater("\(prefix).detected", channel(positionCount), than: 0)   // [J, T]
            let weights = gapFillingWeights(detected: detected, frames: t, joints: j, prefix: prefix)
            positions = positions.enumerated().map { index, value in
                let column = reshape("\(prefix).fill.\(index).column", input: value, shape: [j, t, 1])
                return reshape("\(prefix).fill.\(index)", input: matrixProduct("\(prefix).fill.\(index).product", weights, column),
                               shape: [j, t])
            }
            if encoding.includesVelocity {
                // Velocities of the filled positions: frame-to-frame change, 0 at the first frame.
                let zeros = constant("\(prefix).velocity.zeros", dimensions: [j, 1], values: [Float](repeating: 0, count: j))
                let notFirst = constant("\(prefix).velocity.notFirst", dimensions: [1, t], values: [0] + [Float](repeating: 1, count: t - 1))
                velocities = positions.enumerated().map { index, value in
                    let previous = concatenate("\(prefix).velocity.\(index).previous",
                                               inputs: [zeros, slice("\(prefix).velocity.\(index).head", value, [nil, 0..<(t - 1)])], axis: 1, output: nil)
                    return multiply("\(prefix).velocity.\(index)", subtract("\(prefix).velocity.\(index).change", value, previous), notFirst)
                }
            }
        }
        // The series, row joint · S + index (positions, then velocities), then bone · P + coordinate: [1, J·S + B·P, T, 1].
        let perJoint = positions + velocities
        let stacked = concatenate("\(prefix).series.stacked", inputs: perJoint.enumerated().map { index, value in
            reshape("\(prefix).series.\(index)", input: value, shape: [j, 1, t])
        }, axis: 1, output: nil)   // [J, S, T]
        var rows = reshape("\(prefix).series.joints", input: stacked, shape: [j * perJoint.count, t])
        if !head.bones.isEmpty {
            rows = concatenate("\(prefix).series.all", inputs: [rows, boneSeries(head.bones, positions: positions, encoding: encoding,
                                                                                  encoded: encoded, prefix: prefix)],
                               axis: 0, output: nil)
        }
        let seriesCount = RandomConvolutionHead.seriesCount(of: encoding, boneCount: head.bones.count)
        let series = reshape("\(prefix).series", input: rows, shape: [1, seriesCount, t, 1])
        return randomConvolutionLogits(head, series: series, seriesCount: seriesCount, frames: t, prefix: prefix)
    }

    /// The bones' vectors [B·P, T] (row bone · P + coordinate): each coordinate's `positions` [J, T]
    /// differenced along the bone, zero for a bone with a joint undetected in every frame.
    private mutating func boneSeries(_ bones: [SkeletonGraph.Edge], positions: [String], encoding: ActionInputEncoding,
                                     encoded: String, prefix: String) -> String {
        let t = encoding.windowLength, j = encoding.jointCount, b = bones.count, p = positions.count
        var difference = [Float](repeating: 0, count: b * j), first = difference, second = difference
        for (index, bone) in bones.enumerated() {
            difference[index * j + bone.second] += 1
            difference[index * j + bone.first] -= 1
            first[index * j + bone.first] = 1
            second[index * j + bone.second] = 1
        }
        // Whether each joint is detected in some frame of the window, then in both of a bone's joints: [B, 1].
        let confidence = reshape("\(prefix).bones.confidence.plane",
                                 input: slice("\(prefix).bones.confidence", encoded, [nil, p..<(p + 1), nil, nil]), shape: [t, j])
        let seen = reshape("\(prefix).bones.seen", input: reduceMax("\(prefix).bones.seen.any", input:
            greater("\(prefix).bones.detected", confidence, than: 0), axes: [0], keepDimensions: true), shape: [j, 1])
        let both = multiply("\(prefix).bones.both",
                            matrixProduct("\(prefix).bones.first.seen", constant("\(prefix).bones.first", dimensions: [b, j], values: first), seen),
                            matrixProduct("\(prefix).bones.second.seen", constant("\(prefix).bones.second", dimensions: [b, j], values: second), seen))
        let differences = constant("\(prefix).bones.difference", dimensions: [b, j], values: difference)
        let coordinates = positions.enumerated().map { index, value in
            reshape("\(prefix).bones.\(index)", input: multiply("\(prefix).bones.\(index).masked",
                matrixProduct("\(prefix).bones.\(index).vector", differences, value), both), shape: [b, 1, t])
        }
        return reshape("\(prefix).bones.series", input: concatenate("\(prefix).bones.stacked", inputs: coordinates, axis: 1, output: nil),
                       shape: [b * p, t])
    }

    /// `RandomConvolutionHead.fillGaps` as weights [J, T, T]: row t of joint j takes frame t when
    /// detected, else interpolates linearly between the nearest detected frames before and after,
    /// or holds the nearest one at the window's ends; all zero for a joint never detected.
    private mutating func gapFillingWeights(detected: String, frames t: Int, joints j: Int, prefix: String) -> String {
        let sources = (0..<t).map(Float.init)
        let source = constant("\(prefix).gaps.source", dimensions: [1, 1, t], values: sources)   // s
        let target = constant("\(prefix).gaps.target", dimensions: [1, t, 1], values: sources)   // t
        var atOrBefore = [Float](repeating: 0, count: t * t), atOrAfter = atOrBefore
        for row in 0..<t { for s in 0..<t { atOrBefore[row * t + s] = s <= row ? 1 : 0; atOrAfter[row * t + s] = s >= row ? 1 : 0 } }
        let seen = reshape("\(prefix).gaps.seen", input: detected, shape: [j, 1, t])
        // The last detected frame at or before t (+1; 0 when none) and the first at or after t (scored T + 1 − s; 0 when none).
        let before = multiply("\(prefix).gaps.before", seen, constant("\(prefix).gaps.atOrBefore", dimensions: [1, t, t], values: atOrBefore))
        let previousPlusOne = reduceMax("\(prefix).gaps.previous.score", input: multiply("\(prefix).gaps.before.index", before,
            constant("\(prefix).gaps.sourcePlusOne", dimensions: [1, 1, t], values: sources.map { $0 + 1 })), axes: [2], keepDimensions: true)   // [J, T, 1]
        let after = multiply("\(prefix).gaps.after", seen, constant("\(prefix).gaps.atOrAfter", dimensions: [1, t, t], values: atOrAfter))
        let nextScore = reduceMax("\(prefix).gaps.next.score", input: multiply("\(prefix).gaps.after.index", after,
            constant("\(prefix).gaps.sourceFromEnd", dimensions: [1, 1, t], values: sources.map { Float(t + 1) - $0 })), axes: [2], keepDimensions: true)
        let previous = affine("\(prefix).gaps.previous", previousPlusOne, alpha: 1, beta: -1)
        let next = affine("\(prefix).gaps.next", nextScore, alpha: -1, beta: Float(t + 1))
        let hasPrevious = greater("\(prefix).gaps.hasPrevious", previousPlusOne, than: 0.5)
        let hasNext = greater("\(prefix).gaps.hasNext", nextScore, than: 0.5)
        // Without a frame before, hold the one after, and the other way round.
        func choose(_ name: String, _ flag: String, _ chosen: String, _ otherwise: String) -> String {
            add(name, multiply("\(name).chosen", chosen, flag),
                multiply("\(name).otherwise", otherwise, affine("\(name).not", flag, alpha: -1, beta: 1)))
        }
        let lower = choose("\(prefix).gaps.lower", hasPrevious, previous, next)
        let upper = choose("\(prefix).gaps.upper", hasNext, next, previous)
        let gap = subtract("\(prefix).gaps.gap", upper, lower)
        let fraction = multiply("\(prefix).gaps.fraction.open",
                                divide("\(prefix).gaps.fraction.raw", subtract("\(prefix).gaps.offset", target, lower),
                                       atLeastOne("\(prefix).gaps.gap.safe", gap, rank: 3)),
                                greater("\(prefix).gaps.isOpen", gap, than: 0.5))
        // [s == frame] as |s − frame| < ½.
        func picks(_ name: String, _ frame: String) -> String {
            let distance = absolute("\(name).distance", input: subtract("\(name).offset", source, frame))
            return greater(name, affine("\(name).closeness", distance, alpha: -1, beta: 0.5), than: 0)
        }
        let fromLower = multiply("\(prefix).gaps.weight.lower", picks("\(prefix).gaps.pickLower", lower),
                                 affine("\(prefix).gaps.fraction.rest", fraction, alpha: -1, beta: 1))
        let fromUpper = multiply("\(prefix).gaps.weight.upper", picks("\(prefix).gaps.pickUpper", upper), fraction)
        return add("\(prefix).gaps.weights", fromLower, fromUpper)   // [J, T, T]
    }

    /// MiniRocket's features of `series` [1, S, T, 1] and the logistic regression on them.
    private mutating func randomConvolutionLogits(_ head: RandomConvolutionHead, series: String, seriesCount: Int, frames t: Int,
                                                  prefix: String) -> String {
        let transform = head.transform, taps = RandomConvolutionTransform.kernelLength
        let classes = head.bias.count, weight = head.weight.scalars
        // Where each combination's channels and biases start.
        var channelStarts: [Int] = [], biasStarts: [Int] = []
        var channelStart = 0, biasStart = 0
        for combination in 0..<transform.combinationCount {
            channelStarts.append(channelStart)
            biasStarts.append(biasStart)
            channelStart += transform.channelCounts[combination]
            biasStart += transform.biasCounts[combination]
        }
        var partials: [String] = []
        for dilation in Array(Set(transform.dilations)).sorted() {
            // Combinations of this dilation, grouped by their bias count (one broadcast each).
            let group = (0..<transform.combinationCount).filter { transform.dilations[$0] == dilation }
            for biasCount in Array(Set(group.map { transform.biasCounts[$0] })).sorted() where biasCount > 0 {
                let members = group.filter { transform.biasCounts[$0] == biasCount }
                let name = "\(prefix).dilation\(dilation).biases\(biasCount)", c = members.count
                // One output channel per combination: its kernel's taps on each of its series, summed.
                var filter = [Float](repeating: 0, count: c * seriesCount * taps)
                for (row, combination) in members.enumerated() {
                    let twos = RandomConvolutionTransform.kernels[transform.kernelIndices[combination]]
                    for s in transform.channels[channelStarts[combination]..<(channelStarts[combination] + transform.channelCounts[combination])] {
                        for tap in 0..<taps { filter[(row * seriesCount + s) * taps + tap] += twos.contains(tap) ? 2 : -1 }
                    }
                }
                let reach = (taps / 2) * dilation
                let outputs = frameConvolution("\(name).convolution", input: series, frames: t, outputChannels: c, inputChannels: seriesCount,
                                               groups: 1, kernel: taps, stride: 1, dilation: dilation, padding: reach,
                                               weights: filter, bias: nil)
                let rows = reshape("\(name).rows", input: outputs, shape: [c, 1, t])
                // The frames each combination pools over (all, or where the dilated kernel fits) and their count.
                var frames = [Float](repeating: 0, count: c * t), inverseCounts = [Float](repeating: 0, count: c)
                var biases = [Float](repeating: 0, count: c * biasCount)
                for (row, combination) in members.enumerated() {
                    var lower = 0, upper = t
                    if !transform.padded[combination] && 2 * reach < t { lower = reach; upper = t - reach }
                    for frame in lower..<upper { frames[row * t + frame] = 1 }
                    inverseCounts[row] = 1 / Float(upper - lower)
                    for i in 0..<biasCount { biases[row * biasCount + i] = transform.biases[biasStarts[combination] + i] }
                }
                let excess = subtract("\(name).excess", rows, constant("\(name).biases", dimensions: [c, biasCount, 1], values: biases))
                let pooled = constant("\(name).frames", dimensions: [c, 1, t], values: frames)
                let positive = multiply("\(name).positive", greater("\(name).above", excess, than: 0), pooled)
                let positives = reduceSum("\(name).positives", input: positive, axes: [2], keepDimensions: false)   // [c, B]
                let proportion = multiply("\(name).ppv", positives, constant("\(name).inverseCounts", dimensions: [c, 1], values: inverseCounts))
                let excessSum = reduceSum("\(name).excess.sum", input: multiply("\(name).excess.pooled",
                                                                             relu("\(name).excess.positive", input: excess), pooled), axes: [2], keepDimensions: false)
                let meanPositive = divide("\(name).mpv", excessSum, atLeastOne("\(name).positives.safe", positives, rank: 2))
                // Features in this group's order (combination, bias, PPV then MPV) and their rows of the regression's weight.
                let features = reshape("\(name).features", input: concatenate("\(name).pair", inputs: [
                    reshape("\(name).ppv.column", input: proportion, shape: [c, biasCount, 1]),
                    reshape("\(name).mpv.column", input: meanPositive, shape: [c, biasCount, 1]),
                ], axis: 2, output: nil), shape: [1, c * biasCount * 2])
                var rowsOfWeight: [Float] = []
                rowsOfWeight.reserveCapacity(c * biasCount * 2 * classes)
                for combination in members {
                    for i in 0..<biasCount {
                        for feature in [2 * (biasStarts[combination] + i), 2 * (biasStarts[combination] + i) + 1] {
                            rowsOfWeight += weight[(feature * classes)..<((feature + 1) * classes)]
                        }
                    }
                }
                partials.append(matMul("\(name).logits", input: features, inputs: c * biasCount * 2, outputs: classes, weights: rowsOfWeight, bias: nil))
            }
        }
        var logits = add("\(prefix).logits.bias", partials[0], constant("\(prefix).bias", dimensions: [1, classes], values: head.bias.scalars))
        for (index, partial) in partials.dropFirst().enumerated() { logits = add("\(prefix).logits.\(index + 1)", logits, partial) }
        return reshape("\(prefix).logits", input: logits, shape: [classes])
    }
}
