import CKernels

/// A weight matrix [k, n] (a 1×1 filter [Cin, Cout], or a k×k HWIO filter flattened to
/// [kh·kw·Cin, Cout]) packed once for `Kernels.pointwise` / `Kernels.convolution`: the packed
/// GEMM of `CKernels` reads it as a stream instead of repacking it on every call.
public final class PackedWeights: @unchecked Sendable {
    /// Rows (input channels × taps) and columns (output channels).
    public let rows: Int, columns: Int
    let storage: UnsafeMutablePointer<Float>

    /// Packs `count == rows · columns` row-major floats.
    public init(_ weights: UnsafePointer<Float>, rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        let size = Int(coach_packed_weights_size(Int32(rows), Int32(columns)))
        storage = Kernels.allocateAligned(size)
        coach_pack_weights(weights, Int32(rows), Int32(columns), storage)
    }

    /// Packs a row-major array of `rows · columns` floats.
    public static func packing(_ weights: [Float], rows: Int, columns: Int) -> PackedWeights {
        precondition(weights.count == rows * columns, "weights must hold \(rows)×\(columns) floats, got \(weights.count)")
        return weights.withUnsafeBufferPointer { PackedWeights($0.baseAddress!, rows: rows, columns: columns) }
    }

    deinit { storage.deallocate() }

    /// The instruction set the packed kernels use on this machine: "AVX-512F", "AVX2+FMA" or "portable C".
    public static var instructionSet: String {
        switch coach_kernels_isa() {
        case 2: return "AVX-512F"
        case 1: return "AVX2+FMA"
        default: return "portable C"
        }
    }
}
