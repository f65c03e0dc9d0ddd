import CoachRandom

/// Cuts pose sequences into fixed-length windows the way Create ML's action classifier does:
/// `windowLength` frames (the prediction window) at `frameRate` frames per second.
///
/// Sequences are first brought to `frameRate` (`prepared(_:)`). Training draws random windows
/// from within each annotated segment; evaluation and prediction cover a segment with windows at
/// a stride (the last one ending at the segment's last frame). A segment shorter than the window
/// gives one window padded at the end with zero poses, as the Action & Vision app pads.
public struct PoseWindowSampler: Hashable, Sendable {
    /// Frames per window (T), Create ML's prediction window.
    public var windowLength: Int
    /// Frames per second windows are sampled at.
    public var frameRate: Double

    /// A sampler of `windowLength`-frame windows at `frameRate` fps (defaults: 45 frames, 30 fps).
    public init(windowLength: Int = 45, frameRate: Double = 30) {
        precondition(windowLength > 0 && frameRate > 0, "a window needs a positive length and frame rate")
        self.windowLength = windowLength
        self.frameRate = frameRate
    }

    /// The sequence resampled to `frameRate` (returned as is when it already is at that rate).
    public func prepared(_ sequence: PoseSequence) -> PoseSequence {
        if let rate = sequence.nominalFrameRate, abs(rate - frameRate) < 1e-9 { return sequence }
        return sequence.resampled(toFrameRate: frameRate)
    }

    /// How many frames `prepared(sequence)` has, computed without resampling.
    public func preparedFrameCount(of sequence: PoseSequence) -> Int {
        guard let first = sequence.frames.first, let last = sequence.frames.last else { return 0 }
        if let rate = sequence.nominalFrameRate, abs(rate - frameRate) < 1e-9 { return sequence.frames.count }
        return Int(((last.time - first.time) * frameRate + 1e-9).rounded(.down)) + 1
    }

    /// Whether a prepared sequence of `frameCount` frames is shorter than a window (and so padded).
    public func needsPadding(frameCount: Int) -> Bool { frameCount < windowLength }

    /// The first frames of the windows covering `frameCount` frames: 0, stride, 2·stride, … and
    /// then one window ending at the last frame; `[0]` when the frames do not fill one window.
    public func windowStarts(frameCount: Int, stride: Int) -> [Int] {
        let last = frameCount - windowLength
        guard last > 0 else { return [0] }
        var starts = Array(Swift.stride(from: 0, through: last, by: max(stride, 1)))
        if starts.last != last { starts.append(last) }
        return starts
    }

    /// The windows covering a prepared `sequence` at `stride` frames (see `windowStarts`).
    public func windows(covering sequence: PoseSequence, stride: Int) -> [PoseWindow] {
        windowStarts(frameCount: sequence.frames.count, stride: stride).map { start in
            window(of: sequence, startingAt: start)
        }
    }

    /// The window of a prepared `sequence` that starts at frame `start` (padded past its end).
    public func window(of sequence: PoseSequence, startingAt start: Int) -> PoseWindow {
        let frames = sequence.frames
        let lower = min(max(start, 0), frames.count)
        let upper = min(lower + windowLength, frames.count)
        var window = PoseWindow(frames: frames[lower..<upper], frameCount: windowLength,
                                jointCount: sequence.jointSet.count, hasDepth: sequence.hasDepth,
                                frameRate: frameRate, chirality: sequence.chirality)
        if lower == upper { window.startTime = sequence.frames.last.map { $0.time + 1 / frameRate } ?? 0 }
        return window
    }

    /// How many random windows a segment of `frameCount` prepared frames contributes to one
    /// training epoch: its length in windows, rounded, and at least one.
    public func trainingWindowCount(frameCount: Int) -> Int {
        max(1, Int((Double(frameCount) / Double(windowLength)).rounded()))
    }

    /// A random training window from a prepared `sequence`.
    ///
    /// The window's frames are taken at steps from `augmenter.frameSteps` (1 frame apart without
    /// time augmentations; fractional steps interpolate between frames), starting at a random
    /// frame such that the window fits in the sequence; when it cannot fit, it starts at the first
    /// frame and is padded with zero poses. The spatial augmentations are then applied.
    public func randomWindow(from sequence: PoseSequence, augmenter: PoseAugmenter?,
                             generator: inout SeededGenerator) -> PoseWindow {
        let frames = sequence.frames
        let steps = augmenter?.frameSteps(frameCount: windowLength, generator: &generator)
            ?? [Double](repeating: 1, count: windowLength - 1)
        var offsets = [0.0]
        offsets.reserveCapacity(windowLength)
        for step in steps { offsets.append(offsets[offsets.count - 1] + step) }
        let span = offsets[offsets.count - 1]
        let room = Double(frames.count - 1) - span
        let start = room >= 0 ? Double(generator.nextInt(in: 0...Int((room + 1e-9).rounded(.down)))) : 0

        var window = PoseWindow(frameCount: windowLength, jointCount: sequence.jointSet.count,
                                hasDepth: sequence.hasDepth, frameRate: frameRate, chirality: sequence.chirality)
        var filled = 0
        for (t, offset) in offsets.enumerated() {
            let position = start + offset
            guard position <= Double(frames.count - 1) + 1e-6, !frames.isEmpty else { break }
            if t == 0 { window.startTime = PoseWindowSampler.time(in: frames, at: position) }
            PoseWindowSampler.fill(&window, frame: t, from: frames, at: position)
            filled += 1
        }
        window.paddedFrameCount = windowLength - filled
        augmenter?.apply(to: &window, generator: &generator)
        return window
    }

    /// The time at fractional frame `position` of `frames`.
    static func time(in frames: [PoseFrame], at position: Double) -> Double {
        let lower = min(Int(position.rounded(.down)), frames.count - 1)
        let weight = position - Double(lower)
        guard weight > 1e-9, lower + 1 < frames.count else { return frames[lower].time }
        return frames[lower].time + weight * (frames[lower + 1].time - frames[lower].time)
    }

    /// Writes the pose at fractional frame `position` into frame `t` of `window`: a joint seen in
    /// both neighbouring frames is interpolated linearly; a joint seen in only one is taken from it
    /// when that frame is the nearer one, and is undetected otherwise.
    static func fill(_ window: inout PoseWindow, frame t: Int, from frames: [PoseFrame], at position: Double) {
        let lower = min(Int(position.rounded(.down)), frames.count - 1)
        let weight = Float(position - Double(lower))
        let before = frames[lower].keypoints
        guard weight > 1e-6, lower + 1 < frames.count else {
            for j in 0..<min(window.jointCount, before.count) { window[t, j] = before[j] }
            return
        }
        let after = frames[lower + 1].keypoints
        for j in 0..<min(window.jointCount, before.count, after.count) {
            switch (before[j], after[j]) {
            case let (a?, b?): window[t, j] = Keypoint.interpolated(from: a, to: b, weight: weight)
            case let (a?, nil): window[t, j] = weight < 0.5 ? a : nil
            case let (nil, b?): window[t, j] = weight >= 0.5 ? b : nil
            case (nil, nil): window[t, j] = nil
            }
        }
    }
}
