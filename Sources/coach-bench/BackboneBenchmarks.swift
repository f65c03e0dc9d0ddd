import CoachData
import CoachModels
import Foundation

/// Backbone feature extraction against onnxruntime running the same network
/// (shared/bench/ort_backbone.py), measured in the same run, plus image decoding.
enum BackboneBenchmarks {
    /// Returns the summary lines: "backbone-vs-onnxruntime batch1 threads2: R", then the batch-16
    /// one-thread one (when those were measured).
    static func run(backbonePath: String, pthPath: String, peerPython: String, sharedPath: String,
                    threadCounts: [Int], batches: [Int], seconds: Double) throws -> [String] {
        let backbone = try Backbone.load(from: URL(fileURLWithPath: backbonePath))
        print("== backbone: EfficientNet-Lite0 features at 224×224 (Coach vs onnxruntime, same weights)")
        var g = SeededGenerator(seed: 3)
        var summary: [String: String] = [:]
        for threads in threadCounts {
            ComputeThreads.set(threads)
            for batch in batches {
                let x = Tensor.randomUniform([batch, 224, 224, 3], lower: -1, upper: 1, using: &g)
                let perCall = Timing.medianSeconds(samples: 5, sampleSeconds: seconds / 5) {
                    _ = backbone.network.features(x)
                }
                let coach = Double(batch) / perCall
                let peer = runPeer(python: peerPython, script: sharedPath + "/bench/ort_backbone.py", pth: pthPath,
                                   threads: threads, batch: batch, seconds: seconds)
                let ratio = peer.map { coach / $0 }
                print("batch \(batch) threads \(threads): coach \(format(coach, 1)) images/s · onnxruntime "
                      + (peer.map { format($0, 1) + " images/s" } ?? "unavailable")
                      + " · ratio " + (ratio.map { format($0, 2) } ?? "n/a"))
                if (batch, threads) == (16, 1) || (batch, threads) == (1, 2) {
                    summary["\(batch) \(threads)"] = "backbone-vs-onnxruntime batch\(batch) threads\(threads): "
                        + (ratio.map { format($0, 2) } ?? "n/a")
                }
            }
        }
        decodeBenchmark(sharedPath: sharedPath)
        let lines = ["1 2", "16 1"].compactMap { summary[$0] }
        for line in lines { print(line) }
        return lines
    }

    /// Runs the peer script and parses `onnxruntime images/s: N`.
    static func runPeer(python: String, script: String, pth: String, threads: Int, batch: Int, seconds: Double) -> Double? {
        guard let (_, data) = PeerProcess.run(python: python, arguments: [
            script, "--pth", pth, "--threads", "\(threads)", "--batch", "\(batch)", "--seconds", "\(Int(max(seconds, 1)))",
        ], showErrors: false) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("onnxruntime images/s:") }) else { return nil }
        return Double(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
    }

    /// Decode + resize of a ~2-megapixel JPEG to 224² (full decode vs libjpeg-turbo's scaled decode).
    static func decodeBenchmark(sharedPath: String) {
        // A 2-megapixel photo: the largest cornhole photo upscaled is synthetic; use a
        // real photo resized to 1920×1080 and re-encoded, so the content is natural.
        let source = URL(fileURLWithPath: sharedPath + "/reference/efficientnet-lite0/images/rocket.jpg")
        guard let photo = try? RGBImage(contentsOf: source),
              let big = try? photo.resized(width: 1920, height: 1080).rgbImage(),
              let jpeg = try? ImageEncoder.jpegData(big, quality: 90) else {
            print("decode benchmark skipped: \(source.path) is missing")
            return
        }
        ComputeThreads.set(1)
        for (name, minimum) in [("full decode", nil), ("scaled decode", Optional(256))] {
            let t = Timing.medianSeconds(samples: 5, sampleSeconds: 0.3) {
                let decoded = try! ImageDecoder.decode(jpeg, source: "bench.jpg",
                                                       options: ImageDecodingOptions(minimumShortSide: minimum))
                _ = try! decoded.image.resizedAndCenterCropped(shortSide: 256, cropWidth: 224, cropHeight: 224)
            }
            print("decode + resize 1920×1080 JPEG → 224² (\(name)): \(format(1 / t, 0)) images/s")
        }
    }
}
