import CoachData
import CoachTraining
import Foundation

/// The poses of the videos and photos a pose dataset names, extracted once over the ranks of an MPI
/// job (`mpirun -np N coach train action-classifier --data videos/`): pose extraction is almost all
/// of such a run's time, and without this every rank would extract every video.
///
/// The dataset is first read with a reader that only lists the media it asks for; each rank then
/// extracts its share of that list (contiguous, in path order, through the media reader and so its
/// on-disk cache), every rank receives every clip bit for bit, and the dataset is read again from
/// them. A medium that cannot be read fails with the message one process gives, at the same place.
enum SharedMediaPoses {
    /// `load(options)`, with the media it reads extracted once over `job`'s ranks. One process, or
    /// a dataset read without media, loads as it is.
    static func load<Value>(_ options: PoseReadingOptions, job: Communicator,
                            _ load: (PoseReadingOptions) throws -> Value) throws -> Value {
        guard job.size > 1, let media = options.media else { return try load(options) }
        let listed = MediaList()
        var listing = options
        listing.media = MediaPoseReader(identifier: media.identifier) { url in
            listed.add(url)
            throw MediaProblem(message: "listed")
        }
        let listingRun = Result { try load(listing) }
        let urls = listed.urls
        // A dataset of pose files alone never called the reader: that first reading is the dataset.
        guard !urls.isEmpty else { return try listingRun.get() }
        try job.checkSameEverywhere(urls.map(\.path), what: "videos and photos")
        let started = Date()
        let outcomes = try job.gatherShares(count: urls.count) { share in
            share.map { index -> Outcome in
                do { return Outcome(clip: try media.read(urls[index]), problem: nil) } catch {
                    return Outcome(clip: nil, problem: (error as? LocalizedError)?.errorDescription ?? "\(error)")
                }
            }
        }
        Console.note("poses of \(urls.count) video\(urls.count == 1 ? "" : "s") or photo\(urls.count == 1 ? "" : "s") extracted over \(job.size) ranks in "
                     + String(format: "%.1f s", Date().timeIntervalSince(started)))
        let byPath = Dictionary(zip(urls.map(\.path), outcomes), uniquingKeysWith: { first, _ in first })
        var shared = options
        shared.media = MediaPoseReader(identifier: media.identifier) { url in
            guard let outcome = byPath[url.path] else { return try media.read(url) }
            guard var clip = outcome.clip else { throw MediaProblem(message: outcome.problem ?? "could not be read") }
            clip.source = PoseSource(file: url)
            return clip
        }
        return try load(shared)
    }

    /// The media a dataset asked for, each once, in path order.
    private final class MediaList: @unchecked Sendable {
        private let lock = NSLock()
        private var byPath: [String: URL] = [:]

        func add(_ url: URL) {
            lock.lock()
            defer { lock.unlock() }
            byPath[url.path] = url
        }

        var urls: [URL] {
            lock.lock()
            defer { lock.unlock() }
            return byPath.keys.sorted().map { byPath[$0]! }
        }
    }

    /// Why a medium could not be read, as the rank that read it said.
    struct MediaProblem: LocalizedError {
        var message: String
        var errorDescription: String? { message }
    }

    /// One medium's clip, or why it could not be read.
    struct Outcome: WireCodable {
        var clip: PoseSequence?
        var problem: String?

        init(clip: PoseSequence?, problem: String?) {
            self.clip = clip
            self.problem = problem
        }

        func write(to writer: inout WireWriter) {
            problem.write(to: &writer)
            writer.write(clip != nil)
            guard let clip else { return }
            clip.jointSet.names.write(to: &writer)
            writer.write(clip.hasDepth)
            (clip.chirality?.rawValue).write(to: &writer)
            clip.nominalFrameRate.write(to: &writer)
            writer.write(clip.frames.count)
            for frame in clip.frames {
                writer.write(frame.time)
                // Per joint: 0 not detected, 1 detected, 2 detected with a depth; then x, y, z (0 when
                // absent) and confidence of the detected ones, as their bits.
                frame.keypoints.map { $0 == nil ? 0 : $0!.z == nil ? 1 : 2 }.write(to: &writer)
                writer.write(frame.keypoints.compactMap { $0 }.flatMap { [$0.x, $0.y, $0.z ?? 0, $0.confidence] })
            }
        }

        init(from reader: inout WireReader) throws {
            problem = try String?(from: &reader)
            guard try Bool(from: &reader) else { clip = nil; return }
            guard let joints = JointSet(names: try [String](from: &reader)) else { throw WireError.truncated }
            let hasDepth = try Bool(from: &reader)
            let chiralityName = try String?(from: &reader)
            let chirality = try chiralityName.map { try Chirality(rawValue: $0) ?? { throw WireError.truncated }() }
            let frameRate = try Double?(from: &reader)
            let frameCount = try reader.readInt()
            guard frameCount >= 0 else { throw WireError.truncated }
            var frames: [PoseFrame] = []
            for _ in 0..<frameCount {
                let time = try reader.readDouble()
                let states = try [Int](from: &reader)
                let values = try reader.readFloats()
                guard states.count == joints.count, states.allSatisfy({ (0...2).contains($0) }),
                      values.count == 4 * states.filter({ $0 != 0 }).count else { throw WireError.truncated }
                var next = 0
                let keypoints = states.map { state -> Keypoint? in
                    guard state != 0 else { return nil }
                    defer { next += 4 }
                    return Keypoint(x: values[next], y: values[next + 1], z: state == 2 ? values[next + 2] : nil, confidence: values[next + 3])
                }
                frames.append(PoseFrame(time: time, keypoints: keypoints))
            }
            clip = PoseSequence(jointSet: joints, frames: frames, source: PoseSource(file: URL(fileURLWithPath: "/")),
                                chirality: chirality, hasDepth: hasDepth, nominalFrameRate: frameRate)
        }
    }
}
