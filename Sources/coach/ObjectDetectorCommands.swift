import ArgumentParser
import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation

/// `coach evaluate` and `coach predict` for object-detector models.
enum ObjectDetectorCommands: TaskCommandHandler {
    static let predictOptions: Set<TaskOption> = [.confidenceThreshold, .iouThreshold, .draw, .overwrite]
    static let evaluateOptions: Set<TaskOption> = [.mistakes]

    static func evaluate(modelPath: String, data: EvaluationDataOptions, json: Bool, job: Communicator) throws {
        guard let annotations = data.annotations else {
            throw ValidationError("an object detector is evaluated on --annotations FILE.json (Create ML), a YOLO names file or a Pascal VOC folder")
        }
        let mistakesPicture = try data.checkedMistakesPicture(modelPath: modelPath)
        if let mistakesPicture {
            var source = URL(fileURLWithPath: annotations)
            if !DataFiles.isRealFolder(source) { source.deleteLastPathComponent() }
            if OutputGuard.resolved(mistakesPicture).hasPrefix(OutputGuard.resolved(source.path) + "/") {
                throw ValidationError("--mistakes \(mistakesPicture) is inside \(source.path), beside the evaluated images, where a folder-based format would read it as one: choose another path")
            }
        }
        let detector = try ObjectDetector(contentsOf: URL(fileURLWithPath: modelPath))
        let dataset = try DetectionDataset.load(from: URL(fileURLWithPath: annotations))
        if !json {
            for line in DetectionDatasetSummary(dataset).lines { Console.note(line) }
        }
        for warning in dataset.warnings.prefix(20) { Console.warning(warning.description) }
        let (metrics, images) = try ObjectDetectorEvaluation.evaluateImages(
            model: detector.model, backbone: detector.backbone.network, dataset: dataset, communicator: job,
            observer: job.isRoot ? Console.observer(quiet: json) : nil)
        if json {
            try Console.printJSON(DetectionEvaluationReport(metrics: metrics, evaluated: images, images: dataset.images,
                                                            labels: detector.model.classLabels))
        } else { Console.print(DetectionMetricsTable.render(metrics)) }
        if let mistakesPicture, job.isRoot {
            try drawMistakes(images, dataset: dataset, labels: detector.model.classLabels, metrics: metrics, to: mistakesPicture)
        }
    }

    /// The most images `--mistakes` draws, in rows of `mistakeColumns` tiles of `mistakeTile` pixels.
    static let mistakesShown = 12, mistakeColumns = 3, mistakeTile = (width: 400, height: 300)
    /// Box colours of `--mistakes`: neither team colour (red, blue), as `BoxPalette`'s.
    static let rightColor = RGBColor(red: 60, green: 200, blue: 75), wrongColor = RGBColor(red: 240, green: 50, blue: 230),
               missedColor = RGBColor(red: 255, green: 225, blue: 25)

    /// Draws the images with most mistakes at the metrics' confidence threshold and matching IoU
    /// (`DetectionOutcome`), each fitted into a tile: missed true boxes yellow, wrong predictions
    /// magenta, right ones green, each captioned; then lists the images on stderr.
    static func drawMistakes(_ images: [EvaluatedImage], dataset: DetectionDataset, labels: [String],
                             metrics: DetectionMetrics, to path: String) throws {
        let threshold = metrics.confidenceThreshold
        let outcomes = DetectionOutcome.mistakes(in: images, confidenceThreshold: threshold, matchingIoU: metrics.matchingIoU)
        let rule = String(format: "confidence ≥ %.2f, IoU ≥ %.2f", threshold, metrics.matchingIoU)
        guard !outcomes.isEmpty else {
            Console.note("no image has a missed or wrong box (\(rule)): nothing to draw, \(path) not written")
            return
        }
        let shown = Array(outcomes.prefix(mistakesShown))
        var tiles: [(image: RGBImage, label: String)] = []
        for outcome in shown {
            let annotated = dataset.images[outcome.imageIndex], evaluated = images[outcome.imageIndex]
            let photo = try RGBImage(contentsOf: annotated.url, options: ImageDecodingOptions(minimumShortSide: mistakeTile.height))
            let fitted = try photo.letterboxed(width: mistakeTile.width, height: mistakeTile.height, fillValue: 24)
            var canvas = try fitted.image.rgbImage()
            // Boxes are in the annotation's pixels of the image as displayed; the photo is decoded upright,
            // a large one at a reduced size.
            let toPhotoX = Double(photo.width) / Double(max(annotated.width, 1)), toPhotoY = Double(photo.height) / Double(max(annotated.height, 1))
            func draw(_ box: BoundingBox, _ label: String, _ color: RGBColor) {
                let a = fitted.transform.letterboxPoint(x: box.minX * toPhotoX, y: box.minY * toPhotoY)
                let b = fitted.transform.letterboxPoint(x: box.maxX * toPhotoX, y: box.maxY * toPhotoY)
                canvas.drawBox(BoundingBox(minX: a.x, minY: a.y, maxX: b.x, maxY: b.y), label: label, color: color)
            }
            func name(_ classIndex: Int) -> String { labels.indices.contains(classIndex) ? labels[classIndex] : "class \(classIndex)" }
            for p in outcome.correct {
                let prediction = evaluated.predictions[p]
                draw(prediction.box, String(format: "%@ %.2f", name(prediction.classIndex), prediction.confidence), rightColor)
            }
            for t in outcome.missed {
                let truth = evaluated.groundTruth[t]
                draw(truth.box, "missed \(name(truth.classIndex))", missedColor)
            }
            for p in outcome.wrong {
                let prediction = evaluated.predictions[p]
                draw(prediction.box, String(format: "%@ %.2f", name(prediction.classIndex), prediction.confidence), wrongColor)
            }
            tiles.append((canvas, "\(annotated.name): \(outcome.missed.count) missed, \(outcome.wrong.count) wrong"))
        }
        try ContactSheet.make(tiles, columns: mistakeColumns, tileWidth: mistakeTile.width).write(to: URL(fileURLWithPath: path))
        Console.note("drew \(shown.count) of \(outcomes.count) image\(outcomes.count == 1 ? "" : "s") with mistakes on \(path), most "
                     + "mistakes first (\(rule); boxes: yellow missed, magenta wrong, green right):")
        for (rank, outcome) in shown.enumerated() {
            Console.note("  \(rank + 1). \(dataset.images[outcome.imageIndex].url.path): \(outcome.missed.count) missed, "
                         + "\(outcome.wrong.count) wrong, \(outcome.correct.count) right")
        }
    }

    /// One image's predictions as `--json` prints them.
    struct ImagePrediction: Encodable {
        struct Object: Encodable {
            struct Box: Encodable {
                var x: Double, y: Double, width: Double, height: Double
            }
            var label: String
            var confidence: Double
            /// Normalised, origin top-left.
            var boundingBox: Box
            /// Pixels of the image, origin top-left.
            var pixelBox: Box
            var labels: [[String: Double]]
        }
        var image: String
        var width: Int
        var height: Int
        var objects: [Object]
    }

    static func predict(modelPath: String, options: PredictCommand) throws {
        if options.draw != nil && options.inputs.count != 1 {
            throw ValidationError("--draw writes one picture: give exactly one input image with it")
        }
        if let draw = options.draw {
            try OutputGuard.checkFileOutput(draw, option: "--draw", inputs: [modelPath] + options.inputs, overwrite: options.overwrite)
            guard PictureFormat(path: draw) != nil else {
                throw ValidationError("--draw must name a .png or .jpg picture (got '\(draw)'): the format follows the name")
            }
        }
        let detector = try ObjectDetector(contentsOf: URL(fileURLWithPath: modelPath))
        let threshold = options.confidenceThreshold ?? ObjectDetector.defaultConfidenceThreshold
        var results: [ImagePrediction] = []
        for path in options.inputs {
            let image = try RGBImage(contentsOf: URL(fileURLWithPath: path))
            let objects = try detector.detect(in: image, confidenceThreshold: threshold, iouThreshold: options.iouThreshold)
            let entries = objects.map { object -> ImagePrediction.Object in
                let b = object.boundingBox
                let p = b.pixelRect(imageWidth: image.width, imageHeight: image.height)
                return ImagePrediction.Object(
                    label: object.label, confidence: object.confidence,
                    boundingBox: .init(x: b.x, y: b.y, width: b.width, height: b.height),
                    pixelBox: .init(x: p.x, y: p.y, width: p.width, height: p.height),
                    labels: object.labels.map { [$0.label: $0.confidence] })
            }
            results.append(ImagePrediction(image: path, width: image.width, height: image.height, objects: entries))
            if !options.json {
                Console.print("\(path): \(objects.count) object\(objects.count == 1 ? "" : "s") (confidence ≥ \(threshold))")
                for object in entries {
                    let p = object.pixelBox
                    Console.print(String(format: "  %@  %.3f  x %.0f  y %.0f  w %.0f  h %.0f (pixels, origin top-left)",
                                         object.label, object.confidence, p.x, p.y, p.width, p.height))
                }
            }
            if let draw = options.draw {
                var canvas = image
                for (index, object) in objects.enumerated().reversed() {
                    let p = object.boundingBox.pixelRect(imageWidth: image.width, imageHeight: image.height)
                    let color = BoxPalette.color(for: detector.classLabels.firstIndex(of: object.label) ?? index)
                    canvas.drawBox(BoundingBox(minX: p.x, minY: p.y, maxX: p.x + p.width, maxY: p.y + p.height),
                                   label: String(format: "%@ %.2f", object.label, object.confidence), color: color)
                }
                try canvas.write(to: URL(fileURLWithPath: draw))
                if !options.json { Console.note("drew \(objects.count) box\(objects.count == 1 ? "" : "es") on \(draw)") }
            }
        }
        if options.json { try Console.printJSON(results) }
    }
}

/// Distinct, legible box colours by class index.
enum BoxPalette {
    /// Green, yellow, cyan, magenta, orange, lime, purple, pink: none is a team colour (red, blue).
    static let colors: [RGBColor] = [
        RGBColor(red: 60, green: 200, blue: 75), RGBColor(red: 255, green: 225, blue: 25), RGBColor(red: 70, green: 240, blue: 240),
        RGBColor(red: 240, green: 50, blue: 230), RGBColor(red: 245, green: 130, blue: 48), RGBColor(red: 190, green: 245, blue: 60),
        RGBColor(red: 145, green: 30, blue: 180), RGBColor(red: 250, green: 190, blue: 212),
    ]
    static func color(for index: Int) -> RGBColor { colors[((index % colors.count) + colors.count) % colors.count] }
}
