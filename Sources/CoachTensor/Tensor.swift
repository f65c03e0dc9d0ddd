import Foundation

/// A dense float32 tensor with value semantics.
///
/// Storage is a Swift array, so copies are cheap and copy-on-write: mutating one
/// `Tensor` never changes another. Shapes are row-major (the last axis varies fastest).
/// Images are NHWC; pose windows are [N, T, J, K] (see ARCHITECTURE.md's axis legend).
public struct Tensor: Equatable, Sendable {
    /// The extent of each axis; `[]` is a scalar.
    public internal(set) var shape: [Int]
    /// The elements in row-major order.
    public internal(set) var scalars: [Float]

    /// A tensor of `shape` holding `scalars` (row-major); the counts must agree.
    public init(shape: [Int], scalars: [Float]) {
        precondition(shape.allSatisfy { $0 >= 0 }, "negative extent in shape \(shape)")
        precondition(Tensor.count(of: shape) == scalars.count,
                     "shape \(shape) needs \(Tensor.count(of: shape)) scalars, got \(scalars.count)")
        self.shape = shape
        self.scalars = scalars
    }

    /// A tensor of `shape` filled with `value`.
    public init(repeating value: Float, shape: [Int]) {
        self.init(shape: shape, scalars: [Float](repeating: value, count: Tensor.count(of: shape)))
    }

    /// A tensor of `shape` whose scalars are written by `body` into uninitialised storage.
    ///
    /// `body` must write every element.
    public init(shape: [Int], unsafeUninitializedScalars body: (UnsafeMutableBufferPointer<Float>) -> Void) {
        let n = Tensor.count(of: shape)
        self.shape = shape
        self.scalars = [Float](unsafeUninitializedCapacity: n) { buffer, count in
            body(buffer)
            count = n
        }
    }

    /// A rank-0 tensor.
    public init(_ scalar: Float) {
        self.init(shape: [], scalars: [scalar])
    }

    /// A rank-1 tensor.
    public init(_ scalars: [Float]) {
        self.init(shape: [scalars.count], scalars: scalars)
    }

    /// A tensor of zeros.
    public static func zeros(_ shape: [Int]) -> Tensor { Tensor(repeating: 0, shape: shape) }

    /// A tensor of ones.
    public static func ones(_ shape: [Int]) -> Tensor { Tensor(repeating: 1, shape: shape) }

    /// `count` evenly spaced values from `start` with step `step`, as a rank-1 tensor.
    public static func arange(_ count: Int, start: Float = 0, step: Float = 1) -> Tensor {
        Tensor((0..<count).map { start + Float($0) * step })
    }

    /// The identity matrix of size n×n.
    public static func identity(_ n: Int) -> Tensor {
        var t = Tensor.zeros([n, n])
        t.withUnsafeMutableBufferPointer { p in for i in 0..<n { p[i * n + i] = 1 } }
        return t
    }

    /// The number of axes.
    public var rank: Int { shape.count }

    /// The number of elements.
    public var count: Int { scalars.count }

    /// The only element of a one-element tensor.
    public var scalar: Float {
        precondition(scalars.count == 1, "scalar of a tensor of shape \(shape)")
        return scalars[0]
    }

    /// The number of elements a tensor of `shape` holds.
    public static func count(of shape: [Int]) -> Int { shape.reduce(1, *) }

    /// Row-major strides (in elements) for `shape`.
    public static func strides(of shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        var s = 1
        for i in stride(from: shape.count - 1, through: 0, by: -1) {
            strides[i] = s
            s *= shape[i]
        }
        return strides
    }

    /// Reads the elements without copying.
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try scalars.withUnsafeBufferPointer(body)
    }

    /// Writes the elements in place (copying first if the storage is shared).
    public mutating func withUnsafeMutableBufferPointer<R>(
        _ body: (inout UnsafeMutableBufferPointer<Float>) throws -> R
    ) rethrows -> R {
        try scalars.withUnsafeMutableBufferPointer(body)
    }

    /// The element at a multi-dimensional index.
    public subscript(index: Int...) -> Float {
        get { scalars[flatIndex(index)] }
        set { scalars[flatIndex(index)] = newValue }
    }

    private func flatIndex(_ index: [Int]) -> Int {
        precondition(index.count == shape.count, "index \(index) for shape \(shape)")
        var flat = 0
        for (axis, i) in index.enumerated() {
            precondition(i >= 0 && i < shape[axis], "index \(index) out of range for shape \(shape)")
            flat = flat * shape[axis] + i
        }
        return flat
    }

    /// Normalises a possibly negative axis for a tensor of `rank`.
    @inlinable
    public static func normalize(axis: Int, rank: Int) -> Int {
        let a = axis < 0 ? axis + rank : axis
        precondition(a >= 0 && a < Swift.max(rank, 1), "axis \(axis) out of range for rank \(rank)")
        return a
    }
}

extension Tensor: CustomStringConvertible {
    /// A short description: the shape and up to eight leading elements.
    public var description: String {
        let head = scalars.prefix(8).map { String(format: "%.4g", Double($0)) }.joined(separator: ", ")
        return "Tensor(shape: \(shape), [\(head)\(scalars.count > 8 ? ", …" : "")])"
    }
}
