/// The search of a cross-validation over a grid of L2 penalties ordered from largest to smallest,
/// each fit starting from the previous one's weights.
public enum PenaltySearch {
    /// The index of the lowest of `loss(0)`, `loss(1)`, … up to `count` (the earliest on ties
    /// within 1e-12), evaluated in order and stopping at the first loss that is not lower than the
    /// best so far, and how many were evaluated. Held-out loss over a penalty grid falls and then
    /// rises; past its lowest point the rest of the grid cannot win, and the smallest penalties'
    /// fits are the slowest. When the losses fall and rise once, the index is the whole grid's.
    public static func lowest(count: Int, loss: (Int) throws -> Double) rethrows -> (index: Int, evaluated: Int) {
        guard count > 0 else { return (0, 0) }
        var best = 0, bestLoss = try loss(0)
        for index in 1..<count {
            let value = try loss(index)
            guard value < bestLoss - 1e-12 else { return (best, index + 1) }
            best = index
            bestLoss = value
        }
        return (best, count)
    }
}
