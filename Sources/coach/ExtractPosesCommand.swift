import ArgumentParser
import CoachData
import CoachModels
import CoachTraining
import Foundation

/// `coach extract-poses`: Vision-compatible body or hand poses from photos, photo folders and videos.
struct ExtractPosesCommand: ParsableCommand, JobCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract-poses",
        abstract: "Extract body (body18) or hand (hand21) poses from photos, photo folders and videos.",
        discussion: """
        Runs MediaPipe's pose or hand models (imported by `coach import-pose-models`; `make build` \
        does it) with Coach's own engine, the way MediaPipe's graphs run them: a detector finds \
        the person or the palms, a landmark model reads a rotated crop, and in videos and photo \
        folders each frame's crop follows the previous frame's landmarks, smoothed over time.

        Each INPUT becomes one pose clip in FORMATS §3 (a `time` column and x, y, confidence per \
        joint, normalised to the image, origin top-left; a frame without a person has empty \
        cells). A photo gives a one-frame clip; a folder of photos is an image sequence in name \
        order at --frame-rate; a video keeps its own frame times and its rotation metadata.

        Joints are Vision's: body18 takes the neck as the shoulders' midpoint and each joint's \
        confidence from MediaPipe's visibility; hand21 follows Vision's hand-joint order, every \
        joint carrying the hand's presence score, and records the hand's chirality. MediaPipe \
        assumes mirrored (selfie) images; Coach assumes ordinary camera images unless --mirrored.

        Examples:
          coach extract-poses throw.mp4 --joints body18 --output throw.csv \\
                --draw throw.png
          coach extract-poses photos/*.jpg --joints hand21 --output poses/
          coach extract-poses frames/ --frame-rate 60 --output clip.json

        Under mpirun (Open MPI) each rank extracts its share of the inputs and writes their \
        clips; rank 0 reports them all in input order:
          mpirun -np 8 coach extract-poses videos/*.mp4 --output poses/
        """)

    @Argument(help: "Photos (.jpg, .png), folders of photos, or videos (.mp4, .mov, .mkv, .avi, …).")
    var inputs: [String]

    @Option(help: "body18 or hand21.")
    var joints: String = "body18"

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write: a .csv or .json file for one input, or a folder (one clip per input, named after it). Without it, one input's clip is printed as CSV.", valueName: "path"))
    var output: String?

    @Option(help: "With a folder --output: csv or json.")
    var format: String = "csv"

    @Option(help: ArgumentHelp("Draw the poses to check by eye: a photo with its skeleton, for a video or photo folder a sheet of 12 frames (PNG or JPEG), or every frame with its skeleton as a video (.mp4, .mov, .mkv). One input only.", valueName: "picture"))
    var draw: String?

    @Option(parsing: .unconditional, help: "Frames per second of a photo folder (image sequence).")
    var frameRate: Double = 30

    @Flag(help: "The media are mirrored (front-camera selfies): swaps hand chirality.")
    var mirrored = false

    @Option(help: "The folder with the imported pose models.")
    var models: String = "models/pose"

    @Flag(help: "Replace clip files that already exist at the output (refused otherwise).")
    var overwrite = false

    func validate() throws {
        guard ExtractedJoints(rawValue: joints) != nil else { throw ValidationError("--joints must be body18 or hand21 (got '\(joints)')") }
        guard ["csv", "json"].contains(format) else { throw ValidationError("--format must be csv or json (got '\(format)')") }
        if let problem = PoseLimits.frameRateProblem(frameRate) { throw ValidationError("--frame-rate \(problem)") }
        if inputs.count > 1 {
            guard let output, !output.hasSuffix(".csv"), !output.hasSuffix(".json") else {
                throw ValidationError("several inputs need a folder --output (one clip per input)")
            }
        }
        if draw != nil && inputs.count != 1 { throw ValidationError("--draw writes one picture: give exactly one input with it") }
        if let draw {
            let kind = URL(fileURLWithPath: draw).pathExtension.lowercased()
            guard PictureFormat(path: draw) != nil || Self.videoExtensions.contains(kind) else {
                throw ValidationError("--draw must name a .png or .jpg picture or a .mp4, .mov or .mkv video (got '\(draw)')")
            }
            if Self.videoExtensions.contains(kind), inputs.count == 1, MediaKind.of(URL(fileURLWithPath: inputs[0])) == .photo {
                throw ValidationError("--draw \(draw): a photo gives one picture, not a video; name a .png or .jpg")
            }
        }
        let missing = inputs.filter { !FileManager.default.fileExists(atPath: $0) }
        if !missing.isEmpty { throw ValidationError("no such file or folder: " + missing.joined(separator: ", ")) }
        // Refused before any work: an output that would replace an input, a folder or (without --overwrite) a file.
        if let draw { try OutputGuard.checkFileOutput(draw, option: "--draw", inputs: inputs, overwrite: overwrite) }
        // An output with another extension would become a folder named like a file (a.txt/x.csv).
        if let output, !output.hasSuffix(".csv"), !output.hasSuffix(".json"), !URL(fileURLWithPath: output).pathExtension.isEmpty {
            var isFolder: ObjCBool = false
            if !(FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue) {
                throw ValidationError("--output \(output): name a .csv or .json file for one clip, or a folder (a name without an extension, or an existing folder) for one clip per input")
            }
        }
        // Two inputs with one stem (y.png and y.jpg, a/x.mp4 and b/x.mp4) would write one clip.
        let destinations = inputs.compactMap { input in destination(for: URL(fileURLWithPath: input)).map { ($0.path, input) } }
        let shared = Dictionary(grouping: destinations, by: \.0).filter { $0.value.count > 1 }
        if inputs.count > 1, !shared.isEmpty {
            let lines = shared.keys.sorted().map { "  \($0) <- \(shared[$0]!.map(\.1).joined(separator: ", "))" }
            throw ValidationError("several inputs would write the same clip (rename them or run them apart):\n" + lines.joined(separator: "\n"))
        }
        if let draw, OutputGuard.resolved(draw) == destinations.first.map({ OutputGuard.resolved($0.0) }) {
            throw ValidationError("--draw \(draw) and --output name the same file: choose two paths")
        }
        for input in inputs {
            if let url = destination(for: URL(fileURLWithPath: input)) {
                try OutputGuard.checkFileOutput(url.path, option: "--output", inputs: inputs, overwrite: overwrite)
            }
        }
    }

    /// The --draw extensions that mean a video of every frame.
    static let videoExtensions: Set<String> = ["mp4", "mov", "mkv", "m4v"]

    func destination(for input: URL) -> URL? {
        guard let output else { return nil }
        if output.hasSuffix(".csv") || output.hasSuffix(".json") { return URL(fileURLWithPath: output) }
        let stem = input.hasDirectoryPath || MediaKind.of(input) == .imageSequence ? input.lastPathComponent : input.deletingPathExtension().lastPathComponent
        return URL(fileURLWithPath: output).appendingPathComponent(stem + "." + format)
    }

    func run() throws {
        let kind = ExtractedJoints(rawValue: joints)!
        let extractor: PoseExtractor
        do {
            extractor = try PoseExtractor(joints: kind, modelFolder: URL(fileURLWithPath: models), mirrored: mirrored)
        } catch {
            throw ValidationError("\(error.localizedDescription)\nThe pose models come from `make build` (or `coach import-pose-models`); point --models at their folder.")
        }
        if let output, !(output.hasSuffix(".csv") || output.hasSuffix(".json")) {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        }
        let summary = { (failures: [String]) in
            "\(failures.count) of \(inputs.count) input\(inputs.count == 1 ? "" : "s") failed: " + failures.joined(separator: ", ")
        }
        let job = try Job.start()
        if job.size > 1 {
            // Over an MPI job: each rank extracts its share of the inputs (each writes its clips);
            // rank 0 prints every rank's notes and results in input order.
            return try ShardedOutput.run(job: job, count: inputs.count, json: false, failureSummary: summary) { share in
                extract(Array(inputs[share]), with: extractor, kind: kind)
            }
        }
        let failures = extract(inputs, with: extractor, kind: kind)
        if !failures.isEmpty {
            // Each failure was reported as it happened; this sums up (an input error, not a usage error).
            Console.error(summary(failures))
            throw ExitCode.failure
        }
    }

    /// Extracts the poses of `paths`, writing or printing each clip; returns the inputs that failed
    /// (each reported as it fails).
    func extract(_ paths: [String], with extractor: PoseExtractor, kind: ExtractedJoints) -> [String] {
        var failures: [String] = []
        for path in paths {
            let input = URL(fileURLWithPath: path)
            let started = Date()
            let drawsVideo = draw.map { Self.videoExtensions.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) } ?? false
            var sampler = FrameSampler(keep: draw != nil && !drawsVideo && MediaKind.of(input) != .photo ? 12 : 0)
            var drawn: RGBImage?
            var encoder: VideoEncoder?
            var drawError: Error?
            do {
                // How many frames to expect, for the ETA (a video's estimate, a folder's photo count).
                var expected: Int?
                switch MediaKind.of(input) {
                case .video: expected = try? VideoDecoder(contentsOf: input).estimatedFrameCount
                case .imageSequence: expected = (try? PoseExtractor.photos(in: input))?.count
                default: expected = 1
                }
                var observed = 0
                let clip = try extractor.extract(from: input, frameRate: frameRate, observe: { image, time, keypoints in
                    observed += 1
                    if let draw, drawsVideo, drawError == nil {
                        do {
                            if encoder == nil {
                                let rate = MediaKind.of(input) == .video ? ((try? VideoDecoder(contentsOf: input))?.frameRate ?? frameRate) : frameRate
                                encoder = try VideoEncoder(writingTo: URL(fileURLWithPath: draw), width: image.width, height: image.height,
                                                           frameRate: rate > 0 && rate <= 1000 ? rate : frameRate)
                            }
                            var picture = image
                            picture.drawPose(keypoints, jointSet: kind.jointSet)
                            if picture.width == encoder!.width, picture.height == encoder!.height { try encoder!.append(picture) }
                        } catch { drawError = error }
                    } else if draw != nil {
                        if MediaKind.of(input) == .photo {
                            drawn = image
                            drawn!.drawPose(keypoints, jointSet: kind.jointSet)
                        } else {
                            sampler.offer(image: image, time: time, keypoints: keypoints, jointSet: kind.jointSet)
                        }
                    }
                    let seconds = Date().timeIntervalSince(started), rate = Double(observed) / max(seconds, 1e-9)
                    let eta = expected.map { max(0, Double($0 - observed) / max(rate, 1e-9)) }
                    Console.progress("\(input.lastPathComponent): \(observed)\(expected.map { "/\($0)" } ?? "") frames · "
                                     + String(format: "%.1f frames/s", rate) + (eta.map { " · ETA \(Console.duration($0))" } ?? ""),
                                     phase: "extract \(path)")
                }, warn: { damage in
                    Console.clearProgress()
                    Console.warning(damage)
                })
                Console.clearProgress()
                let found = clip.frames.filter { $0.detectedCount > 0 }.count
                let seconds = Date().timeIntervalSince(started)
                Console.note("\(path): \(clip.frames.count) frame\(clip.frames.count == 1 ? "" : "s"), poses in \(found), "
                             + "\(String(format: "%.1f", Double(clip.frames.count) / max(seconds, 1e-9))) frames/s"
                             + (clip.chirality.map { ", \($0.rawValue) hand" } ?? ""))
                let text = (destination(for: input)?.pathExtension == "json") ? clip.jsonText() : clip.csvText()
                if let url = destination(for: input) {
                    try Data(text.utf8).write(to: url, options: .atomic)
                    Console.note("  wrote \(url.path)")
                } else {
                    Console.print(String(text.dropLast()))
                }
                if let drawError { throw drawError }
                if let encoder {
                    try encoder.finish()
                    Console.note("  drew \(encoder.frameCount) frames into \(encoder.url.path)")
                } else if let draw {
                    let picture = try drawn ?? sampler.sheet()
                    let url = URL(fileURLWithPath: draw)
                    try picture?.write(to: url)
                    if picture != nil { Console.note("  drew \(draw)") }
                }
            } catch {
                Console.clearProgress()
                let message = (error as? ValidationError)?.message ?? error.localizedDescription
                Console.error(message.hasPrefix(path) ? message : "\(path): \(message)")
                failures.append(path)
            }
        }
        return failures
    }
}

/// Keeps about `keep` evenly spaced frames of a clip of unknown length (halving as it grows),
/// with their poses drawn, for a contact sheet.
struct FrameSampler {
    let keep: Int
    var stride = 1
    var seen = 0
    var frames: [(image: RGBImage, label: String)] = []

    init(keep: Int) { self.keep = keep }

    mutating func offer(image: RGBImage, time: Double, keypoints: [Keypoint?], jointSet: JointSet) {
        defer { seen += 1 }
        guard keep > 0, seen % stride == 0 else { return }
        let width = min(320, image.width), height = max(1, image.height * width / max(image.width, 1))
        guard var thumbnail = try? image.resized(width: width, height: height).rgbImage() else { return }
        thumbnail.drawPose(keypoints, jointSet: jointSet)
        frames.append((thumbnail, String(format: "%.2fs", time)))
        if frames.count >= 2 * keep {
            frames = frames.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            stride *= 2
        }
    }

    func sheet() throws -> RGBImage? {
        guard !frames.isEmpty else { return nil }
        let count = min(keep, frames.count)
        let chosen = (0..<count).map { frames[count == 1 ? 0 : $0 * (frames.count - 1) / (count - 1)] }
        return try ContactSheet.make(chosen, columns: 4)
    }
}
