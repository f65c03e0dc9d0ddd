import CoachData
import CoachRandom
import Foundation

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
    /// The generated people who appear (by identifier).
    public var performers: [Int]
    /// The motion-capture trials shown.
    public var motionCaptureTrials: [String]
}

/// Generates cornhole throw clips as a phone's pose detector would see them: 3-D people of
/// varied build throwing overhand, underhand and under the leg among the things people do
/// between throws, plus real motion capture, filmed by virtual phone cameras from every side
/// and reported as Vision body18 keypoints with detector noise — the training and test data of
/// the action-classifier demo. Everything follows from the seed.
///
/// ```swift
/// let generator = ThrowDatasetGenerator()
/// let (train, test) = try generator.generateSplits(into: folder, trainingClips: 240, testClips: 80, seed: 7)
/// // folder/train/annotations.csv + folder/train/clip-0001.csv …
/// ```
public struct ThrowDatasetGenerator: Sendable {
    /// Which people a dataset shows.
    public enum Split: Sendable {
        /// The training people and motion-capture subjects.
        case training
        /// Other people and other motion-capture subjects.
        case test
    }

    /// The dataset's knobs.
    public var configuration: ThrowDatasetConfiguration

    /// A generator with `configuration`.
    public init(configuration: ThrowDatasetConfiguration = ThrowDatasetConfiguration()) {
        self.configuration = configuration
    }

    /// The motion-capture library of the configuration (`nil` without one).
    public func loadMotionCapture() throws -> MotionCaptureLibrary? {
        guard let directory = configuration.motionCaptureDirectory, configuration.motionCaptureShare > 0 else { return nil }
        return try MotionCaptureLibrary(directory: directory)
    }

    /// The people a dataset drawn from `seed` shows; exactly the configured share is left-handed.
    public func performers(seed: UInt64) -> [Performer] {
        var generator = SeededGenerator(seed: seed ^ 0x5EED_5B1E_C7A1)
        let count = max(configuration.performerCount, 1)
        let leftHanded = Set(generator.shuffled(Array(0..<count))
            .prefix(Int((Double(count) * configuration.leftHandedShare).rounded())))
        return (0..<count).map {
            Performer.random(identifier: $0 + 1, heights: configuration.heightRange, leftHanded: leftHanded.contains($0),
                             using: &generator)
        }
    }

    /// `clips` rendered clips drawn from `seed`, in memory: the configured share without a
    /// throw (part of them motion capture of the split's subjects when `motionCapture` is given),
    /// the rest spread evenly over the throw kinds, in shuffled order.
    public func makeClips(clips: Int, seed: UInt64, split: Split = .training,
                          motionCapture: MotionCaptureLibrary? = nil) throws -> [GeneratedClip] {
        var result: [GeneratedClip] = []
        try forEachClip(clips: clips, seed: seed, split: split, motionCapture: motionCapture) { result.append($0) }
        return result
    }

    private func forEachClip(clips: Int, seed: UInt64, split: Split, motionCapture: MotionCaptureLibrary?,
                             _ body: (GeneratedClip) throws -> Void) throws {
        var problems = configuration.problems()
        if clips < 1 { problems.append("clips is \(clips); expected at least 1") }
        if !problems.isEmpty { throw SyntheticDataError.invalidConfiguration(problems: problems) }
        let subjects = split == .training ? configuration.trainingMotionCaptureSubjects : configuration.testMotionCaptureSubjects
        let captures = motionCapture?.clips(ofSubjects: subjects) ?? []

        var generator = SeededGenerator(seed: seed)
        let people = performers(seed: seed)
        let backgroundCount = min(clips, Int((Double(clips) * configuration.backgroundClipShare).rounded()))
        let captureCount = captures.isEmpty ? 0 : Int((Double(backgroundCount) * configuration.motionCaptureShare).rounded())
        enum Content { case scripted(ThrowKind?), motionCapture }
        var contents: [Content] = Array(repeating: .motionCapture, count: captureCount)
        contents += Array(repeating: .scripted(nil), count: backgroundCount - captureCount)
        for index in 0..<(clips - backgroundCount) {
            contents.append(.scripted(configuration.throwKinds[index % configuration.throwKinds.count]))
        }
        generator.shuffle(&contents)
        let personOrder = generator.shuffled((0..<clips).map { $0 % people.count })
        let jsonClips = Set(generator.shuffled(Array(0..<clips)).prefix(Int((Double(clips) * configuration.jsonClipShare).rounded())))
        let emptyCellClips = Set(generator.shuffled(Array(0..<clips)).prefix(Int((Double(clips) * configuration.emptyCellShare).rounded())))
        let digits = max(4, String(clips).count)
        for index in 0..<clips {
            var clipGenerator = generator.fork()
            let number = String(index + 1)
            let name = "clip-" + String(repeating: "0", count: digits - number.count) + number
            var clip: GeneratedClip
            switch contents[index] {
            case .scripted(let kind):
                clip = renderScripted(name: name, throwing: kind, performer: people[personOrder[index]], using: &clipGenerator)
            case .motionCapture:
                clip = renderMotionCapture(name: name, from: captures, using: &clipGenerator)
            }
            clip.writesJSON = jsonClips.contains(index)
            clip.writesMissingJointsAsEmptyCells = emptyCellClips.contains(index)
            try body(clip)
        }
    }

    /// Writes `clips` clips drawn from `seed` into `directory` (created if needed): one file
    /// per clip (`clip-0001.csv`, some `.json`) and an annotation file listing every segment.
    public func generate(into directory: URL, clips: Int, seed: UInt64, split: Split = .training,
                         motionCapture: MotionCaptureLibrary? = nil) throws -> ThrowDatasetSummary {
        let library = try motionCapture ?? loadMotionCapture()
        try SyntheticFileWriting.createDirectory(directory)
        var writer = AnnotationWriter(directory: directory, format: configuration.annotationFormat)
        try forEachClip(clips: clips, seed: seed, split: split, motionCapture: library) { clip in
            try writer.write(clip)
        }
        return try writer.finish()
    }

    /// Writes a training split to `root/train` and a held-out test split to `root/test`, drawn
    /// from independent seeds derived from `seed`: the test clips show other people (bodies,
    /// tempo, handedness, other motion-capture subjects) through other cameras.
    public func generateSplits(into root: URL, trainingClips: Int, testClips: Int,
                               seed: UInt64) throws -> (training: ThrowDatasetSummary, test: ThrowDatasetSummary) {
        var generator = SeededGenerator(seed: seed)
        let trainingSeed = generator.next(), testSeed = generator.next()
        let library = try loadMotionCapture()
        let training = try generate(into: root.appendingPathComponent("train"), clips: trainingClips, seed: trainingSeed,
                                    split: .training, motionCapture: library)
        let test = try generate(into: root.appendingPathComponent("test"), clips: testClips, seed: testSeed,
                                split: .test, motionCapture: library)
        return (training, test)
    }

    /// Writes `clips` clips of real motion capture of `subjects` (all labeled with the background
    /// label) into `directory`: a check of how a classifier trained on generated data treats the
    /// motion of people it never saw.
    public func generateMotionCaptureCheck(into directory: URL, subjects: Set<Int>, clips: Int, seed: UInt64,
                                           motionCapture: MotionCaptureLibrary) throws -> ThrowDatasetSummary {
        let captures = motionCapture.clips(ofSubjects: subjects)
        if captures.isEmpty {
            throw SyntheticDataError.invalidConfiguration(problems: ["no motion-capture trials of subjects \(subjects.sorted())"])
        }
        try SyntheticFileWriting.createDirectory(directory)
        var writer = AnnotationWriter(directory: directory, format: configuration.annotationFormat)
        var generator = SeededGenerator(seed: seed)
        for index in 0..<clips {
            var clipGenerator = generator.fork()
            try writer.write(renderMotionCapture(name: "check-\(index + 1)", from: captures, using: &clipGenerator))
        }
        return try writer.finish()
    }
}
