import ArgumentParser
import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation

/// `coach evaluate` and `coach predict` for action classifiers.
enum ActionClassifierCommands: TaskCommandHandler {
    static let predictOptions: Set<TaskOption> = [.top, .confidenceThreshold, .frameRate, .keypointOrigin, .mirrored]
    static let evaluateOptions: Set<TaskOption> = [.frameRate, .keypointOrigin, .mirrored, .mistakes]

    /// Reading options from the shared pose flags (the model's frame rate and the keypoint origin
    /// it was trained with when none is given).
    static func readingOptions(frameRate: Double?, keypointOrigin: String?, model: ActionClassifierModel) throws -> PoseReadingOptions {
        var origin = model.keypointOrigin
        if let keypointOrigin {
            guard let parsed = KeypointOrigin(rawValue: keypointOrigin) else {
                throw ValidationError("--keypoint-origin must be top-left or bottom-left, not '\(keypointOrigin)'")
            }
            origin = parsed
        }
        if let frameRate, let problem = PoseLimits.frameRateProblem(frameRate) { throw ValidationError("--frame-rate \(problem)") }
        return PoseReadingOptions(frameRate: frameRate ?? model.frameRate, keypointOrigin: origin)
    }

    /// Whether any frame of `sequence` has a detected keypoint.
    static func hasDetectedJoints(_ sequence: PoseSequence) -> Bool {
        sequence.frames.contains { frame in frame.keypoints.contains { ($0?.confidence ?? 0) > 0 } }
    }

    static let evaluatesOnRankZero = true

    static func evaluate(modelPath: String, data: EvaluationDataOptions, json: Bool, job: Communicator) throws {
        guard (data.data == nil) != (data.annotations == nil) else {
            throw ValidationError("give the labeled data with exactly one of --data DIR|TABLE.csv or --annotations FILE")
        }
        let mistakesPicture = try data.checkedMistakesPicture(modelPath: modelPath)
        let model = try ActionClassifierModel(contentsOf: URL(fileURLWithPath: modelPath))
        let options = try data.media.attach(to: try readingOptions(frameRate: data.frameRate, keypointOrigin: data.keypointOrigin, model: model),
                                            joints: model.jointSet)
        var source = URL(fileURLWithPath: data.data ?? data.annotations ?? "")
        if data.data != nil, let splits = DataFiles.splitFolders(of: source) {
            // A folder of splits is scored on its test/ split, else validation/, as the image classifier's is.
            let split = splits.test ?? splits.validation ?? splits.train
            Console.note("\(source.path) holds splits: evaluating \(split.path)")
            source = split
        }
        let dataset = data.data != nil ? try PoseDataset.load(source, options: options)
                                       : try PoseDataset.loadAnnotations(source, options: options)
        warnIfUpsideDown(model, sequences: dataset.examples.map(\.sequence), origin: options.keypointOrigin)
        let empty = dataset.examples.filter { !hasDetectedJoints($0.sequence) }
        if empty.count == dataset.examples.count {
            throw ValidationError("\(source.path): no segment has a detected joint (every keypoint is empty or has confidence 0): nothing to evaluate")
        }
        if !empty.isEmpty {
            Console.warning("\(empty.count) of \(dataset.examples.count) segments have no detected joint (e.g. \(empty[0].sequence.source.description)); they are scored on the model's guess for empty input")
        }
        let evaluation = try ActionClassifierEvaluation.evaluate(model, on: dataset, observer: Console.observer(quiet: json))
        if json {
            try Console.printJSON(evaluation)
            if let mistakesPicture { try drawMistakes(evaluation, examples: dataset.examples, model: model, to: mistakesPicture) }
            return
        }
        Console.print(MetricsTable.render(evaluation.metrics))
        Console.print("")
        Console.print("windows: \(Console.percent(evaluation.windowAccuracy)) of \(evaluation.windowCount) windows (\(model.windowLength) frames at \(ActionClassifierReport.format(model.frameRate)) fps, every \(model.defaultWindowStride) frames) have the segment's label as their top class")
        if evaluation.paddedExampleCount > 0 {
            Console.print("padded: \(evaluation.paddedExampleCount) of \(evaluation.metrics.count) segments are shorter than the window and were padded with zero poses")
        }
        printMistakes(evaluation.mistakes)
        if mistakesPicture == nil && !evaluation.mistakes.isEmpty {
            Console.note("to see them, draw them as stick figures: add --mistakes FILE.png")
        }
        if let mistakesPicture { try drawMistakes(evaluation, examples: dataset.examples, model: model, to: mistakesPicture) }
    }

    /// The segments predicted wrong (most confident first), at most `mistakesListed` of them.
    static func printMistakes(_ wrong: [ActionClassifierEvaluation.ExamplePrediction]) {
        guard !wrong.isEmpty else { return }
        let shown = wrong.prefix(mistakesListed)
        Console.print("")
        Console.print("segments predicted wrong, most confident first (\(shown.count) of \(wrong.count)"
                      + (wrong.count > shown.count ? "; --json lists every segment" : "") + "):")
        for mistake in shown {
            Console.print("  \(mistake.source) \(String(format: "%.2f–%.2f", mistake.start, mistake.end)) s: \(mistake.label), predicted "
                          + "\(mistake.predictedLabel) (\(Console.percent(mistake.confidence))); \(mistake.correctWindowCount) of "
                          + "\(mistake.windowCount) window\(mistake.windowCount == 1 ? "" : "s") right")
        }
    }

    /// The most wrong segments `evaluate` lists (and `--mistakes` draws).
    static let mistakesListed = 10

    /// Frames drawn across each wrong segment, and their tiles' size.
    static let mistakeFrames = 8, mistakeTileWidth = 150, mistakeTileHeight = 190

    /// Draws up to `mistakesListed` wrong segments, most confident first, one row each: a title
    /// (clip, times, label, prediction) over `mistakeFrames` stick figures evenly across the
    /// segment, each captioned with its time and the top class of the window whose middle is
    /// nearest (its probability).
    static func drawMistakes(_ evaluation: ActionClassifierEvaluation, examples: [PoseExample],
                             model: ActionClassifierModel, to path: String) throws {
        let positions = evaluation.mistakePositions
        guard !positions.isEmpty else {
            Console.note("no segment was predicted wrong: nothing to draw, \(path) not written")
            return
        }
        let bones = model.jointSet.kind == .custom ? (model.randomConvolution?.bones.map { ($0.first, $0.second) } ?? [])
                                                   : model.jointSet.bones
        var rows: [(title: String, frames: [(image: RGBImage, label: String)])] = []
        for (rank, position) in positions.prefix(mistakesListed).enumerated() {
            let mistake = evaluation.predictions[position], sequence = examples[position].sequence
            let windows = try model.windows(covering: sequence)
            let probabilities = model.probabilities(for: windows)
            let tiles = PoseFilmstrip.tiles(of: try model.conformed(sequence), bones: bones, count: mistakeFrames,
                                            width: mistakeTileWidth, height: mistakeTileHeight)
            let frames = tiles.map { tile -> (image: RGBImage, label: String) in
                let nearest = windows.indices.min { a, b in
                    abs((windows[a].startTime + windows[a].endTime) / 2 - tile.time)
                        < abs((windows[b].startTime + windows[b].endTime) / 2 - tile.time)
                }
                var label = String(format: "%.2f s", tile.time)
                if let nearest, let top = probabilities[nearest].indices.max(by: { probabilities[nearest][$0] < probabilities[nearest][$1] }) {
                    label += " \(model.labels[top]) \(Int((probabilities[nearest][top] * 100).rounded()))%"
                }
                return (tile.image, label)
            }
            rows.append(("\(rank + 1). \(sequence.source.shortDescription) \(String(format: "%.2f-%.2f", mistake.start, mistake.end)) s: \(mistake.label), "
                         + "predicted \(mistake.predictedLabel) (\(Console.percent(mistake.confidence))); "
                         + "\(mistake.correctWindowCount) of \(mistake.windowCount) windows right", frames))
        }
        try ContactSheet.make(rows: rows, tileWidth: mistakeTileWidth, tileHeight: mistakeTileHeight)
            .write(to: URL(fileURLWithPath: path))
        Console.note("drew \(rows.count) of \(positions.count) wrong segment\(positions.count == 1 ? "" : "s") on \(path), most confident first")
    }

    /// Warns when `sequences` look upside down next to the model's training data (their joints'
    /// mean heights anti-correlate with the training profile), as a wrong keypoint origin makes them.
    static func warnIfUpsideDown(_ model: ActionClassifierModel, sequences: [PoseSequence], origin: KeypointOrigin) {
        let windows = sequences.compactMap { try? model.windows(covering: $0, stride: model.windowLength) }.flatMap { $0 }
        guard let agreement = model.orientationAgreement(with: windows), agreement < -0.3 else { return }
        Console.warning("these poses look upside down next to the training data (the joints' mean heights correlate at "
                        + "\(String(format: "%.2f", agreement)) with training's): they were read with --keypoint-origin "
                        + "\(origin.rawValue), the model was trained on \(model.keypointOrigin.rawValue) keypoints; check --keypoint-origin")
    }

    /// One clip's predictions, as `--json` prints them.
    struct ClipPredictions: Encodable {
        struct Window: Encodable {
            var start: Double
            var end: Double
            var label: String?
            var topLabel: String
            var confidence: Double
            var probabilities: [String: Double]
        }
        var file: String
        var windows: [Window]
    }

    static let predictsAllOrNothing = true

    static func predict(modelPath: String, options: PredictCommand) throws {
        let classifier = try ActionClassifier(contentsOf: URL(fileURLWithPath: modelPath))
        if let threshold = options.confidenceThreshold { classifier.confidenceThreshold = Float(threshold) }
        let reading = try options.media.attach(to: try readingOptions(frameRate: options.frameRate, keypointOrigin: options.keypointOrigin, model: classifier.model),
                                               joints: classifier.model.jointSet)
        var results: [ClipPredictions] = []
        let sequences = try options.inputs.map { try PoseClipReader.read(URL(fileURLWithPath: $0), options: reading) }
        warnIfUpsideDown(classifier.model, sequences: sequences, origin: reading.keypointOrigin)
        let empty = zip(options.inputs, sequences).filter { !hasDetectedJoints($0.1) }.map(\.0)
        if !empty.isEmpty {
            throw ValidationError("no joint is detected in \(empty.joined(separator: ", ")) (every keypoint is empty or has confidence 0): nothing to classify")
        }
        for (input, sequence) in zip(options.inputs, sequences) {
            let predictions = try classifier.predictions(for: sequence)
            let windows = predictions.map { p in
                ClipPredictions.Window(start: p.startTime, end: p.endTime, label: p.label, topLabel: p.topLabel,
                                       confidence: Double(p.confidence),
                                       probabilities: Dictionary(uniqueKeysWithValues: p.probabilities.map { ($0.label, Double($0.probability)) }))
            }
            results.append(ClipPredictions(file: input, windows: windows))
            if !options.json {
                Console.print("\(input): \(windows.count) window\(windows.count == 1 ? "" : "s") of \(classifier.windowLength) frames at \(ActionClassifierReport.format(classifier.frameRate)) fps")
                for (window, prediction) in zip(windows, predictions) {
                    let range = MetricsTable.pad(String(format: "%.2f–%.2f s", window.start, window.end), 16, left: false)
                    let others = prediction.probabilities.sorted { $0.probability > $1.probability }.prefix(options.top)
                        .map { "\($0.label) \(String(format: "%.3f", $0.probability))" }.joined(separator: ", ")
                    Console.print("  \(range)  \(window.label ?? "(below threshold: \(window.topLabel))")  \(String(format: "%.3f", window.confidence))   [\(others)]")
                }
            }
        }
        if options.json { try Console.printJSON(results) }
    }
}
