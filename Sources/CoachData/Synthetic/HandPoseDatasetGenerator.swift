import Foundation
import CoachRandom

/// What a generated hand-pose file contains.
public struct HandPoseDatasetSummary: Equatable, Sendable {
    /// The CSV file written.
    public var file: URL
    /// Rows written.
    public var sampleCount: Int
    /// Rows per label.
    public var samplesPerLabel: [String: Int]
    /// Rows showing a left hand.
    public var leftHandCount: Int
}

/// Generates single hand poses of a 21-joint hand (Vision's hand joints) for the
/// hand-pose classifier demo: open hand, fist, one, peace and background hands, with
/// varied proportions, rotation, tilt, size, chirality and detector noise. Everything
/// follows from the seed.
///
/// ```swift
/// let summary = try HandPoseDatasetGenerator().generate(into: file, samplesPerClass: 200, seed: 3)
/// // label,chirality,wrist_x,wrist_y,thumbCMC_x,…
/// ```
public struct HandPoseDatasetGenerator: Sendable {
    /// The dataset's knobs.
    public var configuration: HandPoseDatasetConfiguration

    /// A generator with `configuration`.
    public init(configuration: HandPoseDatasetConfiguration = HandPoseDatasetConfiguration()) {
        self.configuration = configuration
    }

    /// The specifications of `samplesPerClass` poses of every configured class drawn from
    /// `seed`, in shuffled order; exactly the configured share are left hands.
    public func makeSpecifications(samplesPerClass: Int, seed: UInt64) throws -> [HandPoseSpecification] {
        var problems = configuration.problems()
        if samplesPerClass < 1 { problems.append("samplesPerClass is \(samplesPerClass); expected at least 1") }
        if !problems.isEmpty { throw SyntheticDataError.invalidConfiguration(problems: problems) }
        let c = configuration
        var generator = SeededGenerator(seed: seed)
        let hands = (0..<c.subjectCount).map { _ in
            (finger: generator.nextUniform(0.92, 1.08), palm: generator.nextUniform(0.9, 1.1))
        }
        var classes: [SyntheticHandClass] = []
        for handClass in c.classes {
            classes += Array(repeating: handClass, count: samplesPerClass)
        }
        generator.shuffle(&classes)
        let leftCount = Int((Double(classes.count) * c.leftHandShare).rounded())
        let leftHands = Set(generator.shuffled(Array(classes.indices)).prefix(leftCount))
        return classes.indices.map { index in
            var g = generator.fork()
            let hand = hands[g.nextInt(below: hands.count)]
            let aspectDraw = g.nextUniform()
            return HandPoseSpecification(
                handClass: classes[index],
                chirality: leftHands.contains(index) ? .left : .right,
                fingerLengthScale: hand.finger, palmWidthScale: hand.palm,
                shapeSeed: g.next(),
                rotation: syntheticRadians(g.nextUniform(-c.maximumRotation, c.maximumRotation)),
                tiltAcross: syntheticRadians(g.nextUniform(-c.maximumTilt, c.maximumTilt)),
                tiltAlong: syntheticRadians(g.nextUniform(-c.maximumTilt, c.maximumTilt)),
                showsBack: g.nextBool(probability: Float(c.backShare)),
                size: g.nextUniform(c.sizeRange.lowerBound, c.sizeRange.upperBound),
                aspectRatio: aspectDraw < 0.5 ? 16.0 / 9.0 : aspectDraw < 0.7 ? 4.0 / 3.0 : 9.0 / 16.0,
                placement: SIMD2(g.nextUniform(), g.nextUniform()),
                noiseSeed: g.next())
        }
    }

    /// Renders one specification: finger angles → 3-D hand → turned, projected, placed, with noise.
    public func render(_ specification: HandPoseSpecification) -> SyntheticHandPose {
        let s = specification
        var shapeGenerator = SeededGenerator(seed: s.shapeSeed)
        let shape = HandShape.random(s.handClass, using: &shapeGenerator)
        let skeleton = HandSkeleton(fingerLengthScale: s.fingerLengthScale, palmWidthScale: s.palmWidthScale)
        var rotation = SyntheticRotation.aboutZ(s.rotation) * SyntheticRotation.aboutX(s.tiltAcross)
            * SyntheticRotation.aboutY(s.tiltAlong)
        if s.showsBack { rotation = rotation * SyntheticRotation.aboutY(.pi) }
        let mirror: Float = s.chirality == .left ? -1 : 1
        let lens = skeleton.joints(for: shape).map { point -> SIMD2<Float> in
            let turned = rotation * SIMD3(mirror * point.x, point.y, point.z)
            return SIMD2(turned.x * s.size / s.aspectRatio, -turned.y * s.size)
        }
        var low = lens[0], high = lens[0]
        for p in lens {
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        let margin: Float = 0.02
        let room = SIMD2<Float>(repeating: 1 - 2 * margin)
        let zoom = min(1, (room / pointwiseMax(high - low, SIMD2(repeating: 1e-6))).min())
        let free = room - (high - low) * zoom
        let offset = SIMD2(repeating: margin) - low * zoom + s.placement * free
        let truePositions = lens.map { $0 * zoom + offset }
        var noise = SeededGenerator(seed: s.noiseSeed)
        let sigma = configuration.keypointNoise * s.size * zoom
        let scale = SIMD2<Float>(sigma / s.aspectRatio, sigma)
        let keypoints = truePositions.map { p -> SIMD2<Float> in
            let noisy = p + SIMD2(noise.nextNormal(), noise.nextNormal()) * scale
            return pointwiseMin(pointwiseMax(noisy, .zero), SIMD2(repeating: 1))
        }
        return SyntheticHandPose(specification: s, label: s.handClass.rawValue, keypoints: keypoints,
                                 truePositions: truePositions)
    }

    /// `samplesPerClass` rendered poses of every class drawn from `seed`, in memory.
    public func makeSamples(samplesPerClass: Int, seed: UInt64) throws -> [SyntheticHandPose] {
        try makeSpecifications(samplesPerClass: samplesPerClass, seed: seed).map(render)
    }

    /// The single-pose CSV (FORMATS.md §3.5) of `samples`: `label`, optionally `chirality`,
    /// then `<joint>_x,<joint>_y` for the 21 hand joints, 4 decimals.
    public func csvText(of samples: [SyntheticHandPose]) -> [UInt8] {
        var text = SyntheticTextBuffer(reservingCapacity: 256 + samples.count * 300)
        text.append(configuration.writesChirality ? "label,chirality" : "label")
        for name in SyntheticJointNames.hand21 {
            text.append(",\(name)_x,\(name)_y")
        }
        text.append(byte: 10)
        for sample in samples {
            text.append(sample.label)
            if configuration.writesChirality {
                text.append(byte: 44)
                text.append(sample.chirality.rawValue)
            }
            var points = sample.keypoints
            if configuration.coordinates == .wristRelative {
                let aspect = sample.specification.aspectRatio
                let square = points.map { SIMD2($0.x * aspect, $0.y) }
                let d = square[9] - square[0]
                let unit = max((d * d).sum().squareRoot(), 1e-6)
                points = square.map { ($0 - square[0]) / unit }
            }
            for p in points {
                text.append(byte: 44); text.append(p.x, decimals: 4)
                text.append(byte: 44); text.append(p.y, decimals: 4)
            }
            text.append(byte: 10)
        }
        return text.bytes
    }

    /// Writes `samplesPerClass` poses of every class drawn from `seed` to the CSV `file`
    /// (its folder is created if needed).
    public func generate(into file: URL, samplesPerClass: Int, seed: UInt64) throws -> HandPoseDatasetSummary {
        let samples = try makeSamples(samplesPerClass: samplesPerClass, seed: seed)
        try SyntheticFileWriting.createDirectory(file.deletingLastPathComponent())
        try SyntheticFileWriting.write(csvText(of: samples), to: file)
        var perLabel: [String: Int] = [:]
        for sample in samples { perLabel[sample.label, default: 0] += 1 }
        return HandPoseDatasetSummary(file: file, sampleCount: samples.count, samplesPerLabel: perLabel,
                                      leftHandCount: samples.filter { $0.chirality == .left }.count)
    }

    /// Writes `directory/train.csv` and `directory/test.csv` from independent seeds derived
    /// from `seed`, so the test hands (proportions, shapes, views) are never in training.
    public func generateSplits(into directory: URL, trainingSamplesPerClass: Int, testSamplesPerClass: Int,
                               seed: UInt64) throws -> (training: HandPoseDatasetSummary, test: HandPoseDatasetSummary) {
        var generator = SeededGenerator(seed: seed)
        let trainingSeed = generator.next(), testSeed = generator.next()
        let training = try generate(into: directory.appendingPathComponent("train.csv"),
                                    samplesPerClass: trainingSamplesPerClass, seed: trainingSeed)
        let test = try generate(into: directory.appendingPathComponent("test.csv"),
                                samplesPerClass: testSamplesPerClass, seed: testSeed)
        return (training, test)
    }
}
