import CoachRandom
import Foundation

/// What a generated board dataset contains.
public struct BoardDatasetSummary: Equatable, Sendable {
    /// The folder holding the pictures and `annotations.json`.
    public var directory: URL
    /// The Create ML annotation file.
    public var annotationFile: URL
    /// Picture file names, in order.
    public var imageFiles: [String]
    /// Boxes per label (`board`, `hole`, `red_bag`, `blue_bag`).
    public var objectsPerLabel: [String: Int]
    /// Pictures without any box.
    public var negativeCount: Int
}

/// Generates photos of a cornhole board — the board with its hole in varied perspective,
/// scale and lighting on varied grounds, with red and blue bags on and around it — and
/// their Create ML annotation JSON (FORMATS §2, labels `board`, `hole`, `red_bag`,
/// `blue_bag`): the sample data of the board-detector demo. Everything follows from the seed;
/// picture `i` depends only on (seed, i).
///
/// ```swift
/// let summary = try BoardDatasetGenerator().generate(into: folder, images: 150, seed: 1)
/// // folder/annotations.json + folder/0001.jpg …
/// ```
public struct BoardDatasetGenerator: Sendable {
    /// The scenes' knobs.
    public var configuration: BoardSceneConfiguration

    /// The labels the generator uses, sorted.
    public static let labels = ["blue_bag", "board", "hole", "red_bag"]

    /// A generator with `configuration`.
    public init(configuration: BoardSceneConfiguration = BoardSceneConfiguration()) {
        self.configuration = configuration
    }

    /// Scene `index` of the dataset drawn from `seed`.
    public func scene(index: Int, seed: UInt64) -> BoardScene {
        var generator = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(index + 1) &* 0xD1B5_4A32_D192_ED03)
        return BoardScene.random(configuration: configuration, using: &generator)
    }

    /// The rendered picture of `scene` and its annotations (pixels, origin top-left):
    /// objects at least `minimumVisibleFraction` visible, boxes clipped to the picture.
    public func render(_ scene: BoardScene) -> (image: RGBImage, objects: [ObjectAnnotation]) {
        let output = BoardSceneRenderer(scene: scene, supersampling: configuration.supersampling).render()
        var objects: [ObjectAnnotation] = []
        guard scene.hasBoard else { return (output.image, []) }
        var candidates: [(BoardSceneObject, String)] = [(.board, "board"), (.hole, "hole")]
        for (index, bag) in scene.bags.enumerated() { candidates.append((.bag(index), bag.isRed ? "red_bag" : "blue_bag")) }
        let samplesPerPixel = Double(max(1, configuration.supersampling) * max(1, configuration.supersampling))
        for (object, label) in candidates {
            let points = scene.outline(of: object).compactMap { scene.camera.project($0) }
            guard points.count == scene.outline(of: object).count else { continue }
            var area = 0.0
            for k in points.indices {
                let a = points[k], b = points[(k + 1) % points.count]
                area += a.x * b.y - b.x * a.y
            }
            area = abs(area) / 2
            guard area > 0 else { continue }
            let visible = Double(output.visibleSamples[object] ?? 0) / samplesPerPixel
            guard visible / area >= configuration.minimumVisibleFraction else { continue }
            let box = BoundingBox(minX: points.map(\.x).min()!, minY: points.map(\.y).min()!,
                                  maxX: points.map(\.x).max()!, maxY: points.map(\.y).max()!)
            guard let clipped = box.clipped(width: scene.width, height: scene.height),
                  clipped.width >= 4, clipped.height >= 4 else { continue }
            objects.append(ObjectAnnotation(label: label, box: clipped))
        }
        return (output.image, objects)
    }

    /// Writes `images` pictures (`0001.jpg` …) and `annotations.json` into `directory`.
    public func generate(into directory: URL, images: Int, seed: UInt64) throws -> BoardDatasetSummary {
        var problems = configuration.problems()
        if images < 1 { problems.append("images is \(images); expected at least 1") }
        if !problems.isEmpty { throw SyntheticDataError.invalidConfiguration(problems: problems) }
        try SyntheticFileWriting.createDirectory(directory)
        let digits = max(4, String(images).count)
        var files: [String] = [], counts: [String: Int] = [:], negatives = 0
        var json = "[\n"
        for index in 0..<images {
            let (image, objects) = render(scene(index: index, seed: seed))
            let name = String(repeating: "0", count: max(0, digits - String(index + 1).count)) + "\(index + 1).jpg"
            let data: Data
            do {
                data = try ImageEncoder.jpegData(image, quality: configuration.jpegQuality)
            } catch {
                throw SyntheticDataError.cannotWrite(path: directory.appendingPathComponent(name).path, reason: error.localizedDescription)
            }
            try SyntheticFileWriting.write([UInt8](data), to: directory.appendingPathComponent(name))
            files.append(name)
            if objects.isEmpty { negatives += 1 }
            let entries = objects.map { object -> String in
                counts[object.label, default: 0] += 1
                let b = object.box
                return "{\"label\": \"\(object.label)\", \"coordinates\": {\"x\": \(Self.number(b.centerX)), \"y\": \(Self.number(b.centerY)), "
                    + "\"width\": \(Self.number(b.width)), \"height\": \(Self.number(b.height))}}"
            }
            json += "  {\"image\": \"\(name)\", \"annotations\": [" + entries.joined(separator: ", ") + "]}"
            json += index + 1 < images ? ",\n" : "\n"
        }
        json += "]\n"
        let annotationFile = directory.appendingPathComponent("annotations.json")
        try SyntheticFileWriting.write(Array(json.utf8), to: annotationFile)
        return BoardDatasetSummary(directory: directory, annotationFile: annotationFile, imageFiles: files,
                                   objectsPerLabel: counts, negativeCount: negatives)
    }

    /// A training set in `directory/train` and a test set in `directory/test`, from
    /// independent streams of the seed (no scene is shared).
    public func generateSplits(into directory: URL, trainingImages: Int, testImages: Int,
                               seed: UInt64) throws -> (training: BoardDatasetSummary, test: BoardDatasetSummary) {
        let training = try generate(into: directory.appendingPathComponent("train"), images: trainingImages, seed: seed)
        let test = try generate(into: directory.appendingPathComponent("test"), images: testImages,
                                seed: seed ^ 0x7E57_7E57_7E57_7E57)
        return (training, test)
    }

    /// A pixel value with one decimal.
    static func number(_ value: Double) -> String { String(format: "%.1f", value) }
}
