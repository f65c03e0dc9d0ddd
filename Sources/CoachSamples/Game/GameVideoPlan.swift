import CoachRandom

/// Where a thrown bag comes to rest in a rendered game.
public enum GameLanding: String, CaseIterable, Sendable {
    /// On the board, away from the hole (1 point).
    case board
    /// Through the hole (3 points): the bag disappears.
    case hole
    /// Beside the board, on the ground (no points).
    case missed
}

/// One throw to film: its type, the bag's colour and where the bag lands.
public struct GameThrowPlan: Equatable, Sendable {
    /// The throw type the stick figure performs.
    public var kind: ThrowKind
    /// A red bag (else blue).
    public var isRedBag: Bool
    /// Where the bag lands.
    public var landing: GameLanding
    /// The bag's flight time in seconds.
    public var flightSeconds: Double

    /// A throw plan.
    public init(kind: ThrowKind, isRedBag: Bool, landing: GameLanding, flightSeconds: Double = 0.95) {
        self.kind = kind
        self.isRedBag = isRedBag
        self.landing = landing
        self.flightSeconds = flightSeconds
    }
}

/// What a rendered cornhole game video shows: frame size and rate, the camera shake at the
/// start, and the throws in order.
public struct GameVideoConfiguration: Equatable, Sendable {
    /// Frame width in pixels.
    public var width: Int = 1280
    /// Frame height in pixels.
    public var height: Int = 720
    /// Frames per second.
    public var frameRate: Double = 30
    /// Seconds of hand-held camera shake at the start (the scene then stays still).
    public var shakeSeconds: Double = 1
    /// Largest shake offset in pixels (at 1280 px wide; scaled with the width).
    public var shakeAmplitude: Double = 30
    /// Seconds of the player standing still before the first throw.
    public var leadInSeconds: Double = 2
    /// Seconds between a bag landing and the next throw's wind-up.
    public var pauseSeconds: Double = 1.6
    /// The throws, in order.
    public var throwPlans: [GameThrowPlan] = [
        GameThrowPlan(kind: .underhand, isRedBag: true, landing: .board),
        GameThrowPlan(kind: .overhand, isRedBag: false, landing: .hole),
        GameThrowPlan(kind: .underleg, isRedBag: true, landing: .missed),
    ]
    /// Whether the thrower is drawn (a video with no player has none).
    public var showsPlayer: Bool = true
    /// Whether the board is drawn (a video with no board has none).
    public var showsBoard: Bool = true
    /// Seed of every random choice (the thrower's body, the throws' details, the shake).
    public var seed: UInt64 = 0

    /// The defaults: three throws (board, hole, miss) on a 1280×720 30 fps video.
    public init() {}
}
