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
    /// them one after another would time out), with kernels inside running inline while they run
    /// side by side; on one thread, or inside a parallel job, one after another on the caller's thread.
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
            let allStarted = DispatchSemaphore(value: 0), allLooked = DispatchSemaphore(value: 0)
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
                // While the first `width` jobs all run (none returns before all have looked),
                // kernels run inline.
                if first {
                    var ran = [Int](repeating: 0, count: 4)
                    parallelFor(4) { ran[$0] += 1 }   // inline: no other thread touches `ran`
                    let last = record.lock.withLock { () -> Bool in
                        record.inline.append(ComputeThreads.isInsideParallelJob == (width > 1) && ran == [1, 1, 1, 1])
                        return record.inline.count == width
                    }
                    if last { for _ in 0..<width { allLooked.signal() } }
                    if width > 1 { XCTAssertEqual(allLooked.wait(timeout: .now() + 30), .success, "\(width) jobs looked") }
                }
                record.lock.withLock { record.runs.append(job) }
            }
            XCTAssertEqual(record.runs.sorted(), Array(0..<jobs), "\(threads) threads")
            XCTAssertEqual(record.inline, [Bool](repeating: true, count: width), "\(threads) threads")
            XCTAssertEqual(record.threads.count, width, "\(threads) threads")
            if width == 1 { XCTAssertEqual(record.threads, [caller]) } else { XCTAssertFalse(record.threads.contains(caller)) }
        }
        // Inside a parallel job: one after another.
        ComputeThreads.set(2)
        ComputeThreads.forEachWorker(2) { _ in XCTAssertEqual(ComputeThreads.concurrentJobs(4), 1) }
    }

    /// `concurrentMap` returns every job's value in index order, from jobs that ran on threads
    /// of their own side by side, on any number of threads.
    func testConcurrentMapKeepsIndexOrder() {
        let original = ComputeThreads.count
        defer { ComputeThreads.set(original) }
        for threads in [1, 2, 3] {
            ComputeThreads.set(threads)
            let caller = UInt(pthread_self())
            let values = ComputeThreads.concurrentMap(7) { job -> (Int, Bool) in
                usleep(UInt32((7 - job) * 2000))   // later jobs finish first
                return (job * job, UInt(pthread_self()) != caller)
            }
            XCTAssertEqual(values.map(\.0), [0, 1, 4, 9, 16, 25, 36], "\(threads) threads")
            XCTAssertEqual(values.map(\.1), [Bool](repeating: threads > 1, count: 7), "\(threads) threads")
        }
    }

    /// The last of `concurrently`'s jobs left running splits its kernels over the cores again:
    /// job 1 runs inline while job 0 runs beside it, and no longer once job 0's thread has no job
    /// left (a whole model's last minutes then use both cores, as an ensemble's slower member does).
    func testTheLastJobLeftUsesTheCoresTheOthersFreed() {
        let original = ComputeThreads.count
        defer { ComputeThreads.set(original) }
        ComputeThreads.set(2)
        final class Record: @unchecked Sendable {
            let lock = NSLock()
            var besideAnother: Bool?
            var alone: Bool?
            var sideBySideWhenAlone = 0
            var sums: [Int] = []
        }
        let record = Record()
        let secondSawTheFirst = DispatchSemaphore(value: 0)
        ComputeThreads.concurrently(2) { job in
            if job == 0 {
                // Stays until job 1 has looked while it runs.
                XCTAssertEqual(secondSawTheFirst.wait(timeout: .now() + 30), .success)
                return
            }
            record.lock.withLock { record.besideAnother = ComputeThreads.isInsideParallelJob }
            secondSawTheFirst.signal()
            let deadline = Date().addingTimeInterval(30)
            while ComputeThreads.isInsideParallelJob && Date() < deadline { usleep(1000) }
            var sums = [Int](repeating: 0, count: 64)
            sums.withUnsafeMutableBufferPointer { buffer in
                let base = buffer.baseAddress!
                parallelFor(64) { i in base[i] = (0...i).reduce(0, +) }
            }
            record.lock.withLock {
                record.alone = !ComputeThreads.isInsideParallelJob
                record.sideBySideWhenAlone = ComputeThreads.concurrentJobs(2)
                record.sums = sums
            }
        }
        XCTAssertEqual(record.besideAnother, true, "inline while another job runs")
        XCTAssertEqual(record.alone, true, "not inline once alone")
        XCTAssertEqual(record.sideBySideWhenAlone, 2)
        XCTAssertEqual(record.sums, (0..<64).map { $0 * ($0 + 1) / 2 })
        XCTAssertFalse(ComputeThreads.isInsideParallelJob)
    }
}
