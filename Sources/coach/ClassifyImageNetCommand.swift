import ArgumentParser
import CoachData
import CoachModels
import Foundation

/// `coach classify-imagenet IMAGE…`: the pretrained backbone's own 1000-class predictions.
struct ClassifyImageNetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify-imagenet",
        abstract: "Label photos with the pretrained backbone's 1000 ImageNet classes.",
        discussion: """
        A quick check that the backbone works: each image is decoded (JPEG or PNG, EXIF
        orientation applied), resized so its short side is 256 px, centre-cropped to
        224, and run through EfficientNet-Lite0.

        Examples:
          coach classify-imagenet cat.jpg
          coach classify-imagenet photos/*.jpg --top 3 --json
        """)

    @Argument(help: "JPEG or PNG images.")
    var images: [String]

    @Option(parsing: .unconditional, help: "How many labels to show per image.")
    var top: Int = 5

    @Option(help: ArgumentHelp(backboneOptionHelp))
    var backbone: String?

    @Flag(help: "Print JSON: one object per image, in an array when there are several.")
    var json = false

    func validate() throws {
        if images.isEmpty { throw ValidationError("give at least one image") }
        if top < 1 || top > 1000 { throw ValidationError("--top must be between 1 and 1000") }
    }

    struct Prediction: Encodable {
        let `class`: Int
        let label: String
        let probability: Double
    }

    struct ImageResult: Encodable {
        let image: String
        let predictions: [Prediction]
    }

    func run() throws {
        try reportingErrors {
            let backbone = try Backbone.load(from: try locateBackbone(backbone))
            var results: [ImageResult] = []
            var failures = 0
            for path in images {
                do {
                    let input = try Backbone.preprocessFile(URL(fileURLWithPath: path))
                    let logits = backbone.network.logits(features: backbone.network.features(input))
                    let probabilities = logits.softmax().scalars
                    let best = probabilities.enumerated().sorted { $0.element > $1.element }.prefix(top)
                    results.append(ImageResult(image: path, predictions: best.map {
                        Prediction(class: $0.offset, label: ImageNetClasses.labels[$0.offset],
                                   probability: (Double($0.element) * 1e4).rounded() / 1e4)
                    }))
                } catch {
                    failures += 1
                    Console.error((error as? LocalizedError)?.errorDescription ?? "\(path): \(error)")
                }
            }
            if json {
                if results.count == 1 && images.count == 1 { try Console.printJSON(results[0]) } else { try Console.printJSON(results) }
            } else {
                for r in results {
                    Console.print(r.image)
                    for p in r.predictions {
                        Console.print("  \(String(format: "%6.2f%%", p.probability * 100))  \(p.label) (class \(p.class))")
                    }
                }
            }
            if failures > 0 { throw ExitCode.failure }
        }
    }
}

/// The backbone file: the one given, else Coach's default location, else a clear error.
func locateBackbone(_ path: String?) throws -> URL {
    if let path { return URL(fileURLWithPath: path) }
    if let url = Backbone.defaultLocation() { return url }
    throw BackboneError.notFound(searched: "$COACH_BACKBONE, ./models/\(Backbone.defaultFileName) and beside the coach executable")
}
