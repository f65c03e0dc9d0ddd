extension PoseSequence {
    /// The clip resampled to `frameRate` frames per second (default 30), starting at its first frame.
    ///
    /// New frames fall at `start + k / frameRate` up to the last frame's time. A joint is linearly
    /// interpolated (x, y, z and confidence) between the two original frames around a new time when
    /// it was detected in both; otherwise it is not detected. A new time that coincides with an
    /// original frame copies it. Across a pause longer than `PoseLimits.maximumInterpolatedGap`
    /// no frames are made (the output resumes at the frame after it), so the output has at most
    /// about rate × gap frames per input frame. A non-positive or non-finite rate leaves the clip unchanged.
    public func resampled(toFrameRate frameRate: Double = 30) -> PoseSequence {
        guard frameRate > 0, frameRate.isFinite, let first = frames.first, let last = frames.last else { return self }
        let tolerance = 1e-9
        let span = last.time - first.time
        let count = Int((span * frameRate + tolerance).rounded(.down)) + 1
        var output: [PoseFrame] = []
        output.reserveCapacity(count)
        var lower = 0
        var k = 0
        while k < count {
            let time = first.time + Double(k) / frameRate
            k += 1
            while lower + 1 < frames.count, frames[lower + 1].time <= time + tolerance { lower += 1 }
            let before = frames[lower]
            if abs(before.time - time) <= tolerance || lower + 1 == frames.count {
                output.append(PoseFrame(time: time, keypoints: before.keypoints))
                continue
            }
            let after = frames[lower + 1]
            if after.time - before.time > PoseLimits.maximumInterpolatedGap {
                // Inside a long pause: continue at the first new time at or after the next frame.
                k = max(k, Int(((after.time - first.time) * frameRate - tolerance).rounded(.up)))
                continue
            }
            let weight = Float((time - before.time) / (after.time - before.time))
            let keypoints: [Keypoint?] = zip(before.keypoints, after.keypoints).map { pair in
                guard let a = pair.0, let b = pair.1 else { return nil }
                return Keypoint.interpolated(from: a, to: b, weight: weight)
            }
            output.append(PoseFrame(time: time, keypoints: keypoints))
        }
        var copy = self
        copy.frames = output
        copy.nominalFrameRate = frameRate
        return copy
    }
}

extension Keypoint {
    /// The point `weight` of the way from `a` to `b` (0 gives `a`, 1 gives `b`), channel by channel.
    static func interpolated(from a: Keypoint, to b: Keypoint, weight: Float) -> Keypoint {
        func mix(_ p: Float, _ q: Float) -> Float { p + (q - p) * weight }
        var z: Float? = nil
        if let za = a.z, let zb = b.z { z = mix(za, zb) }
        return Keypoint(x: mix(a.x, b.x), y: mix(a.y, b.y), z: z, confidence: mix(a.confidence, b.confidence))
    }
}
