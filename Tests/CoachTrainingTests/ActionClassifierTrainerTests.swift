import CoachData
import CoachModels
import CoachRandom
import CoachTensor
import CoachTraining
import Foundation
import TestSupport
import XCTest

/// The training recipe: seeded and byte-reproducible, resumable, early stopping that keeps the
/// best weights, progress events, and configuration checks.
final class ActionClassifierTrainerTests: XCTestCase {
    let dataset = toyActionDataset(clipsPerClass: 12, seed: 3)

    func modelBytes(_ result: ActionClassifierTrainingResult, in directory: URL, name: String) throws -> Data {
        let url = directory.appendingPathComponent(name)
        try result.modelFile(name: "toy").write(to: url)
        return try Data(contentsOf: url)
    }

    func testTheToyActionsAreLearned() throws {
        var configuration = toyConfiguration(iterations: 25)
        configuration.augmentations = [.rotate, .jitter]
        let result = try ActionClassifierTrainer(configuration: configuration).train(on: dataset)
        let test = toyActionDataset(clipsPerClass: 10, seed: 99)
        let evaluation = try ActionClassifierEvaluation.evaluate(result.model, on: test)
        XCTAssertGreaterThanOrEqual(evaluation.metrics.accuracy, 0.9, "held-out toy clips")
        // Each segment's prediction is its windows' normalised geometric mean.
        let example = test.examples[0]
        let probabilities = result.model.probabilities(for: try result.model.windows(covering: example.sequence, stride: nil))
        var logs = [Double](repeating: 0, count: result.model.labels.count)
        for row in probabilities { for c in logs.indices { logs[c] += log(Double(row[c])) / Double(probabilities.count) } }
        let roots = logs.map { exp($0) }
        let best = roots.indices.max { roots[$0] < roots[$1] }!
        XCTAssertEqual(evaluation.predictions[0].predictedLabel, result.model.labels[best])
        XCTAssertEqual(evaluation.predictions[0].confidence, roots[best] / roots.reduce(0, +), accuracy: 1e-5)
        XCTAssertEqual(result.model.labels, ["circle", "other", "swipe"])
        XCTAssertEqual(result.model.backgroundLabel, "other")
        XCTAssertEqual(result.trainingCount + result.validationCount, 36)
        XCTAssertEqual(result.validationCount, 9, "⌈20% of 12⌉ per class")
    }

    func testASegmentsWindowsVoteByTheirGeometricMean() throws {
        // Two windows lean to class 0; the third all but rules it out. The mean probability
        // (0.537 against 0.463) keeps class 0; the normalised geometric mean, the cube roots of
        // 0.8 · 0.8 · 0.01 and 0.2 · 0.2 · 0.99, picks class 1.
        let windows: [[Float]] = [[0.8, 0.2], [0.8, 0.2], [0.01, 0.99]]
        let arithmetic = ActionClassifierEvaluation.SegmentVote.meanProbability.combined(windows, classCount: 2)
        XCTAssertEqual(arithmetic[0], 1.61 / 3, accuracy: 1e-6)
        XCTAssertEqual(arithmetic[1], 1.39 / 3, accuracy: 1e-6)
        let roots = [pow(0.8 * 0.8 * 0.01, 1.0 / 3), pow(0.2 * 0.2 * 0.99, 1.0 / 3)]
        let geometric = ActionClassifierEvaluation.SegmentVote.meanLogProbability.combined(windows, classCount: 2)
        XCTAssertEqual(geometric[0], roots[0] / (roots[0] + roots[1]), accuracy: 1e-6)
        XCTAssertEqual(geometric[1], roots[1] / (roots[0] + roots[1]), accuracy: 1e-6)
        // A window that gives a class 0 does not send the segment's score to NaN.
        let certain = ActionClassifierEvaluation.SegmentVote.meanLogProbability.combined([[1, 0], [0.4, 0.6]], classCount: 2)
        XCTAssertGreaterThan(certain[0], 0.99)
        XCTAssertEqual(certain[0] + certain[1], 1, accuracy: 1e-9)
    }

    func testTheSameSeedGivesAByteIdenticalModelFile() throws {
        let directory = try temporaryDirectory(self)
        var configuration = toyConfiguration(iterations: 4)
        configuration.augmentations = Set(PoseAugmentation.allCases)
        let first = try modelBytes(try ActionClassifierTrainer(configuration: configuration).train(on: dataset), in: directory, name: "a.h5")
        let second = try modelBytes(try ActionClassifierTrainer(configuration: configuration).train(on: dataset), in: directory, name: "b.h5")
        XCTAssertEqual(first, second, "same data, configuration and seed → the same bytes")
        configuration.seed = 2
        let other = try modelBytes(try ActionClassifierTrainer(configuration: configuration).train(on: dataset), in: directory, name: "c.h5")
        XCTAssertNotEqual(first, other, "another seed → another model")
    }

    func testTheModelDoesNotDependOnTheThreadCount() throws {
        let directory = try temporaryDirectory(self)
        let threads = ComputeThreads.count
        defer { ComputeThreads.set(threads) }
        for architecture in ActionClassifierArchitecture.Kind.allCases {
            var configuration = toyConfiguration(iterations: 3)
            configuration.architecture = architecture
            var files: [Data] = []
            for count in [1, 2] {
                ComputeThreads.set(count)
                let result = try ActionClassifierTrainer(configuration: configuration).train(on: dataset)
                files.append(try modelBytes(result, in: directory, name: "\(architecture.rawValue)-\(count).h5"))
            }
            XCTAssertEqual(files[0], files[1], "\(architecture.rawValue): 1 and 2 threads must train the same model")
        }
    }

    func testResumingFromACheckpointGivesTheModelOfAnUninterruptedRun() throws {
        let directory = try temporaryDirectory(self)
        var configuration = toyConfiguration(iterations: 6)
        configuration.augmentations = [.rotate, .interpolateFrames, .dropFrames]
        configuration.earlyStoppingPatience = 100
        let trainer = try ActionClassifierTrainer(configuration: configuration)
        let straight = try trainer.train(on: dataset, checkpoint: directory.appendingPathComponent("straight.checkpoint.h5"))
        XCTAssertFalse(straight.interrupted)
        XCTAssertEqual(straight.history.count, 6)

        let checkpoint = directory.appendingPathComponent("resumed.checkpoint.h5")
        let partial = try trainer.train(on: dataset, checkpoint: checkpoint, shouldContinue: { $0 < 2 })
        XCTAssertTrue(partial.interrupted)
        XCTAssertEqual(partial.history.count, 2)
        XCTAssertEqual(try ModelFile.read(from: checkpoint).metadata.task.rawValue, "action-classifier-checkpoint")
        let resumed = try trainer.train(on: dataset, checkpoint: checkpoint, resume: true)
        XCTAssertFalse(resumed.interrupted)
        XCTAssertEqual(resumed.history, straight.history, "the same losses and accuracies, iteration by iteration")
        XCTAssertEqual(try modelBytes(resumed, in: directory, name: "resumed.h5"),
                       try modelBytes(straight, in: directory, name: "straight.h5"))
    }

    func testResumingRefusesOtherOptionsOtherDataAndMissingCheckpoints() throws {
        let directory = try temporaryDirectory(self)
        let checkpoint = directory.appendingPathComponent("run.checkpoint.h5")
        let configuration = toyConfiguration(iterations: 3)
        _ = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, checkpoint: checkpoint,
                                                                            shouldContinue: { _ in false })
        var changed = configuration
        changed.learningRate = 0.01
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: changed).train(on: dataset, checkpoint: checkpoint, resume: true)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? ""
            XCTAssertTrue(text.contains("different options (learningRate)"), text)
        }
        let otherData = toyActionDataset(clipsPerClass: 12, seed: 4)
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: configuration).train(on: otherData, checkpoint: checkpoint, resume: true)) { error in
            XCTAssertEqual(error as? ActionTrainingError, .checkpointMismatch(path: checkpoint.path, reason: "it was made from different data"))
        }
        let missing = directory.appendingPathComponent("none.checkpoint.h5")
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: configuration).train(on: dataset, checkpoint: missing, resume: true)) { error in
            XCTAssertEqual(error as? ActionTrainingError, .checkpointMissing(path: missing.path))
        }
    }

    func testAnEnsembleIsTheMeanOfModelsTrainedFromTheMembersSeeds() throws {
        var configuration = toyConfiguration(iterations: 3)
        configuration.ensembleMembers = 2
        configuration.randomConvolutionFeatures = 336
        let ensemble = try ActionClassifierTrainer(configuration: configuration).train(on: dataset)
        XCTAssertEqual(ensemble.model.additionalMembers.count, 1)
        XCTAssertEqual(ensemble.configuration.ensembleMembers, 2)
        XCTAssertEqual(ensemble.metrics["ensembleMembers"], 2)
        // Each member is the model a one-member run with its seed trains, byte for byte, but for
        // the head's share: one for all, picked on both members' validation clips.
        var members: [ActionClassifierModel] = []
        var pooled: [Float: (loss: Double, windows: Double)] = [:]
        var memberMetrics: [[String: Double]] = []
        for (index, seed) in [UInt64(1), 1001].enumerated() {
            var single = configuration
            single.ensembleMembers = 1
            single.seed = seed
            let alone = try ActionClassifierTrainer(configuration: single).train(on: dataset)
            let member = ensemble.model.members[index]
            XCTAssertEqual(member.network.stateDictionary, alone.model.network.stateDictionary, "member \(index + 1)'s network")
            XCTAssertEqual(member.randomConvolution, alone.model.randomConvolution, "member \(index + 1)'s head")
            let windows = try XCTUnwrap(alone.metrics["validation.windows"])
            for share: Float in [0.25, 0.5, 0.75] {
                let loss = try XCTUnwrap(alone.metrics["validation.loss.headShare\(share)"], "member \(index + 1), share \(share)")
                pooled[share, default: (0, 0)].loss += loss * windows
                pooled[share, default: (0, 0)].windows += windows
            }
            XCTAssertEqual(alone.model.randomConvolutionWeight, ActionClassifierTrainer.pickedHeadShare([alone.metrics]),
                           "alone, a member keeps its own pick")
            XCTAssertEqual(alone.metrics["validation.loss"], alone.metrics["validation.loss.headShare\(alone.model.randomConvolutionWeight)"])
            XCTAssertEqual(alone.metrics["validation.clips"], Double(alone.validationCount))
            memberMetrics.append(alone.metrics)
            members.append(alone.model)
        }
        let share = try XCTUnwrap(ActionClassifierTrainer.pickedHeadShare(memberMetrics))
        XCTAssertEqual(ensemble.model.members.map(\.randomConvolutionWeight), [share, share])
        XCTAssertEqual(ensemble.metrics["validation.pooledLoss"] ?? .nan, pooled[share]!.loss / pooled[share]!.windows, accuracy: 1e-9)
        // Beside it, the share whose loss over both members' windows is lowest, whatever the margin.
        let lowest = try XCTUnwrap(pooled.min { $0.value.loss / $0.value.windows < $1.value.loss / $1.value.windows }?.key)
        XCTAssertEqual(ensemble.metrics["validation.lowestLossHeadShare"], Double(lowest))
        for member in members { member.randomConvolutionWeight = share }
        let sampler = PoseWindowSampler(windowLength: configuration.windowLength, frameRate: configuration.frameRate)
        let probe = toyActionDataset(clipsPerClass: 2, seed: 7).examples.map { sampler.window(of: sampler.prepared($0.sequence), startingAt: 0) }
        let mean = ensemble.model.probabilities(for: probe)
        let first = members[0].probabilities(for: probe), second = members[1].probabilities(for: probe)
        for n in probe.indices { for c in mean[n].indices { XCTAssertEqual(mean[n][c], (first[n][c] + second[n][c]) / 2, accuracy: 1e-6) } }
        XCTAssertNotEqual(first, second, "the members differ")
    }

    /// The head's share stays at equal shares unless the pooled validation clips favour another
    /// by more than one standard error of the paired per-clip loss difference.
    func testTheHeadShareMovesOffEqualSharesOnlyOnClearEvidence() throws {
        // Members' metrics from per-clip loss differences against equal shares, by share.
        func metrics(_ differences: [Float: [Double]]) -> [String: Double] {
            var metrics = ["validation.clips": Double(differences.values.first!.count)]
            for (share, values) in differences {
                metrics[ActionClassifierTrainer.headShareDifferenceKey(share)] = values.reduce(0, +)
                metrics[ActionClassifierTrainer.headShareSquaredDifferenceKey(share)] = values.map { $0 * $0 }.reduce(0, +)
            }
            return metrics
        }
        XCTAssertEqual(ActionClassifierTrainer.headShares.first, 0.5)
        // 0.25 is lower on average (mean −0.02) but the clips disagree (standard error 0.083): stay.
        let noisy = metrics([0.25: [-0.3, 0.26, -0.3, 0.26, -0.02, -0.3, 0.26, -0.3, 0.26, -0.02], 0.75: [Double](repeating: 0.1, count: 10)])
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([noisy]), 0.5)
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([noisy, noisy]), 0.5, "twice the clips, standard error 0.057")
        // Every clip a little lower at 0.75: move.
        let clear = metrics([0.25: [Double](repeating: 0.1, count: 10), 0.75: [-0.02, -0.03, -0.02, -0.01, -0.02, -0.03, -0.02, -0.01, -0.02, -0.02]])
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([clear]), 0.75)
        // Pooled with a member whose clips say the opposite, the evidence is gone.
        let opposite = metrics([0.25: [Double](repeating: 0.1, count: 10), 0.75: [Double](repeating: 0.03, count: 10)])
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([clear, opposite]), 0.5)
        // The same clips judged twice (members validated on the user's clips) are no new evidence.
        let borderline = metrics([0.25: [Double](repeating: 0.1, count: 6), 0.75: [-0.1, 0.05, -0.1, 0.05, -0.1, 0.05]])
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([borderline]), 0.5, "mean −0.025, standard error 0.034")
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([borderline, borderline]), 0.75, "as 12 clips, standard error 0.023")
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([borderline, borderline], clipsShared: true), 0.5)
        // Both clearly lower: the lower mean.
        let both = metrics([0.25: [Double](repeating: -0.05, count: 4) + [-0.04, -0.06], 0.75: [Double](repeating: -0.02, count: 4) + [-0.01, -0.03]])
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([both]), 0.25)
        // A single clip has no spread to judge by; no clips, no pick.
        XCTAssertEqual(ActionClassifierTrainer.pickedHeadShare([metrics([0.25: [-1], 0.75: [-2]])]), 0.5)
        XCTAssertNil(ActionClassifierTrainer.pickedHeadShare([[:]]))
        XCTAssertNil(ActionClassifierTrainer.pickedHeadShare([]))
    }

    /// A joint that is never detected in training (a layout's joint the data has no column for)
    /// gives series that never vary; the head's kernels read only the others, and the dataset
    /// report says so.
    /// `occlude` (in the default augmentations) hides joints only as often as the training data
    /// misses them: on data that never misses a joint it trains the very model training without
    /// it does; on data that misses some, another one.
    func testOcclusionFollowsTheDataItsTrainedOn() throws {
        var configuration = toyConfiguration(iterations: 3)
        configuration.augmentations = PoseAugmentation.labelSafe
        var without = configuration
        without.augmentations.remove(.occlude)
        // The toy clips with every undetected keypoint filled in (from the joint's last detection),
        // and the same clips with every tenth keypoint of the first joint missed.
        func edited(_ source: PoseDataset, _ change: (Int, inout PoseFrame, PoseFrame?) -> Void) -> PoseDataset {
            var count = 0
            return PoseDataset(jointSet: source.jointSet, hasDepth: false, clips: source.clips.map { clip in
                var sequence = clip.sequence
                var previous: PoseFrame?
                sequence.frames = sequence.frames.map { frame in
                    var frame = frame
                    count += 1
                    change(count, &frame, previous)
                    previous = frame
                    return frame
                }
                return LabeledPoseClip(sequence: sequence, segments: clip.segments)
            })
        }
        let complete = edited(dataset) { _, frame, previous in
            for joint in frame.keypoints.indices where frame.keypoints[joint] == nil {
                frame.keypoints[joint] = previous?.keypoints[joint] ?? Keypoint(x: 0.5, y: 0.5, confidence: 1)
            }
        }
        let sampler = PoseWindowSampler(windowLength: 16, frameRate: 30)
        let windows = complete.examples.prefix(6).map { sampler.window(of: sampler.prepared($0.sequence), startingAt: 0) }
        func outputs(_ configuration: ActionClassifierTrainingConfiguration, _ data: PoseDataset) throws -> [[Float]] {
            try ActionClassifierTrainer(configuration: configuration).train(on: data).model.probabilities(for: windows)
        }
        XCTAssertEqual(PoseSequence.missedShare(of: complete.clips.map(\.sequence)), 0)
        XCTAssertEqual(try outputs(configuration, complete), try outputs(without, complete), "nothing to match: no occlusion")
        let missing = edited(complete) { count, frame, _ in
            if count % 10 == 0 { frame.keypoints[0] = nil }
        }
        let share = PoseSequence.missedShare(of: missing.clips.map(\.sequence))
        XCTAssertEqual(share, 1.0 / 30, accuracy: 0.005)
        XCTAssertNotEqual(try outputs(configuration, missing), try outputs(without, missing), "joints hidden in some windows")
        XCTAssertEqual(ActionDatasetSummary(dataset: missing, sampler: sampler).missedShare, share, accuracy: 1e-12)
    }

    func testTheHeadLeavesOutJointsNeverDetected() throws {
        let jointSet = JointSet(names: dataset.jointSet.names + ["absent"])!
        let padded = PoseDataset(jointSet: jointSet, hasDepth: false, clips: dataset.clips.map { clip in
            var sequence = clip.sequence
            sequence = PoseSequence(jointSet: jointSet, frames: sequence.frames.map { PoseFrame(time: $0.time, keypoints: $0.keypoints + [nil]) },
                                    source: sequence.source, nominalFrameRate: sequence.nominalFrameRate)
            return LabeledPoseClip(sequence: sequence, segments: clip.segments)
        })
        let sampler = PoseWindowSampler(windowLength: 16, frameRate: 30)
        XCTAssertTrue(ActionDatasetSummary(dataset: padded, sampler: sampler).warnings
            .contains { $0.hasPrefix("1 of 4 joints are never detected in any frame (absent)") })
        XCTAssertFalse(ActionDatasetSummary(dataset: dataset, sampler: sampler).warnings.contains { $0.contains("never detected") })
        var configuration = toyConfiguration(iterations: 3)
        configuration.randomConvolutionFeatures = 1008
        configuration.augmentations = []
        let model = try ActionClassifierTrainer(configuration: configuration).train(on: padded).model
        let head = try XCTUnwrap(model.randomConvolution)
        let perJoint = RandomConvolutionHead.seriesChannels(of: model.encoding).count
        // The three detected joints' spanning tree gives two bones; none reaches the absent joint.
        XCTAssertEqual(head.bones.count, 2)
        XCTAssertFalse(head.bones.contains { $0.first == 3 || $0.second == 3 }, "no bone to a joint never detected")
        let boneSeries = 2 * model.encoding.positionCount
        XCTAssertEqual(head.transform.channelCount, 4 * perJoint + boneSeries)
        let read = Set(head.transform.channels)
        XCTAssertTrue(read.isDisjoint(with: (3 * perJoint)..<(4 * perJoint)), "the absent joint's series are never read")
        XCTAssertEqual(read, Set(0..<(3 * perJoint)).union((4 * perJoint)..<(4 * perJoint + boneSeries)),
                       "every other series is read by some combination")
        // The same data without the absent joint finds the same bones and draws the same channel
        // subsets (its bone series sit one joint's series earlier).
        let plain = try XCTUnwrap(try ActionClassifierTrainer(configuration: configuration).train(on: dataset).model.randomConvolution)
        XCTAssertEqual(plain.bones, head.bones)
        XCTAssertEqual(plain.transform.channels.map { $0 >= 3 * perJoint ? $0 + perJoint : $0 }, head.transform.channels)
        XCTAssertEqual(plain.transform.channelCounts, head.transform.channelCounts)
    }

    func testACustomJointSetsHeadReadsItsMostRigidJointPairsAsBones() throws {
        // An arm in 2-D (shoulder, elbow, wrist, fingertip; bones 0.3, 0.25 and 0.15 long, a little
        // noise) that waves or reaches, bending at every joint, its joints listed out of order beside one never detected.
        var generator = SeededGenerator(seed: 12)
        let jointSet = JointSet(names: ["tip", "shoulder", "absent", "elbow", "wrist"])!
        var clips: [LabeledPoseClip] = []
        for index in 0..<24 {
            let label = index % 2 == 0 ? "wave" : "reach"
            let origin = (generator.nextUniform(0.3, 0.7), generator.nextUniform(0.3, 0.7))
            let phase = generator.nextUniform(0, 6.28), speed = generator.nextUniform(0.8, 1.25)
            var frames: [PoseFrame] = []
            for t in 0..<32 {
                let time = phase + speed * Float(t) * 0.3
                let angles: [Float] = label == "wave" ? [0.3 * sin(time), 1.2 + 0.8 * sin(2 * time), 1.0 * cos(3 * time)]
                                                      : [0.8 + 0.7 * sin(time), 1.0 * (1 + cos(time)), 0.8 * sin(time)]
                var point = origin, heading: Float = -1.57
                var positions = [origin]
                for (length, angle) in zip([Float(0.3), 0.25, 0.15], angles) {
                    heading += angle
                    point = (point.0 + length * cos(heading), point.1 + length * sin(heading))
                    positions.append(point)
                }
                let noisy = positions.map { Keypoint(x: $0.0 + 0.001 * generator.nextNormal(), y: $0.1 + 0.001 * generator.nextNormal(),
                                                     confidence: 0.9) }
                frames.append(PoseFrame(time: Double(t) / 30, keypoints: [noisy[3], noisy[0], nil, noisy[1], noisy[2]]))
            }
            let source = PoseSource(file: URL(fileURLWithPath: "/arm/\(label)/clip-\(index).csv"))
            clips.append(LabeledPoseClip(sequence: PoseSequence(jointSet: jointSet, frames: frames, source: source, nominalFrameRate: 30),
                                         segments: [PoseSegment(label: label)]))
        }
        var configuration = toyConfiguration(iterations: 1)
        configuration.randomConvolutionFeatures = 336
        let model = try ActionClassifierTrainer(configuration: configuration)
            .train(on: PoseDataset(jointSet: jointSet, hasDepth: false, clips: clips)).model
        let head = try XCTUnwrap(model.randomConvolution)
        // The arm's bones, from the joint of most bones nearest the lowest index (the elbow)
        // outwards, breadth first: elbow–shoulder, elbow–wrist, wrist–tip.
        XCTAssertEqual(head.bones, [SkeletonGraph.Edge(3, 1), SkeletonGraph.Edge(3, 4), SkeletonGraph.Edge(4, 0)])
        XCTAssertEqual(head.transform.channelCount, RandomConvolutionHead.seriesCount(of: model.encoding, boneCount: 3))
    }

    func testSmallDataGivesTheHeadMoreAugmentedWindows() throws {
        func headNote(_ configuration: ActionClassifierTrainingConfiguration) throws -> String {
            final class Collector: @unchecked Sendable { var notes: [String] = [] }
            let collector = Collector()
            _ = try ActionClassifierTrainer(configuration: configuration) { event in
                if case let .note(text) = event, text.hasPrefix("random-convolution head: 336 features of") { collector.notes.append(text) }
            }.train(on: dataset)
            return try XCTUnwrap(collector.notes.first, "the head's note")
        }
        var configuration = toyConfiguration(iterations: 1)
        configuration.randomConvolutionFeatures = 336
        configuration.augmentations = []
        // Without augmentations the head takes the cut windows alone.
        let plain = try headNote(configuration)
        let cut = try XCTUnwrap(Int(plain.split(separator: " ")[5]), plain)
        XCTAssertEqual(plain, "random-convolution head: 336 features of \(cut) windows")
        XCTAssertLessThan(cut * 5, 8_000, "small data")
        // With them, each of those windows gets four augmented copies while all stay within 8,000.
        configuration.augmentations = [.rotate, .jitter]
        XCTAssertEqual(try headNote(configuration),
                       "random-convolution head: 336 features of \(cut * 5) windows (\(cut) cut from the training segments, each with 4 augmented copies)")
    }

    func testAnEnsembleInterruptedInItsSecondMemberResumesToTheSameModel() throws {
        // On one thread the members train one after the other.
        let threads = ComputeThreads.count
        defer { ComputeThreads.set(threads) }
        ComputeThreads.set(1)
        let directory = try temporaryDirectory(self)
        var configuration = toyConfiguration(iterations: 3)
        configuration.ensembleMembers = 2
        configuration.randomConvolutionFeatures = 336
        configuration.earlyStoppingPatience = 100
        let trainer = try ActionClassifierTrainer(configuration: configuration)
        let straight = try trainer.train(on: dataset, checkpoint: directory.appendingPathComponent("straight.checkpoint.h5"))
        let checkpoint = directory.appendingPathComponent("resumed.checkpoint.h5")
        var calls = 0
        let partial = try trainer.train(on: dataset, checkpoint: checkpoint, shouldContinue: { _ in calls += 1; return calls < 5 })
        XCTAssertTrue(partial.interrupted)
        let memberCheckpoint = ActionClassifierTrainer.memberCheckpointURL(checkpoint, member: 1)
        XCTAssertEqual(memberCheckpoint.lastPathComponent, "resumed.checkpoint.member2.h5")
        XCTAssertTrue(FileManager.default.fileExists(atPath: memberCheckpoint.path), "the second member checkpoints beside the first")
        XCTAssertEqual(try ModelFile.read(from: memberCheckpoint).metadata.task.rawValue, "action-classifier-checkpoint")
        let resumed = try trainer.train(on: dataset, checkpoint: checkpoint, resume: true)
        XCTAssertFalse(resumed.interrupted)
        XCTAssertEqual(try modelBytes(resumed, in: directory, name: "resumed.h5"),
                       try modelBytes(straight, in: directory, name: "straight.h5"))
        XCTAssertTrue(ActionClassifierTrainer.checkpointURLs(for: directory.appendingPathComponent("resumed.h5")).contains(memberCheckpoint))
    }

    /// With two threads or more the members train side by side, one core each: the same model
    /// bytes as one after the other, their events relayed one at a time (iterations marked with
    /// their member, notes named by it, windows summed into one phase), and an interrupted run
    /// resumes to the same model.
    func testEnsembleMembersSideBySideTrainTheModelOfMembersOneAfterTheOther() throws {
        let directory = try temporaryDirectory(self)
        var configuration = toyConfiguration(iterations: 3)
        configuration.ensembleMembers = 2
        configuration.randomConvolutionFeatures = 336
        configuration.earlyStoppingPatience = 100
        let threads = ComputeThreads.count
        defer { ComputeThreads.set(threads) }
        ComputeThreads.set(1)
        XCTAssertEqual(ComputeThreads.concurrentJobs(2), 1)
        let oneAfterTheOther = try ActionClassifierTrainer(configuration: configuration).train(on: dataset)

        ComputeThreads.set(2)
        XCTAssertEqual(ComputeThreads.concurrentJobs(2), 2)
        final class Collector: @unchecked Sendable { var events: [TrainingEvent] = [] }
        let collector = Collector()
        let trainer = try ActionClassifierTrainer(configuration: configuration) { collector.events.append($0) }
        let sideBySide = try trainer.train(on: dataset)
        XCTAssertEqual(try modelBytes(sideBySide, in: directory, name: "side-by-side.h5"),
                       try modelBytes(oneAfterTheOther, in: directory, name: "one-after-the-other.h5"))
        XCTAssertEqual(sideBySide.history, oneAfterTheOther.history, "the first member's history")

        var iterations: [Int: [Int]] = [:], progress: [(phase: String, completed: Int, total: Int)] = [], notes: [String] = []
        for event in collector.events {
            switch event {
            case let .iteration(summary): iterations[summary.member ?? 0, default: []].append(summary.iteration)
            case let .progress(phase, completed, total, _, _): progress.append((phase, completed, total))
            case let .note(text): notes.append(text)
            case .warning: break
            }
        }
        XCTAssertEqual(iterations, [1: [1, 2, 3], 2: [1, 2, 3]], "every iteration marked with its member")
        XCTAssertTrue(progress.allSatisfy { $0.phase == "training windows, 2 members side by side" }, "\(progress)")
        XCTAssertEqual(progress.last?.completed, 2 * 27 * 2 * 3, "both members' 27 training clips × 2 windows × 3 iterations")
        XCTAssertEqual(progress.last?.total, progress.last?.completed)
        XCTAssertEqual(Set(progress.map(\.total)), [2 * 27 * 2 * 3],
                       "the total counts both members from the first report, before the second has reported")
        XCTAssertEqual(progress.map(\.completed), progress.map(\.completed).sorted())
        XCTAssertTrue(notes.contains("ensemble: 2 members (seeds 1, 1001), 2 at a time side by side, one core each"), "\(notes)")
        for member in 1...2 {
            XCTAssertTrue(notes.contains { $0.hasPrefix("member \(member): random-convolution head: 336 features") }, "\(notes)")
        }

        // Interrupted side by side (each member is asked after each of its iterations, one at a
        // time), then resumed: the same model.
        let checkpoint = directory.appendingPathComponent("resumed.checkpoint.h5")
        var calls = 0
        let partial = try ActionClassifierTrainer(configuration: configuration)
            .train(on: dataset, checkpoint: checkpoint, shouldContinue: { _ in calls += 1; return calls < 3 })
        XCTAssertTrue(partial.interrupted)
        XCTAssertTrue(FileManager.default.fileExists(atPath: ActionClassifierTrainer.memberCheckpointURL(checkpoint, member: 1).path))
        let resumed = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, checkpoint: checkpoint, resume: true)
        XCTAssertFalse(resumed.interrupted)
        XCTAssertEqual(try modelBytes(resumed, in: directory, name: "resumed.h5"),
                       try modelBytes(oneAfterTheOther, in: directory, name: "one-after-the-other.h5"))

        // A member that fails (its checkpoint cannot be written: a folder is in the way) ends the
        // run with its error, and the other member stops after its current iteration.
        var long = configuration
        long.maximumIterations = 40
        let blocked = directory.appendingPathComponent("blocked.checkpoint.h5")
        try FileManager.default.createDirectory(at: ActionClassifierTrainer.memberCheckpointURL(blocked, member: 1),
                                                withIntermediateDirectories: false)
        collector.events = []
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: long) { collector.events.append($0) }
            .train(on: dataset, checkpoint: blocked)) { error in
            let text = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            XCTAssertTrue(text.contains("blocked.checkpoint.member2.h5"), text)
        }
        let firstMemberIterations = collector.events.filter { if case let .iteration(summary) = $0 { summary.member == 1 } else { false } }
        XCTAssertLessThan(firstMemberIterations.count, 40, "the first member stopped when the second failed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: blocked.path), "the first member's checkpoint can resume it")
    }

    func testEarlyStoppingKeepsTheBestIterationsWeights() throws {
        let directory = try temporaryDirectory(self)
        var configuration = toyConfiguration(iterations: 40)
        configuration.earlyStoppingPatience = 3
        configuration.learningRate = 0.02  // noisy on purpose, so validation peaks early
        let checkpoint = directory.appendingPathComponent("run.checkpoint.h5")
        let result = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, checkpoint: checkpoint)
        let best = try XCTUnwrap(result.bestIteration)
        XCTAssertTrue(result.stoppedEarly, "stopped after \(result.history.count) iterations")
        XCTAssertEqual(result.history.count, best + 3, "three iterations without improvement")
        XCTAssertTrue(result.history[best - 1].isBest)
        XCTAssertEqual(result.metrics["validation.accuracy"], result.history[best - 1].validationAccuracy)
        let saved = try ModelFile.read(from: checkpoint)
        let state = result.model.network.stateDictionary
        for (name, value) in state {
            XCTAssertEqual(saved.tensors["best.\(name)"], value, "the model has the best weights (\(name))")
        }
        XCTAssertTrue(state.contains { saved.tensors["model.\($0.key)"] != $0.value }, "not the last iteration's")
    }

    /// With one step per iteration, the averaged weights after iteration k must be
    /// d · (average after k − 1) + (1 − d) · (raw weights after k), d = exp(−1/τ), starting from the
    /// first step's weights; validation and the kept model use the average, not the raw weights.
    func testTheKeptWeightsAreTheMovingAverageOfTheRawOnes() throws {
        let directory = try temporaryDirectory(self)
        var configuration = toyConfiguration(iterations: 6)
        configuration.batchSize = 1000  // one step per iteration
        configuration.randomConvolutionFeatures = 0
        configuration.earlyStoppingPatience = 100
        configuration.weightAveraging = 2
        let decay = exp(-1.0 / 2)
        let checkpoint = directory.appendingPathComponent("run.checkpoint.h5")
        var snapshots: [(raw: [String: Tensor], average: [String: Tensor])] = []
        let result = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, checkpoint: checkpoint,
                                                                                     shouldContinue: { _ in
            let file = try? ModelFile.read(from: checkpoint)
            func state(_ prefix: String) -> [String: Tensor] {
                Dictionary(uniqueKeysWithValues: (file?.tensors ?? [:]).filter { $0.key.hasPrefix(prefix) }
                    .map { (String($0.key.dropFirst(prefix.count)), $0.value) })
            }
            snapshots.append((state("model."), state("average.")))
            return true
        })
        XCTAssertEqual(snapshots.count, 6)
        let names = Array(result.model.network.stateDictionary.keys)
        XCTAssertFalse(names.isEmpty)
        var expected = snapshots[0].raw.mapValues { $0.scalars.map(Double.init) }
        for (k, snapshot) in snapshots.enumerated() {
            if k > 0 {
                for name in names {
                    let raw = try XCTUnwrap(snapshot.raw[name]).scalars
                    expected[name] = zip(expected[name]!, raw).map { decay * $0 + (1 - decay) * Double($1) }
                }
            }
            for name in names {
                let average = try XCTUnwrap(snapshot.average[name], "iteration \(k + 1) stores the average of '\(name)'").scalars
                let reference = expected[name]!
                let worst = zip(average, reference).map { abs(Double($0) - $1) / max(1, abs($1)) }.max() ?? 0
                XCTAssertLessThan(worst, 1e-5, "'\(name)' after iteration \(k + 1)")
            }
        }
        XCTAssertTrue(names.contains { snapshots[5].raw[$0] != snapshots[5].average[$0] }, "the average is not the raw weights")
        let best = try XCTUnwrap(result.bestIteration)
        for name in names {
            XCTAssertEqual(result.model.network.stateDictionary[name], snapshots[best - 1].average[name],
                           "the model keeps the best iteration's average ('\(name)')")
        }
        // With averaging off the checkpoint holds no average and the model is the raw weights of its best iteration.
        configuration.weightAveraging = 0
        let plain = try ActionClassifierTrainer(configuration: configuration).train(on: dataset, checkpoint: checkpoint)
        XCTAssertFalse(try ModelFile.read(from: checkpoint).tensors.keys.contains { $0.hasPrefix("average.") })
        XCTAssertEqual(plain.model.network.stateDictionary, try ModelFile.read(from: checkpoint).tensors
            .filter { $0.key.hasPrefix("best.") }.reduce(into: [:]) { $0[String($1.key.dropFirst(5))] = $1.value })
    }

    func testProgressEventsCountWindowsAndIterations() throws {
        final class Collector: @unchecked Sendable { var events: [TrainingEvent] = [] }
        let collector = Collector()
        let trainer = try ActionClassifierTrainer(configuration: toyConfiguration(iterations: 3)) { collector.events.append($0) }
        let result = try trainer.train(on: dataset)
        var progress: [(Int, Int, Double)] = [], iterations: [IterationSummary] = []
        for event in collector.events {
            switch event {
            case let .progress(phase, completed, total, rate, _):
                XCTAssertEqual(phase, "training windows")
                progress.append((completed, total, rate))
            case let .iteration(summary): iterations.append(summary)
            default: break
            }
        }
        XCTAssertEqual(iterations, result.history)
        XCTAssertEqual(iterations.map(\.iteration), [1, 2, 3])
        XCTAssertEqual(iterations.map(\.totalIterations), [3, 3, 3])
        XCTAssertEqual(progress.last?.0, 27 * 2 * 3, "27 training clips × 2 windows (24 frames ≈ 1.5 windows) × 3 iterations")
        XCTAssertEqual(progress.last?.1, 162)
        XCTAssertTrue(progress.allSatisfy { $0.2 > 0 }, "windows per second")
        XCTAssertEqual(progress.map(\.0), progress.map(\.0).sorted())
    }

    func testInvalidConfigurationsListEveryProblem() {
        var configuration = ActionClassifierTrainingConfiguration()
        configuration.windowLength = 0
        configuration.batchSize = 0
        configuration.validationFraction = 1.5
        configuration.channels = [8]
        configuration.ensembleMembers = 0
        configuration.weightAveraging = -1
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: configuration)) { error in
            guard case .invalidConfiguration(let problems)? = error as? ActionTrainingError else { return XCTFail("\(error)") }
            XCTAssertEqual(problems.count, 6, "\(problems)")
            XCTAssertTrue(problems.contains("weight averaging must be 0 (off) to 1000 iterations (got -1.0)"), "\(problems)")
            XCTAssertTrue(problems.contains("the ensemble must have 1…8 members (got 0)"), "\(problems)")
        }
        let oneClass = toyActionDataset(clipsPerClass: 4, seed: 1, classes: ["circle"])
        XCTAssertThrowsError(try ActionClassifierTrainer(configuration: toyConfiguration()).train(on: oneClass)) { error in
            XCTAssertEqual(error as? ActionTrainingError, .tooFewClasses(found: ["circle"]))
        }
    }
}
