import CoachData
import CoachModels
import CoachTensor
import Foundation

/// MediaPipe's four pose and hand models run by Coach's engine beside Google's LiteRT on the same
/// inputs in the same run (one thread each), and body poses from a 1080p video end to end.
enum PoseModelBenchmarks {
    static func run(modelFolder: String, peerPython: String, sharedPath: String, threadCounts: [Int], seconds: Double) throws {
        print("== pose models: Coach vs LiteRT (ai-edge-litert, XNNPACK), one thread, same input")
        let folder = URL(fileURLWithPath: modelFolder)
        guard MediaPoses.modelsExist(in: folder) else {
            print("pose models skipped: none in \(modelFolder) (make build imports them)")
            return
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-pose-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/litert_reference.py").path
        var generator = SeededGenerator(seed: 5)
        ComputeThreads.set(1)
        for model in MediaPipeModel.allCases {
            let graph = try GraphNetwork(file: try ModelFile.read(from: folder.appendingPathComponent(model.modelFileName)))
            let x = Tensor.randomUniform(graph.inputs[0].shape, lower: 0, upper: 1, using: &generator)
            let executor = GraphExecutor(graph)
            let coach = Timing.medianSeconds(samples: 5, sampleSeconds: seconds / 5) { _ = executor.run([x]) } * 1000
            let plain = Timing.medianSeconds(samples: 5, sampleSeconds: seconds / 5) { _ = graph.run([x]) } * 1000
            // What the pipeline runs: only the outputs it reads (not the body model's segmentation).
            let used: [Int]? = model == .bodyLandmarks ? BodyPoseEstimator.usedLandmarkOutputs
                : model == .handLandmarks ? HandPoseEstimator.usedLandmarkOutputs : nil
            let pipeline = used.flatMap { used -> Double? in
                guard used.count < graph.outputs.count else { return nil }
                let pruned = GraphExecutor(graph.keepingOutputs(used))
                return Timing.medianSeconds(samples: 5, sampleSeconds: seconds / 5) { _ = pruned.run([x]) } * 1000
            }
            var peer: Double?
            let tflite = URL(fileURLWithPath: ".cache/mediapipe").appendingPathComponent(model.fileName)
            if FileManager.default.fileExists(atPath: tflite.path) {
                let input = scratch.appendingPathComponent("input.f32")
                try x.scalars.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: input)
                peer = runLiteRT(python: peerPython, script: script, model: tflite.path, input: input.path,
                                 prefix: scratch.appendingPathComponent("out").path, repeat: max(20, Int(seconds * 1000 / max(coach, 1))))
            }
            print("\(model.rawValue) (\(graph.inputs[0].shape[1])²): coach \(format(coach, 2)) ms (unplanned \(format(plain, 2)) ms) · LiteRT "
                  + (peer.map { format($0, 2) + " ms" } ?? "unavailable") + " · speed ratio " + (peer.map { format($0 / coach, 2) } ?? "n/a")
                  + (pipeline.map { p in " · pipeline's outputs only \(format(p, 2)) ms" + (peer.map { ", ratio " + format($0 / p, 2) } ?? "") } ?? ""))
        }
        try videoBenchmark(folder: folder, sharedPath: sharedPath, scratch: scratch, threadCounts: threadCounts)
    }

    /// Runs the LiteRT script and returns its median milliseconds per run.
    static func runLiteRT(python: String, script: String, model: String, input: String, prefix: String, repeat count: Int) -> Double? {
        guard let (_, data) = PeerProcess.run(python: python, arguments: [
            script, model, input, prefix, "--threads", "1", "--repeat", "\(count)",
        ], showErrors: false) else { return nil }
        struct Report: Decodable { var milliseconds: Double }
        return (try? JSONDecoder().decode(Report.self, from: data))?.milliseconds
    }

    /// Body poses from a 3 s 1080p H.264 clip (a real photo moving across the frame, made with the
    /// ffmpeg CLI): decode + detect + landmarks, frames per second.
    static func videoBenchmark(folder: URL, sharedPath: String, scratch: URL, threadCounts: [Int]) throws {
        let clip = scratch.appendingPathComponent("1080p.mp4")
        let photo = sharedPath + "/reference/efficientnet-lite0/images/astronaut.png"
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ffmpeg.arguments = ["ffmpeg", "-v", "error", "-y", "-loop", "1", "-i", photo, "-f", "lavfi", "-i", "color=gray:s=1920x1080",
                            "-filter_complex", "[0]scale=1080:1080[p];[1][p]overlay=x='200+t*100':y=0:shortest=1,format=yuv420p",
                            "-t", "3", "-r", "30", "-c:v", "libx264", clip.path]
        ffmpeg.standardError = FileHandle.nullDevice
        guard (try? ffmpeg.run()) != nil else { print("video benchmark skipped: no ffmpeg CLI"); return }
        ffmpeg.waitUntilExit()
        guard ffmpeg.terminationStatus == 0 else { print("video benchmark skipped: ffmpeg could not make the clip"); return }
        for threads in threadCounts {
            ComputeThreads.set(threads)
            var started = Date()
            let decoder = try VideoDecoder(contentsOf: clip)
            var count = 0
            while try decoder.nextFrame() != nil { count += 1 }
            let decodeRate = Double(count) / Date().timeIntervalSince(started)
            started = Date()
            let extractor = try PoseExtractor(joints: .body18, modelFolder: folder)
            let poses = try extractor.extract(from: clip)
            let rate = Double(poses.frames.count) / Date().timeIntervalSince(started)
            print("1080p video, \(threads) thread\(threads == 1 ? "" : "s"): body poses end to end \(format(rate, 1)) frames/s "
                  + "(\(poses.frames.filter { $0.detectedCount > 0 }.count) of \(poses.frames.count) frames with a pose; decoding alone \(format(decodeRate, 0)) frames/s)")
        }
    }
}

extension PoseModelBenchmarks {
    /// Where each model's time goes in the planned executor, by step kind (one thread):
    /// `coach-bench --only pose-profile`.
    static func profile(modelFolder: String) throws {
        ComputeThreads.set(Int(ProcessInfo.processInfo.environment["PROFILE_THREADS"] ?? "1") ?? 1)
        var generator = SeededGenerator(seed: 5)
        for model in MediaPipeModel.allCases {
            let graph = try GraphNetwork(file: try ModelFile.read(from: URL(fileURLWithPath: modelFolder).appendingPathComponent(model.modelFileName)))
            let x = Tensor.randomUniform(graph.inputs[0].shape, lower: 0, upper: 1, using: &generator)
            let executor = GraphExecutor(graph)
            var totals: [String: Double] = [:]
            let runs = 30
            for _ in 0..<runs { _ = executor.run([x]) { kind, seconds in totals[kind, default: 0] += seconds * 1000 / Double(runs) } }
            let sum = totals.values.reduce(0, +)
            print("\(model.rawValue): \(format(sum, 2)) ms")
            let counts = Dictionary(executor.stepKinds.map { ($0, 1) }, uniquingKeysWith: +)
            for (kind, ms) in totals.sorted(by: { $0.value > $1.value }).prefix(40) {
                print("  \(format(ms, 3)) ms  \(kind) ×\(counts[kind] ?? 0)")
            }
        }
    }
}
