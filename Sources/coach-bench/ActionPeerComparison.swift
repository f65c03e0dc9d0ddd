import CoachData
import CoachModels
import CoachRandom
import CoachSamples
import CoachTraining
import Foundation

/// Coach's action classifier beside its peers on the real pose data, in one run, on the same
/// splits (`--only action-peers`): aeon's MiniRocket and MultiRocket classifiers (10,000 kernels,
/// every clip resampled to one length, `Peers/action_peers.py` in the bench venv) against Coach
/// with default options, plus Coach's two ensemble members alone (the network, the
/// random-convolution head) to show what each brings.
enum ActionPeerComparison {
    struct Split {
        var name: String
        var dataset: PoseDataset
        var training: [Int]
        var test: [Int]
        var windowLength: Int
        /// The test examples' dataset when it is not `dataset` (a separate test set).
        var testDataset: PoseDataset? = nil
        /// Validation segments of their own (`--validation-data`), instead of a held-out fraction.
        var validation: [PoseExample]? = nil

        var evaluationDataset: PoseDataset { testDataset ?? dataset }

        /// Every segment of `training` trains and every segment of `test` (clips of other
        /// people) is scored, in 45-frame windows.
        static func apart(_ name: String, training: PoseDataset, test: PoseDataset) -> Split {
            Split(name: name, dataset: training, training: Array(training.examples.indices),
                  test: Array(test.examples.indices), windowLength: 45, testDataset: test)
        }
    }

    struct Scores {
        var ensemble = 0.0, network = 0.0, head = 0.0, equalShares = 0.0, quarterShares = 0.0, threeQuarterShares = 0.0, lowestLossShares = 0.0, arithmetic = 0.0, seconds = 0.0, firstMember = 0.0, secondMember = 0.0
        var minirocket = 0.0, multirocket = 0.0, peerSeconds = 0.0
        var weights: [[Float]] = [], lowestLossWeights: [Float?] = []
    }

    static func splits(sharedPath: String, sets: Set<String> = ["natops", "fingertips", "throws"]) throws -> [(String, [Split])] {
        var result: [(String, [Split])] = []
        let natopsURL = URL(fileURLWithPath: sharedPath + "/data/natops/train")
        if sets.contains("natops"), FileManager.default.fileExists(atPath: natopsURL.path) {
            let natops = try PoseDataset.load(natopsURL)
            var generator = SeededGenerator(seed: 7)
            let folds = PoseDatasetSplit.stratifiedFolds(labels: natops.exampleLabels, foldCount: 5, generator: &generator)
            result.append(("NATOPS, 5 stratified folds of the 180 training clips", folds.enumerated().map { index, fold in
                Split(name: "NATOPS fold \(index + 1)", dataset: natops, training: fold.trainIndices, test: fold.testIndices,
                      windowLength: 45)
            }))
        }
        // NATOPS records no person or session, but its clips' first frames fall into two clusters
        // (`startingPoseSplit`): 36 clips, five to seven of each class, start in a rest pose of
        // their own — most likely another person or session. natops-apart trains on the other 144
        // and tests on those 36; natops-apart-few trains on the 36 and tests on the 144.
        for (set, reversed) in [("natops-apart", false), ("natops-apart-few", true)]
            where sets.contains(set) && FileManager.default.fileExists(atPath: natopsURL.path) {
            let natops = try PoseDataset.load(natopsURL)
            guard let split = natops.startingPoseSplit() else { continue }
            let (training, test) = reversed ? (split.testIndices, split.trainIndices) : (split.trainIndices, split.testIndices)
            let title = reversed
                ? "NATOPS, trained on the \(training.count) clips of one starting pose (another person or session), tested on the other \(test.count)"
                : "NATOPS, tested on the \(test.count) clips of another starting pose (another person or session), trained on the other \(training.count)"
            result.append((title, [Split(name: set, dataset: natops, training: training, test: test, windowLength: 45)]))
        }
        if sets.contains("natops-small"), FileManager.default.fileExists(atPath: natopsURL.path) {
            // Few clips per class: two folds (72 clips, 12 per class) train, the other three test.
            let natops = try PoseDataset.load(natopsURL)
            var generator = SeededGenerator(seed: 7)
            let folds = PoseDatasetSplit.stratifiedFolds(labels: natops.exampleLabels, foldCount: 5, generator: &generator)
            result.append(("NATOPS, 12 clips per class: 2 of the 5 folds train, 3 test", folds.indices.map { index in
                let next = (index + 1) % folds.count
                let training = (folds[index].testIndices + folds[next].testIndices).sorted()
                let held = Set(training)
                return Split(name: "small NATOPS \(index + 1)", dataset: natops, training: training,
                             test: natops.examples.indices.filter { !held.contains($0) }, windowLength: 45)
            }))
        }
        for (set, speed, title) in [("natops-slow", 0.5, "NATOPS at half speed (102 frames at 30 fps: each gesture outlasts the window)"),
                                    ("natops-fast", 2.0, "NATOPS at double speed (26 frames at 30 fps: every clip shorter than the window)"),
                                    ("natops-tempo", 0, "NATOPS, each clip at its own speed (0.67–1.5×, as people keep their own tempo)")]
            where sets.contains(set) && FileManager.default.fileExists(atPath: natopsURL.path) {
            let natops = try PoseDataset.load(natopsURL)
            var tempo = SeededGenerator(seed: 13)
            let retimed = PoseDataset(jointSet: natops.jointSet, hasDepth: natops.hasDepth, clips: natops.clips.map { clip in
                // natops-tempo: a log-uniform speed per clip; the others: one speed for all.
                let speed = speed > 0 ? speed : Foundation.exp(Foundation.log(1.5) * (2 * tempo.nextDouble() - 1))
                var sequence = clip.sequence
                sequence.frames = sequence.frames.map { PoseFrame(time: $0.time / speed, keypoints: $0.keypoints) }
                sequence.nominalFrameRate = sequence.nominalFrameRate.map { $0 * speed }
                return LabeledPoseClip(sequence: sequence, segments: clip.segments)
            })
            var generator = SeededGenerator(seed: 7)
            let folds = PoseDatasetSplit.stratifiedFolds(labels: retimed.exampleLabels, foldCount: 5, generator: &generator)
            result.append(("\(title), the same 5 folds", folds.enumerated().map { index, fold in
                Split(name: "\(set) fold \(index + 1)", dataset: retimed, training: fold.trainIndices, test: fold.testIndices,
                      windowLength: 45)
            }))
        }
        // NATOPS as a 2-D pose detector on video would give it: z dropped (natops-2d), and in
        // natops-occluded about a quarter of the joints' positions undetected as well — some joints
        // for the whole clip (out of frame), some for a stretch (hidden behind the body), some in
        // single frames (missed detections) — the way the peers' 2-D sports sets come.
        for (set, title) in [("natops-2d", "NATOPS in 2-D (z dropped)"),
                             ("natops-occluded", "NATOPS in 2-D with about a quarter of the joint positions undetected"),
                             ("natops-missed", "NATOPS in 2-D with single frames of joints undetected")]
            where sets.contains(set) && FileManager.default.fileExists(atPath: natopsURL.path) {
            let natops = try PoseDataset.load(natopsURL)
            var hiding = SeededGenerator(seed: 17)
            var hidden = 0, total = 0
            let flat = PoseDataset(jointSet: natops.jointSet, hasDepth: false, clips: natops.clips.map { clip in
                var sequence = clip.sequence
                sequence.hasDepth = false
                let count = sequence.frames.count
                var missing = [[Bool]](repeating: [Bool](repeating: false, count: count), count: natops.jointSet.count)
                if set == "natops-occluded" {
                    for joint in missing.indices {
                        let draw = hiding.nextDouble()
                        if draw < 0.1 {
                            missing[joint] = missing[joint].map { _ in true }
                        } else if draw < 0.4 {
                            let length = Int(Double(count) * (0.2 + 0.4 * hiding.nextDouble()))
                            let start = Int(hiding.nextDouble() * Double(count - length + 1))
                            for frame in start..<min(count, start + length) { missing[joint][frame] = true }
                        }
                        for frame in 0..<count where hiding.nextDouble() < 0.05 { missing[joint][frame] = true }
                    }
                } else if set == "natops-missed" {
                    // A detector that now and then misses a joint for a frame or two.
                    for joint in missing.indices {
                        for frame in 0..<count where hiding.nextDouble() < 0.03 {
                            for missed in frame..<min(count, frame + 1 + Int(hiding.nextDouble() * 2)) { missing[joint][missed] = true }
                        }
                    }
                }
                sequence.frames = sequence.frames.enumerated().map { index, frame in
                    PoseFrame(time: frame.time, keypoints: frame.keypoints.enumerated().map { joint, keypoint in
                        guard let keypoint else { return nil }
                        total += 1
                        if missing[joint][index] { hidden += 1; return nil }
                        return Keypoint(x: keypoint.x, y: keypoint.y, confidence: keypoint.confidence)
                    })
                }
                return LabeledPoseClip(sequence: sequence, segments: clip.segments)
            })
            var generator = SeededGenerator(seed: 7)
            let folds = PoseDatasetSplit.stratifiedFolds(labels: flat.exampleLabels, foldCount: 5, generator: &generator)
            let share = total > 0 ? 100 * Double(hidden) / Double(total) : 0
            result.append(("\(title) (\(String(format: "%.1f", share)) % hidden), the same 5 folds", folds.enumerated().map { index, fold in
                Split(name: "\(set) fold \(index + 1)", dataset: flat, training: fold.trainIndices, test: fold.testIndices,
                      windowLength: 45)
            }))
        }
        if !FileManager.default.fileExists(atPath: natopsURL.path), !sets.filter({ $0.hasPrefix("natops") }).isEmpty {
            print("note: \(natopsURL.path) is missing: NATOPS skipped (set --shared or COACH_SHARED)")
        }
        let tracksURL = URL(fileURLWithPath: sharedPath + "/data/hand-gestures/fingertip-tracks.csv")
        if sets.contains("fingertips"), FileManager.default.fileExists(atPath: tracksURL.path) {
            let tracks = try PoseDataset.load(tracksURL)
            let block = tracks.blockSplit()
            result.append(("fingertip tracks, last 25% of each class held out (16-frame windows)", [
                Split(name: "fingertips", dataset: tracks, training: block.trainIndices, test: block.testIndices, windowLength: 16),
            ]))
        } else if sets.contains("fingertips") {
            print("note: \(tracksURL.path) is missing: fingertip tracks skipped")
        }
        // Generated body18 throws: training and test clips of other people and other cameras; in
        // throws-13 with neck, eyes and ears never detected, as sports sets annotated with 13
        // joints (head, shoulders, elbows, wrists, hips, knees, ankles) come once mapped to body18.
        if sets.contains("throws-3d") { result.append(try depthThrows()) }
        if sets.contains("activities-3d") { result.append(try depthActivities()) }
        if sets.contains("activities-13") { result.append(try activities13()) }
        if sets.contains("activities-13-many") { result.append(try activities13(trainingClipsPerAction: 64)) }
        if sets.contains("activities-kinect") { result.append(try kinectActivities()) }
        let throwSets = [("throws", "generated throws (body18, 2-D)"),
                         ("throws-13", "generated throws with 13 joints (neck, eyes and ears never detected)"),
                         ("throws-apart", "generated throws validated on other people (--validation-data)")]
            .filter { sets.contains($0.0) }
        guard !throwSets.isEmpty else { return result }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-peer-throws-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = try ThrowDatasetGenerator().generateSplits(into: folder, trainingClips: 160, testClips: 80, seed: 11)
        for (set, title) in throwSets {
            if set == "throws-apart" {
                // The last 16 training clips give way to 16 clips of people (and cameras) the
                // training clips never show, as a user who validates on other people would have:
                // 144 clips train, as after the default's 10 % held out of the 160.
                let training = try PoseDataset.loadAnnotations(generated.training.annotationFile)
                let test = try PoseDataset.loadAnnotations(generated.test.annotationFile)
                let summary = try ThrowDatasetGenerator().generate(into: folder.appendingPathComponent("validation"), clips: 16, seed: 29)
                let validation = try PoseDataset.loadAnnotations(summary.annotationFile).examples(conformingTo: training)
                result.append(("\(title), 144 training clips, 16 validation clips and 80 test clips of other people and cameras", [
                    Split(name: set, dataset: training, training: training.examples.indices.filter { training.examples[$0].clipIndex < 144 },
                          test: Array(test.examples.indices), windowLength: 45, testDataset: test, validation: validation),
                ]))
                continue
            }
            var training = try PoseDataset.loadAnnotations(generated.training.annotationFile)
            var test = try PoseDataset.loadAnnotations(generated.test.annotationFile)
            if set == "throws-13" {
                let absent = Set(["neck", "rightEye", "leftEye", "rightEar", "leftEar"].compactMap { training.jointSet.names.firstIndex(of: $0) })
                training = training.withJointsNeverDetected(absent)
                test = test.withJointsNeverDetected(absent)
            }
            result.append(("\(title), 160 training clips, 80 test clips of other people and cameras", [
                Split.apart(set, training: training, test: test),
            ]))
        }
        return result
    }

    /// The generated throws (the same people, motions and cameras as `throws`) as a depth
    /// sensor's skeletons: each joint's 3-D position in the camera's frame (x right, y up, z away,
    /// metres) with 1.5 cm of noise per coordinate, and no eyes or ears, as Kinect skeletons come
    /// once mapped to body18.
    static func depthThrows() throws -> (String, [Split]) {
        let generator = ThrowDatasetGenerator()
        var seeds = SeededGenerator(seed: 11)
        let trainingSeed = seeds.next(), testSeed = seeds.next()
        let library = try generator.loadMotionCapture()
        var noise = SeededGenerator(seed: 19)
        let training = depthDataset(try generator.makeClips(clips: 160, seed: trainingSeed, split: .training, motionCapture: library), noise: &noise)
        let test = depthDataset(try generator.makeClips(clips: 80, seed: testSeed, split: .test, motionCapture: library), noise: &noise)
        return ("generated throws as 3-D skeletons without eyes or ears (depth-sensor style), 160 training clips, 80 test clips of other people", [
            Split.apart("throws-3d", training: training, test: test),
        ])
    }

    /// 18 actions of generated people, one action per clip: the 15 things people do between
    /// throws and the 3 throws, 16 clips of each, as depth-sensor skeletons (`depthDataset`); the
    /// 16 test clips of each come from other people and cameras. Many classes with few clips each
    /// and one person repeating every action, as depth-camera action sets are recorded.
    static func depthActivities() throws -> (String, [Split]) {
        try activitySplit("activities-3d", noiseSeed: 31, dataset: depthDataset,
                          title: "18 generated actions (15 everyday, 3 throws) as 3-D skeletons without eyes or ears, 16 clips of each by 8 people; 16 test clips of each by 8 others")
    }

    /// The clips of `depthActivities` as a depth camera's own skeleton format gives them: a custom
    /// joint set with the camera's names (`kinectDataset`), so the network is the one Coach
    /// trains for joint sets it does not know, at 15 frames per second.
    static func kinectActivities() throws -> (String, [Split]) {
        try activitySplit("activities-kinect", noiseSeed: 37, dataset: kinectDataset,
                          title: "18 generated actions (15 everyday, 3 throws) as 16 named depth-camera joints (a custom joint set) in 3-D at 15 fps, 16 clips of each by 8 people; 16 test clips of each by 8 others")
    }

    /// The `activityClips` of the training and the test people, as `dataset` turns them into poses
    /// with noise drawn from `noiseSeed`.
    static func activitySplit(_ name: String, noiseSeed: UInt64, dataset: ([GeneratedClip], inout SeededGenerator) -> PoseDataset,
                              title: String) throws -> (String, [Split]) {
        var seeds = SeededGenerator(seed: 23)
        let trainingSeed = seeds.next(), testSeed = seeds.next()
        var noise = SeededGenerator(seed: noiseSeed)
        let training = dataset(try activityClips(seed: trainingSeed), &noise)
        let test = dataset(try activityClips(seed: testSeed), &noise)
        return (title, [Split.apart(name, training: training, test: test)])
    }

    /// The clips of `depthActivities` as the simulated phone's pose detector sees them (2-D, joints
    /// missed at times), with neck, eyes and ears never detected, as 13-joint sports annotations come
    /// (read back from written files and an annotation CSV, as a user's would be). With more than 16
    /// training clips of each action (`activities-13-many`: 64, by 32 people, as sports-video sets
    /// of a thousand clips come), the same test clips score a model trained on four times the data.
    static func activities13(trainingClipsPerAction: Int = 16) throws -> (String, [Split]) {
        var seeds = SeededGenerator(seed: 23)
        let trainingSeed = seeds.next(), testSeed = seeds.next()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coach-bench-activities-\(getpid())")
        defer { try? FileManager.default.removeItem(at: folder) }
        func dataset(_ clips: [GeneratedClip], in directory: URL) throws -> PoseDataset {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var rows = ["file,label,start,end"]
            for clip in clips {
                try Data(clip.csvText()).write(to: directory.appendingPathComponent(clip.name + ".csv"))
                for segment in clip.segments {
                    rows.append("\(clip.name).csv,\(segment.label),\(segment.start.map { String($0) } ?? ""),\(segment.end.map { String($0) } ?? "")")
                }
            }
            let annotations = directory.appendingPathComponent("annotations.csv")
            try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: annotations)
            let loaded = try PoseDataset.loadAnnotations(annotations)
            let absent = Set(["neck", "rightEye", "leftEye", "rightEar", "leftEar"].compactMap { loaded.jointSet.names.firstIndex(of: $0) })
            return loaded.withJointsNeverDetected(absent)
        }
        let performers = max(8, trainingClipsPerAction / 2)
        let training = try dataset(try activityClips(seed: trainingSeed, clipsPerAction: trainingClipsPerAction, performers: performers),
                                   in: folder.appendingPathComponent("train"))
        let test = try dataset(try activityClips(seed: testSeed), in: folder.appendingPathComponent("test"))
        let name = trainingClipsPerAction == 16 ? "activities-13" : "activities-13-many"
        return ("18 generated actions (15 everyday, 3 throws) in 2-D with 13 joints (neck, eyes and ears never detected), \(trainingClipsPerAction) clips of each by \(performers) people; 16 test clips of each by 8 others", [
            Split.apart(name, training: training, test: test),
        ])
    }

    /// 18 actions of generated people, one action per clip: the 15 things people do between
    /// throws and the 3 throws (the throw's annotated segment), `clipsPerAction` clips of each by
    /// `performers` people drawn from `seed`. Many classes with few clips each and one person
    /// repeating every action, as action sets are recorded.
    static func activityClips(seed: UInt64, clipsPerAction: Int = 16, performers: Int = 8) throws -> [GeneratedClip] {
        var result: [GeneratedClip] = []
        var configuration = ThrowDatasetConfiguration()
        configuration.motionCaptureShare = 0
        configuration.performerCount = performers
        configuration.backgroundClipDurationRange = 2.5...4.5
        configuration.backgroundAroundThrowRange = 0.3...0.8   // little activity around the throw
        configuration.backgroundClipShare = 1
        for activity in BackgroundActivity.allCases {
            configuration.backgroundActivities = [activity]
            for var clip in try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: clipsPerAction, seed: seed) {
                clip.segments = [PoseSegment(label: activity.rawValue)]
                clip.name = "\(activity.rawValue)-\(clip.name)"
                result.append(clip)
            }
        }
        configuration.backgroundClipShare = 0
        configuration.backgroundActivities = BackgroundActivity.allCases
        for kind in ThrowKind.allCases {
            configuration.throwKinds = [kind]
            for var clip in try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: clipsPerAction, seed: seed) {
                clip.segments = clip.segments.filter { $0.label == kind.rawValue }
                clip.name = "\(kind.rawValue)-\(clip.name)"
                result.append(clip)
            }
        }
        return result
    }

    /// Generated clips as a depth sensor's skeletons: each joint's 3-D position in the camera's
    /// frame (x right, y up, z away, metres) with 1.5 cm of noise per coordinate, and no eyes or
    /// ears, as Kinect skeletons come once mapped to body18.
    static func depthDataset(_ clips: [GeneratedClip], noise: inout SeededGenerator) -> PoseDataset {
        PoseDataset(jointSet: .body18, hasDepth: true, clips: clips.map { clip in
            let camera = clip.camera
            let frames = clip.bodies.enumerated().map { index, body in
                PoseFrame(time: Double(index) / clip.frameRate, keypoints: Body18.allCases.map { joint -> Keypoint? in
                    guard joint.rawValue < Body18.rightEye.rawValue else { return nil }
                    return cameraKeypoint(body[joint], seen: camera, noise: &noise)
                })
            }
            let sequence = PoseSequence(jointSet: .body18, frames: frames,
                                        source: PoseSource(file: URL(fileURLWithPath: "/generated/\(clip.name).csv")),
                                        hasDepth: true, nominalFrameRate: clip.frameRate)
            return LabeledPoseClip(sequence: sequence, segments: clip.segments)
        })
    }

    /// A point's position in `camera`'s frame (x right, y up, z away, metres) with 1.5 cm of noise
    /// per coordinate, as a depth sensor measures it.
    static func cameraKeypoint(_ point: SIMD3<Float>, seen camera: VirtualCamera, noise: inout SeededGenerator) -> Keypoint {
        let offset = point - camera.position
        return Keypoint(x: (offset * camera.right).sum() + 0.015 * noise.nextNormal(),
                        y: -(offset * camera.down).sum() + 0.015 * noise.nextNormal(),
                        z: (offset * camera.forward).sum() + 0.015 * noise.nextNormal(), confidence: 1)
    }

    /// Generated clips as a depth camera's skeleton stream names them: 16 joints (the hip and
    /// shoulder centres, the spine between them, the head, and the limbs), a custom joint set to
    /// Coach, every second frame (15 fps), 3-D in the camera's frame with 1.5 cm of noise.
    static func kinectDataset(_ clips: [GeneratedClip], noise: inout SeededGenerator) -> PoseDataset {
        let joints: [(String, [Body18])] = [
            ("hipCenter", [.leftHip, .rightHip]), ("spine", [.leftHip, .rightHip, .neck, .neck]),
            ("shoulderCenter", [.neck]), ("head", [.nose]),
            ("shoulderLeft", [.leftShoulder]), ("elbowLeft", [.leftElbow]), ("wristLeft", [.leftWrist]),
            ("shoulderRight", [.rightShoulder]), ("elbowRight", [.rightElbow]), ("wristRight", [.rightWrist]),
            ("hipLeft", [.leftHip]), ("kneeLeft", [.leftKnee]), ("ankleLeft", [.leftAnkle]),
            ("hipRight", [.rightHip]), ("kneeRight", [.rightKnee]), ("ankleRight", [.rightAnkle]),
        ]
        let jointSet = JointSet(names: joints.map(\.0))!
        return PoseDataset(jointSet: jointSet, hasDepth: true, clips: clips.map { clip in
            let frames = stride(from: 0, to: clip.bodies.count, by: 2).map { index in
                let body = clip.bodies[index]
                return PoseFrame(time: Double(index) / clip.frameRate, keypoints: joints.map { _, sources -> Keypoint? in
                    let point = sources.map { body[$0] }.reduce(SIMD3<Float>(), +) / Float(sources.count)
                    return cameraKeypoint(point, seen: clip.camera, noise: &noise)
                })
            }
            let sequence = PoseSequence(jointSet: jointSet, frames: frames,
                                        source: PoseSource(file: URL(fileURLWithPath: "/generated/\(clip.name).csv")),
                                        hasDepth: true, nominalFrameRate: clip.frameRate / 2)
            return LabeledPoseClip(sequence: sequence, segments: clip.segments)
        })
    }

    static func run(sharedPath: String, peerPython: String, seeds: [UInt64], sets: Set<String>,
                    architecture: ActionClassifierArchitecture.Kind? = nil, augmentations: Set<PoseAugmentation>? = nil,
                    maximumIterations: Int? = nil) throws {
        print("== action classifier vs aeon MiniRocket / MultiRocket (accuracy per clip; seeds \(seeds.map(String.init).joined(separator: ",")))")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/action_peers.py")
        let hasPeer = FileManager.default.isExecutableFile(atPath: peerPython)
        if !hasPeer { print("note: no peer Python at \(peerPython) (make bench installs aeon there): peers skipped") }
        for (title, splits) in try splits(sharedPath: sharedPath, sets: sets) {
            var total = Scores()
            var runs = 0, peerRuns = 0
            for split in splits {
                var peers: [UInt64: (Double, Double, Double)] = [:]
                if hasPeer { peers = try runPeers(split, script: script, python: peerPython, seeds: seeds) }
                for seed in seeds {
                    var configuration = ActionClassifierTrainingConfiguration()
                    configuration.windowLength = split.windowLength
                    configuration.seed = seed
                    configuration.architecture = architecture
                    if let augmentations { configuration.augmentations = augmentations }
                    if let maximumIterations { configuration.maximumIterations = maximumIterations }
                    let start = Timing.now()
                    let result = try ActionClassifierTrainer(configuration: configuration)
                        .train(on: split.dataset, exampleIndices: split.training, validationExamples: split.validation)
                    let model = result.model
                    total.seconds += Timing.now() - start
                    let shares = model.members.map(\.randomConvolutionWeight)
                    func accuracy(_ weight: Float?) throws -> Double {
                        for (member, share) in zip(model.members, shares) { member.randomConvolutionWeight = weight ?? share }
                        defer { for (member, share) in zip(model.members, shares) { member.randomConvolutionWeight = share } }
                        return try ActionClassifierEvaluation.evaluate(model, on: split.evaluationDataset, exampleIndices: split.test)
                            .metrics.accuracy
                    }
                    total.ensemble += try accuracy(nil)
                    total.weights.append(shares)
                    total.network += try accuracy(0)
                    total.head += try accuracy(1)
                    total.equalShares += try accuracy(0.5)
                    total.quarterShares += try accuracy(0.25)
                    total.threeQuarterShares += try accuracy(0.75)
                    let lowestLoss = result.metrics["validation.lowestLossHeadShare"].map(Float.init)
                    total.lowestLossShares += try accuracy(lowestLoss)
                    total.lowestLossWeights.append(lowestLoss)
                    total.arithmetic += try ActionClassifierEvaluation.evaluate(model, on: split.evaluationDataset, exampleIndices: split.test,
                                                                               vote: .meanProbability).metrics.accuracy
                    // The first member alone: what one model (`--ensemble 1`) gives.
                    let others = model.additionalMembers
                    model.additionalMembers = []
                    total.firstMember += try accuracy(nil)
                    model.additionalMembers = others
                    if let second = others.first {
                        total.secondMember += try ActionClassifierEvaluation.evaluate(second, on: split.evaluationDataset,
                                                                                      exampleIndices: split.test).metrics.accuracy
                    }
                    if let peer = peers[seed] {
                        total.minirocket += peer.0
                        total.multirocket += peer.1
                        total.peerSeconds += peer.2
                        peerRuns += 1
                    }
                    runs += 1
                }
            }
            let n = Double(max(runs, 1))
            print("\(title):")
            print("  Coach (defaults)        \(format(total.ensemble / n, 3))   (network alone \(format(total.network / n, 3)), "
                  + "random-convolution head alone \(format(total.head / n, 3)), equal shares \(format(total.equalShares / n, 3)), head share 0.25 for all \(format(total.quarterShares / n, 3)), 0.75 for all \(format(total.threeQuarterShares / n, 3)), lowest validation loss's share \(format(total.lowestLossShares / n, 3)) (\(total.lowestLossWeights.map { $0.map { String($0) } ?? "-" }.joined(separator: " "))), mean probability of windows \(format(total.arithmetic / n, 3)), "
                  + "first member alone \(format(total.firstMember / n, 3)), second \(format(total.secondMember / n, 3)); \(format(total.seconds / n, 1)) s per model; "
                  + "head shares \(total.weights.map { $0.map { String($0) }.joined(separator: "/") }.joined(separator: " ")))")
            if peerRuns == runs && runs > 0 {
                let p = Double(peerRuns)
                print("  aeon MiniRocket         \(format(total.minirocket / p, 3))")
                print("  aeon MultiRocket        \(format(total.multirocket / p, 3))   (both peers: \(format(total.peerSeconds / p, 1)) s per split and seed)")
                print("  ratio Coach / best peer \(format(total.ensemble / max(total.minirocket, total.multirocket, 1e-9), 3))")
            } else if hasPeer {
                // Scores of some splits only would not compare with Coach's over all of them.
                print("  peers not measured: their script gave scores for \(peerRuns) of \(runs) split and seed pairs (see the notes above; `make bench-peers` installs aeon)")
            }
        }
    }

    /// The peers' accuracies per seed on `split`, from the peer script.
    static func runPeers(_ split: Split, script: URL, python: String, seeds: [UInt64]) throws -> [UInt64: (Double, Double, Double)] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("coach-peers-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        func clips(_ indices: [Int], of dataset: PoseDataset) -> [[String: Any]] {
            indices.map { index in
                let example = dataset.examples[index]
                let frames: [[Any]] = example.sequence.frames.map { frame in
                    frame.keypoints.flatMap { keypoint -> [Any] in
                        let depth = split.dataset.hasDepth
                        guard let keypoint, keypoint.confidence > 0 else { return depth ? [NSNull(), NSNull(), NSNull()] : [NSNull(), NSNull()] }
                        return depth ? [keypoint.x, keypoint.y, keypoint.z ?? 0] : [keypoint.x, keypoint.y]
                    }
                }
                return ["label": example.label, "frames": frames]
            }
        }
        let json: [String: Any] = ["train": clips(split.training, of: split.dataset), "test": clips(split.test, of: split.evaluationDataset)]
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        guard let (status, output) = PeerProcess.run(python: python, arguments: [script.path, file.path] + seeds.map(String.init)),
              status == 0 else {
            print("note: the peer script failed on \(split.name)")
            return [:]
        }
        var result: [UInt64: (Double, Double, Double)] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let seed = object["seed"] as? Int, let mini = object["minirocket"] as? Double,
                  let multi = object["multirocket"] as? Double else { continue }
            let seconds = (object["seconds"] as? [String: Double])?.values.reduce(0, +) ?? 0
            result[UInt64(seed)] = (mini, multi, seconds)
        }
        return result
    }
}

extension PoseDataset {
    /// The dataset with the joints at `joints` (indices into the joint set) undetected in every frame.
    func withJointsNeverDetected(_ joints: Set<Int>) -> PoseDataset {
        PoseDataset(jointSet: jointSet, hasDepth: hasDepth, clips: clips.map { clip in
            var sequence = clip.sequence
            sequence.frames = sequence.frames.map { frame in
                PoseFrame(time: frame.time, keypoints: frame.keypoints.enumerated().map { joints.contains($0.offset) ? nil : $0.element })
            }
            return LabeledPoseClip(sequence: sequence, segments: clip.segments)
        })
    }
}
