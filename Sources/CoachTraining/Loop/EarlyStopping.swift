/// Tracks a validation metric and says when training stops improving.
public struct EarlyStopping: Sendable {
    /// Iterations without improvement before stopping.
    public let patience: Int
    /// The smallest change that counts as an improvement.
    public let minimumDelta: Double
    /// Whether larger metric values are better (accuracy) or smaller (loss).
    public let higherIsBetter: Bool
    /// The best value seen and the iteration it was seen at.
    public private(set) var best: Double?
    public private(set) var bestIteration: Int = -1
    private var sinceImprovement = 0

    public init(patience: Int, minimumDelta: Double = 0, higherIsBetter: Bool) {
        self.patience = patience
        self.minimumDelta = minimumDelta
        self.higherIsBetter = higherIsBetter
    }

    /// Records `value` for `iteration`; returns true when it is the best so far.
    @discardableResult
    public mutating func record(_ value: Double, iteration: Int) -> Bool {
        let improved: Bool
        if let best {
            improved = higherIsBetter ? value > best + minimumDelta : value < best - minimumDelta
        } else {
            improved = true
        }
        if improved {
            best = value
            bestIteration = iteration
            sinceImprovement = 0
        } else {
            sinceImprovement += 1
        }
        return improved
    }

    /// True once `patience` iterations passed without improvement.
    public var shouldStop: Bool { sinceImprovement >= patience }
}
