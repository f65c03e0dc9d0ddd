import CoachRandom
import Foundation

/// Turns an object-detection dataset (Create ML annotation JSON, FORMATS §2) into an
/// image-classification dataset (FORMATS §1): each annotated box becomes a crop in its
/// label's folder, plus random background crops that overlap no box, with a seeded split
/// by photo so no photo feeds both sides.
///
/// Used to check the image classifier on real photos (and by `coach-bench`).
public struct DetectionCropExporter {
    /// The seeded fraction of photos whose crops go to `train/` (the rest go to `test/`).
    public var trainingFraction: Double = 0.75
    /// Background crops taken per photo (label `backgroundLabel`).
    public var backgroundCropsPerPhoto: Int = 1
    /// At most this many crops of one label from one photo (nil: all).
    public var maximumCropsPerLabelPerPhoto: Int? = nil
    /// The label of background crops.
    public var backgroundLabel: String = "background"
    /// The seed of the photo split and the background crops.
    public var seed: UInt64 = 0

    /// An exporter with the defaults (75 % of photos for training, one background crop each).
    public init() {}

    /// What was written.
    public struct Summary: Equatable, Sendable {
        /// Photos whose crops went to `train/`.
        public var trainingPhotos: [String]
        /// Photos whose crops went to `test/`.
        public var testPhotos: [String]
        /// Crops written per split (`train`, `test`) and label.
        public var counts: [String: [String: Int]]
    }

    private struct Entry: Decodable {
        struct Annotation: Decodable {
            struct Coordinates: Decodable { var x, y, width, height: Double }
            var label: String
            var coordinates: Coordinates
        }
        var image: String
        var annotations: [Annotation]
    }

    /// Reads `annotations` (images relative to its folder, or absolute paths) and writes JPEG crops (quality 95) to
    /// `output/train/<label>/…` and `output/test/<label>/…`.
    public func export(annotations: URL, to output: URL) throws -> Summary {
        let data: Data
        do { data = try Data(contentsOf: annotations) } catch {
            throw ImageError.unreadableFile(path: annotations.path, reason: error.localizedDescription)
        }
        let entries: [Entry]
        do { entries = try JSONDecoder().decode([Entry].self, from: data) } catch {
            throw ImageError.invalidArgument("\(annotations.path): not a Create ML annotation file: \(error)")
        }
        let folder = annotations.deletingLastPathComponent()
        var generator = SeededGenerator(seed: seed)
        var order = entries.map(\.image).sorted()
        generator.shuffle(&order)
        let trainingCount = Int((Double(order.count) * trainingFraction).rounded())
        let trainingPhotos = Set(order.prefix(trainingCount))
        var counts: [String: [String: Int]] = [:]
        for entry in entries.sorted(by: { $0.image < $1.image }) {
            var photoGenerator = generator.fork()
            let split = trainingPhotos.contains(entry.image) ? "train" : "test"
            // Absolute image paths are read where they are, as the Create ML reader does.
            let absolute = entry.image.hasPrefix("/")
            let image = try ImageDecoder.decode(contentsOf: absolute ? URL(fileURLWithPath: entry.image)
                                                                     : folder.appendingPathComponent(entry.image)).image
            let name = absolute ? (entry.image as NSString).lastPathComponent : entry.image
            let stem = (name as NSString).deletingPathExtension.replacingOccurrences(of: "/", with: "_")
            let boxes = entry.annotations.map {
                BoundingBox(centerX: $0.coordinates.x, centerY: $0.coordinates.y, width: $0.coordinates.width, height: $0.coordinates.height)
            }
            var perLabel: [String: Int] = [:]
            for (index, annotation) in entry.annotations.enumerated() {
                let taken = perLabel[annotation.label, default: 0]
                if let limit = maximumCropsPerLabelPerPhoto, taken >= limit { continue }
                guard let crop = try Self.crop(image, box: boxes[index]) else { continue }
                perLabel[annotation.label] = taken + 1
                try write(crop, to: output, split: split, label: annotation.label, name: "\(stem)_\(index).jpg", counts: &counts)
            }
            let sides = boxes.map { min($0.width, $0.height) }.filter { $0 > 8 }
            for index in 0..<backgroundCropsPerPhoto {
                if let box = Self.backgroundBox(avoiding: boxes, typicalSides: sides, width: image.width, height: image.height,
                                                generator: &photoGenerator),
                   let crop = try Self.crop(image, box: box) {
                    try write(crop, to: output, split: split, label: backgroundLabel, name: "\(stem)_bg\(index).jpg", counts: &counts)
                }
            }
        }
        return Summary(trainingPhotos: order.prefix(trainingCount).sorted(), testPhotos: order.dropFirst(trainingCount).sorted(),
                       counts: counts)
    }

    private func write(_ image: RGBImage, to output: URL, split: String, label: String, name: String,
                       counts: inout [String: [String: Int]]) throws {
        let directory = output.appendingPathComponent(split).appendingPathComponent(label)
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw ImageError.encodingFailed(path: directory.path, reason: error.localizedDescription)
        }
        try image.writeJPEG(to: directory.appendingPathComponent(name), quality: 95)
        counts[split, default: [:]][label, default: 0] += 1
    }

    /// The pixels inside `box` (edges rounded outwards, clipped), or nil when under 2 pixels a side.
    static func crop(_ image: RGBImage, box: BoundingBox) throws -> RGBImage? {
        guard let clipped = box.clipped(width: image.width, height: image.height) else { return nil }
        let x0 = Int(clipped.minX.rounded(.down)), y0 = Int(clipped.minY.rounded(.down))
        let x1 = min(image.width, Int(clipped.maxX.rounded(.up))), y1 = min(image.height, Int(clipped.maxY.rounded(.up)))
        guard x1 - x0 >= 2, y1 - y0 >= 2 else { return nil }
        return try image.cropped(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// A random square-ish box of a typical object size that overlaps none of `boxes`, or nil after 100 tries.
    static func backgroundBox(avoiding boxes: [BoundingBox], typicalSides: [Double], width: Int, height: Int,
                              generator: inout SeededGenerator) -> BoundingBox? {
        let sides = typicalSides.isEmpty ? [Double(min(width, height)) / 4] : typicalSides
        for _ in 0..<100 {
            let side = sides[generator.nextInt(below: sides.count)] * Double(generator.nextUniform(0.7, 1.3))
            let aspect = Double(generator.nextUniform(0.8, 1.25))
            let boxWidth = min(Double(width), side * aspect), boxHeight = min(Double(height), side / aspect)
            let x = Double(generator.nextUniform()) * (Double(width) - boxWidth)
            let y = Double(generator.nextUniform()) * (Double(height) - boxHeight)
            let candidate = BoundingBox(minX: x.rounded(.down), minY: y.rounded(.down),
                                        maxX: (x + boxWidth).rounded(.up), maxY: (y + boxHeight).rounded(.up))
            if boxes.allSatisfy({ $0.intersection(candidate) == nil }) { return candidate }
        }
        return nil
    }
}
