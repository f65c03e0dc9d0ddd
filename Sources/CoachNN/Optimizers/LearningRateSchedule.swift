import Foundation

/// A learning rate as a function of the step (0-based).
public protocol LearningRateSchedule {
    /// The learning rate for `step`.
    func rate(at step: Int) -> Float
}

/// The same rate at every step.
public struct ConstantSchedule: LearningRateSchedule {
    public let value: Float
    public init(_ value: Float) { self.value = value }
    public func rate(at step: Int) -> Float { value }
}

/// Cosine decay from `base` to `minimum` over `totalSteps`, then `minimum`.
public struct CosineSchedule: LearningRateSchedule {
    public let base: Float, minimum: Float, totalSteps: Int
    public init(base: Float, totalSteps: Int, minimum: Float = 0) {
        self.base = base
        self.totalSteps = Swift.max(totalSteps, 1)
        self.minimum = minimum
    }
    public func rate(at step: Int) -> Float {
        let t = Swift.min(Float(step) / Float(totalSteps), 1)
        return minimum + (base - minimum) * 0.5 * (1 + Foundation.cos(Float.pi * t))
    }
}

/// Step decay: multiplies `base` by `factor` every `stepSize` steps.
public struct StepSchedule: LearningRateSchedule {
    public let base: Float, stepSize: Int, factor: Float
    public init(base: Float, stepSize: Int, factor: Float = 0.1) {
        self.base = base
        self.stepSize = Swift.max(stepSize, 1)
        self.factor = factor
    }
    public func rate(at step: Int) -> Float {
        base * Foundation.pow(factor, Float(step / stepSize))
    }
}

/// Linear warm-up from `startFactor`·(the wrapped schedule's rate) over `warmUpSteps`,
/// then the wrapped schedule (shifted so it starts after the warm-up).
public struct WarmUpSchedule<Wrapped: LearningRateSchedule>: LearningRateSchedule {
    public let wrapped: Wrapped, warmUpSteps: Int, startFactor: Float
    public init(_ wrapped: Wrapped, warmUpSteps: Int, startFactor: Float = 0.01) {
        self.wrapped = wrapped
        self.warmUpSteps = warmUpSteps
        self.startFactor = startFactor
    }
    public func rate(at step: Int) -> Float {
        if step < warmUpSteps {
            let t = Float(step + 1) / Float(warmUpSteps)
            return wrapped.rate(at: 0) * (startFactor + (1 - startFactor) * t)
        }
        return wrapped.rate(at: step - warmUpSteps)
    }
}
