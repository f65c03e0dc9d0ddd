import Foundation

/// Where a thrown bag came to rest.
public enum ThrowLanding: String, Codable, CaseIterable, Sendable {
    /// On the board.
    case board
    /// Through the hole.
    case hole
    /// Neither.
    case missed
}

/// The points a throw earns: by where the bag landed, plus style points by throw type.
public struct GameRules: Equatable, Codable, Sendable {
    /// Points for a bag on the board (cornhole: 1).
    public var boardPoints: Int = 1
    /// Points for a bag through the hole (cornhole: 3).
    public var holePoints: Int = 3
    /// Extra points by throw type (the app's own idea; none by default), e.g. `["underleg": 1]`.
    public var stylePoints: [String: Int] = [:]

    /// Common cornhole scoring and no style points.
    public init() {}

    /// The points for a bag that landed at `landing` after a throw of `type` (style points only
    /// count for a bag that scored).
    public func points(landing: ThrowLanding, type: String?) -> Int {
        let base: Int
        switch landing {
        case .board: base = boardPoints
        case .hole: base = holePoints
        case .missed: base = 0
        }
        guard base > 0, let type else { return base }
        return base + (stylePoints[type] ?? 0)
    }
}

/// One analysed throw: when, what type, how fast, at what angle, where it landed, its points.
public struct ThrowRecord: Equatable, Codable, Sendable {
    /// 1 for the game's first throw.
    public var number: Int
    /// When the bag left the hand (seconds into the video).
    public var releaseTime: Double
    /// When the bag was last seen in flight.
    public var endTime: Double
    /// The throw type (the action classifier's best non-background class), nil without a classifier.
    public var type: String?
    /// The classifier's probability for `type`.
    public var typeConfidence: Double?
    /// The classifier's top class, background included (it may say the movement was no throw).
    public var classifierTopLabel: String?
    /// The mean speed along the flight, metres per second.
    public var speed: Double
    /// `speed` in miles per hour.
    public var speedMilesPerHour: Double { speed * 3600 / 1609.344 }
    /// The throwing forearm's angle (elbow → wrist) above the horizontal at release, degrees;
    /// nil when no pose was seen then.
    public var releaseAngle: Double?
    /// Where the bag landed.
    public var landing: ThrowLanding
    /// Where it came to rest or was last seen (pixels, origin top-left).
    public var landingPoint: SIMD2<Double>
    /// The points this throw scored.
    public var points: Int
    /// The game's total after this throw.
    public var runningTotal: Int
    /// The flight's parabola y = a·x² + b·x + c (Vision's normalised coordinates, origin bottom-left).
    public var equationCoefficients: SIMD3<Double>
    /// The bag's detected centres, pixels (origin top-left), in time order.
    public var path: [SIMD2<Double>]
    /// The trajectory detector's confidence in the flight.
    public var trajectoryConfidence: Double

    enum CodingKeys: String, CodingKey {
        case number, releaseTime, endTime, type, typeConfidence, classifierTopLabel, speed, releaseAngle, landing
        case landingPoint, points, runningTotal, equationCoefficients, path, trajectoryConfidence, speedMilesPerHour
    }

    /// A record of every field.
    public init(number: Int, releaseTime: Double, endTime: Double, type: String?, typeConfidence: Double?,
                classifierTopLabel: String?, speed: Double, releaseAngle: Double?, landing: ThrowLanding,
                landingPoint: SIMD2<Double>, points: Int, runningTotal: Int, equationCoefficients: SIMD3<Double>,
                path: [SIMD2<Double>], trajectoryConfidence: Double) {
        self.number = number
        self.releaseTime = releaseTime
        self.endTime = endTime
        self.type = type
        self.typeConfidence = typeConfidence
        self.classifierTopLabel = classifierTopLabel
        self.speed = speed
        self.releaseAngle = releaseAngle
        self.landing = landing
        self.landingPoint = landingPoint
        self.points = points
        self.runningTotal = runningTotal
        self.equationCoefficients = equationCoefficients
        self.path = path
        self.trajectoryConfidence = trajectoryConfidence
    }

    /// Decodes a record (the derived `speedMilesPerHour` is ignored).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        number = try c.decode(Int.self, forKey: .number)
        releaseTime = try c.decode(Double.self, forKey: .releaseTime)
        endTime = try c.decode(Double.self, forKey: .endTime)
        type = try c.decodeIfPresent(String.self, forKey: .type)
        typeConfidence = try c.decodeIfPresent(Double.self, forKey: .typeConfidence)
        classifierTopLabel = try c.decodeIfPresent(String.self, forKey: .classifierTopLabel)
        speed = try c.decode(Double.self, forKey: .speed)
        releaseAngle = try c.decodeIfPresent(Double.self, forKey: .releaseAngle)
        landing = try c.decode(ThrowLanding.self, forKey: .landing)
        landingPoint = try c.decode(SIMD2<Double>.self, forKey: .landingPoint)
        points = try c.decode(Int.self, forKey: .points)
        runningTotal = try c.decode(Int.self, forKey: .runningTotal)
        equationCoefficients = try c.decode(SIMD3<Double>.self, forKey: .equationCoefficients)
        path = try c.decode([SIMD2<Double>].self, forKey: .path)
        trajectoryConfidence = try c.decode(Double.self, forKey: .trajectoryConfidence)
    }

    /// Encodes every field, plus `speedMilesPerHour` for readers of the JSON.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(number, forKey: .number)
        try c.encode(releaseTime, forKey: .releaseTime)
        try c.encode(endTime, forKey: .endTime)
        try c.encodeIfPresent(type, forKey: .type)
        try c.encodeIfPresent(typeConfidence, forKey: .typeConfidence)
        try c.encodeIfPresent(classifierTopLabel, forKey: .classifierTopLabel)
        try c.encode(speed, forKey: .speed)
        try c.encode(speedMilesPerHour, forKey: .speedMilesPerHour)
        try c.encodeIfPresent(releaseAngle, forKey: .releaseAngle)
        try c.encode(landing, forKey: .landing)
        try c.encode(landingPoint, forKey: .landingPoint)
        try c.encode(points, forKey: .points)
        try c.encode(runningTotal, forKey: .runningTotal)
        try c.encode(equationCoefficients, forKey: .equationCoefficients)
        try c.encode(path, forKey: .path)
        try c.encode(trajectoryConfidence, forKey: .trajectoryConfidence)
    }
}
