import Foundation

/// Broadcasting elementwise arithmetic and unary maths.
extension Tensor {
    /// The NumPy-style broadcast of two shapes, or nil when they are incompatible.
    public static func broadcastShape(_ a: [Int], _ b: [Int]) -> [Int]? {
        let rank = Swift.max(a.count, b.count)
        var out = [Int](repeating: 1, count: rank)
        for i in 0..<rank {
            let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
            let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
            if da == db || db == 1 { out[i] = da } else if da == 1 { out[i] = db } else { return nil }
        }
        return out
    }

    /// Strides to read a tensor of `shape` as if broadcast to `target` (0 on broadcast axes).
    static func broadcastStrides(_ shape: [Int], to target: [Int]) -> [Int] {
        let own = strides(of: shape)
        let lead = target.count - shape.count
        return (0..<target.count).map { i in
            i < lead ? 0 : (shape[i - lead] == 1 && target[i] != 1 ? 0 : own[i - lead])
        }
    }

    /// The tensor expanded (copied) to a broadcast-compatible `target` shape.
    public func broadcast(to target: [Int]) -> Tensor {
        precondition(Tensor.broadcastShape(shape, target) == target, "cannot broadcast \(shape) to \(target)")
        if shape == target { return self }
        let st = Tensor.broadcastStrides(shape, to: target)
        return Tensor(shape: target) { out in
            scalars.withUnsafeBufferPointer { src in
                Tensor.gather(shape: target, strides: st, base: 0, source: src, into: out)
            }
        }
    }

    /// Applies `op` elementwise with broadcasting.
    @inline(__always)
    public static func zip(_ a: Tensor, _ b: Tensor, _ op: (Float, Float) -> Float) -> Tensor {
        if a.shape == b.shape {
            return Tensor(shape: a.shape) { out in
                a.scalars.withUnsafeBufferPointer { pa in
                    b.scalars.withUnsafeBufferPointer { pb in
                        for i in 0..<out.count { out[i] = op(pa[i], pb[i]) }
                    }
                }
            }
        }
        guard let shape = broadcastShape(a.shape, b.shape) else {
            preconditionFailure("shapes \(a.shape) and \(b.shape) do not broadcast")
        }
        let n = count(of: shape)
        if b.count == 1 {
            let s = b.scalars[0]
            let ax = a.count == n ? a : a.broadcast(to: shape)
            return Tensor(shape: shape) { out in
                ax.scalars.withUnsafeBufferPointer { pa in for i in 0..<n { out[i] = op(pa[i], s) } }
            }
        }
        if a.count == 1 {
            let s = a.scalars[0]
            let bx = b.count == n ? b : b.broadcast(to: shape)
            return Tensor(shape: shape) { out in
                bx.scalars.withUnsafeBufferPointer { pb in for i in 0..<n { out[i] = op(s, pb[i]) } }
            }
        }
        // Trailing broadcast: one operand is the full shape and the other repeats over
        // leading rows (e.g. [N, C] + [C]).
        if a.count == n, isTrailing(b.shape, of: shape) {
            let m = b.count
            return Tensor(shape: shape) { out in
                a.scalars.withUnsafeBufferPointer { pa in
                    b.scalars.withUnsafeBufferPointer { pb in
                        var i = 0
                        while i < n { for j in 0..<m { out[i + j] = op(pa[i + j], pb[j]) }; i += m }
                    }
                }
            }
        }
        if b.count == n, isTrailing(a.shape, of: shape) {
            let m = a.count
            return Tensor(shape: shape) { out in
                a.scalars.withUnsafeBufferPointer { pa in
                    b.scalars.withUnsafeBufferPointer { pb in
                        var i = 0
                        while i < n { for j in 0..<m { out[i + j] = op(pa[j], pb[i + j]) }; i += m }
                    }
                }
            }
        }
        let ax = a.broadcast(to: shape), bx = b.broadcast(to: shape)
        return zip(ax, bx, op)
    }

    /// True when `small`, left-padded with ones, equals the trailing part of `shape`
    /// with only leading axes broadcast.
    private static func isTrailing(_ small: [Int], of shape: [Int]) -> Bool {
        var s = small
        while let f = s.first, f == 1 { s.removeFirst() }
        return s.count <= shape.count && Array(shape.suffix(s.count)) == s
    }

    /// Applies `op` to every element.
    @inline(__always)
    public func map(_ op: (Float) -> Float) -> Tensor {
        Tensor(shape: shape) { out in
            scalars.withUnsafeBufferPointer { p in for i in 0..<out.count { out[i] = op(p[i]) } }
        }
    }

    public static func + (a: Tensor, b: Tensor) -> Tensor {
        a.shape == b.shape ? sameShape(a, b) { x, y, out, range in for i in range { out[i] = x[i] + y[i] } } : zip(a, b, +)
    }
    public static func - (a: Tensor, b: Tensor) -> Tensor {
        a.shape == b.shape ? sameShape(a, b) { x, y, out, range in for i in range { out[i] = x[i] - y[i] } } : zip(a, b, -)
    }
    public static func * (a: Tensor, b: Tensor) -> Tensor {
        a.shape == b.shape ? sameShape(a, b) { x, y, out, range in for i in range { out[i] = x[i] * y[i] } } : zip(a, b, *)
    }
    public static func / (a: Tensor, b: Tensor) -> Tensor {
        a.shape == b.shape ? sameShape(a, b) { x, y, out, range in for i in range { out[i] = x[i] / y[i] } } : zip(a, b, /)
    }

    /// A loop over `range` of two same-shape operands into the output, with its operation written
    /// inside the loop: the compiler then vectorises it, where an operation passed as a closure
    /// value is a call per element.
    public typealias BinaryLoop = (UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>, Range<Int>) -> Void

    /// Runs `loop` over two same-shape tensors in blocks on the compute threads (each element is
    /// the same operation on any number of threads).
    public static func sameShape(_ a: Tensor, _ b: Tensor, _ loop: BinaryLoop) -> Tensor {
        precondition(a.shape == b.shape, "sameShape needs equal shapes, got \(a.shape) and \(b.shape)")
        return Tensor(shape: a.shape) { out in
            a.scalars.withUnsafeBufferPointer { pa in
                b.scalars.withUnsafeBufferPointer { pb in
                    guard let x = pa.baseAddress, let y = pb.baseAddress, let o = out.baseAddress else { return }
                    forEachBlock(out.count) { range in loop(x, y, o, range) }
                }
            }
        }
    }

    /// A loop over `range` of one operand into the output (see `BinaryLoop`).
    public typealias UnaryLoop = (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Range<Int>) -> Void

    /// Runs `loop` over the tensor in blocks on the compute threads.
    public func blockwise(_ loop: UnaryLoop) -> Tensor {
        Tensor(shape: shape) { out in
            scalars.withUnsafeBufferPointer { p in
                guard let x = p.baseAddress, let o = out.baseAddress else { return }
                forEachBlock(out.count) { range in loop(x, o, range) }
            }
        }
    }

    public static func + (a: Tensor, b: Float) -> Tensor { a.map { $0 + b } }
    public static func - (a: Tensor, b: Float) -> Tensor { a.map { $0 - b } }
    public static func * (a: Tensor, b: Float) -> Tensor { a.map { $0 * b } }
    public static func / (a: Tensor, b: Float) -> Tensor { a.map { $0 / b } }
    public static func + (a: Float, b: Tensor) -> Tensor { b.map { a + $0 } }
    public static func - (a: Float, b: Tensor) -> Tensor { b.map { a - $0 } }
    public static func * (a: Float, b: Tensor) -> Tensor { b.map { a * $0 } }
    public static func / (a: Float, b: Tensor) -> Tensor { b.map { a / $0 } }
    public static prefix func - (a: Tensor) -> Tensor { a.map { -$0 } }

    public static func += (a: inout Tensor, b: Tensor) {
        if a.shape == b.shape {
            a.withUnsafeMutableBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in for i in 0..<pa.count { pa[i] += pb[i] } }
            }
        } else {
            a = a + b
        }
    }

    /// Elementwise maximum of two tensors (broadcasting).
    public static func maximum(_ a: Tensor, _ b: Tensor) -> Tensor { zip(a, b) { Swift.max($0, $1) } }
    /// Elementwise minimum of two tensors (broadcasting).
    public static func minimum(_ a: Tensor, _ b: Tensor) -> Tensor { zip(a, b) { Swift.min($0, $1) } }

    /// e^x elementwise.
    public func exp() -> Tensor { map { Foundation.exp($0) } }
    /// Natural logarithm elementwise.
    public func log() -> Tensor { map { Foundation.log($0) } }
    /// Square root elementwise.
    public func sqrt() -> Tensor { map { $0.squareRoot() } }
    /// x² elementwise.
    public func squared() -> Tensor { map { $0 * $0 } }
    /// |x| elementwise.
    public func abs() -> Tensor { map { Swift.abs($0) } }
    /// Hyperbolic tangent elementwise.
    public func tanh() -> Tensor { map { Foundation.tanh($0) } }
    /// Logistic sigmoid 1 / (1 + e^−x), computed stably.
    public func sigmoid() -> Tensor { map(Tensor.sigmoid) }
    /// max(x, 0).
    public func relu() -> Tensor { blockwise { x, out, range in for i in range { out[i] = Swift.max(x[i], 0) } } }
    /// min(max(x, 0), 6).
    public func relu6() -> Tensor { blockwise { x, out, range in for i in range { out[i] = Swift.min(Swift.max(x[i], 0), 6) } } }
    /// x clamped to [lower, upper].
    public func clamped(to lower: Float, _ upper: Float) -> Tensor {
        map { Swift.min(Swift.max($0, lower), upper) }
    }

    /// The stable logistic function on one value.
    @inlinable
    public static func sigmoid(_ x: Float) -> Float {
        if x >= 0 { return 1 / (1 + Foundation.exp(-x)) }
        let e = Foundation.exp(x)
        return e / (1 + e)
    }
}
