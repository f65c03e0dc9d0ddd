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
        // OpenBLAS runs single-threaded (see `ComputeThreads`); a large product is split here into
        // pieces of rows or columns whose number depends on the shape alone — never the split of
        // the sum over k — and the pieces run on Coach's threads. Each element is then the same
        // OpenBLAS call's result whatever the thread count (issue 18: a job's ranks run with
        // fewer threads than a single process, and must give its model bytes).
        ComputeThreads.prepareBLAS()
        let pieces = gemmPieces(m: m, n: n, k: k)
        let splitRows = m >= n
        let length = splitRows ? m : n
        parallelFor(pieces) { piece in
            let lower = piece * length / pieces, upper = (piece + 1) * length / pieces
            let rows = splitRows ? upper - lower : m, columns = splitRows ? n : upper - lower
            let aPiece = splitRows ? a + lower * (transposeA ? 1 : lda) : a
            let bPiece = splitRows ? b : b + lower * (transposeB ? ldb : 1)
            let cPiece = c + (splitRows ? lower * ldc : lower)
            cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
                        transposeB ? CblasTrans : CblasNoTrans,
                        Int32(rows), Int32(columns), Int32(k), alpha, aPiece, Int32(lda), bPiece, Int32(ldb),
                        beta, cPiece, Int32(ldc))
        }
    }

    /// How many pieces `gemm` splits an m×n×k product into (along the longer of m and n): one for
    /// small products, else up to 16 of about two million multiply-adds or more. Each piece packs
    /// the other operand again, which costs little while it stays in cache (pieces of 64 rows or
    /// more) and much when it is large (pieces of 512 or more: 64 ran a 1024² product at 0.76 of
    /// one OpenBLAS call, 512 at 0.98).
    @inlinable
    static func gemmPieces(m: Int, n: Int, k: Int) -> Int {
        let work = m * n * k
        guard work >= 1 << 22 else { return 1 }
        let other = m >= n ? n : m
        let minimumLength = k * other <= 1 << 18 ? 64 : 512
        return Swift.max(1, Swift.min(16, Swift.max(m, n) / minimumLength, work >> 21))
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

    /// `a` [m, k] · `b` [k, n] for a thin `b` (few columns: a classifier's weights), through
    /// `coach_thin_gemm`: `a` is read straight from its rows instead of being packed first, which
    /// for a logistic regression's features costs as much as the product. Every element is one
    /// chain of fused multiply-adds over k in order, so the result is the same bits for any thread
    /// count and instruction set.
    public static func thinMatmul(_ a: Tensor, _ b: Tensor) -> Tensor {
        precondition(a.rank == 2, "thinMatmul needs [m, k] · [k, n], got \(a.shape) · \(b.shape)")
        return thinMatmul(a, rows: 0..<a.shape[0], b)
    }

    /// Rows `rows` of `a` · `b` ([rows.count, n]), the same bits as those rows of `thinMatmul(a, b)`.
    public static func thinMatmul(_ a: Tensor, rows: Range<Int>, _ b: Tensor) -> Tensor {
        precondition(a.rank == 2 && b.rank == 2 && a.shape[1] == b.shape[0],
                     "thinMatmul needs [m, k] · [k, n], got \(a.shape) · \(b.shape)")
        precondition(rows.lowerBound >= 0 && rows.upperBound <= a.shape[0], "rows \(rows) of \(a.shape[0])")
        let m = rows.count, k = a.shape[1], n = b.shape[1]
        return Tensor(shape: [m, n]) { out in
            guard m > 0, n > 0 else { return }
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    let first = pa.baseAddress! + rows.lowerBound * k
                    // Pieces of whole tiles of 8 rows (the kernel's), the last one taking the rest.
                    let pieces = thinPieces(length: m, work: m * k * n, granularity: 8)
                    parallelFor(pieces) { piece in
                        let lower = piece * m / pieces / 8 * 8
                        let upper = piece == pieces - 1 ? m : (piece + 1) * m / pieces / 8 * 8
                        coach_thin_gemm(first, Int32(k), pb.baseAddress!, Int32(n), out.baseAddress!,
                                        Int32(lower), Int32(upper - lower))
                    }
                }
            }
        }
    }

    /// `a`ᵀ · `r` for `a` [m, k] and a thin `r` [m, n] (a gradient's residuals): [k, n], through
    /// `coach_thin_gemm_tn_accumulate`, with the same guarantees as `thinMatmul` (each element sums
    /// over m in order).
    public static func thinMatmulTransposed(_ a: Tensor, _ r: Tensor) -> Tensor {
        precondition(a.rank == 2 && r.rank == 2 && a.shape[0] == r.shape[0],
                     "thinMatmulTransposed needs [m, k]ᵀ · [m, n], got \(a.shape)ᵀ · \(r.shape)")
        let k = a.shape[1], n = r.shape[1]
        var sums = [Float](repeating: 0, count: n * k)  // [n, k]: the result transposed
        r.withUnsafeBufferPointer { pr in
            guard let residuals = pr.baseAddress else { return }
            accumulateThinTransposed(a, rows: 0..<a.shape[0], residuals, columns: n, into: &sums)
        }
        return Tensor(shape: [k, n]) { out in
            for f in 0..<k { for j in 0..<n { out[f * n + j] = sums[j * k + f] } }
        }
    }

    /// sums[j, f] += Σ_{i ∈ rows} a[i, f] · residuals[i − rows.lowerBound, j]: `a`ᵀ · r for rows `rows`
    /// of `a` [m, k] and `residuals` [rows.count, n], added to `sums` [n, k] (transposed). Each
    /// element's chain of multiply-adds continues over the rows in order, so feeding the rows in
    /// successive ranges gives the same bits as one call over all of them.
    public static func accumulateThinTransposed(_ a: Tensor, rows: Range<Int>, _ residuals: UnsafePointer<Float>, columns n: Int,
                                                into sums: inout [Float]) {
        precondition(a.rank == 2 && rows.lowerBound >= 0 && rows.upperBound <= a.shape[0] && sums.count == n * a.shape[1],
                     "accumulateThinTransposed: rows \(rows) of \(a.shape), \(n) columns, \(sums.count) sums")
        let m = rows.count, k = a.shape[1]
        guard m > 0, k > 0, n > 0 else { return }
        a.withUnsafeBufferPointer { pa in
            sums.withUnsafeMutableBufferPointer { ps in
                let first = pa.baseAddress! + rows.lowerBound * k
                // Pieces of whole 16-column blocks of `a` (one cache line of each row).
                let blocks = (k + 15) / 16
                let pieces = thinPieces(length: blocks, work: m * k * n, granularity: 1)
                parallelFor(pieces) { piece in
                    let lower = piece * blocks / pieces * 16, upper = Swift.min(k, (piece + 1) * blocks / pieces * 16)
                    coach_thin_gemm_tn_accumulate(first, Int32(m), Int32(k), residuals, Int32(n),
                                                  ps.baseAddress!, Int32(lower), Int32(upper - lower))
                }
            }
        }
    }

    /// Pieces for a thin product over `length` rows or blocks: one below about half a million
    /// multiply-adds, else up to 16 of at least `granularity` each (a solver's pass of 32 rows of
    /// 10,000 features and 4 classes still goes to two threads when it has them).
    static func thinPieces(length: Int, work: Int, granularity: Int) -> Int {
        guard work >= 1 << 19 else { return 1 }
        return Swift.max(1, Swift.min(16, length / Swift.max(granularity, 1), work >> 19))
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
    /// The number of threads kernels split work across: `$COACH_THREADS` when set, else the CPUs
    /// this process may run on (its affinity mask: `taskset`, a container's cpuset, or the core
    /// `mpirun` bound it to), else the machine's cores. More threads than CPUs would only wait:
    /// the pool's workers spin between jobs.
    nonisolated(unsafe) public private(set) static var count: Int = defaultCount()

    /// The thread count a process starts with (see `count`).
    public static func defaultCount(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        if let text = environment["COACH_THREADS"], let value = Int(text), value >= 1 { return Swift.min(value, 256) }
        return allowedCPUCount() ?? Swift.max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// How many CPUs this process may run on (`Cpus_allowed` in /proc/self/status), when the
    /// system says.
    public static func allowedCPUCount() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        let count = line.dropFirst("Cpus_allowed:".count).reduce(0) { total, character in
            total + (character.hexDigitValue?.nonzeroBitCount ?? 0)
        }
        return count > 0 ? count : nil
    }

    /// Sets the thread count for Coach's kernels (OpenBLAS stays on one thread; see `prepareBLAS`).
    public static func set(_ n: Int) {
        count = Swift.max(1, n)
        prepareBLAS()
    }

    /// Puts OpenBLAS on one thread, once, after choosing its kernels
    /// (`BLASConfiguration.kernelChoice`): Coach splits large products into pieces by shape and
    /// runs them on its own threads, so results never depend on how many threads there are
    /// (OpenBLAS's own threading gives other bits at other thread counts).
    public static func prepareBLAS() { _ = blasPrepared }

    private static let blasPrepared: Bool = {
        _ = BLASConfiguration.kernelChoice
        openblas_set_num_threads(1)
        return true
    }()

    /// Marks threads that already run one share of a parallel job: kernels they call run
    /// inline instead of splitting again (no oversubscription).
    @usableFromInline static let serialKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// True on a thread whose kernels run inline: one running a share of a parallel job
    /// (`forEachWorker`, the pool's workers), or one of `concurrently`'s jobs while another still
    /// runs beside it. The last job left may split its kernels over the cores the others freed.
    @inlinable
    public static var isInsideParallelJob: Bool {
        if let marker = pthread_getspecific(serialKey) { return keepsToOneCore(marker) }
        return coach_pool_inside_task() != 0
    }

    /// Whether the thread marked `marker` keeps to one core: always inside `forEachWorker`
    /// (marker 1); in a `concurrently` job (marker: its `SideBySideJobs`), while others run.
    @usableFromInline
    static func keepsToOneCore(_ marker: UnsafeMutableRawPointer) -> Bool {
        if marker == UnsafeMutableRawPointer(bitPattern: 1) { return true }
        return Unmanaged<SideBySideJobs>.fromOpaque(marker).takeUnretainedValue().othersRunning
    }

    /// The threads of one `concurrently` call that still have jobs to run.
    final class SideBySideJobs: @unchecked Sendable {
        private let lock = NSLock()
        private var running: Int
        init(threads: Int) { running = threads }
        var othersRunning: Bool { lock.withLock { running > 1 } }
        /// A thread found no job left.
        func threadFinished() { lock.withLock { running -= 1 } }
    }

    /// Runs `body(worker)` for `workers` workers concurrently; kernels called inside run inline, so each worker owns one core. Use for coarse jobs
    /// such as one image per worker.
    public static func forEachWorker(_ workers: Int, _ body: (Int) -> Void) {
        if workers <= 1 || isInsideParallelJob {
            for w in 0..<workers { body(w) }
            return
        }
        prepareBLAS()
        withoutActuallyEscaping(body) { body in
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                pthread_setspecific(serialKey, UnsafeRawPointer(bitPattern: 1))
                defer { pthread_setspecific(serialKey, nil) }
                body(w)
            }
        }
    }
}

extension ComputeThreads {
    /// How many of `jobs` whole jobs `concurrently` runs side by side: one per thread, at most
    /// `count`; 1 (one after another) inside a parallel job.
    public static func concurrentJobs(_ jobs: Int) -> Int {
        isInsideParallelJob ? 1 : Swift.max(1, Swift.min(jobs, count))
    }

    /// Runs `body(i)` for i in 0..<jobs, `concurrentJobs(jobs)` at a time on threads of their own
    /// (64 MiB of stack each), each taking the next index when it finishes one; kernels called
    /// inside run inline while two or more jobs run, so each job owns one core, and the last job
    /// left splits its kernels over all of them again. For long, independent jobs (whole models)
    /// whose layers are too small to split well: side by side, each on one core, they finish
    /// sooner than one after another on all of them. What a job computes never depends on it.
    public static func concurrently(_ jobs: Int, _ body: @escaping (Int) -> Void) {
        let width = concurrentJobs(jobs)
        guard width > 1 else {
            for i in 0..<jobs { body(i) }
            return
        }
        prepareBLAS()
        final class Queue: @unchecked Sendable {
            let lock = NSLock()
            var next = 0
            let jobs: Int
            let body: (Int) -> Void
            let finished = DispatchSemaphore(value: 0)
            init(jobs: Int, body: @escaping (Int) -> Void) { self.jobs = jobs; self.body = body }
            func take() -> Int? {
                lock.lock()
                defer { lock.unlock() }
                guard next < jobs else { return nil }
                next += 1
                return next - 1
            }
        }
        let queue = Queue(jobs: jobs, body: body)
        let group = SideBySideJobs(threads: width)
        for _ in 0..<width {
            let thread = Thread {
                pthread_setspecific(serialKey, Unmanaged.passUnretained(group).toOpaque())
                while let i = queue.take() { queue.body(i) }
                // No job left for this thread: a job still running may now use its core.
                group.threadFinished()
                pthread_setspecific(serialKey, nil)
                queue.finished.signal()
            }
            thread.stackSize = 64 << 20
            thread.start()
        }
        for _ in 0..<width { queue.finished.wait() }
    }

    /// `body(i)` for i in 0..<jobs, run as `concurrently` runs them, in index order.
    public static func concurrentMap<Value>(_ jobs: Int, _ body: @escaping (Int) -> Value) -> [Value] {
        let results = ConcurrentResults<Value>(count: jobs)
        concurrently(jobs) { index in
            let value = body(index)
            results.lock.withLock { results.values[index] = value }
        }
        return results.values.map { $0! }
    }
}

/// The results of `concurrentMap`'s jobs, each stored under the lock as its job ends.
final class ConcurrentResults<Value>: @unchecked Sendable {
    let lock = NSLock()
    var values: [Value?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
}

/// Elements per job of `forEachBlock`: large enough that handing a block to a thread costs little.
public let elementwiseBlockSize = 1 << 15

/// Runs `body` over 0..<count cut into blocks of `elementwiseBlockSize`, in parallel when there are
/// two or more. For element-by-element work (copies, pure maps), whose results cannot depend on
/// which thread computes which block.
@inlinable
public func forEachBlock(_ count: Int, _ body: (Range<Int>) -> Void) {
    let blocks = (count + elementwiseBlockSize - 1) / elementwiseBlockSize
    if blocks <= 1 { if count > 0 { body(0..<count) }; return }
    parallelFor(blocks) { block in
        let lower = block * elementwiseBlockSize
        body(lower..<Swift.min(lower + elementwiseBlockSize, count))
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
