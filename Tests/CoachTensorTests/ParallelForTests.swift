import CoachTensor
import Foundation
import XCTest

/// `parallelFor`: every index runs exactly once, for back-to-back jobs, for concurrent callers
/// and for jobs started inside jobs — and it never hangs.
final class ParallelForTests: XCTestCase {
    /// Counts how often each index ran (atomically enough: each index has its own slot and
    /// runs on one thread).
    private func runCounting(_ iterations: Int) -> [Int] {
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: iterations)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        parallelFor(iterations) { i in counts[i] += 1 }
        return Array(counts)
    }

    func testEveryIndexRunsOnceInBackToBackJobs() {
        for iterations in [0, 1, 2, 3, 7, 64, 1000] {
            for _ in 0..<500 {
                XCTAssertEqual(runCounting(iterations), [Int](repeating: 1, count: iterations), "\(iterations) iterations")
            }
        }
    }

    /// The pool grows when more threads are asked for, and jobs with fewer threads than it has
    /// (or one) still run every index once.
    func testThreadCountsChangingBetweenJobs() {
        let original = ComputeThreads.count
        defer { ComputeThreads.set(original) }
        for threads in [1, 2, 5, 3, 1, 8, 2] {
            ComputeThreads.set(threads)
            for iterations in [2, 9, 300] {
                for _ in 0..<50 {
                    XCTAssertEqual(runCounting(iterations), [Int](repeating: 1, count: iterations), "\(threads) threads")
                }
            }
        }
    }

    func testConcurrentCallersAndNestedJobsAllComplete() {
        let callers = 6
        let results = UnsafeMutableBufferPointer<Int>.allocate(capacity: callers)
        results.initialize(repeating: 0)
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: callers) { caller in
            var total = 0
            for _ in 0..<200 {
                let sums = UnsafeMutableBufferPointer<Int>.allocate(capacity: 8)
                sums.initialize(repeating: 0)
                parallelFor(8) { i in
                    // A nested job.
                    let inner = UnsafeMutableBufferPointer<Int>.allocate(capacity: 4)
                    inner.initialize(repeating: 0)
                    parallelFor(4) { j in inner[j] = j + 1 }
                    sums[i] = inner.reduce(0, +)
                    inner.deallocate()
                }
                total += sums.reduce(0, +)
                sums.deallocate()
            }
            results[caller] = total
        }
        XCTAssertEqual(Array(results), [Int](repeating: 200 * 8 * 10, count: callers))
    }
}
