import CoachData
import CoachModels
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// Shared fixtures for the image-classifier tests: the cornhole crop set and a feature
/// cache that lives in `.build/` so every test process (and re-run) reuses the features.
enum ImageClassifierFixtures {
    /// A feature cache shared by all test processes (entries are keyed by content, so it can never be stale).
    static var featureCache: FeatureCache {
        FeatureCache(directory: SharedData.repositoryRoot.appendingPathComponent(".build/test-cache/features"))
    }

    /// Writes the cornhole crop set (train/ = crops of a seeded 75 % of the photos, test/ = the rest)
    /// into `directory`; skips when the shared data is absent.
    static func cornholeCrops(in directory: URL, seed: UInt64 = 0) throws -> DetectionCropExporter.Summary {
        let annotations = try SharedData.require("data/cornhole/images/annotations.json")
        var exporter = DetectionCropExporter()
        exporter.seed = seed
        exporter.maximumCropsPerLabelPerPhoto = 1
        exporter.backgroundCropsPerPhoto = 1
        return try exporter.export(annotations: annotations, to: directory)
    }

    /// Writes `count` PNGs of `color` (with a little seeded variation) into `directory/label`.
    static func writeSolidImages(label: String, color: RGBColor, count: Int, in directory: URL, size: Int = 64) throws {
        let folder = directory.appendingPathComponent(label)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<count {
            var image = RGBImage(width: size, height: size, color: color)
            // A small square whose position varies, so the files differ.
            for y in 0..<8 { for x in 0..<8 { image[(index * 5 + x) % size, (index * 3 + y) % size] = .white } }
            try image.writePNG(to: folder.appendingPathComponent("\(label)-\(index).png"))
        }
    }
}
