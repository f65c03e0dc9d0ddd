import Foundation

/// Limited-memory BFGS for smooth unconstrained minimisation (Nocedal & Wright, Alg. 7.4/7.5),
/// with a backtracking line search on the Armijo condition.
///
/// Deterministic: no randomness, and the same objective gives the same steps. One
/// "iteration" is one accepted step; the objective may be evaluated several times per
/// iteration by the line search.
public struct LBFGSMinimizer: Sendable {
    /// Correction pairs kept (the memory m).
    public var memory: Int
    /// Stop when the largest gradient component falls below this.
    public var gradientTolerance: Double
    /// Armijo sufficient-decrease constant c₁.
    public var sufficientDecrease: Double
    /// Line-search halvings tried before giving up on a direction.
    public var maximumLineSearchSteps: Int
    /// When no step decreases the objective any more and the largest gradient component is
    /// below this, the minimum is reached to float precision: `.converged` (scikit-learn's
    /// L-BFGS stops at a gradient of 1e-4; float parameters stall the line search between
    /// 1e-6 and 1e-4 on image heads).
    public var stallGradientTolerance: Double

    /// A minimiser with the usual constants (m = 10, c₁ = 10⁻⁴).
    public init(memory: Int = 10, gradientTolerance: Double = 1e-6, sufficientDecrease: Double = 1e-4,
                maximumLineSearchSteps: Int = 30, stallGradientTolerance: Double = 1e-4) {
        self.memory = max(1, memory)
        self.gradientTolerance = gradientTolerance
        self.sufficientDecrease = sufficientDecrease
        self.maximumLineSearchSteps = maximumLineSearchSteps
        self.stallGradientTolerance = stallGradientTolerance
    }

    /// Why minimisation stopped.
    public enum Termination: Equatable, Sendable {
        /// `maximumIterations` steps were taken.
        case iterationLimit
        /// The gradient became (numerically) zero, or no step could decrease the objective any
        /// more with the gradient below `stallGradientTolerance`.
        case converged
        /// No step along the search direction decreased the objective, far from a minimum.
        case lineSearchFailed
        /// The observer asked to stop.
        case stopped
    }

    /// Minimises `objective` (value and gradient) from `start` for at most `maximumIterations`
    /// steps. After each step `observer(iteration, x, value)` (iteration from 1) may return
    /// false to stop. Returns the last point, its value and why it stopped.
    public func minimize(from start: [Float], maximumIterations: Int,
                         objective: ([Float]) -> (value: Double, gradient: [Float]),
                         observer: (Int, [Float], Double) -> Bool) -> (point: [Float], value: Double, termination: Termination) {
        var x = start
        var (value, gradient) = objective(x)
        var steps: [[Float]] = [], changes: [[Float]] = [], curvatures: [Double] = []
        guard maximumIterations > 0 else { return (x, value, .iterationLimit) }
        for iteration in 1...maximumIterations {
            if Self.maximumMagnitude(gradient) < gradientTolerance { return (x, value, .converged) }
            var direction = twoLoopDirection(gradient, steps: steps, changes: changes, curvatures: curvatures)
            var slope = Self.dot(gradient, direction)
            if !(slope < 0) {  // not a descent direction: restart from steepest descent
                steps.removeAll(); changes.removeAll(); curvatures.removeAll()
                direction = gradient.map { -$0 }
                slope = Self.dot(gradient, direction)
            }
            // First step: a unit step could be huge; scale it to length 1.
            var stepLength = steps.isEmpty ? min(1, 1 / max(Self.norm(gradient), 1e-12)) : 1
            var accepted = false
            var candidate = x, candidateValue = value, candidateGradient = gradient
            for _ in 0..<maximumLineSearchSteps {
                candidate = zip(x, direction).map { $0 + Float(stepLength) * $1 }
                (candidateValue, candidateGradient) = objective(candidate)
                if candidateValue.isFinite, candidateValue <= value + sufficientDecrease * stepLength * slope {
                    accepted = true
                    break
                }
                stepLength *= 0.5
            }
            guard accepted else {
                return (x, value, Self.maximumMagnitude(gradient) < stallGradientTolerance ? .converged : .lineSearchFailed)
            }
            let step = zip(candidate, x).map { $0 - $1 }
            let change = zip(candidateGradient, gradient).map { $0 - $1 }
            let curvature = Self.dot(step, change)
            if curvature > 1e-10 * Self.dot(change, change) && curvature > 0 {
                steps.append(step); changes.append(change); curvatures.append(curvature)
                if steps.count > memory { steps.removeFirst(); changes.removeFirst(); curvatures.removeFirst() }
            }
            x = candidate
            value = candidateValue
            gradient = candidateGradient
            if !observer(iteration, x, value) { return (x, value, .stopped) }
        }
        return (x, value, .iterationLimit)
    }

    /// −H·g by the two-loop recursion, with the initial Hessian scaled by sᵀy / yᵀy.
    ///
    /// Over raw buffers: indexing nested arrays inside the loops kept them from vectorising and
    /// made this a quarter of a random-convolution head's fit. Every sum and product is the one
    /// the plain loops did, in the same order, so the direction is the same bits.
    private func twoLoopDirection(_ gradient: [Float], steps: [[Float]], changes: [[Float]],
                                  curvatures: [Double]) -> [Float] {
        var q = gradient.map(Double.init)
        var alphas = [Double](repeating: 0, count: steps.count)
        q.withUnsafeMutableBufferPointer { q in
            for index in stride(from: steps.count - 1, through: 0, by: -1) {
                let alpha = steps[index].withUnsafeBufferPointer { Self.dot($0, UnsafeBufferPointer(q)) } / curvatures[index]
                alphas[index] = alpha
                changes[index].withUnsafeBufferPointer { change in
                    for j in 0..<q.count { q[j] -= alpha * Double(change[j]) }
                }
            }
            if let lastChange = changes.last, let lastCurvature = curvatures.last {
                let scale = lastCurvature / Self.dot(lastChange, lastChange)
                for j in 0..<q.count { q[j] *= scale }
            }
            for index in steps.indices {
                let beta = changes[index].withUnsafeBufferPointer { Self.dot($0, UnsafeBufferPointer(q)) } / curvatures[index]
                let factor = alphas[index] - beta
                steps[index].withUnsafeBufferPointer { step in
                    for j in 0..<q.count { q[j] += factor * Double(step[j]) }
                }
            }
        }
        return q.map { Float(-$0) }
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Double {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                var sum = 0.0
                for index in 0..<min(a.count, b.count) { sum += Double(a[index]) * Double(b[index]) }
                return sum
            }
        }
    }

    static func dot(_ a: UnsafeBufferPointer<Float>, _ b: UnsafeBufferPointer<Double>) -> Double {
        var sum = 0.0
        for index in 0..<min(a.count, b.count) { sum += Double(a[index]) * b[index] }
        return sum
    }

    static func norm(_ a: [Float]) -> Double { dot(a, a).squareRoot() }

    static func maximumMagnitude(_ a: [Float]) -> Double {
        Double(a.reduce(0) { max($0, abs($1)) })
    }
}
