import CoachData
import CoachModels
import CoachTraining
import Foundation

/// Head alternatives measured side by side on the cornhole photos (seeded 80/20 split),
/// all training on one set of cached backbone maps: `coach-bench --only detector-experiments
/// --detector-configs "coding=anchors,stride=32;coding=anchor-free,stride=16"`.
enum DetectorExperiments {
    static func run(backbonePath: String, sharedPath: String, configs: String, views: Int, inputSize: Int, seed: UInt64,
                    annotations: String?) throws {
        let backbone = try Backbone.load(from: URL(fileURLWithPath: backbonePath))
        let parts: (training: DetectionDataset, validation: DetectionDataset)
        if let annotations, annotations.contains(",") {
            let files = annotations.split(separator: ",").map { URL(fileURLWithPath: String($0)) }
            parts = (try DetectionDataset.load(from: files[0]), try DetectionDataset.load(from: files[1]))
        } else {
            let dataset = try DetectionDataset.load(from: URL(fileURLWithPath: annotations ?? sharedPath + "/data/cornhole/images/annotations.json"))
            var splitGenerator = SeededGenerator(seed: seed)
            parts = dataset.split(validationFraction: 0.2, using: &splitGenerator)
        }
        var base = ObjectDetectorTrainingConfiguration(inputSize: inputSize, viewsPerImage: views, seed: seed)
        let cached = try ObjectDetectorTrainer.cacheViews(training: parts.training, validation: parts.validation,
                                                          backbone: backbone, configuration: base)
        print("== detector experiments: \(parts.training.source.path) (split seed \(seed)), \(parts.training.images.count) training / "
              + "\(parts.validation.images.count) validation images, \(views) views, input \(inputSize), maps cached in \(format(cached.seconds, 1)) s")
        for spec in configs.split(separator: ";") {
            var c = base
            for pair in spec.split(separator: ",") {
                let kv = pair.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
                guard kv.count == 2 else { continue }
                switch kv[0] {
                case "coding": c.boxCoding = DetectorBoxCodingChoice(rawValue: kv[1]) ?? c.boxCoding
                case "strides": c.strides = kv[1].split(separator: "+").compactMap { Int($0) }
                case "iterations": c.maximumIterations = Int(kv[1])
                case "width": c.headWidth = Int(kv[1]) ?? c.headWidth
                case "blocks": c.headBlocks = Int(kv[1]) ?? c.headBlocks
                case "lr": c.learningRate = Double(kv[1]) ?? c.learningRate
                case "batch": c.batchSize = Int(kv[1]) ?? c.batchSize
                case "anchors": c.anchorCount = Int(kv[1]) ?? c.anchorCount
                case "decay": c.weightDecay = Double(kv[1]) ?? c.weightDecay
                default: print("unknown key \(kv[0])")
                }
            }
            let start = Timing.now()
            let trained = try ObjectDetectorTrainer.train(training: parts.training, validation: parts.validation, backbone: backbone,
                                                          configuration: c, cachedViews: cached)
            let m = trained.validationMetrics!
            let perClass = m.perClass.map { "\($0.label) \(format($0.ap50 ?? .nan, 3))/\(format($0.ap ?? .nan, 3))" }
            print("[\(spec)] \(trained.iterations) it, \(format(Timing.now() - start, 0)) s: mAP50 \(format(m.meanAveragePrecision50, 3)) "
                  + "mAP \(format(m.meanAveragePrecision, 3)) · " + perClass.joined(separator: " · ")
                  + " · loss \(format(trained.finalTrainingLoss, 3))")
        }
        _ = base.seed
        base.seed = seed
    }
}
