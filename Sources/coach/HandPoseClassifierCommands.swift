import ArgumentParser
import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation

/// `coach evaluate` and `coach predict` for hand-pose classifiers.
enum HandPoseClassifierCommands: TaskCommandHandler {
    static let predictOptions: Set<TaskOption> = [.top, .confidenceThreshold, .frameRate, .keypointOrigin, .mirrored]
    static let evaluateOptions: Set<TaskOption> = [.frameRate, .keypointOrigin, .mirrored, .mistakes]

    /// Reading options from the shared pose flags.
    static func readingOptions(frameRate: Double?, keypointOrigin: String?) throws -> PoseReadingOptions {
        var origin = KeypointOrigin.topLeft
        if let keypointOrigin {
            guard let parsed = KeypointOrigin(rawValue: keypointOrigin) else {
                throw ValidationError("--keypoint-origin must be top-left or bottom-left, not '\(keypointOrigin)'")
            }
            origin = parsed
        }
        if let frameRate, let problem = PoseLimits.frameRateProblem(frameRate) { throw ValidationError("--frame-rate \(problem)") }
        return PoseReadingOptions(frameRate: frameRate ?? 30, keypointOrigin: origin)
    }

    static let evaluatesOnRankZero = true

    static func evaluate(modelPath: String, data: EvaluationDataOptions, json: Bool, job: Communicator) throws {
        guard (data.data == nil) != (data.annotations == nil), let path = data.data ?? data.annotations else {
            throw ValidationError("\(modelPath) is a hand-pose classifier: give the labeled poses with --data TABLE.csv|DIR (or clips with --annotations FILE)")
        }
        let mistakesPicture = try data.checkedMistakesPicture(modelPath: modelPath)
        let model = try HandPoseClassifierModel(contentsOf: URL(fileURLWithPath: modelPath))
        let options = try data.media.attach(to: try readingOptions(frameRate: data.frameRate, keypointOrigin: data.keypointOrigin),
                                            joints: model.jointSet)
        let set = data.data != nil ? try SinglePoseSet.load(URL(fileURLWithPath: path), options: options)
            : SinglePoseSet.flattening(try PoseDataset.loadAnnotations(URL(fileURLWithPath: path), options: options))
        let empty = set.poses.filter { !$0.hasDetectedJoint }.count
        if empty > 0 && empty < set.poses.count {
            Console.warning("\(empty) of the \(set.poses.count) poses in \(path) have no detected joint; they are classified from nothing and count in the accuracy")
        }
        let evaluation = try HandPoseClassifierEvaluation.evaluate(model, on: set, observer: Console.observer(quiet: json))
        let wrong = evaluation.mistakePositions
        if json {
            try Console.printJSON(evaluation)
        } else {
            Console.print("\(modelPath) on \(path):")
            Console.print(MetricsTable.render(evaluation.metrics))
            if !wrong.isEmpty {
                let shown = wrong.prefix(ActionClassifierCommands.mistakesListed)
                Console.print("")
                Console.print("poses predicted wrong, most confident first (\(shown.count) of \(wrong.count)):")
                for position in shown {
                    let mistake = evaluation.predictions[position]
                    Console.print("  \(mistake.source): \(mistake.label), predicted \(mistake.predictedLabel) (\(Console.percent(mistake.confidence)))")
                }
                if mistakesPicture == nil { Console.note("to see them, draw them: add --mistakes FILE.png") }
            }
        }
        if let mistakesPicture { try drawMistakes(wrong, of: evaluation, poses: set, to: mistakesPicture) }
    }

    /// The most wrong poses `--mistakes` draws, in rows of `mistakeColumns` square tiles.
    static let mistakesShown = 48, mistakeColumns = 6, mistakeTile = 160

    /// Draws the poses at `positions` (most confident mistake first), each captioned
    /// "<label> as <prediction> <probability>".
    static func drawMistakes(_ positions: [Int], of evaluation: HandPoseClassifierEvaluation, poses set: SinglePoseSet,
                             to path: String) throws {
        guard !positions.isEmpty else {
            Console.note("no pose was predicted wrong: nothing to draw, \(path) not written")
            return
        }
        let shown = positions.prefix(mistakesShown)
        let frames = shown.map { position -> (image: RGBImage, label: String) in
            let pose = set.poses[position], mistake = evaluation.predictions[position]
            let sequence = PoseSequence(jointSet: set.jointSet, frames: [PoseFrame(time: 0, keypoints: pose.keypoints)], source: pose.source)
            let image = PoseFilmstrip.tiles(of: sequence, bones: set.jointSet.bones, count: 1, width: mistakeTile, height: mistakeTile)
                .first?.image ?? RGBImage(width: mistakeTile, height: mistakeTile, color: PoseFilmstrip.background)
            return (image, "\(mistake.label) as \(mistake.predictedLabel) \(Console.percent(mistake.confidence))")
        }
        try ContactSheet.make(frames, columns: mistakeColumns, tileWidth: mistakeTile).write(to: URL(fileURLWithPath: path))
        Console.note("drew \(shown.count) of \(positions.count) wrong pose\(positions.count == 1 ? "" : "s") on \(path), most confident first")
    }

    /// One pose's prediction, as `--json` prints it.
    struct PosePrediction: Encodable {
        var source: String
        var chirality: String?
        var label: String
        var confidence: Double
        var probabilities: [String: Double]
    }

    /// One file's predictions, as `--json` prints them.
    struct FilePredictions: Encodable {
        var file: String
        var poses: [PosePrediction]
    }

    static func predict(modelPath: String, options: PredictCommand) throws {
        let classifier = try HandPoseClassifier(contentsOf: URL(fileURLWithPath: modelPath))
        let reading = try options.media.attach(to: try readingOptions(frameRate: options.frameRate, keypointOrigin: options.keypointOrigin),
                                               joints: classifier.model.jointSet)
        var results: [FilePredictions] = []
        for input in options.inputs {
            let set = try SinglePoseSet.readPoses(URL(fileURLWithPath: input), options: reading)
            let predictions = try classifier.predictions(for: set)
            let poses = zip(set.poses, predictions).map { pose, prediction in
                PosePrediction(source: pose.source.description, chirality: pose.chirality?.rawValue, label: prediction.label,
                               confidence: Double(prediction.confidence),
                               probabilities: Dictionary(uniqueKeysWithValues: prediction.probabilities.map { ($0.label, Double($0.probability)) }))
            }
            results.append(FilePredictions(file: input, poses: poses))
            if !options.json {
                Console.print("\(input): \(poses.count) pose\(poses.count == 1 ? "" : "s")")
                let threshold = options.confidenceThreshold ?? 0
                for (pose, prediction) in zip(set.poses, predictions) {
                    let place = pose.source.line.map { "line \($0)" } ?? "pose"
                    let label = Double(prediction.confidence) >= threshold ? prediction.label : "(below threshold: \(prediction.label))"
                    let others = prediction.probabilities.sorted { $0.probability > $1.probability }.prefix(options.top)
                        .map { "\($0.label) \(String(format: "%.3f", $0.probability))" }.joined(separator: ", ")
                    let hand = pose.chirality.map { " \($0.rawValue)" } ?? ""
                    Console.print("  \(MetricsTable.pad(place + hand, 16, left: false))  \(label)  \(String(format: "%.3f", prediction.confidence))   [\(others)]")
                }
            }
        }
        if options.json { try Console.printJSON(results) }
    }
}
