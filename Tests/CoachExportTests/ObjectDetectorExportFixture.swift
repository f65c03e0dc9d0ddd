import CoachData
import CoachModels
import CoachTraining
import Foundation

/// What the object detector export tests share.
enum ObjectDetectorExportFixture {
    /// A small board detector (anchors on strides 16 and 32, 224² input) trained on synthetic photos.
    static func trainedDetector(in folder: URL, backbone: Backbone) throws -> URL {
        var scene = BoardSceneConfiguration()
        scene.imageSizes = [(200, 160), (160, 200)]
        scene.distanceRange = 1.8...3
        scene.negativeShare = 0
        let summary = try BoardDatasetGenerator(configuration: scene).generate(into: folder.appendingPathComponent("train"),
                                                                               images: 24, seed: 21)
        let training = try DetectionDataset.load(from: summary.annotationFile)
        let configuration = ObjectDetectorTrainingConfiguration(inputSize: 224, maximumIterations: 150, batchSize: 8,
                                                                viewsPerImage: 2, seed: 5)
        let trained = try ObjectDetectorTrainer.train(training: training, validation: nil, backbone: backbone,
                                                      configuration: configuration)
        var file = trained.modelFile
        file.metadata.summary = "Boards, for the export test"
        let url = folder.appendingPathComponent("board.h5")
        try file.write(to: url)
        return url
    }

    /// `photo` letterboxed into the detector's input as Coach does it: RGB 0…255, planar
    /// [3, H, W], written as raw little-endian float32 to `url`; returns Coach's own encoding of
    /// the photo (NHWC, normalised).
    static func writeLetterboxedInput(of photo: URL, configuration c: DetectorConfiguration, to url: URL) throws -> [Float] {
        let encoding = DetectorInputEncoding(configuration: c)
        let image = try ImageDecoder.decode(contentsOf: photo, options: encoding.decodingOptions).image
        let boxed = try image.letterboxed(width: c.inputWidth, height: c.inputHeight, fillValue: DetectorInputEncoding.mean)
        let pixels = c.inputWidth * c.inputHeight
        var planar = [Float](repeating: 0, count: pixels * 3)
        for pixel in 0..<pixels {
            for channel in 0..<3 { planar[channel * pixels + pixel] = boxed.image.values[pixel * 3 + channel] }
        }
        try planar.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: url)
        return try encoding.encode(image).pixels
    }
}
