import CoachData
import CoachRandom
import CoachTraining
import Foundation

/// A small in-memory pose dataset: three joints (a hand and two markers) tracing a circle, a
/// left-right swipe, or standing still with noise ("other"), each clip with its own size, place,
/// speed and noise — quick to train on, and not solvable from one frame alone.
func toyActionDataset(clipsPerClass: Int, frames: Int = 24, seed: UInt64, classes: [String] = ["circle", "swipe", "other"]) -> PoseDataset {
    var generator = SeededGenerator(seed: seed)
    let jointSet = JointSet(names: ["hand", "elbowMarker", "shoulderMarker"])!
    var clips: [LabeledPoseClip] = []
    for index in 0..<(clipsPerClass * classes.count) {
        let label = classes[index % classes.count]
        let size = generator.nextUniform(0.1, 0.3)
        let cx = generator.nextUniform(0.3, 0.7), cy = generator.nextUniform(0.3, 0.7)
        let speed = generator.nextUniform(0.8, 1.25)
        let phase = generator.nextUniform(0, 6.28)
        var poseFrames: [PoseFrame] = []
        for t in 0..<frames {
            let angle = phase + speed * Float(t) * 0.35
            var hand: (Float, Float)
            switch label {
            case "circle": hand = (cx + size * cos(angle), cy + size * sin(angle))
            case "swipe": hand = (cx + size * sin(angle), cy + 0.1 * size)
            default: hand = (cx + 0.05 * size * generator.nextNormal(), cy + 0.05 * size * generator.nextNormal())
            }
            let noise = 0.02 * size
            let keypoints: [Keypoint?] = [
                generator.nextBool(probability: 0.05) ? nil
                    : Keypoint(x: hand.0 + noise * generator.nextNormal(), y: hand.1 + noise * generator.nextNormal(), confidence: 0.9),
                Keypoint(x: cx + noise * generator.nextNormal(), y: cy + size + noise * generator.nextNormal(), confidence: 0.8),
                Keypoint(x: cx + size + noise * generator.nextNormal(), y: cy + 2 * size + noise * generator.nextNormal(), confidence: 0.7),
            ]
            poseFrames.append(PoseFrame(time: Double(t) / 30, keypoints: keypoints))
        }
        let source = PoseSource(file: URL(fileURLWithPath: "/toy/\(label)/clip-\(index).csv"))
        clips.append(LabeledPoseClip(sequence: PoseSequence(jointSet: jointSet, frames: poseFrames, source: source, nominalFrameRate: 30),
                                     segments: [PoseSegment(label: label)]))
    }
    return PoseDataset(jointSet: jointSet, hasDepth: false, clips: clips)
}

/// A quick training configuration for the toy dataset (16-frame windows, small batches, one
/// ensemble member: the ensemble's own tests set more).
func toyConfiguration(iterations: Int = 6, seed: UInt64 = 1) -> ActionClassifierTrainingConfiguration {
    var configuration = ActionClassifierTrainingConfiguration()
    configuration.windowLength = 16
    configuration.maximumIterations = iterations
    configuration.batchSize = 8
    configuration.validationFraction = 0.2
    configuration.seed = seed
    configuration.ensembleMembers = 1
    // A fifth of the head's default features: on toy clips the head's fit would take most of a
    // test's time, and its code is the same at any width.
    configuration.randomConvolutionFeatures = 2_000
    return configuration
}
