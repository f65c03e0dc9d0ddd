import Foundation

/// Elementwise maths on variables.
extension Variable {
    /// Records an elementwise op whose derivative is computed from input x and output y.
    @inline(__always)
    private func unary(_ forward: Tensor, derivative: @escaping (_ x: Float, _ y: Float) -> Float) -> Variable {
        unary(forward) { g, x, y, out, range in for i in range { out[i] = g[i] * derivative(x[i], y[i]) } }
    }

    /// Records an elementwise op whose gradient `loop` writes from the output's gradient g, input x
    /// and output y over a range of elements (a loop with its derivative written inside vectorises).
    private func unary(_ forward: Tensor,
                       gradient loop: @escaping (_ g: UnsafePointer<Float>, _ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>,
                                                 _ out: UnsafeMutablePointer<Float>, Range<Int>) -> Void) -> Variable {
        let x = value
        return tape.record(forward, inputs: [self]) { g in
            [Tensor(shape: g.shape) { out in
                g.withUnsafeBufferPointer { pg in
                    x.withUnsafeBufferPointer { px in
                        forward.withUnsafeBufferPointer { py in
                            guard let g0 = pg.baseAddress, let x0 = px.baseAddress, let y0 = py.baseAddress,
                                  let o0 = out.baseAddress else { return }
                            forEachBlock(out.count) { range in loop(g0, x0, y0, o0, range) }
                        }
                    }
                }
            }]
        }
    }

    /// e^x.
    public func exp() -> Variable { unary(value.exp()) { _, y in y } }
    /// Natural logarithm.
    public func log() -> Variable { unary(value.log()) { x, _ in 1 / x } }
    /// Square root.
    public func sqrt() -> Variable { unary(value.sqrt()) { _, y in 0.5 / y } }
    /// x².
    public func squared() -> Variable { unary(value.squared()) { x, _ in 2 * x } }
    /// |x| (derivative 0 at 0).
    public func abs() -> Variable { unary(value.abs()) { x, _ in x > 0 ? 1 : (x < 0 ? -1 : 0) } }
    /// Hyperbolic tangent.
    public func tanh() -> Variable { unary(value.tanh()) { _, y in 1 - y * y } }
    /// Logistic sigmoid.
    public func sigmoid() -> Variable { unary(value.sigmoid()) { _, y in y * (1 - y) } }
    /// max(x, 0).
    public func relu() -> Variable {
        unary(value.relu()) { g, x, _, out, range in for i in range { out[i] = g[i] * (x[i] > 0 ? 1 : 0) } }
    }
    /// min(max(x, 0), 6).
    public func relu6() -> Variable {
        unary(value.relu6()) { g, x, _, out, range in for i in range { out[i] = g[i] * (x[i] > 0 && x[i] < 6 ? 1 : 0) } }
    }
    /// x clamped to [lower, upper] (gradient passes strictly inside).
    public func clamped(to lower: Float, _ upper: Float) -> Variable {
        unary(value.clamped(to: lower, upper)) { x, _ in x > lower && x < upper ? 1 : 0 }
    }
    /// Leaky ReLU: x for x > 0, slope·x otherwise.
    public func leakyRelu(slope: Float = 0.01) -> Variable {
        unary(value.map { $0 > 0 ? $0 : slope * $0 }) { x, _ in x > 0 ? 1 : slope }
    }
    /// Swish / SiLU: x·sigmoid(x).
    public func swish() -> Variable {
        unary(value.map { $0 * Tensor.sigmoid($0) }) { x, _ in
            let s = Tensor.sigmoid(x)
            return s * (1 + x * (1 - s))
        }
    }
    /// GELU (tanh approximation).
    public func gelu() -> Variable {
        let c: Float = 0.7978845608  // sqrt(2/π)
        return unary(value.map { x in 0.5 * x * (1 + Foundation.tanh(c * (x + 0.044715 * x * x * x))) }) { x, _ in
            let u = c * (x + 0.044715 * x * x * x)
            let t = Foundation.tanh(u)
            return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
        }
    }
}
