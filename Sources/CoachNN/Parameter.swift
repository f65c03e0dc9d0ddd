/// A named, mutable tensor owned by a layer: a trainable weight or a buffer (such as
/// batch norm's running statistics) that is saved with the model but not trained.
public final class Parameter {
    /// What role the tensor plays.
    public enum Kind: Sendable { case weight, buffer }

    /// The current value.
    public var value: Tensor
    /// Weight or buffer.
    public let kind: Kind
    /// Frozen weights (and all buffers) get no gradient and are not updated.
    public var isTrainable: Bool

    /// A parameter holding `value`.
    public init(_ value: Tensor, kind: Kind = .weight) {
        self.value = value
        self.kind = kind
        self.isTrainable = kind == .weight
    }
}

/// A piece of a network: owns parameters and child modules under stable local names.
///
/// Parameter names are dotted paths from the root module (`blocks.3.depthwise.weight`);
/// they are the keys of model files.
public protocol Module: AnyObject {
    /// This module's own parameters with their local names.
    var localParameters: [(String, Parameter)] { get }
    /// Child modules with their local names.
    var children: [(String, Module)] { get }
}

extension Module {
    public var localParameters: [(String, Parameter)] { [] }
    public var children: [(String, Module)] { [] }

    /// Every parameter of this module and its descendants, under dotted names, in a
    /// stable order (own parameters first, then children in declaration order).
    public var namedParameters: [(name: String, parameter: Parameter)] {
        var result: [(name: String, parameter: Parameter)] = localParameters.map { ($0.0, $0.1) }
        for (childName, child) in children {
            for (name, p) in child.namedParameters { result.append(("\(childName).\(name)", p)) }
        }
        return result
    }

    /// The trainable weights.
    public var trainableParameters: [Parameter] {
        namedParameters.map(\.parameter).filter(\.isTrainable)
    }

    /// The number of scalars in all weights (buffers excluded).
    public var parameterCount: Int {
        namedParameters.filter { $0.parameter.kind == .weight }.reduce(0) { $0 + $1.parameter.value.count }
    }

    /// Stops training every weight of this module (transfer learning).
    public func freeze() { for (_, p) in namedParameters where p.kind == .weight { p.isTrainable = false } }

    /// Makes every weight of this module trainable again.
    public func unfreeze() { for (_, p) in namedParameters where p.kind == .weight { p.isTrainable = true } }

    /// All parameter values by dotted name (what a model file stores).
    public var stateDictionary: [String: Tensor] {
        Dictionary(namedParameters.map { ($0.name, $0.parameter.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// Loads values by dotted name; throws listing every missing name and shape mismatch.
    public func load(_ state: [String: Tensor], prefix: String = "") throws {
        var problems: [String] = []
        for (name, p) in namedParameters {
            let key = prefix + name
            guard let t = state[key] else { problems.append("missing tensor '\(key)' (expected shape \(p.value.shape))"); continue }
            if t.shape != p.value.shape {
                problems.append("tensor '\(key)' has shape \(t.shape), expected \(p.value.shape)")
            }
        }
        if !problems.isEmpty { throw NNError.incompatibleState(problems) }
        for (name, p) in namedParameters { p.value = state[prefix + name]! }
    }
}

/// Errors from CoachNN.
public enum NNError: Error, CustomStringConvertible {
    /// Loaded weights do not fit the network: every problem is listed.
    case incompatibleState([String])
    /// An optimizer state does not match the parameters.
    case incompatibleOptimizerState(String)

    public var description: String {
        switch self {
        case .incompatibleState(let problems):
            return "the weights do not fit this network (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n  "
                + problems.joined(separator: "\n  ")
        case .incompatibleOptimizerState(let what):
            return "the optimizer state does not match the parameters: \(what)"
        }
    }
}

import Foundation

extension NNError: LocalizedError {
    public var errorDescription: String? { description }
}
