/// Weight initialisers, drawing from a seeded generator.
public enum Initializer {
    /// Glorot/Xavier uniform: U(−a, a), a = √(6 / (fanIn + fanOut)).
    case glorotUniform
    /// He/Kaiming normal for ReLU networks: N(0, 2 / fanIn).
    case heNormal
    /// He/Kaiming uniform: U(−a, a), a = √(6 / fanIn).
    case heUniform
    /// All zeros.
    case zeros
    /// A normal distribution with the given standard deviation.
    case normal(standardDeviation: Float)

    /// A tensor of `shape` initialised for the given fan-in and fan-out.
    public func make(_ shape: [Int], fanIn: Int, fanOut: Int, generator: inout SeededGenerator) -> Tensor {
        switch self {
        case .glorotUniform:
            let a = (6 / Float(fanIn + fanOut)).squareRoot()
            return Tensor.randomUniform(shape, lower: -a, upper: a, using: &generator)
        case .heNormal:
            return Tensor.randomNormal(shape, standardDeviation: (2 / Float(fanIn)).squareRoot(), using: &generator)
        case .heUniform:
            let a = (6 / Float(fanIn)).squareRoot()
            return Tensor.randomUniform(shape, lower: -a, upper: a, using: &generator)
        case .zeros:
            return Tensor.zeros(shape)
        case .normal(let sd):
            return Tensor.randomNormal(shape, standardDeviation: sd, using: &generator)
        }
    }
}
