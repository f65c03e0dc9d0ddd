@_exported import CoachRandom

/// Random tensors drawn from a `SeededGenerator`.
extension Tensor {
    /// A tensor of uniform samples in [lower, upper).
    public static func randomUniform(_ shape: [Int], lower: Float = 0, upper: Float = 1,
                                     using generator: inout SeededGenerator) -> Tensor {
        Tensor(shape: shape) { p in for i in 0..<p.count { p[i] = generator.nextUniform(lower, upper) } }
    }

    /// A tensor of normal samples with the given mean and standard deviation.
    public static func randomNormal(_ shape: [Int], mean: Float = 0, standardDeviation: Float = 1,
                                    using generator: inout SeededGenerator) -> Tensor {
        Tensor(shape: shape) { p in
            for i in 0..<p.count { p[i] = mean + standardDeviation * generator.nextNormal() }
        }
    }
}
