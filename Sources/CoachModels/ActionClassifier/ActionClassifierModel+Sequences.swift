import CoachData

extension ActionClassifierModel {
    /// `sequence` made ready for this model: joints reordered to the model's order, z dropped when
    /// the model does not use it, and frames resampled to the model's frame rate.
    /// - Throws: `ActionClassifierError` when the joints differ or the model needs z the clip lacks.
    public func conformed(_ sequence: PoseSequence) throws -> PoseSequence {
        let source = sequence.source.description
        guard var reordered = sequence.reordered(to: jointSet) else {
            let names = Set(sequence.jointSet.names), expected = Set(jointSet.names)
            throw ActionClassifierError.jointsDoNotMatch(source: source,
                                                         missing: jointSet.names.filter { !names.contains($0) },
                                                         unknown: sequence.jointSet.names.filter { !expected.contains($0) })
        }
        if encoding.includesDepth && !sequence.hasDepth { throw ActionClassifierError.depthMissing(source: source) }
        if !encoding.includesDepth && sequence.hasDepth {
            reordered.hasDepth = false
            reordered.frames = reordered.frames.map { frame in
                PoseFrame(time: frame.time, keypoints: frame.keypoints.map { keypoint in
                    keypoint.map { Keypoint(x: $0.x, y: $0.y, confidence: $0.confidence) }
                })
            }
        }
        return windowSampler.prepared(reordered)
    }

    /// The default stride between evaluation and prediction windows: a quarter window (at least 1 frame).
    public var defaultWindowStride: Int { max(1, (windowLength + 3) / 4) }

    /// The windows covering `sequence` (conformed first) every `stride` frames (default a quarter window).
    /// - Throws: `ActionClassifierError` as `conformed(_:)` does, or for a clip without frames.
    public func windows(covering sequence: PoseSequence, stride: Int? = nil) throws -> [PoseWindow] {
        let prepared = try conformed(sequence)
        guard !prepared.frames.isEmpty else { throw ActionClassifierError.emptyClip(source: sequence.source.description) }
        return windowSampler.windows(covering: prepared, stride: stride ?? defaultWindowStride)
    }
}
