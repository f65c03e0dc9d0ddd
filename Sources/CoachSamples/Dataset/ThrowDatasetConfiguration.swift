import Foundation

/// The knobs of the generated cornhole throw dataset. The defaults give a varied, balanced
/// dataset; durations are in seconds, probabilities 0…1.
public struct ThrowDatasetConfiguration: Equatable, Sendable {
    /// How annotation files are written.
    public enum AnnotationFormat: String, Equatable, Sendable {
        /// `annotations.csv` with columns `file,label,start,end`.
        case csv
        /// `annotations.json`, an array of `{"file", "label", "start", "end"}` objects.
        case json
    }

    /// Frame rates of the simulated videos; each clip draws one.
    public var frameRates: [Double] = [24, 30, 60]
    /// Seconds of background motion before a throw (and after it), drawn per clip.
    public var backgroundAroundThrowRange: ClosedRange<Double> = 0.6...3.0
    /// Length of clips without a throw.
    public var backgroundClipDurationRange: ClosedRange<Double> = 4.0...8.0
    /// Which throws appear; throw clips are spread evenly over them.
    public var throwKinds: [ThrowKind] = ThrowKind.allCases
    /// Which scripted background activities appear.
    public var backgroundActivities: [BackgroundActivity] = BackgroundActivity.allCases
    /// The share of clips without any throw.
    public var backgroundClipShare: Double = 0.3
    /// The share of clips without a throw that show real motion capture (when a library is given).
    public var motionCaptureShare: Double = 0.5
    /// The label of background segments (Apple's PlayerActionClassifier uses `none`).
    public var backgroundLabel: String = "none"
    /// How many different people a split draws its scripted clips from.
    public var performerCount: Int = 16
    /// The share of those people who are left-handed (their motions are mirrored).
    public var leftHandedShare: Double = 0.2
    /// Heights of the people, in metres.
    public var heightRange: ClosedRange<Float> = 1.5...2.0
    /// Where the cameras stand.
    public var cameraPlacement = CameraPlacement()
    /// The simulated pose detector.
    public var detector = PoseDetectorModel()
    /// The folder of motion-capture trials (`csv/<trial>.csv`); `nil` leaves real motion out.
    public var motionCaptureDirectory: URL? = MotionCaptureLibrary.bundledDirectory
    /// Motion-capture subjects the training split shows.
    public var trainingMotionCaptureSubjects: Set<Int> = [2, 5, 7]
    /// Motion-capture subjects the test split shows (other people than training).
    public var testMotionCaptureSubjects: Set<Int> = [1, 3]
    /// The share of clips written as JSON (FORMATS §3.3) instead of CSV (§3.2).
    public var jsonClipShare: Double = 0.1
    /// The share of CSV clips whose missed joints are empty cells (the rest write zeros with
    /// confidence 0).
    public var emptyCellShare: Double = 0.5
    /// The annotation file's format.
    public var annotationFormat: AnnotationFormat = .csv

    /// The default configuration.
    public init() {}

    /// Every inconsistency in the configuration, worded for the user; empty when valid.
    public func problems() -> [String] {
        var problems: [String] = []
        func probability(_ value: Double, _ name: String) {
            if !(0...1).contains(value) { problems.append("\(name) is \(value); expected a value from 0 to 1") }
        }
        if frameRates.isEmpty || frameRates.contains(where: { !($0 >= 5 && $0 <= 240) }) {
            problems.append("frameRates is \(frameRates); expected one or more rates from 5 to 240 frames per second")
        }
        for (range, name) in [(backgroundAroundThrowRange, "backgroundAroundThrowRange"),
                              (backgroundClipDurationRange, "backgroundClipDurationRange")]
            where !(range.lowerBound >= 0 && range.upperBound <= 600) {
            problems.append("\(name) is \(range); expected seconds from 0 to 600")
        }
        if backgroundClipDurationRange.lowerBound < 1 {
            problems.append("backgroundClipDurationRange starts at \(backgroundClipDurationRange.lowerBound) s; expected at least 1 s")
        }
        if throwKinds.isEmpty && backgroundClipShare < 1 {
            problems.append("throwKinds is empty but backgroundClipShare is \(backgroundClipShare); list at least one throw or set the share to 1")
        }
        if Set(throwKinds).count != throwKinds.count { problems.append("throwKinds lists a throw twice") }
        if backgroundActivities.isEmpty { problems.append("backgroundActivities is empty; list at least one") }
        probability(backgroundClipShare, "backgroundClipShare")
        probability(motionCaptureShare, "motionCaptureShare")
        probability(leftHandedShare, "leftHandedShare")
        probability(jsonClipShare, "jsonClipShare")
        probability(emptyCellShare, "emptyCellShare")
        if backgroundLabel.isEmpty || backgroundLabel.contains(where: { ",\"\n\r".contains($0) }) {
            problems.append("backgroundLabel '\(backgroundLabel)' must be non-empty and free of commas, quotes and line breaks")
        }
        if ThrowKind.allCases.contains(where: { $0.rawValue == backgroundLabel }) {
            problems.append("backgroundLabel '\(backgroundLabel)' is also a throw label")
        }
        if performerCount < 1 { problems.append("performerCount is \(performerCount); expected at least 1") }
        if !(heightRange.lowerBound >= 1.0 && heightRange.upperBound <= 2.4) {
            problems.append("heightRange is \(heightRange) m; expected heights from 1.0 to 2.4")
        }
        return problems
    }
}
