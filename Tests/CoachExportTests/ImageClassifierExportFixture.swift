import CoachData
import CoachModels
import CoachRuntime
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// What the image classifier export tests share: a small trained model and real photos.
enum ImageClassifierExportFixture {
    /// The features each head kind's export test trains on: the logistic head the default
    /// (head+stride16), the MLP the head's alone, so both export paths are checked.
    static func featureLayers(for classifier: ImageClassifierKind) -> ImageFeatureLayers {
        classifier == .logistic ? .headAndStride16 : .head
    }

    /// Trains a small classifier (logistic or MLP head, on `featureLayers(for:)`) on generated
    /// sports-gear photos and writes it to `directory`; the photos' folder is returned too.
    static func trainedModel(in directory: URL, classifier: ImageClassifierKind, backbone: Backbone) throws -> (model: URL, photos: URL) {
        let root = directory.appendingPathComponent("gear")
        if !FileManager.default.fileExists(atPath: root.path) {
            _ = try SportsGearImageGenerator().generate(into: root, trainingPerClass: 8, testPerClass: 1, seed: 4)
        }
        var configuration = ImageClassifierTrainingConfiguration()
        configuration.seed = 2
        configuration.classifier = classifier
        configuration.featureLayers = featureLayers(for: classifier)
        configuration.maximumIterations = 20
        let cache = FeatureCache(directory: SharedData.repositoryRoot.appendingPathComponent(".build/test-cache/features"))
        let result = try ImageClassifierTrainer(configuration: configuration, backbone: backbone, featureCache: cache)
            .train(data: root.appendingPathComponent("train"))
        var file = result.model.modelFile()
        file.metadata.summary = "Sports gear, for the export test"
        file.metadata.extra["author"] = "Coach tests"
        file.metadata.extra["license"] = "CC0-1.0"
        let url = directory.appendingPathComponent("gear-\(classifier.rawValue).h5")
        try file.write(to: url)
        return (url, root.appendingPathComponent("test"))
    }

    /// Photos to run: one generated test photo per class; an even blend of the first two, which
    /// the model cannot be sure of (so some probabilities lie well inside 0…1 without `../shared`);
    /// and the shared reference photo when present.
    static func photos(in testFolder: URL) throws -> [URL] {
        var result: [URL] = []
        for label in try FileManager.default.contentsOfDirectory(atPath: testFolder.path).sorted() {
            let folder = testFolder.appendingPathComponent(label)
            if let first = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().first {
                result.append(folder.appendingPathComponent(first))
            }
        }
        if result.count >= 2 {
            let a = try RGBImage(contentsOf: result[0]), b = try RGBImage(contentsOf: result[1])
            if a.width == b.width, a.height == b.height {
                let blend = try RGBImage(width: a.width, height: a.height,
                                         pixels: zip(a.pixels, b.pixels).map { UInt8((Int($0) + Int($1)) / 2) })
                let url = testFolder.deletingLastPathComponent().appendingPathComponent("blend.png")
                try ImageEncoder.pngData(blend).write(to: url)
                result.append(url)
            }
        }
        let reference = SharedData.root.appendingPathComponent("reference/efficientnet-lite0/images/chelsea.png")
        if FileManager.default.fileExists(atPath: reference.path) { result.append(reference) }
        return result
    }

    /// The exporter's input for `photo`: RGB 0…255 after Coach's resize and centre crop (of
    /// `side × side`, the crop size unless given), NCHW, written as raw little-endian float32.
    static func writeInput(of photo: URL, encoding: ImageInputEncoding, side: Int? = nil, to url: URL) throws {
        let image = try encoding.decode(contentsOf: photo)
        let side = side ?? encoding.cropSize
        let cropped = try image.resizedAndCenterCropped(shortSide: encoding.shortSide, cropWidth: side, cropHeight: side)
        let pixels = cropped.width * cropped.height
        var planar = [Float](repeating: 0, count: pixels * 3)
        for pixel in 0..<pixels {
            for channel in 0..<3 { planar[channel * pixels + pixel] = cropped.values[pixel * 3 + channel] }
        }
        try planar.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: url)
    }

    /// Compares CoachRuntime's `predictions` with an exported model's probability of each label
    /// (≤ 1e-4), tracking the largest difference and how many probabilities lie in 0.01…0.99.
    static func compare(_ predictions: [ClassificationPrediction], with probability: (String) -> Float, context: String,
                        largest: inout Float, undecided: inout Int, file: StaticString = #filePath, line: UInt = #line) {
        for prediction in predictions {
            let exported = probability(prediction.label)
            let difference = abs(exported - Float(prediction.confidence))
            largest = max(largest, difference)
            if (0.01...0.99).contains(exported) { undecided += 1 }
            XCTAssertLessThanOrEqual(difference, 1e-4, "\(context) \(prediction.label)", file: file, line: line)
        }
    }
}
