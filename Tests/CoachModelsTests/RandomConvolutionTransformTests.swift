import CoachData
import CoachRandom
import CoachTensor
import XCTest
import CoachModels

/// The MiniRocket-style transform against a direct computation from its definition, its layout
/// against MiniRocket's reference code (`_fit_dilations`, `_quantiles` in numpy), and the head's
/// model-file round trip and errors.
final class RandomConvolutionTransformTests: XCTestCase {
    /// Dilations and biases per dilation as MiniRocket's `_fit_dilations(input_length, num_features)`
    /// gives them (printed by numpy for these arguments).
    func testDilationsMatchMiniRocketReference() {
        let t45 = RandomConvolutionTransform.dilations(length: 45, biasesPerKernel: 5000 / 84)
        XCTAssertEqual(t45.values, [1, 2, 3, 4, 5])
        XCTAssertEqual(t45.biases, [24, 13, 12, 7, 3])
        let t16 = RandomConvolutionTransform.dilations(length: 16, biasesPerKernel: 5000 / 84)
        XCTAssertEqual(t16.values, [1])
        XCTAssertEqual(t16.biases, [59])
        let t100 = RandomConvolutionTransform.dilations(length: 100, biasesPerKernel: 10000 / 84)
        XCTAssertEqual(t100.values, Array(1...12))
        XCTAssertEqual(t100.biases, [34, 19, 15, 8, 12, 4, 8, 7, 3, 3, 3, 3])
    }

    func testEightyFourKernelsOfSixMinusOnesAndThreeTwos() {
        XCTAssertEqual(RandomConvolutionTransform.kernels.count, 84)
        XCTAssertEqual(Set(RandomConvolutionTransform.kernels.map { $0.map(String.init).joined(separator: ",") }).count, 84)
        XCTAssertTrue(RandomConvolutionTransform.kernels.allSatisfy { $0.count == 3 && $0.allSatisfy { (0..<9).contains($0) } })
    }

    /// Channel subsets are drawn from the available channels only; with all channels (or none)
    /// available the draws are those of a transform that was given no list.
    func testChannelSubsetsComeFromTheAvailableChannels() {
        var a = SeededGenerator(seed: 5), b = SeededGenerator(seed: 5), c = SeededGenerator(seed: 5)
        let all = RandomConvolutionTransform(length: 45, channelCount: 20, biasCount: 2000, generator: &a)
        let listed = RandomConvolutionTransform(length: 45, channelCount: 20, biasCount: 2000,
                                                availableChannels: Array(0..<20), generator: &b)
        XCTAssertEqual(all, listed)
        var d = SeededGenerator(seed: 5)
        XCTAssertEqual(RandomConvolutionTransform(length: 45, channelCount: 20, biasCount: 2000, availableChannels: [], generator: &d),
                       all, "no channel varies: all of them are drawn from, as before")
        let some = RandomConvolutionTransform(length: 45, channelCount: 20, biasCount: 2000,
                                              availableChannels: [1, 4, 7, 19], generator: &c)
        XCTAssertEqual(Set(some.channels), [1, 4, 7, 19], "every available channel is used, no other")
        XCTAssertLessThanOrEqual(some.channelCounts.max() ?? 0, 4)
        XCTAssertEqual(some.channelCounts.reduce(0, +), some.channels.count)
        for (start, count) in zip(some.channelCounts.indices.map { some.channelCounts[..<$0].reduce(0, +) }, some.channelCounts) {
            XCTAssertEqual(Set(some.channels[start..<(start + count)]).count, count, "a combination's channels are distinct")
        }
    }

    /// PPV and MPV of every bias equal a direct dilated convolution with weights −1/2 and zero
    /// padding, pooled over all frames (padded) or the frames where the kernel fits.
    func testFeaturesMatchDirectConvolution() {
        let length = 30, channels = 4
        var generator = SeededGenerator(seed: 3)
        var transform = RandomConvolutionTransform(length: length, channelCount: channels, biasCount: 300, generator: &generator)
        let series = (0..<5).map { _ in (0..<(length * channels)).map { _ in generator.nextNormal() } }
        transform.fitBiases(series: series, generator: &generator)
        let input = series[2]
        var features = [Float](repeating: 0, count: transform.featureCount)
        var scratch = RandomConvolutionTransform.Scratch(length: length, channelCount: channels)
        input.withUnsafeBufferPointer { x in
            features.withUnsafeMutableBufferPointer { transform.features(of: x, into: $0, scratch: &scratch) }
        }
        var channelStart = 0, biasIndex = 0
        for combination in 0..<transform.combinationCount {
            let kernel = RandomConvolutionTransform.kernels[transform.kernelIndices[combination]]
            let dilation = transform.dilations[combination]
            let subset = transform.channels[channelStart..<(channelStart + transform.channelCounts[combination])]
            channelStart += subset.count
            var output = [Double](repeating: 0, count: length)
            for t in 0..<length {
                for c in subset {
                    for tap in 0..<9 {
                        let s = t + (tap - 4) * dilation
                        guard s >= 0 && s < length else { continue }
                        output[t] += (kernel.contains(tap) ? 2 : -1) * Double(input[c * length + s])
                    }
                }
            }
            let reach = 4 * dilation
            let range = transform.padded[combination] || 2 * reach >= length ? 0..<length : reach..<(length - reach)
            for _ in 0..<transform.biasCounts[combination] {
                let bias = Double(transform.biases[biasIndex])
                let positive = range.filter { output[$0] > bias }
                let ppv = Double(positive.count) / Double(range.count)
                let mpv = positive.isEmpty ? 0 : positive.map { output[$0] - bias }.reduce(0, +) / Double(positive.count)
                XCTAssertEqual(Double(features[2 * biasIndex]), ppv, accuracy: 1e-6, "PPV of bias \(biasIndex)")
                XCTAssertEqual(Double(features[2 * biasIndex + 1]), mpv, accuracy: 1e-4 * max(1, abs(mpv)), "MPV of bias \(biasIndex)")
                biasIndex += 1
            }
        }
        XCTAssertEqual(biasIndex, transform.biases.count)
        // Biases are quantiles of real outputs: neither all PPVs 0 nor all 1.
        let ppvs = stride(from: 0, to: features.count, by: 2).map { features[$0] }
        XCTAssertTrue(ppvs.contains { $0 > 0.05 && $0 < 0.95 })
    }

    /// The head survives a model file round trip exactly, and the ensemble's probabilities are
    /// the mean of the network's and the head's.
    func testHeadRoundTripsThroughModelFileAndAveragesWithNetwork() throws {
        let jointSet = JointSet(names: ["a", "b", "c"])!
        var generator = SeededGenerator(seed: 5)
        let encoding = ActionInputEncoding(windowLength: 12, jointCount: 3, includesDepth: false)
        let model = ActionClassifierModel(labels: ["x", "y"], jointSet: jointSet, frameRate: 30, encoding: encoding,
                                          architecture: .temporalConvolution(), generator: &generator)
        let windows = (0..<4).map { _ -> PoseWindow in
            var window = PoseWindow(frameCount: 12, jointCount: 3)
            for i in 0..<36 {
                window.x[i] = generator.nextUniform()
                window.y[i] = generator.nextUniform()
                window.confidence[i] = 1
            }
            return window
        }
        var transform = RandomConvolutionTransform(length: 12, channelCount: RandomConvolutionHead.seriesCount(of: encoding),
                                                   biasCount: 168, generator: &generator)
        transform.fitBiases(series: RandomConvolutionHead.series(of: encoding.encode(windows), encoding: encoding, fillsGaps: true),
                            generator: &generator)
        let weight = Tensor(shape: [transform.featureCount, 2], scalars: (0..<(transform.featureCount * 2)).map { _ in generator.nextNormal() })
        let networkOnly = model.probabilities(for: windows)
        model.randomConvolution = RandomConvolutionHead(transform: transform, weight: weight, bias: Tensor(shape: [2], scalars: [0.5, -0.5]))
        model.keypointOrigin = .bottomLeft
        let ensemble = model.probabilities(for: windows)
        let head = model.randomConvolution!.logits(encoded: encoding.encode(windows), encoding: encoding).softmax(axis: -1)
        for n in 0..<4 {
            for c in 0..<2 {
                XCTAssertEqual(ensemble[n][c], 0.5 * (networkOnly[n][c] + head.scalars[n * 2 + c]), accuracy: 1e-6)
            }
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rocket-\(getpid()).h5")
        defer { try? FileManager.default.removeItem(at: url) }
        try model.modelFile().write(to: url)
        let loaded = try ActionClassifierModel(contentsOf: url)
        XCTAssertEqual(loaded.randomConvolution, model.randomConvolution)
        XCTAssertEqual(loaded.randomConvolution?.fillsGaps, true)
        XCTAssertEqual(loaded.keypointOrigin, .bottomLeft)
        XCTAssertEqual(loaded.probabilities(for: windows), ensemble)

        // A file written before heads filled gaps (no flag in its specification) reads zeros.
        var old = try ModelFile.read(from: url)
        guard case .object(var specification)? = old.metadata.extra[ActionClassifierSpecification.metadataKey] else {
            return XCTFail("no action-classifier specification in the file")
        }
        XCTAssertEqual(specification.removeValue(forKey: "randomConvolutionFillsGaps"), .bool(true))
        old.metadata.extra[ActionClassifierSpecification.metadataKey] = .object(specification)
        try old.write(to: url)
        XCTAssertEqual(try ActionClassifierModel(contentsOf: url).randomConvolution?.fillsGaps, false)
        try model.modelFile().write(to: url)

        // A damaged head is an error naming the tensor, never a crash.
        var file = try ModelFile.read(from: url)
        file.tensors["randomConvolution.channels"] = Tensor(repeating: 99,
                                                            shape: [file.tensors["randomConvolution.channels"]!.count])
        try file.write(to: url)
        XCTAssertThrowsError(try ActionClassifierModel(contentsOf: url)) { error in
            XCTAssertTrue("\(error.localizedDescription)".contains("randomConvolution"), "\(error.localizedDescription)")
        }
        file.tensors["randomConvolution.channels"] = nil
        try file.write(to: url)
        XCTAssertThrowsError(try ActionClassifierModel(contentsOf: url)) { error in
            XCTAssertTrue(error.localizedDescription.contains("randomConvolution.channels"), error.localizedDescription)
        }
    }

    /// Filled gaps against values computed by hand: positions on a straight line are restored
    /// exactly between detected frames, held before the first and after the last, a joint never
    /// detected stays zero, detected values are untouched, and velocities are the filled
    /// positions' differences.
    func testFillGapsInterpolatesBetweenAndHoldsAtEnds() {
        let t = 8
        // Joint 0: x = 2 + 0.5·frame, y = −frame, detected at frames 2, 3 and 6.
        // Joint 1: never detected. Series per joint: x, y, dx, dy.
        var series = [Float](repeating: 0, count: 2 * 4 * t)
        var detected = [Bool](repeating: false, count: 2 * t)
        for frame in [2, 3, 6] {
            detected[frame] = true
            series[frame] = 2 + 0.5 * Float(frame)
            series[t + frame] = -Float(frame)
        }
        RandomConvolutionHead.fillGaps(&series, detected: detected, frameCount: t, jointCount: 2, positionCount: 2, hasVelocity: true)
        let x: [Float] = [3, 3, 3, 3.5, 4, 4.5, 5, 5]
        let y: [Float] = [-2, -2, -2, -3, -4, -5, -6, -6]
        XCTAssertEqual(Array(series[0..<t]), x)
        XCTAssertEqual(Array(series[t..<(2 * t)]), y)
        XCTAssertEqual(Array(series[(2 * t)..<(3 * t)]), [0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0])
        XCTAssertEqual(Array(series[(3 * t)..<(4 * t)]), [0, 0, 0, -1, -1, -1, -1, 0])
        XCTAssertTrue(series[(4 * t)...].allSatisfy { $0 == 0 }, "a joint never detected stays zero")
    }

    /// What filling is for: a window of smooth motion with frames dropped gives the head nearly the
    /// features of the complete window, while the zeros it used to read give very different ones.
    func testFilledWindowsKeepTheirFeaturesWhenFramesAreMissing() {
        let encoding = ActionInputEncoding(windowLength: 45, jointCount: 4, includesDepth: false)
        var generator = SeededGenerator(seed: 3)
        func window(dropping dropped: Set<Int>) -> PoseWindow {
            var window = PoseWindow(frameCount: 45, jointCount: 4)
            for frame in 0..<45 {
                for joint in 0..<4 where !dropped.contains(frame * 4 + joint) {
                    let phase = Float(frame) / 45 * 2 * .pi
                    window.x[frame * 4 + joint] = 0.5 + 0.2 * Float(joint) + 0.1 * sin(phase + Float(joint))
                    window.y[frame * 4 + joint] = 0.5 + 0.15 * cos(2 * phase + Float(joint))
                    window.confidence[frame * 4 + joint] = 1
                }
            }
            return window
        }
        let complete = window(dropping: [])
        // One frame in nine of joint 1 and frames 20–24 of joint 3 missing.
        let gappy = window(dropping: Set(stride(from: 1, to: 180, by: 36)).union((20..<25).map { $0 * 4 + 3 }))
        var transform = RandomConvolutionTransform(length: 45, channelCount: RandomConvolutionHead.seriesCount(of: encoding),
                                                   biasCount: 500, generator: &generator)
        let reference = RandomConvolutionHead.series(of: encoding.encode([complete]), encoding: encoding, fillsGaps: true)
        transform.fitBiases(series: reference + reference, generator: &generator)
        func distance(fillsGaps: Bool) -> Float {
            let f0 = RandomConvolutionHead.features(of: reference, transform: transform).scalars
            let f1 = RandomConvolutionHead.features(of: RandomConvolutionHead.series(of: encoding.encode([gappy]), encoding: encoding,
                                                                                     fillsGaps: fillsGaps),
                                                    transform: transform).scalars
            return zip(f0, f1).map { abs($0 - $1) }.reduce(0, +) / Float(f0.count)
        }
        let filled = distance(fillsGaps: true), zeros = distance(fillsGaps: false)
        XCTAssertLessThan(filled * 4, zeros, "filled \(filled), zeros \(zeros)")
    }

    /// Bone series against values computed by hand: after the joints' series come, per bone, the
    /// filled positions' difference (second joint minus first), and a bone with a joint never
    /// detected in the window reads zero; a head with bones survives the model file, and a damaged
    /// bone list is an error naming the tensor.
    func testBonesAreFilledPositionDifferencesAndRoundTrip() throws {
        let t = 12, encoding = ActionInputEncoding(windowLength: 12, jointCount: 3, includesDepth: false)
        let bones = [SkeletonGraph.Edge(0, 1), SkeletonGraph.Edge(1, 2)]
        XCTAssertEqual(RandomConvolutionHead.seriesCount(of: encoding, boneCount: 2), 3 * 4 + 2 * 2)
        var generator = SeededGenerator(seed: 9)
        func window() -> PoseWindow {
            var window = PoseWindow(frameCount: t, jointCount: 3)
            for frame in 0..<t {
                for joint in 0..<2 where !(joint == 1 && frame % 4 == 1) {   // joint 1 missed now and then, joint 2 never seen
                    window.x[frame * 3 + joint] = generator.nextUniform()
                    window.y[frame * 3 + joint] = generator.nextUniform()
                    window.confidence[frame * 3 + joint] = 1
                }
            }
            return window
        }
        let windows = [window(), window()]
        let encoded = encoding.encode(windows)
        let plain = RandomConvolutionHead.series(of: encoded, encoding: encoding, fillsGaps: true)
        let withBones = RandomConvolutionHead.series(of: encoded, encoding: encoding, fillsGaps: true, bones: bones)
        for (p, b) in zip(plain, withBones) {
            XCTAssertEqual(b.count, 16 * t)
            XCTAssertEqual(Array(b[0..<(12 * t)]), p, "the joints' series come first, unchanged")
            for c in 0..<2 {
                for frame in 0..<t {
                    // Joint j's coordinate c sits in row j · 4 + c.
                    XCTAssertEqual(b[(12 + c) * t + frame], p[(4 + c) * t + frame] - p[c * t + frame])
                }
            }
            XCTAssertTrue(b[(14 * t)...].allSatisfy { $0 == 0 }, "a bone to a joint never detected reads zero")
            XCTAssertTrue(b[(12 * t)..<(14 * t)].contains { $0 != 0 })
        }

        let jointSet = JointSet(names: ["a", "b", "c"])!
        let model = ActionClassifierModel(labels: ["x", "y"], jointSet: jointSet, frameRate: 30, encoding: encoding,
                                          architecture: .temporalConvolution(), generator: &generator)
        var transform = RandomConvolutionTransform(length: t, channelCount: 16, biasCount: 168, generator: &generator)
        transform.fitBiases(series: withBones, generator: &generator)
        let weight = Tensor(shape: [transform.featureCount, 2], scalars: (0..<(transform.featureCount * 2)).map { _ in generator.nextNormal() })
        model.randomConvolution = RandomConvolutionHead(transform: transform, weight: weight, bias: Tensor(shape: [2], scalars: [0, 0]),
                                                        bones: bones)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rocket-bones-\(getpid()).h5")
        defer { try? FileManager.default.removeItem(at: url) }
        try model.modelFile().write(to: url)
        let loaded = try ActionClassifierModel(contentsOf: url)
        XCTAssertEqual(loaded.randomConvolution?.bones, bones)
        XCTAssertEqual(loaded.probabilities(for: windows), model.probabilities(for: windows))
        var file = try ModelFile.read(from: url)
        file.tensors["randomConvolution.bones"] = Tensor(shape: [3], scalars: [0, 1, 7])
        try file.write(to: url)
        XCTAssertThrowsError(try ActionClassifierModel(contentsOf: url)) { error in
            XCTAssertTrue(error.localizedDescription.contains("randomConvolution.bones"), error.localizedDescription)
        }
    }
}
