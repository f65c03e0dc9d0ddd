/// Activation functions as values, so architectures can be configured.
public enum Activation: String, Codable, Sendable {
    case identity, relu, relu6, sigmoid, tanh, swish, gelu

    /// Applies the activation.
    public func callAsFunction(_ x: Variable) -> Variable {
        switch self {
        case .identity: return x
        case .relu: return x.relu()
        case .relu6: return x.relu6()
        case .sigmoid: return x.sigmoid()
        case .tanh: return x.tanh()
        case .swish: return x.swish()
        case .gelu: return x.gelu()
        }
    }
}
