import Foundation
import Synchronization

/// Helper threads for `parallelFor`'s short jobs.
///
/// A network's layers on one image are many small jobs (tens of microseconds each); waking
/// a parked thread for every one (as `DispatchQueue.concurrentPerform` does) costs about as
/// much as the job. Here helpers wait for the next job by spinning for a short while (about
/// a layer's length) and only then park on a condition, so back-to-back jobs start at once and
/// an idle pool costs nothing. The caller runs party 0 itself. Every helper acknowledges every
/// job, even when it has no part in it, so no helper can fall behind and see a later job's
/// state. One caller at a time: a second concurrent caller gets `false` and runs its job
/// another way.
final class SpinningWorkerPool: @unchecked Sendable {
    static let shared = SpinningWorkerPool()

    /// How many times a helper re-reads the job counter before parking.
    private static let spinLimit = 200_000

    private final class Job {
        let body: (Int) -> Void
        let parties: Int
        init(body: @escaping (Int) -> Void, parties: Int) {
            self.body = body
            self.parties = parties
        }
    }

    private let busy = Atomic<Bool>(false)
    private let generation = Atomic<Int>(0)
    private let pending = Atomic<Int>(0)
    private let condition = NSCondition()
    /// Written by the caller holding `busy` before `generation` is bumped; read by helpers after.
    nonisolated(unsafe) private var job: Job?
    /// Helper threads started so far (guarded by `busy`).
    private var helperCount = 0

    /// Runs `body(party)` for every party in `0..<parties`, party 0 on the calling thread,
    /// and returns when all are done; returns false without running anything when another
    /// caller is using the pool.
    func run(parties: Int, _ body: (Int) -> Void) -> Bool {
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return false }
        defer { busy.store(false, ordering: .releasing) }
        startHelpers(upTo: parties - 1)
        withoutActuallyEscaping(body) { body in
            job = Job(body: body, parties: parties)
            pending.store(helperCount, ordering: .relaxed)
            generation.add(1, ordering: .releasing)
            condition.lock()
            condition.broadcast()
            condition.unlock()
            body(0)
            var spins = 0
            while pending.load(ordering: .acquiring) > 0 {
                spins += 1
                if spins > Self.spinLimit { sched_yield() }
            }
            job = nil
        }
        return true
    }

    private func startHelpers(upTo count: Int) {
        while helperCount < count {
            helperCount += 1
            let index = helperCount
            let seen = generation.load(ordering: .acquiring)
            let thread = Thread { [self] in helperLoop(index: index, seen: seen) }
            thread.name = "coach-worker-\(index)"
            thread.start()
        }
    }

    private func helperLoop(index: Int, seen start: Int) {
        pthread_setspecific(ComputeThreads.serialKey, UnsafeRawPointer(bitPattern: 1))
        var seen = start
        while true {
            var current = generation.load(ordering: .acquiring)
            var spins = 0
            while current == seen {
                spins += 1
                if spins < Self.spinLimit {
                    current = generation.load(ordering: .acquiring)
                    continue
                }
                condition.lock()
                current = generation.load(ordering: .acquiring)
                while current == seen {
                    condition.wait()
                    current = generation.load(ordering: .acquiring)
                }
                condition.unlock()
            }
            seen = current
            if let job, index < job.parties { job.body(index) }
            pending.subtract(1, ordering: .releasing)
        }
    }
}
