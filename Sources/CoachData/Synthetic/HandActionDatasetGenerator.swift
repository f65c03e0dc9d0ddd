import CoachRandom
import Foundation

/// One generated hand-action clip: its class, hand, and every frame's 21 keypoints.
public struct SyntheticHandActionClip: Equatable, Sendable {
    /// The class label (`wave`, `grab`, `swipe` or `background`).
    public var label: String
    /// Left or right hand.
    public var chirality: SyntheticChirality
    /// Per frame, the 21 keypoints in `SyntheticJointNames.hand21` order (normalised image
    /// coordinates, origin top-left, with detector noise).
    public var frames: [[SIMD2<Float>]]
}

/// What `HandActionDatasetGenerator.generate` wrote.
public struct HandActionDatasetSummary: Equatable, Sendable {
    /// The folder holding one folder per class.
    public var root: URL
    /// The clip files written, in order.
    public var clipFiles: [URL]
    /// Clips per label.
    public var clipsPerLabel: [String: Int]
    /// Clips of a left hand.
    public var leftHandCount: Int
}

/// Generates hand-action clips of the 21-joint synthetic hand (see `HandPoseDatasetGenerator`):
/// `wave` (an open hand swinging about the wrist), `grab` (open → fist → open), `swipe` (an open
/// hand sweeping across the frame, away from the body: to the right for a right hand, to the left
/// for a left hand) and `background` (a still hand of any shape, drifting slightly). Each clip has
/// its own hand, view, size, speed and detector noise; everything follows from the seed.
public struct HandActionDatasetGenerator: Sendable {
    /// The class labels, in order.
    public static let labels = ["wave", "grab", "swipe", "background"]
    /// The views, hands, sizes and noise (as for single poses).
    public var configuration: HandPoseDatasetConfiguration
    /// Frames per clip.
    public var frameCount: Int = 60
    /// Frames per second (the `time` column).
    public var frameRate: Double = 30

    /// A generator with `configuration` (default: tilts up to 25°, rotations up to 30°).
    public init(configuration: HandPoseDatasetConfiguration? = nil) {
        var standard = HandPoseDatasetConfiguration()
        standard.maximumTilt = 25
        standard.maximumRotation = 30
        standard.sizeRange = 0.15...0.35
        self.configuration = configuration ?? standard
    }

    /// `clipsPerClass` clips of every class drawn from `seed`, classes interleaved; exactly the
    /// configured share (rounded) are left hands.
    public func makeClips(clipsPerClass: Int, seed: UInt64) throws -> [SyntheticHandActionClip] {
        var problems = configuration.problems()
        if clipsPerClass < 1 { problems.append("clipsPerClass is \(clipsPerClass); expected at least 1") }
        if frameCount < 2 { problems.append("frameCount is \(frameCount); expected at least 2") }
        if !(frameRate > 0) { problems.append("frameRate is \(frameRate); expected a positive rate") }
        if !problems.isEmpty { throw SyntheticDataError.invalidConfiguration(problems: problems) }
        var generator = SeededGenerator(seed: seed)
        let specifications = try HandPoseDatasetGenerator(configuration: configuration)
            .makeSpecifications(samplesPerClass: clipsPerClass, seed: generator.next())
        let labels = HandActionDatasetGenerator.labels
        let total = clipsPerClass * labels.count
        let leftCount = Int((Double(total) * configuration.leftHandShare).rounded())
        let leftClips = Set(generator.shuffled(Array(0..<total)).prefix(leftCount))
        return (0..<total).map { index in
            var g = generator.fork()
            var base = specifications[index % specifications.count]
            base.chirality = leftClips.contains(index) ? .left : .right
            return clip(label: labels[index % labels.count], base: base, generator: &g)
        }
    }

    /// Renders one clip of `label` around the view `base`.
    func clip(label: String, base: HandPoseSpecification, generator g: inout SeededGenerator) -> SyntheticHandActionClip {
        let renderer = HandPoseDatasetGenerator(configuration: configuration)
        var still = base
        still.handClass = label == "background" ? .background : .open
        still.placement = SIMD2(g.nextUniform(0.3, 0.7), g.nextUniform(0.3, 0.7))
        var fist = still
        fist.handClass = .fist
        let frequency = g.nextUniform(0.8, 1.3)          // cycles per second (wave: twice this)
        let phase = g.nextUniform(0, 2 * .pi)
        let amplitude = syntheticRadians(g.nextUniform(20, 35))
        let outward: Float = base.chirality == .right ? 1 : -1
        let drift = SIMD2(g.nextUniform(-0.05, 0.05), g.nextUniform(-0.05, 0.05))
        var frames: [[SIMD2<Float>]] = []
        for k in 0..<frameCount {
            let t = Float(Double(k) / frameRate)
            let progress = Float(k) / Float(frameCount - 1)
            var spec = still
            spec.noiseSeed = g.next()
            switch label {
            case "wave":
                spec.rotation = still.rotation + amplitude * sin(2 * .pi * 2 * frequency * t + phase)
            case "swipe":
                spec.placement.x = 0.5 + outward * (progress - 0.5) * 0.9
            case "grab":
                var closed = fist
                closed.noiseSeed = spec.noiseSeed
                let w = 0.5 - 0.5 * cos(2 * .pi * frequency * t + phase)
                let a = renderer.render(spec).keypoints, b = renderer.render(closed).keypoints
                frames.append(zip(a, b).map { $0 + ($1 - $0) * w })
                continue
            default:
                spec.placement = pointwiseMin(pointwiseMax(still.placement + drift * progress, .zero), SIMD2(repeating: 1))
                spec.rotation = still.rotation + syntheticRadians(5) * progress
            }
            frames.append(renderer.render(spec).keypoints)
        }
        return SyntheticHandActionClip(label: label, chirality: base.chirality, frames: frames)
    }

    /// One clip as a clip CSV (FORMATS §3.2): `time,chirality,<joint>_x,<joint>_y,…`.
    public func csvText(of clip: SyntheticHandActionClip) -> [UInt8] {
        var text = SyntheticTextBuffer(reservingCapacity: 128 + clip.frames.count * 300)
        text.append("time,chirality")
        for name in SyntheticJointNames.hand21 { text.append(",\(name)_x,\(name)_y") }
        text.append(byte: 10)
        for (k, frame) in clip.frames.enumerated() {
            text.append(Double(k) / frameRate, decimals: 4)
            text.append(byte: 44)
            text.append(clip.chirality.rawValue)
            for p in frame {
                text.append(byte: 44); text.append(p.x, decimals: 4)
                text.append(byte: 44); text.append(p.y, decimals: 4)
            }
            text.append(byte: 10)
        }
        return text.bytes
    }

    /// Writes `root/<label>/clip-NNNN.csv` for `clipsPerClass` clips of every class drawn from `seed`.
    public func generate(into root: URL, clipsPerClass: Int, seed: UInt64) throws -> HandActionDatasetSummary {
        let clips = try makeClips(clipsPerClass: clipsPerClass, seed: seed)
        var files: [URL] = []
        var perLabel: [String: Int] = [:]
        for label in HandActionDatasetGenerator.labels {
            try SyntheticFileWriting.createDirectory(root.appendingPathComponent(label))
        }
        for (index, clip) in clips.enumerated() {
            let number = String(index)
            let file = root.appendingPathComponent(clip.label)
                .appendingPathComponent("clip-" + String(repeating: "0", count: max(0, 4 - number.count)) + number + ".csv")
            try SyntheticFileWriting.write(csvText(of: clip), to: file)
            files.append(file)
            perLabel[clip.label, default: 0] += 1
        }
        return HandActionDatasetSummary(root: root, clipFiles: files, clipsPerLabel: perLabel,
                                        leftHandCount: clips.filter { $0.chirality == .left }.count)
    }

    /// Writes `directory/train/` and `directory/test/` from independent seeds derived from `seed`.
    public func generateSplits(into directory: URL, trainingClipsPerClass: Int, testClipsPerClass: Int,
                               seed: UInt64) throws -> (training: HandActionDatasetSummary, test: HandActionDatasetSummary) {
        var generator = SeededGenerator(seed: seed)
        let trainingSeed = generator.next(), testSeed = generator.next()
        let training = try generate(into: directory.appendingPathComponent("train"), clipsPerClass: trainingClipsPerClass,
                                    seed: trainingSeed)
        let test = try generate(into: directory.appendingPathComponent("test"), clipsPerClass: testClipsPerClass, seed: testSeed)
        return (training, test)
    }
}
