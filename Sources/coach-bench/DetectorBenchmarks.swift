import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation

/// The object detector: the stages of caching backbone maps, one head training
/// iteration, full training on the cornhole photos (seeded 80 %) and detection latency
/// per image at batch 1.
enum DetectorBenchmarks {
    static func run(backbonePath: String, sharedPath: String, threads: Int, full: Bool) throws {
        ComputeThreads.set(threads)
        print("== detector (\(threads) thread\(threads == 1 ? "" : "s"))")
        let backbone = try Backbone.load(from: URL(fileURLWithPath: backbonePath))
        let annotations = URL(fileURLWithPath: sharedPath + "/data/cornhole/images/annotations.json")
        guard FileManager.default.fileExists(atPath: annotations.path) else {
            print("detector benchmark skipped: \(annotations.path) is missing")
            return
        }
        let dataset = try DetectionDataset.load(from: annotations)
        // The default head: grids of stride 16 and 32, five anchors (here fixed, in training from k-means).
        let anchors = [AnchorSize(width: 35, height: 25), AnchorSize(width: 43, height: 36), AnchorSize(width: 46, height: 46),
                       AnchorSize(width: 58, height: 57), AnchorSize(width: 179, height: 338)]
        let configuration = DetectorConfiguration(levels: ObjectDetectorTrainer.anchorLevels(anchors, strides: [16, 32]),
                                                  classCount: dataset.labels.count)
        let extractor = DetectorFeatureExtractor(backbone: backbone.network, configuration: configuration)
        let first = dataset.images[0]
        let image = try ImageDecoder.decode(contentsOf: first.url, options: extractor.decodingOptions).image

        // Stages of building one cached view.
        let decode = Timing.medianSeconds(samples: 3, sampleSeconds: 0.3) {
            _ = try? ImageDecoder.decode(contentsOf: first.url, options: extractor.decodingOptions)
        }
        let pipeline = try AugmentationPipeline(parsing: ObjectDetectorTrainingConfiguration.defaultAugmentations.joined(separator: ","))
        let placement = ImageResizing.letterboxTransform(width: image.width, height: image.height, canvasWidth: 416, canvasHeight: 416)
        let content = try image.resized(width: placement.contentWidth, height: placement.contentHeight).rgbImage()
        var generator = SeededGenerator(seed: 1)
        let augment = Timing.medianSeconds(samples: 3, sampleSeconds: 0.5) {
            _ = pipeline.apply(to: AugmentationSample(image: content, boxes: []), using: &generator)
        }
        let encode = Timing.medianSeconds(samples: 3, sampleSeconds: 0.3) { _ = try? extractor.encode(image) }
        let input = try extractor.encode(image).pixels
        let batch = [[Float]](repeating: input, count: 8)
        let maps = Timing.medianSeconds(samples: 3, sampleSeconds: 1) { _ = extractor.maps(of: batch) } / 8
        print("view stages (\(image.width)×\(image.height) photo → 416²): decode \(ms(decode)) · augment \(ms(augment)) "
              + "· letterbox+normalise \(ms(encode)) · backbone maps \(ms(maps)) per view (batch 8, \(format(1 / maps, 1)) views/s)")

        // One head training iteration on cached maps (batch 16), default head.
        let map = extractor.maps(of: [input])[0]
        var g = SeededGenerator(seed: 2)
        let model = try ObjectDetectorModel(configuration: configuration, classLabels: dataset.labels, generator: &g)
        let target = DetectionTarget(boxes: [BoundingBox(minX: 100, minY: 50, maxX: 280, maxY: 380),
                                             BoundingBox(minX: 150, minY: 80, maxX: 196, maxY: 126)], classIndices: [1, 0])
        let optimizer = Adam.adamW(learningRate: 1e-3)
        let iteration = Timing.medianSeconds(samples: 3, sampleSeconds: 1) {
            let tape = Tape(mode: .training)
            let raw = model.head(DetectorFeatureBatch([DetectorFeatureMaps](repeating: map, count: 16), configuration: configuration), tape: tape)
            let (loss, _) = DetectionLoss.compute(raw, targets: [DetectionTarget](repeating: target, count: 16), codings: model.codings)
            optimizer.update(model.head.namedParameters, gradients: tape.gradients(of: loss))
        }
        if ProcessInfo.processInfo.environment["DETECTOR_BREAKDOWN"] != nil {
            let features = DetectorFeatureBatch([DetectorFeatureMaps](repeating: map, count: 16), configuration: configuration)
            let targets = [DetectionTarget](repeating: target, count: 16)
            let expand = Timing.medianSeconds(samples: 3, sampleSeconds: 0.5) {
                _ = DetectorFeatureBatch([DetectorFeatureMaps](repeating: map, count: 16), configuration: configuration)
            }
            let forward = Timing.medianSeconds(samples: 3, sampleSeconds: 0.5) { _ = model.head(features, tape: Tape(mode: .training)) }
            let tape = Tape(mode: .training)
            let raw = model.head(features, tape: tape)
            let lossTime = Timing.medianSeconds(samples: 3, sampleSeconds: 0.5) {
                _ = DetectionLoss.compute(raw, targets: targets, codings: model.codings)
            }
            let backward = Timing.medianSeconds(samples: 3, sampleSeconds: 0.5) {
                let tape = Tape(mode: .training)
                let raw = model.head(features, tape: tape)
                let (loss, _) = DetectionLoss.compute(raw, targets: targets, codings: model.codings)
                _ = tape.gradients(of: loss)
            }
            print("  expand \(ms(expand)) · forward \(ms(forward)) · loss \(ms(lossTime)) · forward+loss+backward \(ms(backward))")
        }
        print("head training iteration (batch 16, grids 26×26 + 13×13, 5 anchors, width 96): \(ms(iteration)) (\(format(16 / iteration, 0)) views/s)")

        guard full else { return }
        // Full training on a seeded 80 % of the cornhole photos, default recipe.
        var splitGenerator = SeededGenerator(seed: 0)
        let parts = dataset.split(validationFraction: 0.2, using: &splitGenerator)
        let start = Timing.now()
        let trained = try ObjectDetectorTrainer.train(training: parts.training, validation: parts.validation, backbone: backbone,
                                                      configuration: ObjectDetectorTrainingConfiguration())
        let total = Timing.now() - start
        print("training on cornhole (\(parts.training.images.count) images, default recipe, \(trained.iterations) iterations): "
              + "\(format(total, 1)) s total (backbone maps \(format(trained.featureSeconds, 1)) s, head \(format(trained.trainingSeconds, 1)) s)")
        if let m = trained.validationMetrics {
            print("  validation mAP@0.5 \(format(m.meanAveragePrecision50, 3)) · mAP@0.5:0.95 \(format(m.meanAveragePrecision, 3))")
        }
        let detector = ObjectDetector(model: trained.model, backbone: backbone)
        let latency = Timing.medianSeconds(samples: 5, sampleSeconds: 1) {
            _ = try? detector.detect(inImageAt: first.url)
        }
        let inMemory = Timing.medianSeconds(samples: 5, sampleSeconds: 1) { _ = try? detector.detect(in: image) }
        print("detection latency (batch 1, 416²): \(ms(latency)) per JPEG file (decode included), \(ms(inMemory)) per decoded image")
    }

    static func ms(_ seconds: Double) -> String { format(seconds * 1000, 1) + " ms" }
}
