import CKernels
import CBLAS
import Foundation

/// Matrix multiplication through OpenBLAS's `cblas_sgemm`.
extension Tensor {
    /// C[m×n] = alpha · op(A) · op(B) + beta · C, row-major, on raw pointers.
    ///
    /// `lda`, `ldb`, `ldc` are the row strides of A, B and C as stored.
    @inlinable
    public static func gemm(transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int,
                            alpha: Float = 1, a: UnsafePointer<Float>, lda: Int,
                            b: UnsafePointer<Float>, ldb: Int,
                            beta: Float = 0, c: UnsafeMutablePointer<Float>, ldc: Int) {
        if m == 0 || n == 0 { return }
        if k == 0 {
            for i in 0..<m { for j in 0..<n { c[i * ldc + j] = beta == 0 ? 0 : beta * c[i * ldc + j] } }
            return
        }
        cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
                    transposeB ? CblasTrans : CblasNoTrans,
                    Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb),
                    beta, c, Int32(ldc))
    }

    /// The matrix product of two rank-2 tensors, optionally transposing either operand.
    public static func matmul(_ a: Tensor, _ b: Tensor,
                              transposeA: Bool = false, transposeB: Bool = false) -> Tensor {
        precondition(a.rank == 2 && b.rank == 2, "matmul needs rank-2 tensors, got \(a.shape) and \(b.shape)")
        let (m, k) = transposeA ? (a.shape[1], a.shape[0]) : (a.shape[0], a.shape[1])
        let (k2, n) = transposeB ? (b.shape[1], b.shape[0]) : (b.shape[0], b.shape[1])
        precondition(k == k2, "matmul inner dimensions differ: \(a.shape)\(transposeA ? "ᵀ" : "") · \(b.shape)\(transposeB ? "ᵀ" : "")")
        return Tensor(shape: [m, n]) { out in
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    gemm(transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k,
                         a: pa.baseAddress!, lda: a.shape[1], b: pb.baseAddress!, ldb: b.shape[1],
                         c: out.baseAddress!, ldc: n)
                }
            }
        }
    }

    /// Batched matrix product over the leading axis: [B, M, K] · [B, K, N] → [B, M, N].
    ///
    /// Either operand may be rank 2, in which case it is shared by every batch element.
    public static func batchedMatmul(_ a: Tensor, _ b: Tensor,
                                     transposeA: Bool = false, transposeB: Bool = false) -> Tensor {
        precondition((a.rank == 3 || a.rank == 2) && (b.rank == 3 || b.rank == 2) && (a.rank == 3 || b.rank == 3),
                     "batchedMatmul needs rank-3 operands, got \(a.shape) and \(b.shape)")
        let batch = a.rank == 3 ? a.shape[0] : b.shape[0]
        if a.rank == 3 && b.rank == 3 {
            precondition(a.shape[0] == b.shape[0], "batch sizes differ: \(a.shape) and \(b.shape)")
        }
        let sa = Array(a.shape.suffix(2)), sb = Array(b.shape.suffix(2))
        let (m, k) = transposeA ? (sa[1], sa[0]) : (sa[0], sa[1])
        let (k2, n) = transposeB ? (sb[1], sb[0]) : (sb[0], sb[1])
        precondition(k == k2, "batchedMatmul inner dimensions differ: \(a.shape) · \(b.shape)")
        let strideA = a.rank == 3 ? sa[0] * sa[1] : 0
        let strideB = b.rank == 3 ? sb[0] * sb[1] : 0
        if a.rank == 3 && b.rank == 2 && !transposeA {
            // One GEMM: fold the batch into the rows.
            let flat = matmul(a.reshaped(to: [batch * sa[0], sa[1]]), b, transposeB: transposeB)
            return flat.reshaped(to: [batch, m, n])
        }
        return Tensor(shape: [batch, m, n]) { out in
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    for i in 0..<batch {
                        gemm(transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k,
                             a: pa.baseAddress! + i * strideA, lda: sa[1],
                             b: pb.baseAddress! + i * strideB, ldb: sb[1],
                             c: out.baseAddress! + i * m * n, ldc: n)
                    }
                }
            }
        }
    }
}

/// Controls how many threads Coach's kernels and OpenBLAS use.
public enum ComputeThreads {
    /// The number of threads kernels split work across (default: the machine's cores).
    nonisolated(unsafe) public private(set) static var count: Int = Swift.max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Sets the thread count for Coach's kernels and OpenBLAS.
    public static func set(_ n: Int) {
        count = Swift.max(1, n)
        openblas_set_num_threads(Int32(count))
    }

    /// Marks threads that already run one share of a parallel job: kernels they call run
    /// inline instead of splitting again (no oversubscription).
    @usableFromInline static let serialKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// True on a thread running inside `forEachWorker`.
    @inlinable
    public static var isInsideParallelJob: Bool { pthread_getspecific(serialKey) != nil || coach_pool_inside_task() != 0 }

    private static let blasLock = NSLock()
    nonisolated(unsafe) private static var singleThreadedBLASDepth = 0

    /// True while some caller runs `withSingleThreadedBLAS` (OpenBLAS then uses one
    /// thread per call, so callers may issue GEMMs from several threads at once).
    public static var blasIsSingleThreaded: Bool {
        blasLock.lock(); defer { blasLock.unlock() }
        return count == 1 || singleThreadedBLASDepth > 0
    }

    /// Runs `body` with OpenBLAS using one thread per call (restored afterwards, also
    /// when callers nest or overlap). Inside, Coach's kernels parallelise by splitting
    /// work into fixed pieces themselves, so results do not depend on the thread count.
    public static func withSingleThreadedBLAS<R>(_ body: () throws -> R) rethrows -> R {
        if count == 1 { return try body() }   // OpenBLAS already runs on one thread
        blasLock.lock()
        if singleThreadedBLASDepth == 0 { openblas_set_num_threads(1) }
        singleThreadedBLASDepth += 1
        blasLock.unlock()
        defer {
            blasLock.lock()
            singleThreadedBLASDepth -= 1
            if singleThreadedBLASDepth == 0 { openblas_set_num_threads(Int32(count)) }
            blasLock.unlock()
        }
        return try body()
    }

    /// Runs `body(worker)` for `workers` workers concurrently, with single-threaded BLAS;
    /// kernels called inside run inline, so each worker owns one core. Use for coarse jobs
    /// such as one image per worker.
    public static func forEachWorker(_ workers: Int, _ body: (Int) -> Void) {
        if workers <= 1 || isInsideParallelJob {
            for w in 0..<workers { body(w) }
            return
        }
        withSingleThreadedBLAS {
            withoutActuallyEscaping(body) { body in
                DispatchQueue.concurrentPerform(iterations: workers) { w in
                    pthread_setspecific(serialKey, UnsafeRawPointer(bitPattern: 1))
                    defer { pthread_setspecific(serialKey, nil) }
                    body(w)
                }
            }
        }
    }
}

/// Runs `body(i)` for i in 0..<iterations on up to `ComputeThreads.count` threads, which take
/// the indices one at a time. Jobs below `minimumWork` iterations, jobs started inside another
/// job or inside `ComputeThreads.forEachWorker`, and jobs that find the pool busy with another
/// caller's job, run inline.
@inlinable
public func parallelFor(_ iterations: Int, minimumWork: Int = 2, _ body: (Int) -> Void) {
    let threads = Swift.min(ComputeThreads.count, iterations)
    if threads <= 1 || iterations < minimumWork || ComputeThreads.isInsideParallelJob {
        for i in 0..<iterations { body(i) }
        return
    }
    // On CKernels' pool, whose workers spin between jobs: a layer is too short to wait for a
    // sleeping thread. Iterations are handed out one at a time.
    withoutActuallyEscaping(body) { body in
        var job = body
        withUnsafeMutablePointer(to: &job) { pointer in
            coach_pool_run(Int32(threads), Int32(iterations), { context, index in
                context!.assumingMemoryBound(to: ((Int) -> Void).self).pointee(Int(index))
            }, pointer)
        }
    }
}
