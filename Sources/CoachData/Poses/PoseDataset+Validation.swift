import Foundation

extension PoseDataset {
    /// This dataset's examples in `training`'s joint order, to validate a model trained on
    /// `training` (a separate validation set: recordings of other people or sessions, as
    /// Create ML's "validation data" takes).
    ///
    /// - Throws: `PoseDataError` listing every problem at once: clips whose joints differ from the
    ///   training clips', coordinates with or without z unlike theirs, and labels the training
    ///   data has no clips of.
    public func examples(conformingTo training: PoseDataset) throws -> [PoseExample] {
        var log = PoseProblemLog()
        let expected = training.jointSet.kind == .custom
            ? "the \(training.jointSet.count) joints \(training.jointSet.names.joined(separator: ", "))"
            : "the \(training.jointSet.count) joints of \(training.jointSet.kind.rawValue)"
        if hasDepth != training.hasDepth, let first = clips.first {
            log.add(first.sequence.source.file, hasDepth ? "the validation clips have z coordinates: expected x, y only, like the training clips"
                                                         : "the validation clips have no z coordinates: expected x, y, z, like the training clips")
        }
        let known = Set(training.exampleLabels)
        var unknown: [String: (count: Int, file: URL)] = [:]
        var mismatched = Set<Int>()
        var result: [PoseExample] = []
        for example in examples {
            guard known.contains(example.label) else {
                let entry = unknown[example.label]
                unknown[example.label] = ((entry?.count ?? 0) + 1, entry?.file ?? example.sequence.source.file)
                continue
            }
            guard let sequence = example.sequence.reordered(to: training.jointSet) else {
                if mismatched.insert(example.clipIndex).inserted {
                    log.add(example.sequence.source.file, "has the joints \(example.sequence.jointSet.names.joined(separator: ", ")): expected \(expected), like the training clips")
                }
                continue
            }
            var conformed = example
            conformed.sequence = sequence
            result.append(conformed)
        }
        let trainingLabels = training.labels.joined(separator: ", ")
        for label in unknown.keys.sorted() {
            let entry = unknown[label]!
            log.add(entry.file, "label '\(label)' (\(entry.count) validation segment\(entry.count == 1 ? "" : "s")) is not a class of the training data (\(trainingLabels)): validation clips must show the classes being trained")
        }
        try log.throwIfAny()
        guard !result.isEmpty else {
            throw PoseDataError(problems: [PoseDataProblem(file: clips.first?.sequence.source.file.path ?? "", message: "holds no validation segments")])
        }
        return result
    }
}
