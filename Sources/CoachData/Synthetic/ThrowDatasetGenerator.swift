import Foundation
import CoachRandom

/// What a generated throw dataset contains.
public struct ThrowDatasetSummary: Equatable, Sendable {
    /// The folder holding the clips and the annotation file.
    public var directory: URL
    /// The annotation file (`annotations.csv` or `annotations.json`).
    public var annotationFile: URL
    /// Clip file names, in clip order.
    public var clipFiles: [String]
    /// How many clips of each class (throw label, or the background label for clips without a throw).
    public var clipsPerClass: [String: Int]
    /// How many annotation segments carry each label.
    public var segmentsPerLabel: [String: Int]
    /// Annotated seconds per label.
    public var secondsPerLabel: [String: Double]
    /// Frames written over all clips.
    public var frameCount: Int
    /// Clips written as JSON.
    public var jsonClipCount: Int
    /// The people performing (each once, by identifier).
    public var subjects: [SyntheticSubject]
}

/// Generates cornhole throw clips of an 18-joint stick figure (Create ML's body18 layout):
/// overhand, underhand and under-the-leg throws among background actions, with varied
/// bodies, tempo, handedness, camera view and detector noise — the training and test data
/// of the action-classifier demo. Everything follows from the seed.
///
/// ```swift
/// let generator = ThrowDatasetGenerator()
/// let summary = try generator.generate(into: folder, clips: 240, seed: 7)
/// // folder/annotations.csv + folder/clip-0001.csv …
/// ```
public struct ThrowDatasetGenerator: Sendable {
    /// The dataset's knobs.
    public var configuration: ThrowDatasetConfiguration

    /// A generator with `configuration`.
    public init(configuration: ThrowDatasetConfiguration = ThrowDatasetConfiguration()) {
        self.configuration = configuration
    }

    // MARK: Planning

    /// The pool of people a dataset drawn from `seed` uses; exactly the configured share is left-handed.
    public func subjects(seed: UInt64) -> [SyntheticSubject] {
        var generator = SeededGenerator(seed: seed ^ 0x5EED_5B1E_C7A1)
        let count = max(configuration.subjectCount, 1)
        var subjects = (0..<count).map { SyntheticSubject.random(identifier: $0 + 1, using: &generator) }
        let leftHanded = Int((Double(count) * configuration.leftHandedShare).rounded())
        for index in generator.shuffled(Array(0..<count)).prefix(leftHanded) {
            subjects[index].isLeftHanded = true
        }
        return subjects
    }

    /// The plans of `clips` clips drawn from `seed`: the configured share without a throw, the
    /// rest spread evenly over the throw kinds, in shuffled order, each subject used in turn.
    public func makePlans(clips: Int, seed: UInt64) throws -> [ThrowClipPlan] {
        var problems = configuration.problems()
        if clips < 1 { problems.append("clips is \(clips); expected at least 1") }
        if !problems.isEmpty { throw SyntheticDataError.invalidConfiguration(problems: problems) }

        var generator = SeededGenerator(seed: seed)
        let subjects = subjects(seed: seed)
        let backgroundCount = min(clips, Int((Double(clips) * configuration.backgroundClipShare).rounded()))
        var classes: [ThrowKind?] = Array(repeating: nil, count: backgroundCount)
        for index in 0..<(clips - backgroundCount) {
            classes.append(configuration.throwKinds[index % configuration.throwKinds.count])
        }
        generator.shuffle(&classes)
        let subjectOrder = generator.shuffled((0..<clips).map { $0 % subjects.count })
        let jsonCount = Int((Double(clips) * configuration.jsonClipShare).rounded())
        let jsonClips = Set(generator.shuffled(Array(0..<clips)).prefix(jsonCount))
        let emptyCellCount = Int((Double(clips) * configuration.emptyCellShare).rounded())
        let emptyCellClips = Set(generator.shuffled(Array(0..<clips)).prefix(emptyCellCount))
        let digits = max(4, String(clips).count)

        return (0..<clips).map { index in
            var clipGenerator = generator.fork()
            let subject = subjects[subjectOrder[index]]
            let number = String(index + 1)
            let name = "clip-" + String(repeating: "0", count: digits - number.count) + number
            return ThrowClipPlan(
                name: name, subject: subject,
                camera: randomCamera(using: &clipGenerator),
                steps: randomSteps(throwing: classes[index], subject: subject, using: &clipGenerator),
                motionSeed: clipGenerator.next(), observationSeed: clipGenerator.next(),
                writesJSON: jsonClips.contains(index),
                writesMissingJointsAsEmptyCells: emptyCellClips.contains(index))
        }
    }

    private func randomCamera(using generator: inout SeededGenerator) -> SyntheticCamera {
        let c = configuration
        let side: Float = generator.nextBool() ? 0 : .pi
        let aspectDraw = generator.nextUniform()
        let aspect: Float = aspectDraw < 0.6 ? 16.0 / 9.0 : aspectDraw < 0.75 ? 4.0 / 3.0 : 9.0 / 16.0
        return SyntheticCamera(
            azimuth: side + syntheticRadians(generator.nextUniform(-c.maximumViewYaw, c.maximumViewYaw)),
            pitch: syntheticRadians(generator.nextUniform(0, c.maximumCameraPitch)),
            roll: syntheticRadians(generator.nextUniform(-c.maximumCameraRoll, c.maximumCameraRoll)),
            distance: generator.nextUniform(c.cameraDistanceRange.lowerBound, c.cameraDistanceRange.upperBound),
            focalLength: generator.nextUniform(1.0, 1.8),
            aspectRatio: aspect,
            placement: SIMD2(generator.nextUniform(), generator.nextUniform()))
    }

    private func randomSteps(throwing kind: ThrowKind?, subject: SyntheticSubject,
                             using generator: inout SeededGenerator) -> [ThrowClipPlan.Step] {
        let range = configuration.clipDurationRange
        var duration = Double(generator.nextUniform(Float(range.lowerBound), Float(range.upperBound)))
        guard let kind else {
            var steps = fill(duration, before: false, after: false, using: &generator)
            // A background clip shows at least one action besides standing when one fits.
            if steps.allSatisfy({ $0.action == .background(.standing) }),
               let longest = steps.indices.max(by: { steps[$0].duration < steps[$1].duration }) {
                let options = configuration.backgroundActions.filter {
                    $0 != .standing && $0.durationRange.lowerBound <= steps[longest].duration
                }
                if !options.isEmpty {
                    steps[longest].action = .background(options[generator.nextInt(below: options.count)])
                }
            }
            return steps
        }
        let throwDuration = kind.typicalDuration * Double(subject.tempo) * Double(generator.nextUniform(0.9, 1.1))
        duration = max(duration, throwDuration + 0.6)
        let start = Double(generator.nextUniform(0.3, Float(duration - throwDuration - 0.3)))
        var steps = fill(start, before: true, after: false, using: &generator)
        steps.append(ThrowClipPlan.Step(action: .throwing(kind), duration: throwDuration))
        steps += fill(duration - start - throwDuration, before: false, after: true, using: &generator)
        return steps
    }

    /// Background steps filling `length` seconds; before a throw they end standing at the line.
    private func fill(_ length: Double, before: Bool, after: Bool,
                      using generator: inout SeededGenerator) -> [ThrowClipPlan.Step] {
        var steps: [ThrowClipPlan.Step] = []
        var remaining = length
        if before {
            // Whatever came before, the thrower stands at the line for a moment first.
            let settle = length >= 1.8 ? Double(generator.nextUniform(0.6, 1.0)) : length
            steps = fill(length - settle, before: false, after: false, using: &generator)
            steps.append(ThrowClipPlan.Step(action: .background(.standing), duration: settle))
            return merged(steps)
        }
        if after && length >= 1.2 {
            let settle = Double(generator.nextUniform(0.4, 0.8))
            steps.append(ThrowClipPlan.Step(action: .background(.standing), duration: settle))
            remaining -= settle
        }
        let weights: [BackgroundAction: Float] = [.standing: 3, .walking: 2, .pickingUp: 1.5, .stretching: 1, .waving: 1]
        while remaining > 1e-9 {
            let fitting = configuration.backgroundActions.filter { $0.durationRange.lowerBound <= remaining }
            guard remaining >= 1.0, !fitting.isEmpty else {
                steps.append(ThrowClipPlan.Step(action: .background(.standing), duration: remaining))
                break
            }
            let total = fitting.reduce(Float(0)) { $0 + (weights[$1] ?? 1) }
            var draw = generator.nextUniform() * total
            var action = fitting[fitting.count - 1]
            for candidate in fitting {
                draw -= weights[candidate] ?? 1
                if draw < 0 { action = candidate; break }
            }
            let range = action.durationRange
            var length = Double(generator.nextUniform(Float(range.lowerBound), Float(min(range.upperBound, remaining))))
            if remaining - length < 0.8 { length = remaining }
            steps.append(ThrowClipPlan.Step(action: .background(action), duration: length))
            remaining -= length
        }
        return merged(steps)
    }

    /// `steps` with neighbouring standing steps joined.
    private func merged(_ steps: [ThrowClipPlan.Step]) -> [ThrowClipPlan.Step] {
        var result: [ThrowClipPlan.Step] = []
        for step in steps where step.duration > 1e-9 {
            if let last = result.last, last.action == .background(.standing), step.action == .background(.standing) {
                result[result.count - 1].duration += step.duration
            } else {
                result.append(step)
            }
        }
        return result
    }

    // MARK: Rendering

    /// Renders one plan: the observed frames, the noise-free positions and the labels.
    public func render(_ plan: ThrowClipPlan) -> SyntheticClip {
        ThrowClipRenderer(configuration: configuration).render(plan)
    }

    /// `clips` rendered clips drawn from `seed`, in memory.
    public func makeClips(clips: Int, seed: UInt64) throws -> [SyntheticClip] {
        try makePlans(clips: clips, seed: seed).map(render)
    }

    // MARK: Writing

    /// Writes `clips` clips drawn from `seed` into `directory` (created if needed): one file
    /// per clip (`clip-0001.csv`, some `.json`) and an annotation file listing every
    /// segment (`file,label,start,end`).
    public func generate(into directory: URL, clips: Int, seed: UInt64) throws -> ThrowDatasetSummary {
        let plans = try makePlans(clips: clips, seed: seed)
        try SyntheticFileWriting.createDirectory(directory)
        var summary = ThrowDatasetSummary(
            directory: directory, annotationFile: directory, clipFiles: [], clipsPerClass: [:],
            segmentsPerLabel: [:], secondsPerLabel: [:], frameCount: 0, jsonClipCount: 0,
            subjects: Dictionary(plans.map { ($0.subject.identifier, $0.subject) }, uniquingKeysWith: { a, _ in a })
                .values.sorted { $0.identifier < $1.identifier })
        var annotations: [(file: String, segment: SyntheticSegment)] = []
        for plan in plans {
            let clip = render(plan)
            try SyntheticFileWriting.write(clip.fileText(), to: directory.appendingPathComponent(plan.fileName))
            summary.clipFiles.append(plan.fileName)
            summary.clipsPerClass[clip.label, default: 0] += 1
            summary.frameCount += clip.frames.count
            if plan.writesJSON { summary.jsonClipCount += 1 }
            for segment in clip.segments {
                annotations.append((plan.fileName, segment))
                summary.segmentsPerLabel[segment.label, default: 0] += 1
                summary.secondsPerLabel[segment.label, default: 0] += segment.end - segment.start
            }
        }
        var text = SyntheticTextBuffer()
        switch configuration.annotationFormat {
        case .csv:
            summary.annotationFile = directory.appendingPathComponent("annotations.csv")
            text.append("file,label,start,end\n")
            for (file, segment) in annotations {
                text.append("\(file),\(segment.label),")
                text.append(segment.start, decimals: 3)
                text.append(byte: 44)
                text.append(segment.end, decimals: 3)
                text.append(byte: 10)
            }
        case .json:
            summary.annotationFile = directory.appendingPathComponent("annotations.json")
            text.append("[\n")
            for (index, (file, segment)) in annotations.enumerated() {
                text.append("  {\"file\": \"\(file)\", \"label\": \"\(segment.label)\", \"start\": ")
                text.append(segment.start, decimals: 3)
                text.append(", \"end\": ")
                text.append(segment.end, decimals: 3)
                text.append(index + 1 < annotations.count ? "},\n" : "}\n")
            }
            text.append("]\n")
        }
        try SyntheticFileWriting.write(text.bytes, to: summary.annotationFile)
        return summary
    }

    /// Writes a training split to `root/train` and a held-out test split to `root/test`,
    /// drawn from independent seeds derived from `seed`, so the test clips show people
    /// (bodies, tempo, handedness) the training clips never do.
    public func generateSplits(into root: URL, trainingClips: Int, testClips: Int,
                               seed: UInt64) throws -> (training: ThrowDatasetSummary, test: ThrowDatasetSummary) {
        var generator = SeededGenerator(seed: seed)
        let trainingSeed = generator.next(), testSeed = generator.next()
        let training = try generate(into: root.appendingPathComponent("train"), clips: trainingClips, seed: trainingSeed)
        let test = try generate(into: root.appendingPathComponent("test"), clips: testClips, seed: testSeed)
        return (training, test)
    }
}
