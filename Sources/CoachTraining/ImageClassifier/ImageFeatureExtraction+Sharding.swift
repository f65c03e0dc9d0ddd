import CoachData
import CoachModels
import Foundation

extension ImageFeatureExtraction {
    /// `run(sources:views:phase:observer:)` over the job's ranks: each rank extracts the views of its
    /// share of the sources (contiguous, in file order), and every rank receives all of them, in the
    /// order a single process makes them, bit for bit (the backbone's features do not depend on the
    /// batch or the thread count). Rank 0's progress is reported scaled to the whole job's views.
    func run(sources: [ImageSource], views: (Int) -> [ImageView], phase: String,
             observer: TrainingObserver?, communicator: Communicator) throws -> ExtractedFeatures {
        guard communicator.size > 1 else { return run(sources: sources, views: views, phase: phase, observer: observer) }
        let share = communicator.share(of: sources.count)
        // Every rank knows how many views each share asks for (cached or not), so rank 0's progress
        // scales to the job's by that ratio.
        func viewCount(_ range: Range<Int>) -> Int { range.reduce(0) { $0 + views($1).count } }
        let scale = Double(viewCount(0..<sources.count)) / Double(max(1, viewCount(share)))
        let parts = try communicator.gatherOutcomes { () -> ExtractedFeatures in
            var local = run(sources: Array(sources[share]), views: { views($0 + share.lowerBound) }, phase: phase,
                            observer: observer.map { Self.scaledProgress($0, by: scale) })
            local.rowImages = local.rowImages.map { $0 + share.lowerBound }
            local.failures = local.failures.map { ($0.imageIndex + share.lowerBound, $0.message) }
            return local
        }
        var merged = ExtractedFeatures()
        merged.width = extractor.layers.width
        merged.features.reserveCapacity(parts.reduce(0) { $0 + $1.features.count })
        for part in parts {
            merged.features += part.features
            merged.rowImages += part.rowImages
            merged.rowViews += part.rowViews
            merged.failures += part.failures
            merged.cacheHits += part.cacheHits
            merged.computed += part.computed
            merged.cacheWriteFailure = merged.cacheWriteFailure ?? part.cacheWriteFailure
        }
        return merged
    }

    /// An observer that reports one rank's progress as the whole job's (its counts times `scale`).
    static func scaledProgress(_ observer: @escaping TrainingObserver, by scale: Double) -> TrainingObserver {
        { event in
            guard case let .progress(phase, completed, total, rate, remaining) = event else { return observer(event) }
            observer(.progress(phase: phase, completed: Int((Double(completed) * scale).rounded()),
                               total: Int((Double(total) * scale).rounded()), itemsPerSecond: rate * scale,
                               secondsRemaining: remaining))
        }
    }
}

extension ExtractedFeatures: WireCodable {
    func write(to writer: inout WireWriter) {
        writer.write(width)
        writer.write(features)
        rowImages.write(to: &writer)
        rowViews.map { $0.augmentationIndex ?? -1 }.write(to: &writer)
        failures.map(\.imageIndex).write(to: &writer)
        failures.map(\.message).write(to: &writer)
        writer.write(cacheHits)
        writer.write(computed)
        cacheWriteFailure.write(to: &writer)
    }

    init(from reader: inout WireReader) throws {
        self.init()
        width = try reader.readInt()
        features = try reader.readFloats()
        rowImages = try [Int](from: &reader)
        rowViews = try [Int](from: &reader).map { ImageView(augmentationIndex: $0 < 0 ? nil : $0) }
        let failedImages = try [Int](from: &reader), messages = try [String](from: &reader)
        guard rowViews.count == rowImages.count, failedImages.count == messages.count,
              width > 0, features.count == rowImages.count * width else { throw WireError.truncated }
        failures = Array(zip(failedImages, messages))
        cacheHits = try reader.readInt()
        computed = try reader.readInt()
        cacheWriteFailure = try String?(from: &reader)
    }
}

/// A file's SHA-256, or why it could not be read.
struct FileHashOutcome: WireCodable {
    var sha256: String?
    var problem: String?

    func write(to writer: inout WireWriter) {
        sha256.write(to: &writer)
        problem.write(to: &writer)
    }

    init(sha256: String?, problem: String?) {
        self.sha256 = sha256
        self.problem = problem
    }

    init(from reader: inout WireReader) throws {
        sha256 = try String?(from: &reader)
        problem = try String?(from: &reader)
    }
}

extension FileHashOutcome {
    /// The SHA-256 of every file (or why it cannot be read), in file order; the ranks hash their
    /// shares, after checking that they all see the same files.
    static func hashes(of files: [LabeledImageFile], communicator: Communicator) throws -> [FileHashOutcome] {
        try communicator.checkSameEverywhere(files.map { "\($0.label)/\($0.url.lastPathComponent)" }, what: "image files")
        return try communicator.gatherShares(count: files.count) { share in
            share.map { index -> FileHashOutcome in
                do { return FileHashOutcome(sha256: try FileDigest.sha256(ofFileAt: files[index].url), problem: nil) } catch {
                    return FileHashOutcome(sha256: nil, problem: (error as? LocalizedError)?.errorDescription ?? "\(error)")
                }
            }
        }
    }
}
