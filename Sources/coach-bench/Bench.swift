import ArgumentParser
import CoachTensor
import Foundation

/// `coach-bench`: Coach's benchmarks, run side by side with their peers by `make bench`.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coach-bench",
        abstract: "Benchmarks for Coach's kernels and models (run by `make bench`).")

    @Option(help: "Which groups to run (comma-separated): tensor.")
    var only: String = "tensor"

    @Option(help: "Thread counts to measure (comma-separated).")
    var threads: String = "1,2"

    func run() throws {
        let groups = Set(only.split(separator: ",").map(String.init))
        let threadCounts = threads.split(separator: ",").compactMap { Int($0) }
        if groups.contains("tensor") {
            for t in threadCounts { TensorBenchmarks.run(threads: t) }
        }
    }
}
