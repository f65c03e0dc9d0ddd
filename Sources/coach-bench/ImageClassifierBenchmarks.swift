import CoachData
import CoachModels
import CoachTraining
import Foundation

/// The image classifier beside its peer, scikit-learn's LogisticRegression(C=1) on the same backbone
/// features. `cornhole`: end-to-end training on the cornhole crop set (crops of the boxes of
/// shared/data/cornhole plus background crops; train/ = a seeded 75 % of the photos, test/ = the
/// rest), without the on-disk feature cache, with and without augmentations. `mnist-5k`, `digits`:
/// real image sets that PyPI packages ship, written out by `Peers/image_sets.py`; `orl-faces`, the
/// one set of natural photos among them (40 people, 10 photos each), has 5 of each person's photos
/// to train on and draws of 1, 2 or 3.
enum ImageClassifierBenchmarks {
    /// The sets `run` knows, with the training images per class of the packaged ones and the few
    /// per class their seeded draws take.
    static let packagedSets: [String: (trainingPerClass: Int, shots: [Int])] = [
        "mnist-5k": (165, [2, 5, 10]), "digits": (100, [2, 5, 10]), "orl-faces": (5, [1, 2, 3]),
    ]

    static func run(backbonePath: String, sharedPath: String, peerPython: String? = nil, sets: [String] = ["cornhole"]) throws {
        let unknown = sets.filter { $0 != "cornhole" && packagedSets[$0] == nil }
        guard unknown.isEmpty else {
            print("error: unknown image set(s) \(unknown.joined(separator: ", ")) (known: cornhole, \(packagedSets.keys.sorted().joined(separator: ", ")))")
            return
        }
        let backbone = try Backbone.load(from: URL(fileURLWithPath: backbonePath))
        ComputeThreads.set(ProcessInfo.processInfo.activeProcessorCount)
        if sets.contains("cornhole") { try runCornhole(backbone: backbone, sharedPath: sharedPath, peerPython: peerPython) }
        for name in sets where name != "cornhole" { try runPackaged(name, backbone: backbone, peerPython: peerPython) }
    }

    static func runCornhole(backbone: Backbone, sharedPath: String, peerPython: String?) throws {
        print("== image classifier: end-to-end training on the cornhole crop set (no feature cache)")
        let annotations = URL(fileURLWithPath: sharedPath).appendingPathComponent("data/cornhole/images/annotations.json")
        guard FileManager.default.fileExists(atPath: annotations.path) else {
            print("skipped: \(annotations.path) not found")
            return
        }
        print("threads: \(ComputeThreads.count)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-crops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var exporter = DetectionCropExporter()
        exporter.maximumCropsPerLabelPerPhoto = 1
        let exportStart = Timing.now()
        let summary = try exporter.export(annotations: annotations, to: directory)
        let crops = summary.counts.values.flatMap(\.values).reduce(0, +)
        print("crop set: \(crops) crops from 149 photos written in \(format(Timing.now() - exportStart)) s")
        var coachAccuracy = 0.0
        for augmentations in (ProcessInfo.processInfo.environment["COACH_BENCH_NO_AUGMENT"] != nil ? [[String]()] : [[String](), ["flip", "crop"]]) {
            var configuration = ImageClassifierTrainingConfiguration()
            configuration.augmentations = augmentations
            var extractionSeconds = 0.0, extractionStart: Double?
            let trainer = try ImageClassifierTrainer(configuration: configuration, backbone: backbone, featureCache: nil) { event in
                if case let .progress(_, completed, total, _, _) = event {
                    if completed == 0 { extractionStart = Timing.now() }
                    if completed == total, let start = extractionStart { extractionSeconds = Timing.now() - start }
                }
            }
            let start = Timing.now()
            let result = try trainer.train(data: directory)
            let seconds = Timing.now() - start
            if augmentations.isEmpty { coachAccuracy = result.testMetrics?.accuracy ?? 0 }
            let label = augmentations.isEmpty ? "no augmentation" : "augment \(augmentations.joined(separator: ","))"
            print("\(label): \(format(seconds)) s end to end · \(result.computedViews) image views · "
                  + "\(format(Double(result.computedViews) / seconds, 1)) views/s end to end · "
                  + "extraction \(format(Double(result.computedViews) / max(extractionSeconds, 1e-9), 1)) views/s · "
                  + "head \(result.history.count) iterations · test accuracy \(format((result.testMetrics?.accuracy ?? 0) * 100, 1)) %")
        }
        print("peak memory: \(Timing.peakMemoryMiB().map { format($0, 0) } ?? "?") MiB")
        if let peerPython, hasPeer(peerPython) {
            try comparePeer(directory: directory, backbone: backbone, cache: FeatureCache(directory: directory.appendingPathComponent("few-shot-cache")),
                            python: peerPython, unit: "crops", coachAccuracy: coachAccuracy)
        }
    }

    /// A real image set from the peer Python's packages (`Peers/image_sets.py`): a seeded draw of
    /// `packagedSets[name]` training images per class, the rest tested; Coach with default options
    /// beside the peer, on all those training images and on few of them.
    static func runPackaged(_ name: String, backbone: Backbone, peerPython: String?) throws {
        let (perClass, shots) = packagedSets[name]!
        print("== image classifier: \(name), a real image set from the peer Python's packages (\(perClass) training images per class, the rest tested)")
        guard let python = peerPython, hasPeer(python) else {
            print("skipped: no peer Python at \(peerPython ?? "(none)") (make bench-peers installs the packages that ship the set)")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-\(name)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = peerScript("image_sets.py"), pixels = directory.appendingPathComponent("pixels.u8")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let run = PeerProcess.run(python: python, arguments: [script.path, name, pixels.path, "\(perClass)", "0"]),
              run.status == 0,
              let set = try? JSONDecoder().decode(PackagedSet.self, from: run.output) else {
            print("skipped: \(script.lastPathComponent) could not read \(name) (its error is above)")
            return
        }
        try set.writeFolders(pixels: Data(contentsOf: pixels), to: directory)
        print("set: \(set.train.count) training and \(set.labels.count - set.train.count) test images, \(Set(set.labels).count) classes")
        let cache = FeatureCache(directory: directory.appendingPathComponent("feature-cache"))
        var penalty = "?"
        let trainer = try ImageClassifierTrainer(configuration: ImageClassifierTrainingConfiguration(), backbone: backbone, featureCache: cache) { event in
            if case let .note(text) = event, let range = text.range(of: "L2 penalty ") {
                penalty = String(text[range.upperBound...].prefix { $0 != ")" })
            }
        }
        let start = Timing.now()
        let result = try trainer.train(data: directory)
        let accuracy = result.testMetrics?.accuracy ?? 0
        print("Coach (defaults): test accuracy \(format(accuracy * 100, 1)) % · L2 penalty \(penalty) · \(format(Timing.now() - start, 1)) s end to end")
        try comparePeer(directory: directory, backbone: backbone, cache: cache, python: python, unit: "images",
                        coachAccuracy: accuracy, shots: shots)
    }

    /// What `Peers/image_sets.py` prints about the grey pixels it wrote.
    struct PackagedSet: Decodable {
        var height: Int
        var width: Int
        var labels: [String]
        var train: [Int]

        /// `directory/train/<label>/NNNNN.png` for the training images, `directory/test/…` for the rest.
        func writeFolders(pixels: Data, to directory: URL) throws {
            let size = height * width
            guard pixels.count == labels.count * size else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey:
                    "image_sets.py wrote \(pixels.count) bytes of pixels for \(labels.count) images of \(width)×\(height)"])
            }
            let training = Set(train)
            for (index, label) in labels.enumerated() {
                let folder = directory.appendingPathComponent("\(training.contains(index) ? "train" : "test")/\(label)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let grey = pixels[pixels.startIndex + index * size ..< pixels.startIndex + (index + 1) * size]
                let image = try RGBImage(width: width, height: height, pixels: grey.flatMap { [$0, $0, $0] })
                try image.writePNG(to: folder.appendingPathComponent(String(format: "%05d.png", index)))
            }
        }
    }

    static func hasPeer(_ python: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("note: no peer Python at \(python) (make bench-peers installs scikit-learn there): peer skipped")
            return false
        }
        return true
    }

    static func peerScript(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/\(name)")
    }

    /// Every image's features in the two layer sets the comparisons read: Coach's default 1,392
    /// and their first 1,280, the head's (as the issue's scikit-learn script reads them).
    struct PeerFeatures {
        var files: [URL] = []
        var labels: [String] = []
        var index: [URL: Int] = [:]
        /// Row-major [files.count, 1,392].
        var values: [Float] = []
        static let width = ImageFeatureLayers.headAndStride16.width

        init(directory: URL, backbone: Backbone) throws {
            let extractor = ImageFeatureExtractor(backbone: backbone, layers: .headAndStride16)
            for split in ["train", "test"] {
                for file in try LabeledImageFolder.read(directory.appendingPathComponent(split)).images {
                    index[file.url] = files.count
                    files.append(file.url)
                    labels.append(file.label)
                    values += try extractor.features(for: [ImageDecoder.decode(contentsOf: file.url).image]).scalars
                }
            }
        }
    }

    /// One fit of the peer: the rows it trains on and the rows it is scored on.
    struct PeerJob { var train: [LabeledImageFile]; var test: [LabeledImageFile] }

    /// Runs `Peers/image_peer.py` once on `layers` of `features` for every job; their accuracies and
    /// fitting seconds in order, or nil (with a note) when it failed.
    static func peerAccuracies(python: String, features: PeerFeatures, layers: ImageFeatureLayers, jobs: [PeerJob],
                               in directory: URL) throws -> (accuracies: [Double], seconds: [Double])? {
        let width = layers.width
        var matrix = [Float]()
        matrix.reserveCapacity(features.files.count * width)
        for row in 0..<features.files.count {
            matrix += features.values[row * PeerFeatures.width ..< row * PeerFeatures.width + width]
        }
        let matrixFile = directory.appendingPathComponent("features-\(width).f32")
        try matrix.withUnsafeBytes { Data($0) }.write(to: matrixFile)
        let spec: [String: Any] = [
            "features": matrixFile.path, "width": width, "labels": features.labels,
            "jobs": jobs.map { job in ["train": job.train.map { features.index[$0.url]! }, "test": job.test.map { features.index[$0.url]! }] },
        ]
        let specFile = directory.appendingPathComponent("peer-jobs.json")
        try JSONSerialization.data(withJSONObject: spec).write(to: specFile)
        let run = PeerProcess.run(python: python, arguments: [peerScript("image_peer.py").path, specFile.path])
        guard let run, run.status == 0,
              let object = try? JSONSerialization.jsonObject(with: run.output) as? [String: Any],
              let accuracies = object["accuracies"] as? [Double], accuracies.count == jobs.count,
              let seconds = object["seconds"] as? [Double], seconds.count == jobs.count else {
            print("note: the image peer script failed (exit \(run.map { String($0.status) } ?? "not started"))")
            return nil
        }
        return (accuracies, seconds)
    }

    /// Few training images, where the choice of the L2 penalty matters: for each of `shots`
    /// images per class, `draws` seeded draws from the training images; Coach (defaults, its
    /// penalty chosen by cross-validation) and LogisticRegression(C=1) on the same features of
    /// the same draw, both scored on the whole test split. Before them, the peer on all the
    /// training images beside Coach's `coachAccuracy` there.
    static func comparePeer(directory: URL, backbone: Backbone, cache: FeatureCache, python: String, unit: String,
                            coachAccuracy: Double, shots: [Int] = [2, 5, 10], draws: Int = 10) throws {
        let features = try PeerFeatures(directory: directory, backbone: backbone)
        let training = try LabeledImageFolder.read(directory.appendingPathComponent("train"))
        let test = try LabeledImageFolder.read(directory.appendingPathComponent("test"))
        var jobs = [PeerJob(train: training.images, test: test.images)]
        var coach: [Double] = [], coachSeconds: [Double] = []
        for shot in shots {
            for draw in 0..<draws {
                var generator = SeededGenerator(seed: UInt64(1000 * shot + draw))
                let chosen = training.labels.flatMap { label in
                    generator.shuffled(training.images.filter { $0.label == label }).prefix(shot)
                }
                let root = directory.appendingPathComponent("few-shot-\(shot)-\(draw)")
                defer { try? FileManager.default.removeItem(at: root) }
                for file in chosen {
                    let folder = root.appendingPathComponent("train/\(file.label)")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try FileManager.default.linkItem(at: file.url, to: folder.appendingPathComponent(file.url.lastPathComponent))  // the image reader skips links out of a class folder
                }
                try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("test"),
                                                           withDestinationURL: directory.appendingPathComponent("test"))
                var configuration = ImageClassifierTrainingConfiguration()
                if let names = ProcessInfo.processInfo.environment["COACH_BENCH_FEW_SHOT_AUGMENT"] {
                    configuration.augmentations = names.split(separator: ",").map(String.init)
                }
                let start = Timing.now()
                let result = try ImageClassifierTrainer(configuration: configuration, backbone: backbone, featureCache: cache).train(data: root)
                coachSeconds.append(Timing.now() - start)
                coach.append(result.testMetrics?.accuracy ?? 0)
                jobs.append(PeerJob(train: chosen, test: test.images))
            }
        }
        var peers: [ImageFeatureLayers: [Double]] = [:], peerSeconds: [Double] = []
        for layers in ImageFeatureLayers.allCases {
            guard let run = try peerAccuracies(python: python, features: features, layers: layers, jobs: jobs, in: directory) else { return }
            peers[layers] = run.accuracies
            if layers == .head { peerSeconds = run.seconds }
        }
        print("LogisticRegression(C=1) fit in \(format(peerSeconds[0], 1)) s on all the training \(unit) (the head's features; "
              + "Coach's seconds above include extracting the features)")
        for layers in ImageFeatureLayers.allCases {
            let accuracy = peers[layers]![0]
            print("\(layers == .head ? "the head's 1,280 features" : "Coach's 1,392 features (head+stride16)"), scikit-learn LogisticRegression(C=1): test accuracy \(format(accuracy * 100, 1)) % · "
                  + "Coach (defaults, no augmentation) \(format(coachAccuracy * 100, 1)) % · ratio \(format(coachAccuracy / max(accuracy, 1e-9), 3))")
        }
        print("few training \(unit) per class (\(draws) seeded draws each; test: all \(test.images.count) test \(unit)):")
        func mean(_ values: ArraySlice<Double>) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }
        for (position, shot) in shots.enumerated() {
            let range = position * draws ..< (position + 1) * draws
            let fewSeconds = "seconds per model, features cached: Coach \(format(mean(coachSeconds[range]), 1)), "
                + "LogisticRegression(C=1) \(format(mean(peerSeconds[(range.lowerBound + 1)...].prefix(draws)), 2))"
            let coachDraws = coach[range], peerDraws = peers[.head]![(range.lowerBound + 1)...].prefix(draws)
            let meanCoach = mean(coachDraws), meanPeer = mean(peerDraws)
            let wins = zip(coachDraws, peerDraws).filter { $0 > $1 }.count, losses = zip(coachDraws, peerDraws).filter { $0 < $1 }.count
            print("  \(shot) per class: Coach \(format(meanCoach * 100, 1)) % · LogisticRegression(C=1) \(format(meanPeer * 100, 1)) % · "
                  + "ratio \(format(meanCoach / max(meanPeer, 1e-9), 3)) · Coach ahead on \(wins), behind on \(losses) of \(draws) draws · "
                  + "LogisticRegression(C=1) on Coach's 1,392 features \(format(mean(peers[.headAndStride16]![(range.lowerBound + 1)...].prefix(draws)) * 100, 1)) % · "
                  + fewSeconds)
        }
    }
}
