import Foundation

/// Updates parameters from their gradients.
///
/// Optimizer state (moments, step count) is keyed by parameter name so it can be saved
/// in a checkpoint and restored for resumed training.
public protocol Optimizer: AnyObject {
    /// The learning rate used by the next step (schedules set it before each step).
    var learningRate: Float { get set }
    /// Applies one update to every trainable parameter that has a gradient.
    func update(_ parameters: [(name: String, parameter: Parameter)], gradients: Gradients)
    /// Named tensors that capture the optimizer's state (for checkpoints).
    var state: [String: Tensor] { get }
    /// Restores a state saved by `state`.
    func restore(_ state: [String: Tensor]) throws
}

/// Stochastic gradient descent with momentum (optionally Nesterov) and L2 weight decay.
public final class SGD: Optimizer {
    public var learningRate: Float
    public let momentum: Float
    public let nesterov: Bool
    public let weightDecay: Float
    var velocity: [String: Tensor] = [:]

    public init(learningRate: Float, momentum: Float = 0, nesterov: Bool = false, weightDecay: Float = 0) {
        self.learningRate = learningRate
        self.momentum = momentum
        self.nesterov = nesterov
        self.weightDecay = weightDecay
    }

    public func update(_ parameters: [(name: String, parameter: Parameter)], gradients: Gradients) {
        for (name, p) in parameters where p.isTrainable {
            guard var g = gradients[p] else { continue }
            if weightDecay != 0 { g = g + p.value * weightDecay }
            if momentum != 0 {
                let v = (velocity[name].map { $0 * momentum } ?? Tensor.zeros(g.shape)) + g
                velocity[name] = v
                g = nesterov ? g + v * momentum : v
            }
            p.value = p.value - g * learningRate
        }
    }

    public var state: [String: Tensor] {
        Dictionary(uniqueKeysWithValues: velocity.map { ("velocity.\($0.key)", $0.value) })
    }

    public func restore(_ state: [String: Tensor]) throws {
        velocity = [:]
        for (k, v) in state {
            guard k.hasPrefix("velocity.") else { throw NNError.incompatibleOptimizerState("unexpected key \(k)") }
            velocity[String(k.dropFirst("velocity.".count))] = v
        }
    }
}

/// Adam, or AdamW when `decoupledWeightDecay` is set (weight decay applied directly to
/// the weights, not through the gradient).
public final class Adam: Optimizer {
    public var learningRate: Float
    public let beta1: Float, beta2: Float, epsilon: Float
    public let weightDecay: Float
    public let decoupledWeightDecay: Bool
    var step = 0
    var firstMoment: [String: Tensor] = [:]
    var secondMoment: [String: Tensor] = [:]

    /// Adam with optional L2 weight decay added to the gradient.
    public init(learningRate: Float = 1e-3, beta1: Float = 0.9, beta2: Float = 0.999, epsilon: Float = 1e-8,
                weightDecay: Float = 0, decoupledWeightDecay: Bool = false) {
        self.learningRate = learningRate
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.weightDecay = weightDecay
        self.decoupledWeightDecay = decoupledWeightDecay
    }

    /// AdamW (Loshchilov & Hutter): decoupled weight decay.
    public static func adamW(learningRate: Float = 1e-3, weightDecay: Float = 1e-2,
                             beta1: Float = 0.9, beta2: Float = 0.999, epsilon: Float = 1e-8) -> Adam {
        Adam(learningRate: learningRate, beta1: beta1, beta2: beta2, epsilon: epsilon,
             weightDecay: weightDecay, decoupledWeightDecay: true)
    }

    public func update(_ parameters: [(name: String, parameter: Parameter)], gradients: Gradients) {
        step += 1
        let c1 = 1 - Float(Foundation.pow(Double(beta1), Double(step)))
        let c2 = 1 - Float(Foundation.pow(Double(beta2), Double(step)))
        let lr = learningRate, b1 = beta1, b2 = beta2, eps = epsilon
        for (name, p) in parameters where p.isTrainable {
            guard let grad = gradients[p] else { continue }
            var m = firstMoment[name] ?? Tensor.zeros(grad.shape)
            var v = secondMoment[name] ?? Tensor.zeros(grad.shape)
            let decay = weightDecay, decoupled = decoupledWeightDecay
            var w = p.value
            w.withUnsafeMutableBufferPointer { pw in
                m.withUnsafeMutableBufferPointer { pm in
                    v.withUnsafeMutableBufferPointer { pv in
                        grad.withUnsafeBufferPointer { pg in
                            for i in 0..<pw.count {
                                var g = pg[i]
                                if decay != 0 && !decoupled { g += decay * pw[i] }
                                pm[i] = b1 * pm[i] + (1 - b1) * g
                                pv[i] = b2 * pv[i] + (1 - b2) * g * g
                                let update = (pm[i] / c1) / ((pv[i] / c2).squareRoot() + eps)
                                if decay != 0 && decoupled { pw[i] -= lr * decay * pw[i] }
                                pw[i] -= lr * update
                            }
                        }
                    }
                }
            }
            p.value = w
            firstMoment[name] = m
            secondMoment[name] = v
        }
    }

    public var state: [String: Tensor] {
        var s: [String: Tensor] = ["step": Tensor(Float(step))]
        for (k, v) in firstMoment { s["m.\(k)"] = v }
        for (k, v) in secondMoment { s["v.\(k)"] = v }
        return s
    }

    public func restore(_ state: [String: Tensor]) throws {
        guard let s = state["step"] else { throw NNError.incompatibleOptimizerState("missing 'step'") }
        step = Int(s.scalar)
        firstMoment = [:]
        secondMoment = [:]
        for (k, v) in state where k != "step" {
            if k.hasPrefix("m.") { firstMoment[String(k.dropFirst(2))] = v }
            else if k.hasPrefix("v.") { secondMoment[String(k.dropFirst(2))] = v }
            else { throw NNError.incompatibleOptimizerState("unexpected key \(k)") }
        }
    }
}

/// Gradient clipping.
public enum GradientClipping {
    /// The global L2 norm of the gradients of `parameters`.
    public static func globalNorm(_ parameters: [Parameter], gradients: Gradients) -> Float {
        var total: Double = 0
        for p in parameters {
            guard let g = gradients[p] else { continue }
            g.withUnsafeBufferPointer { for x in $0 { total += Double(x) * Double(x) } }
        }
        return Float(total.squareRoot())
    }

    /// Scales all gradients so their global norm is at most `maxNorm`; returns the norm
    /// before clipping.
    @discardableResult
    public static func clipByGlobalNorm(_ gradients: inout Gradients, parameters: [Parameter], maxNorm: Float) -> Float {
        let norm = globalNorm(parameters, gradients: gradients)
        if norm > maxNorm && norm > 0 {
            gradients.scale(by: maxNorm / norm)
        }
        return norm
    }
}

extension Gradients {
    /// Multiplies every gradient by `factor`.
    public mutating func scale(by factor: Float) {
        values = values.map { $0.map { $0 * factor } }
    }
}
