import Foundation

/// What a long-running library task reports while it works. Libraries never print:
/// they hand events to a `TrainingObserver`, and the CLI renders them.
public enum TrainingEvent: Sendable {
    /// Progress through a phase (e.g. "extracting features"): `completed` of `total`
    /// items at `itemsPerSecond`, with the estimated seconds remaining.
    case progress(phase: String, completed: Int, total: Int, itemsPerSecond: Double, secondsRemaining: Double?)
    /// One training iteration/epoch finished.
    case iteration(IterationSummary)
    /// Something the user should know about the data or the run (not fatal).
    case warning(String)
    /// A fact worth showing (dataset summary lines, chosen defaults, …).
    case note(String)
}

/// The numbers of one finished iteration (epoch).
public struct IterationSummary: Sendable, Equatable {
    public var iteration: Int
    public var totalIterations: Int
    public var trainingLoss: Double
    public var trainingAccuracy: Double?
    public var validationLoss: Double?
    public var validationAccuracy: Double?
    public var learningRate: Double?
    /// True when this iteration is the best so far on the early-stopping metric.
    public var isBest: Bool
    /// Which model's iteration it is (from 1) when several train side by side (an ensemble's
    /// members); nil otherwise.
    public var member: Int? = nil

    public init(iteration: Int, totalIterations: Int, trainingLoss: Double, trainingAccuracy: Double? = nil,
                validationLoss: Double? = nil, validationAccuracy: Double? = nil, learningRate: Double? = nil,
                isBest: Bool = false) {
        self.iteration = iteration
        self.totalIterations = totalIterations
        self.trainingLoss = trainingLoss
        self.trainingAccuracy = trainingAccuracy
        self.validationLoss = validationLoss
        self.validationAccuracy = validationAccuracy
        self.learningRate = learningRate
        self.isBest = isBest
    }
}

/// Receives training events (the CLI prints them; tests may collect them).
public typealias TrainingObserver = (TrainingEvent) -> Void

/// Measures throughput and estimates time remaining for one phase, and emits throttled
/// `.progress` events.
public struct ProgressMeter {
    public let phase: String
    public let total: Int
    let start: Double
    var lastEmit: Double
    let interval: Double

    /// A meter for `total` items, emitting at most every `interval` seconds.
    public init(phase: String, total: Int, interval: Double = 0.5) {
        self.phase = phase
        self.total = total
        self.start = ProgressMeter.now()
        self.lastEmit = -.infinity
        self.interval = interval
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Seconds since the meter started.
    public var elapsed: Double { ProgressMeter.now() - start }

    /// Reports that `completed` items are done (always emits the final one).
    public mutating func update(_ completed: Int, observer: TrainingObserver?) {
        guard let observer else { return }
        let t = ProgressMeter.now()
        if completed < total && t - lastEmit < interval { return }
        lastEmit = t
        let elapsed = Swift.max(t - start, 1e-9)
        let rate = Double(completed) / elapsed
        let remaining = rate > 0 ? Double(total - completed) / rate : nil
        observer(.progress(phase: phase, completed: completed, total: total, itemsPerSecond: rate,
                           secondsRemaining: remaining))
    }
}
