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

    /// `ComputeThreads.concurrently`: every job runs once, `concurrentJobs` of them at the same
    /// time on threads of their own (the first ones wait until that many have started, so running
    /// them one after another would time out), with kernels inside running inline; on one thread,
    /// or inside a parallel job, one after another on the caller's thread.
    func testWholeJobsRunSideBySideOnePerThread() {
        let original = ComputeThreads.count
        defer { ComputeThreads.set(original) }
        final class Record: @unchecked Sendable {
            let lock = NSLock()
            var runs: [Int] = []
            var started = 0
            var inline: [Bool] = []
            var threads: Set<UInt> = []
        }
        for threads in [1, 2, 3] {
            ComputeThreads.set(threads)
            let jobs = 5, width = ComputeThreads.concurrentJobs(jobs)
            XCTAssertEqual(width, min(threads, jobs))
            let record = Record()
            let allStarted = DispatchSemaphore(value: 0)
            let caller = UInt(pthread_self())
            ComputeThreads.concurrently(jobs) { job in
                let first = record.lock.withLock { () -> Bool in
                    record.started += 1
                    record.threads.insert(UInt(pthread_self()))
                    if record.started == width { for _ in 0..<width { allStarted.signal() } }
                    return record.started <= width
                }
                if first && width > 1 {
                    XCTAssertEqual(allStarted.wait(timeout: .now() + 30), .success, "\(width) jobs at once")
                }
                var ran = [Int](repeating: 0, count: 4)
                parallelFor(4) { ran[$0] += 1 }   // inline: no other thread touches `ran`
                record.lock.withLock {
                    record.runs.append(job)
                    record.inline.append(ComputeThreads.isInsideParallelJob == (width > 1) && ran == [1, 1, 1, 1])
                }
            }
            XCTAssertEqual(record.runs.sorted(), Array(0..<jobs), "\(threads) threads")
            XCTAssertEqual(record.inline, [Bool](repeating: true, count: jobs), "\(threads) threads")
            XCTAssertEqual(record.threads.count, width, "\(threads) threads")
            if width == 1 { XCTAssertEqual(record.threads, [caller]) } else { XCTAssertFalse(record.threads.contains(caller)) }
        }
        // Inside a parallel job: one after another.
        ComputeThreads.set(2)
        ComputeThreads.forEachWorker(2) { _ in XCTAssertEqual(ComputeThreads.concurrentJobs(4), 1) }
    }
}
