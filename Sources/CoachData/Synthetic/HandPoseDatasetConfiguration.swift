/// The knobs of the synthetic hand-pose dataset; angles in degrees, shares 0…1.
public struct HandPoseDatasetConfiguration: Equatable, Sendable {
    /// How coordinates are written.
    public enum Coordinates: String, Equatable, Sendable {
        /// Normalised image coordinates 0…1, origin top-left (what Vision reports, flipped to top-left).
        case image
        /// Relative to the wrist and divided by the wrist-to-middle-knuckle distance (y still points down).
        case wristRelative
    }

    /// The classes, each with the same number of samples.
    public var classes: [SyntheticHandClass] = SyntheticHandClass.allCases
    /// The share of left hands.
    public var leftHandShare: Double = 0.5
    /// Whether the CSV has a `chirality` column (`left`/`right`) after `label`.
    public var writesChirality: Bool = true
    /// Largest rotation in the image plane away from fingers-up, degrees.
    public var maximumRotation: Float = 50
    /// Largest tilt out of the image plane about either axis, degrees.
    public var maximumTilt: Float = 35
    /// The share of poses showing the back of the hand.
    public var backShare: Double = 0.2
    /// Hand lengths as fractions of the frame height.
    public var sizeRange: ClosedRange<Float> = 0.12...0.45
    /// Standard deviation of the detector's position error, as a fraction of hand length.
    public var keypointNoise: Float = 0.012
    /// How many different hands (proportions) a dataset draws from.
    public var subjectCount: Int = 10
    /// How coordinates are written.
    public var coordinates: Coordinates = .image

    /// The default configuration.
    public init() {}

    /// Every inconsistency in the configuration, worded for the user; empty when valid.
    public func problems() -> [String] {
        var problems: [String] = []
        if classes.isEmpty { problems.append("classes is empty; list at least one hand-pose class") }
        if Set(classes).count != classes.count { problems.append("classes lists a class twice") }
        if !(0...1).contains(leftHandShare) { problems.append("leftHandShare is \(leftHandShare); expected 0…1") }
        if !(0...1).contains(backShare) { problems.append("backShare is \(backShare); expected 0…1") }
        if !(0...180).contains(maximumRotation) { problems.append("maximumRotation is \(maximumRotation)°; expected 0…180") }
        if !(0...80).contains(maximumTilt) { problems.append("maximumTilt is \(maximumTilt)°; expected 0…80") }
        if !(sizeRange.lowerBound > 0 && sizeRange.upperBound <= 0.9) {
            problems.append("sizeRange is \(sizeRange); expected hand lengths above 0 and at most 0.9 of the frame height")
        }
        if !(keypointNoise >= 0 && keypointNoise <= 0.2) {
            problems.append("keypointNoise is \(keypointNoise); expected 0…0.2 (a fraction of hand length)")
        }
        if subjectCount < 1 { problems.append("subjectCount is \(subjectCount); expected at least 1") }
        return problems
    }
}
