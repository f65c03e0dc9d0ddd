import Foundation

/// Wall-clock timing helpers for benchmarks (never used by tests).
enum Timing {
    /// Seconds since an arbitrary origin (monotonic).
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// The median seconds per call of `body`, over samples of about `sampleSeconds`,
    /// after one warm-up call.
    static func medianSeconds(samples: Int = 5, sampleSeconds: Double = 0.3, _ body: () -> Void) -> Double {
        body()
        var perCall: [Double] = []
        for _ in 0..<samples {
            let start = now()
            var calls = 0
            repeat { body(); calls += 1 } while now() - start < sampleSeconds
            perCall.append((now() - start) / Double(calls))
        }
        return perCall.sorted()[perCall.count / 2]
    }

    /// Peak resident memory of this process in MiB (VmHWM).
    static func peakMemoryMiB() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kb / 1024
        }
        return nil
    }
}

func format(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }
