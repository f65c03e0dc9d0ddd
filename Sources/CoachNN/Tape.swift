@_exported import CoachTensor

/// Whether layers behave as in training (batch statistics, dropout) or inference.
public enum ExecutionMode: Sendable {
    case training, inference
}

/// A reverse-mode autodiff tape.
///
/// Every operation on `Variable`s appends a node holding its value and a closure that
/// maps the gradient of its output to the gradients of its inputs (each op's backward
/// is written beside its forward). `gradients(of:)` walks the tape backwards once.
///
/// A tape is used for one forward/backward pass and then dropped. An inference tape
/// (`recordsGradients: false`) keeps no closures.
public final class Tape {
    /// Training or inference behaviour for layers that differ (batch norm, dropout).
    public let mode: ExecutionMode
    /// Whether backward closures are recorded.
    public let recordsGradients: Bool
    /// The generator for random layers (dropout) during this pass.
    public var generator: SeededGenerator

    struct Node {
        var inputs: [Int]
        var backward: ((Tensor) -> [Tensor?])?
    }

    var values: [Tensor] = []
    var nodes: [Node] = []
    var parameterNodes: [ObjectIdentifier: Int] = [:]

    /// A new tape. `seed` drives dropout masks.
    public init(mode: ExecutionMode = .training, recordsGradients: Bool = true, seed: UInt64 = 0) {
        self.mode = mode
        self.recordsGradients = recordsGradients
        self.generator = SeededGenerator(seed: seed)
    }

    /// A new tape whose random layers draw from `generator`.
    public init(mode: ExecutionMode, recordsGradients: Bool = true, generator: SeededGenerator) {
        self.mode = mode
        self.recordsGradients = recordsGradients
        self.generator = generator
    }

    /// Records `value` computed from `inputs`; `backward` maps the output gradient to one
    /// gradient per input (nil where an input gets none). Nothing is kept for the
    /// backward pass when no input needs a gradient.
    public func record(_ value: Tensor, inputs: [Variable],
                       backward: @escaping (Tensor) -> [Tensor?]) -> Variable {
        var needsGradient = false
        for input in inputs {
            precondition(input.tape === self, "variables from different tapes cannot be combined")
            needsGradient = needsGradient || requiresGradient[input.id]
        }
        values.append(value)
        nodes.append(Node(inputs: needsGradient ? inputs.map(\.id) : [],
                          backward: needsGradient ? backward : nil))
        requiresGradient.append(needsGradient)
        isLeaf.append(false)
        return Variable(tape: self, id: values.count - 1)
    }

    var requiresGradient: [Bool] = []
    var isLeaf: [Bool] = []

    /// Whether each of two operands needs a gradient: a backward closure skips the others'.
    func needGradients(_ a: Variable, _ b: Variable) -> (Bool, Bool) {
        (requiresGradient[a.id], requiresGradient[b.id])
    }

    /// A leaf whose gradient is tracked (an input you differentiate with respect to).
    public func variable(_ value: Tensor) -> Variable {
        leaf(value, tracked: recordsGradients)
    }

    private func leaf(_ value: Tensor, tracked: Bool) -> Variable {
        values.append(value)
        nodes.append(Node(inputs: [], backward: nil))
        requiresGradient.append(tracked)
        isLeaf.append(true)
        return Variable(tape: self, id: values.count - 1)
    }

    /// A leaf without a gradient (data, targets, masks).
    public func constant(_ value: Tensor) -> Variable {
        leaf(value, tracked: false)
    }

    /// The leaf for `parameter` on this tape (created once; frozen parameters are constants).
    public func variable(for parameter: Parameter) -> Variable {
        let key = ObjectIdentifier(parameter)
        if let id = parameterNodes[key] { return Variable(tape: self, id: id) }
        let v = parameter.isTrainable ? variable(parameter.value) : constant(parameter.value)
        parameterNodes[key] = v.id
        return v
    }

    /// Gradients of the scalar `output` with respect to every tracked leaf.
    ///
    /// `seed` is the gradient of the final objective with respect to `output`
    /// (1 for a scalar loss).
    public func gradients(of output: Variable, seed: Tensor? = nil) -> Gradients {
        precondition(recordsGradients, "gradients(of:) on a tape that does not record gradients")
        precondition(output.tape === self, "output is not on this tape")
        var grads = [Tensor?](repeating: nil, count: values.count)
        let start = seed ?? Tensor(repeating: 1, shape: values[output.id].shape)
        precondition(start.shape == values[output.id].shape, "seed shape \(start.shape) ≠ output \(values[output.id].shape)")
        grads[output.id] = start
        for id in stride(from: output.id, through: 0, by: -1) {
            guard let g = grads[id], let backward = nodes[id].backward else { continue }
            let inputGrads = backward(g)
            for (input, ig) in zip(nodes[id].inputs, inputGrads) {
                guard let ig, requiresGradient[input] else { continue }
                if let existing = grads[input] {
                    grads[input] = existing + ig
                } else {
                    grads[input] = ig
                }
            }
            if !isLeaf[id] { grads[id] = nil }  // free intermediate gradients
        }
        return Gradients(tape: self, values: grads)
    }
}

/// A value on a tape; operations on variables record themselves for differentiation.
public struct Variable {
    /// The tape this variable lives on.
    public let tape: Tape
    /// Its index on the tape.
    public let id: Int

    /// The current value.
    public var value: Tensor { tape.values[id] }
    /// The value's shape.
    public var shape: [Int] { tape.values[id].shape }
    /// The value's rank.
    public var rank: Int { tape.values[id].rank }
}

/// The gradients computed by one backward pass.
public struct Gradients {
    let tape: Tape
    var values: [Tensor?]

    /// The gradient with respect to a leaf variable (zeros when it did not affect the output).
    public subscript(variable: Variable) -> Tensor {
        values[variable.id] ?? Tensor.zeros(variable.shape)
    }

    /// The gradient with respect to a parameter used on this tape, or nil when it was
    /// not used or is frozen.
    public subscript(parameter: Parameter) -> Tensor? {
        guard parameter.isTrainable, let id = tape.parameterNodes[ObjectIdentifier(parameter)] else { return nil }
        return values[id] ?? Tensor.zeros(parameter.value.shape)
    }
}

extension Gradients {
    /// Gradients given directly, one per parameter (for example summed over the processes of a
    /// data-parallel job); each tensor must have its parameter's shape.
    public init(parameters: [Parameter], tensors: [Tensor]) {
        precondition(parameters.count == tensors.count, "\(parameters.count) parameters, \(tensors.count) gradients")
        let tape = Tape(mode: .training)
        var values: [Tensor?] = []
        for (parameter, tensor) in zip(parameters, tensors) {
            precondition(tensor.shape == parameter.value.shape, "gradient \(tensor.shape) for a parameter of \(parameter.value.shape)")
            let id = tape.variable(for: parameter).id
            values += [Tensor?](repeating: nil, count: id + 1 - values.count)
            values[id] = tensor
        }
        self.tape = tape
        self.values = values
    }
}
