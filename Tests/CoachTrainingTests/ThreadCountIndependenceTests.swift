import CoachData
import CoachModels
import CoachRandom
import CoachTraining
import CoachTensor
import Foundation
import TestSupport
import XCTest

/// A job's ranks run with fewer threads than a single process (issue 18: `mpirun -np 1` must give a
/// plain run's model bytes), so training must not depend on the thread count: the detector's cached
/// views and the head trained on them, at one thread and at three.
final class ThreadCountIndependenceTests: XCTestCase {
    override func tearDown() {
        ComputeThreads.set(ComputeThreads.defaultCount())
        super.tearDown()
    }

    func testDetectorViewsAndHeadDoNotDependOnTheThreadCount() throws {
        let annotations = try SharedData.require("data/cornhole/images/annotations.json")
        let backbone = try BackboneFixture.load()
        var dataset = try DetectionDataset.load(from: annotations)
        dataset.images = Array(dataset.images.prefix(12))
        var configuration = ObjectDetectorTrainingConfiguration(seed: 3)
        configuration.maximumIterations = 6
        configuration.viewsPerImage = 2
        let folder = try temporaryDirectory(self)
        var runs: [(views: ObjectDetectorTrainer.CachedViews, model: Data)] = []
        for threads in [1, 3] {
            ComputeThreads.set(threads)
            let views = try ObjectDetectorTrainer.cacheViews(training: dataset, validation: nil, backbone: backbone,
                                                             configuration: configuration)
            let trained = try ObjectDetectorTrainer.train(training: dataset, validation: nil, backbone: backbone,
                                                          configuration: configuration, cachedViews: views)
            let url = folder.appendingPathComponent("\(threads)").appendingPathComponent("detector.h5")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try trained.modelFile.write(to: url)
            runs.append((views, try Data(contentsOf: url)))
        }
        XCTAssertEqual(runs[0].views.training.count, 24)
        for (a, b) in zip(runs[0].views.training, runs[1].views.training) {
            XCTAssertEqual(a.maps.stride32, b.maps.stride32, "image \(a.imageIndex) view \(a.viewIndex): stride-32 maps")
            XCTAssertEqual(a.maps.stride16, b.maps.stride16, "image \(a.imageIndex) view \(a.viewIndex): stride-16 maps")
            XCTAssertEqual(a.target, b.target)
        }
        XCTAssertEqual(runs[0].model, runs[1].model, "the trained detector's bytes differ between 1 and 3 threads")
    }
}
