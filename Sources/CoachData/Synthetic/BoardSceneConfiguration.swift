/// The knobs of the synthetic cornhole-board photos. Lengths are in metres, angles in
/// degrees; the defaults give a varied dataset (overhead to oblique views, many grounds,
/// lighting and board finishes, 0–8 bags).
public struct BoardSceneConfiguration: Equatable, Sendable {
    /// Image sizes (width, height) drawn uniformly.
    public var imageSizes: [(width: Int, height: Int)] = [(640, 480), (480, 640), (512, 512), (600, 400), (400, 600)]
    /// Camera elevation above the ground plane: 90 looks straight down.
    public var elevationRange: ClosedRange<Double> = 35...88
    /// Distance from the camera to the point it looks at.
    public var distanceRange: ClosedRange<Double> = 1.6...4.2
    /// Vertical field of view.
    public var fieldOfViewRange: ClosedRange<Double> = 40...65
    /// Largest roll of the camera (a tilted phone).
    public var maximumRoll: Double = 12
    /// How far from the board's centre the camera may aim.
    public var maximumAimOffset: Double = 0.45
    /// Bags per picture, drawn uniformly.
    public var bagCountRange: ClosedRange<Int> = 0...8
    /// The share of bags lying on the board (the rest lie on the ground around it).
    public var bagsOnBoardShare: Double = 0.5
    /// The share of pictures without a board (and without bags): negatives.
    public var negativeShare: Double = 0.05
    /// Samples per pixel along each axis (2: 2×2 supersampling).
    public var supersampling: Int = 2
    /// JPEG quality of the written pictures.
    public var jpegQuality: Int = 90
    /// An object is annotated when at least this fraction of it is visible (not hidden
    /// behind another object and inside the picture).
    public var minimumVisibleFraction: Double = 0.4

    /// The default configuration.
    public init() {}

    /// Compares every knob (tuples are not `Equatable` by themselves).
    public static func == (a: BoardSceneConfiguration, b: BoardSceneConfiguration) -> Bool {
        a.imageSizes.map { [$0.width, $0.height] } == b.imageSizes.map { [$0.width, $0.height] }
            && a.elevationRange == b.elevationRange && a.distanceRange == b.distanceRange
            && a.fieldOfViewRange == b.fieldOfViewRange && a.maximumRoll == b.maximumRoll
            && a.maximumAimOffset == b.maximumAimOffset && a.bagCountRange == b.bagCountRange
            && a.bagsOnBoardShare == b.bagsOnBoardShare && a.negativeShare == b.negativeShare
            && a.supersampling == b.supersampling && a.jpegQuality == b.jpegQuality
            && a.minimumVisibleFraction == b.minimumVisibleFraction
    }

    /// Every inconsistency, worded for the user; empty when valid.
    public func problems() -> [String] {
        var problems: [String] = []
        if imageSizes.isEmpty || imageSizes.contains(where: { $0.width < 32 || $0.height < 32 || $0.width > 4096 || $0.height > 4096 }) {
            problems.append("imageSizes must list sizes from 32 to 4096 pixels per side")
        }
        if !(elevationRange.lowerBound >= 10 && elevationRange.upperBound <= 89) {
            problems.append("elevationRange is \(elevationRange)°; expected 10…89")
        }
        if !(distanceRange.lowerBound >= 1 && distanceRange.upperBound <= 50) {
            problems.append("distanceRange is \(distanceRange) m; expected 1…50")
        }
        if !(fieldOfViewRange.lowerBound >= 10 && fieldOfViewRange.upperBound <= 120) {
            problems.append("fieldOfViewRange is \(fieldOfViewRange)°; expected 10…120")
        }
        if !(0...45).contains(maximumRoll) { problems.append("maximumRoll is \(maximumRoll)°; expected 0…45") }
        if bagCountRange.lowerBound < 0 || bagCountRange.upperBound > 40 { problems.append("bagCountRange must lie within 0…40") }
        if !(0...1).contains(bagsOnBoardShare) { problems.append("bagsOnBoardShare must be 0…1") }
        if !(0...1).contains(negativeShare) { problems.append("negativeShare must be 0…1") }
        if !(1...4).contains(supersampling) { problems.append("supersampling must be 1…4") }
        if !(1...100).contains(jpegQuality) { problems.append("jpegQuality must be 1…100") }
        if !(0...1).contains(minimumVisibleFraction) { problems.append("minimumVisibleFraction must be 0…1") }
        return problems
    }
}
