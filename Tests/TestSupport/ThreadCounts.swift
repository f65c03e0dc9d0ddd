import CoachNN

/// Runs `body` once with Coach's kernels on each of `counts` threads, then restores the count.
public func forEachThreadCount(_ counts: [Int] = [1, 2, 3], _ body: (Int) -> Void) {
    let original = ComputeThreads.count
    defer { ComputeThreads.set(original) }
    for threads in counts {
        ComputeThreads.set(threads)
        body(threads)
    }
}
