/// The knobs of the synthetic cornhole throw dataset. The defaults give a varied, balanced
/// dataset; angles are in degrees, probabilities 0…1.
public struct ThrowDatasetConfiguration: Equatable, Sendable {
    /// How annotation files are written.
    public enum AnnotationFormat: String, Equatable, Sendable {
        /// `annotations.csv` with columns `file,label,start,end`.
        case csv
        /// `annotations.json`, an array of `{"file", "label", "start", "end"}` objects.
        case json
    }

    /// Frames per second of the simulated video.
    public var frameRate: Double = 30
    /// Clip lengths in seconds (a clip grows when a slow throw would not fit with a margin).
    public var clipDurationRange: ClosedRange<Double> = 4.0...6.0
    /// Which throws appear; throw clips are spread evenly over them.
    public var throwKinds: [ThrowKind] = ThrowKind.allCases
    /// Which background actions appear (standing also fills gaps too short for the others).
    public var backgroundActions: [BackgroundAction] = BackgroundAction.allCases
    /// The share of clips without any throw.
    public var backgroundClipShare: Double = 0.25
    /// The label of background segments (Apple's PlayerActionClassifier uses `none`).
    public var backgroundLabel: String = "none"
    /// How many different people a dataset draws its clips from.
    public var subjectCount: Int = 12
    /// The share of those people who throw left-handed (their clips are mirrored).
    public var leftHandedShare: Double = 0.25
    /// Largest turn of the camera away from a side view of the thrower, in degrees.
    public var maximumViewYaw: Float = 45
    /// Largest downward tilt of the camera, in degrees.
    public var maximumCameraPitch: Float = 20
    /// Largest rotation of the picture (a tilted phone), in degrees.
    public var maximumCameraRoll: Float = 6
    /// Camera distances in metres.
    public var cameraDistanceRange: ClosedRange<Float> = 3.5...8
    /// Standard deviation of the detector's position error, as a fraction of the subject's
    /// height in the image.
    public var keypointNoise: Float = 0.006
    /// Probability that the detector misses any one joint in a frame.
    public var jointDropProbability: Float = 0.02
    /// Extra miss probability for a fully hidden joint (the far ear in a side view, a
    /// far-side limb behind the trunk), scaled by how hidden it is.
    public var occludedJointDropProbability: Float = 0.3
    /// Probability that a frame is missing from the clip altogether.
    public var frameDropProbability: Float = 0.01
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
        if !(frameRate > 0 && frameRate <= 1000) {
            problems.append("frameRate is \(frameRate); expected a positive number of frames per second up to 1000")
        }
        if !(clipDurationRange.lowerBound > 0) || clipDurationRange.upperBound > 600 {
            problems.append("clipDurationRange is \(clipDurationRange); expected seconds above 0 and at most 600")
        }
        if throwKinds.isEmpty && backgroundClipShare < 1 {
            problems.append("throwKinds is empty but backgroundClipShare is \(backgroundClipShare); list at least one throw or set the share to 1")
        }
        if Set(throwKinds).count != throwKinds.count { problems.append("throwKinds lists a throw twice") }
        if backgroundActions.isEmpty { problems.append("backgroundActions is empty; list at least one background action") }
        probability(backgroundClipShare, "backgroundClipShare")
        probability(leftHandedShare, "leftHandedShare")
        probability(jsonClipShare, "jsonClipShare")
        probability(emptyCellShare, "emptyCellShare")
        probability(Double(jointDropProbability), "jointDropProbability")
        probability(Double(occludedJointDropProbability), "occludedJointDropProbability")
        if !(0..<1).contains(frameDropProbability) {
            problems.append("frameDropProbability is \(frameDropProbability); expected at least 0 and below 1")
        }
        if backgroundLabel.isEmpty || backgroundLabel.contains(where: { ",\"\n\r".contains($0) }) {
            problems.append("backgroundLabel '\(backgroundLabel)' must be non-empty and free of commas, quotes and line breaks")
        }
        if ThrowKind.allCases.contains(where: { $0.rawValue == backgroundLabel }) {
            problems.append("backgroundLabel '\(backgroundLabel)' is also a throw label")
        }
        if subjectCount < 1 { problems.append("subjectCount is \(subjectCount); expected at least 1") }
        if !(0...90).contains(maximumViewYaw) { problems.append("maximumViewYaw is \(maximumViewYaw)°; expected 0…90") }
        if !(0...60).contains(maximumCameraPitch) { problems.append("maximumCameraPitch is \(maximumCameraPitch)°; expected 0…60") }
        if !(0...45).contains(maximumCameraRoll) { problems.append("maximumCameraRoll is \(maximumCameraRoll)°; expected 0…45") }
        if !(cameraDistanceRange.lowerBound >= 1.5 && cameraDistanceRange.upperBound <= 100) {
            problems.append("cameraDistanceRange is \(cameraDistanceRange) m; expected distances from 1.5 to 100")
        }
        if !(keypointNoise >= 0 && keypointNoise <= 0.2) {
            problems.append("keypointNoise is \(keypointNoise); expected 0…0.2 (a fraction of body height)")
        }
        return problems
    }
}
