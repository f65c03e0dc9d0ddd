import CMPI
import CoachModels
import CoachTensor
import Foundation

/// The processes of one job and what they exchange (issue 18): ranks, sizes and collectives come
/// from Open MPI when `mpirun` (or `srun`) started the process, and a single process of rank 0 of 1
/// otherwise. Recipes ask it for their share of the work and gather the results; they never test
/// for MPI themselves.
///
/// Every collective here is deterministic: gathered values arrive in rank order, and sums are
/// taken in rank order by the caller, so a job of N ranks gives the same bytes on every run.
public final class Communicator: @unchecked Sendable {
    /// This process's rank, 0 ..< `size`.
    public let rank: Int
    /// How many processes the job has.
    public let size: Int
    /// How many of them run on this machine.
    public let localSize: Int
    /// This machine's name (as MPI reports it).
    public let hostName: String
    /// Whether MPI was started (a launcher ran this process), even as a job of one.
    public let usesMPI: Bool

    /// The one process of a run without a launcher.
    public static let single = Communicator(rank: 0, size: 1, localSize: 1, hostName: Communicator.localHostName(), usesMPI: false)

    private init(rank: Int, size: Int, localSize: Int, hostName: String, usesMPI: Bool) {
        self.rank = rank
        self.size = size
        self.localSize = localSize
        self.hostName = hostName
        self.usesMPI = usesMPI
    }

    /// Rank 0: the process that prints, writes checkpoints and the model.
    public var isRoot: Bool { rank == 0 }

    /// "rank 1 of 2 on host" — how messages name a process.
    public var name: String { "rank \(rank) of \(size) on \(hostName)" }

    /// Whether a launcher started this process: Open MPI's `mpirun` (OMPI_COMM_WORLD_SIZE), PMIx
    /// (`srun --mpi=pmix`, PMIX_RANK) or a PMI launcher (PMI_SIZE).
    public static func launchedByMPI(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        ["OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"].contains { environment[$0] != nil }
    }

    /// This process's rank and the job's size as the launcher's environment tells them, before
    /// (or without) starting MPI; nil outside a launcher. The size is nil when only the rank is set.
    public static func launcherPlacement(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> (rank: Int, size: Int?)? {
        guard launchedByMPI(environment),
              let rank = ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"].lazy.compactMap({ environment[$0].flatMap(Int.init) }).first
        else { return nil }
        let size = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"].lazy.compactMap { environment[$0].flatMap(Int.init) }.first
        return (rank, size)
    }

    nonisolated(unsafe) private static var started: Communicator?

    /// The job's communicator, started on first use: MPI's world when a launcher started the
    /// process, else `single`. A job sharing a machine splits its cores among the local ranks.
    public static func world() throws -> Communicator {
        if let started { return started }
        guard launchedByMPI() else {
            started = single
            return single
        }
        var rank: Int32 = 0, size: Int32 = 1, localSize: Int32 = 1
        let code = coach_mpi_init(&rank, &size, &localSize)
        guard code == MPI_SUCCESS else { throw CommunicatorError.mpi(call: "MPI_Init", message: errorText(code)) }
        var buffer = [CChar](repeating: 0, count: 256)
        coach_mpi_processor_name(&buffer, Int32(buffer.count))
        let host = String(cString: buffer)
        let world = Communicator(rank: Int(rank), size: Int(size), localSize: Int(localSize),
                                 hostName: host.isEmpty ? localHostName() : host, usesMPI: true)
        // mpirun binds each rank to a core (or a socket) by default, which `ComputeThreads` already
        // honours; unbound ranks sharing a machine share its cores. `$COACH_THREADS` overrides both.
        if localSize > 1 && ProcessInfo.processInfo.environment["COACH_THREADS"] == nil {
            let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            let threads = max(1, min(cores / Int(localSize), ComputeThreads.count))
            if threads != ComputeThreads.count { ComputeThreads.set(threads) }
        }
        started = world
        return world
    }

    /// The communicator `world()` started, if any.
    public static var current: Communicator? { started }

    /// This rank's share of `count` items in order: contiguous, disjoint, covering 0 ..< count over
    /// the ranks, and in rank order, so concatenating every rank's results keeps the items' order.
    public func share(of count: Int) -> Range<Int> { Self.share(of: count, rank: rank, size: size) }

    /// Rank `rank`'s share of `count` items among `size` ranks (see `share(of:)`).
    public static func share(of count: Int, rank: Int, size: Int) -> Range<Int> {
        (count * rank / size)..<(count * (rank + 1) / size)
    }

    /// Every rank's bytes, in rank order (each rank passes its own).
    public func allGather(_ bytes: [UInt8]) throws -> [[UInt8]] {
        guard size > 1 else { return [bytes] }
        var counts = [Int64](repeating: 0, count: size)
        try check(coach_mpi_allgather_int64(Int64(bytes.count), &counts), "MPI_Allgather")
        var result: [[UInt8]] = []
        for root in 0..<size {
            var buffer = root == rank ? bytes : [UInt8](repeating: 0, count: Int(counts[root]))
            try check(buffer.withUnsafeMutableBytes { coach_mpi_broadcast_bytes($0.baseAddress, counts[root], Int32(root)) }, "MPI_Bcast")
            result.append(buffer)
        }
        return result
    }

    /// Root's bytes on every rank.
    public func broadcast(_ bytes: [UInt8], from root: Int = 0) throws -> [UInt8] {
        guard size > 1 else { return bytes }
        var counts = [Int64](repeating: 0, count: size)
        try check(coach_mpi_allgather_int64(Int64(bytes.count), &counts), "MPI_Allgather")
        var buffer = rank == root ? bytes : [UInt8](repeating: 0, count: Int(counts[root]))
        try check(buffer.withUnsafeMutableBytes { coach_mpi_broadcast_bytes($0.baseAddress, counts[root], Int32(root)) }, "MPI_Bcast")
        return buffer
    }

    /// Waits until every rank arrives.
    public func barrier() throws {
        guard size > 1 else { return }
        try check(coach_mpi_barrier(), "MPI_Barrier")
    }

    /// Ends every rank of the job with `code`.
    public func abort(exitCode code: Int32) -> Never {
        guard usesMPI else { exit(code) }
        coach_mpi_abort(code)
        exit(code)
    }

    /// Runs `body` for this rank's share of `count` items, then gathers every rank's results in
    /// item order. When a rank fails, every rank throws: the failing rank its own error, the
    /// others `CommunicatorError.rankFailed` naming it (the first failing rank in rank order).
    public func gatherShares<Value: WireCodable>(count: Int, _ body: (Range<Int>) throws -> [Value]) throws -> [Value] {
        guard size > 1 else { return try body(0..<count) }
        let gathered = try gatherOutcomes { try body(share(of: count)) }
        return gathered.flatMap { $0 }
    }

    /// Runs `body` on every rank and gathers the values in rank order; failures as in `gatherShares`.
    public func gatherOutcomes<Value: WireCodable>(_ body: () throws -> Value) throws -> [Value] {
        guard size > 1 else { return [try body()] }
        var writer = WireWriter()
        var ownError: Error?
        do {
            let value = try body()
            writer.write(true)
            value.write(to: &writer)
        } catch {
            ownError = error
            writer = WireWriter()
            writer.write(false)
            writer.write(hostName)
            writer.write((error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
        let all = try allGather(writer.bytes)
        var values: [Value] = []
        for (index, bytes) in all.enumerated() {
            var reader = WireReader(bytes)
            if try Bool(from: &reader) {
                values.append(try Value(from: &reader))
            } else {
                if let ownError, index == rank { throw ownError }
                let host = try String(from: &reader)
                throw CommunicatorError.rankFailed(rank: index, host: host, message: try String(from: &reader))
            }
        }
        return values
    }

    /// Rows computed in shares: `body` returns the rows of its share of `count` rows, flattened;
    /// every rank gets all rows in row order (failures as in `gatherShares`).
    public func gatherRows(count: Int, _ body: (Range<Int>) throws -> [Float]) throws -> [Float] {
        guard size > 1 else { return try body(0..<count) }
        let parts = try gatherOutcomes { FloatVector(try body(share(of: count))) }
        var rows: [Float] = []
        rows.reserveCapacity(parts.reduce(0) { $0 + $1.values.count })
        for part in parts { rows += part.values }
        return rows
    }

    /// Class probabilities of `count` examples computed in shares (`body` gives its share's rows),
    /// every row on every rank in example order.
    public func gatherProbabilities(count: Int, classes: Int, _ body: (Range<Int>) throws -> [[Float]]) throws -> [[Float]] {
        guard size > 1 else { return try body(0..<count) }
        let flat = try gatherRows(count: count) { try body($0).flatMap { $0 } }
        guard flat.count == count * classes else { throw WireError.truncated }
        return (0..<count).map { Array(flat[($0 * classes)..<(($0 + 1) * classes)]) }
    }

    /// The element-wise sum of every rank's `values` (the same length on every rank), added in
    /// rank order, so every rank gets the same bits.
    public func sumInRankOrder(_ values: [Float]) throws -> [Float] {
        guard size > 1 else { return values }
        let parts = try allGather(FloatVector(values).wireBytes).map { bytes -> [Float] in
            var reader = WireReader(bytes)
            let part = try reader.readFloats()
            guard part.count == values.count else { throw WireError.truncated }
            return part
        }
        var sum = parts[0]
        for part in parts.dropFirst() {
            for index in sum.indices { sum[index] += part[index] }
        }
        return sum
    }

    /// Checks that every rank sees the same `items` (file names, say): ranks that shared out a
    /// list they see differently would exchange results for the wrong files. Throws on every rank,
    /// naming the ranks and hosts that differ from rank 0 and how, when they do not.
    public func checkSameEverywhere(_ items: [String], what: String) throws {
        guard size > 1 else { return }
        var writer = WireWriter()
        items.write(to: &writer)
        let digest = (try? FileDigest.sha256(of: writer.bytes)) ?? "\(writer.bytes.count)"
        var summary = WireWriter()
        summary.write(hostName)
        summary.write(items.count)
        summary.write(digest)
        let all = try allGather(summary.bytes).map { bytes -> (host: String, count: Int, digest: String) in
            var reader = WireReader(bytes)
            return (try String(from: &reader), try reader.readInt(), try String(from: &reader))
        }
        let differing = all.indices.filter { all[$0].digest != all[0].digest }
        guard !differing.isEmpty else { return }
        // The names themselves, from one differing rank, say which files are missing where.
        let other = differing[0]
        let theirs = try broadcast(rank == other ? writer.bytes : [], from: other)
        let mine = try broadcast(rank == 0 ? writer.bytes : [], from: 0)
        var readerA = WireReader(mine), readerB = WireReader(theirs)
        let first = Set(try [String](from: &readerA)), second = Set(try [String](from: &readerB))
        let onlyFirst = first.subtracting(second).sorted(), onlySecond = second.subtracting(first).sorted()
        var detail = "rank 0 on \(all[0].host) sees \(all[0].count), rank \(other) on \(all[other].host) sees \(all[other].count)"
        if !onlyFirst.isEmpty { detail += "; not on rank \(other): " + onlyFirst.prefix(5).joined(separator: ", ") + (onlyFirst.count > 5 ? ", …" : "") }
        if !onlySecond.isEmpty { detail += "; not on rank 0: " + onlySecond.prefix(5).joined(separator: ", ") + (onlySecond.count > 5 ? ", …" : "") }
        throw CommunicatorError.ranksDisagree(what: what, ranks: differing, detail: detail)
    }

    private func check(_ code: Int32, _ call: String) throws {
        guard code != MPI_SUCCESS else { return }
        throw CommunicatorError.mpi(call: call, message: "\(name): " + Self.errorText(code))
    }

    private static func errorText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        coach_mpi_error_string(code, &buffer, Int32(buffer.count))
        return String(cString: buffer)
    }

    private static func localHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        return gethostname(&buffer, buffer.count) == 0 ? String(cString: buffer) : "localhost"
    }
}

/// What goes wrong between the processes of a job.
public enum CommunicatorError: Error, LocalizedError, Equatable {
    /// An MPI call failed.
    case mpi(call: String, message: String)
    /// Another rank failed; every rank stops with its message.
    case rankFailed(rank: Int, host: String, message: String)
    /// Ranks see different inputs (a file missing on one host).
    case ranksDisagree(what: String, ranks: [Int], detail: String)

    public var errorDescription: String? {
        switch self {
        case let .mpi(call, message): return "\(call) failed: \(message)"
        case let .rankFailed(rank, host, message): return "rank \(rank) (on \(host)) failed, so the job stops: \(message)"
        case let .ranksDisagree(what, ranks, detail):
            return "the ranks do not see the same \(what) (\(detail)); "
                + (ranks.count == 1 ? "rank \(ranks[0]) differs" : "ranks " + ranks.map(String.init).joined(separator: ", ") + " differ")
                + " from rank 0. Every host needs the same data at the same path (a shared file system, or identical copies)"
        }
    }
}
