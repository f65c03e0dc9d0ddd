import Foundation

/// Relays the events of ensemble members training side by side to one observer, one event at a
/// time: each member's notes and warnings named by it ("member 2: …"), its iterations marked with
/// it, and the members' window progress summed into one phase (a member yet to report counted as
/// many windows as the others). `shouldContinue` is asked one member at a time too, and stops the
/// others when one fails.
final class EnsembleEvents: @unchecked Sendable {
    private let lock = NSLock()
    private let target: TrainingObserver?
    private let continuation: ((Int) -> Bool)?
    private let members: Int
    /// Each member's latest window progress.
    private var progress: [(completed: Int, total: Int)?]
    private let start = ProgressMeter.now()
    private var lastEmit = -Double.infinity

    /// The phase the members' summed window progress is reported under.
    var phase: String { "training windows, \(members) members side by side" }

    init(observer: TrainingObserver?, shouldContinue: ((Int) -> Bool)?, members: Int) {
        target = observer
        continuation = shouldContinue
        self.members = members
        progress = Array(repeating: nil, count: members)
    }

    /// Set once a member failed: the others stop after their current iteration (checkpointed).
    private var failed = false

    /// The run's `shouldContinue`, asked by one member at a time; false for every member once one
    /// of them failed.
    var shouldContinue: (Int) -> Bool {
        { [self] iteration in lock.withLock { !failed && (continuation?(iteration) ?? true) } }
    }

    /// Stops the other members: one failed, so the run ends with its error.
    func memberFailed() { lock.withLock { failed = true } }

    /// The observer member `index` (from 0) reports to.
    func observer(member index: Int) -> TrainingObserver? {
        guard target != nil else { return nil }
        return { [self] event in lock.withLock { relay(event, member: index) } }
    }

    private func relay(_ event: TrainingEvent, member index: Int) {
        guard let target else { return }
        switch event {
        case let .progress(_, completed, total, _, _):
            progress[index] = (completed, total)
            let reported = progress.compactMap { $0 }
            let done = reported.reduce(0) { $0 + $1.completed }
            // Members that have not reported yet will pass over as many windows as those that
            // have: without them the total would jump when they start, and the ETA with it.
            let total = reported.reduce(0) { $0 + $1.total } * members / reported.count
            let finished = reported.count == members && done == total
            let now = ProgressMeter.now()
            if !finished && now - lastEmit < 0.5 { return }
            lastEmit = now
            let rate = Double(done) / Swift.max(now - start, 1e-9)
            target(.progress(phase: phase, completed: done, total: total, itemsPerSecond: rate,
                             secondsRemaining: rate > 0 ? Double(total - done) / rate : nil))
        case var .iteration(summary):
            summary.member = index + 1
            target(.iteration(summary))
        case let .note(text):
            target(.note("member \(index + 1): \(text)"))
        case let .warning(text):
            target(.warning("member \(index + 1): \(text)"))
        }
    }
}
