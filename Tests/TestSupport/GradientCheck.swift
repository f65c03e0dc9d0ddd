import CoachNN
import XCTest

/// Compares reverse-mode gradients against central finite differences.
///
/// The objective is Σ f(inputs) ⊙ R with a fixed random R, so every output element's
/// gradient path is exercised. Each tape is created with the same seed, so random layers
/// (dropout) draw the same masks in every evaluation.
///
/// - Parameters:
///   - inputs: the points to differentiate at (one leaf variable each).
///   - epsilon: the finite-difference step.
///   - maxChecksPerInput: how many elements of each input to perturb (evenly spread).
/// - Returns: the worst relative error, |numeric − analytic| / max(1, |numeric|, |analytic|).
@discardableResult
public func checkGradients(
    _ inputs: [Tensor], epsilon: Float = 1e-2, tolerance: Float = 1e-2, maxChecksPerInput: Int = 48,
    mode: ExecutionMode = .training, file: StaticString = #filePath, line: UInt = #line,
    _ f: ([Variable]) -> Variable
) -> Float {
    var weightsGenerator = SeededGenerator(seed: 12345)
    var weights: Tensor? = nil
    func objective(_ values: [Tensor], tape: Tape) -> (Variable, [Variable]) {
        let leaves = values.map { tape.variable($0) }
        let out = f(leaves)
        if weights == nil {
            weights = Tensor.randomUniform(out.shape, lower: 0.5, upper: 1.5, using: &weightsGenerator)
        }
        return ((out * weights!).sum(), leaves)
    }
    let tape = Tape(mode: mode, seed: 7)
    let (loss, leaves) = objective(inputs, tape: tape)
    let grads = tape.gradients(of: loss)
    var worst: Float = 0
    for (k, input) in inputs.enumerated() {
        let analytic = grads[leaves[k]]
        let n = input.count
        let checks = min(n, maxChecksPerInput)
        for c in 0..<checks {
            let i = checks == n ? c : (c * n) / checks
            var plus = inputs, minus = inputs
            var p = plus[k].scalars, m = minus[k].scalars
            p[i] += epsilon
            m[i] -= epsilon
            plus[k] = Tensor(shape: input.shape, scalars: p)
            minus[k] = Tensor(shape: input.shape, scalars: m)
            let fp = objective(plus, tape: Tape(mode: mode, seed: 7)).0.value.scalar
            let fm = objective(minus, tape: Tape(mode: mode, seed: 7)).0.value.scalar
            let numeric = (fp - fm) / (2 * epsilon)
            let a = analytic.scalars[i]
            let err = abs(numeric - a) / max(1, abs(numeric), abs(a))
            if err > worst { worst = err }
            if err > tolerance {
                XCTFail("input \(k) element \(i): numeric \(numeric) vs analytic \(a) (relative error \(err))",
                        file: file, line: line)
                return err
            }
        }
    }
    return worst
}
