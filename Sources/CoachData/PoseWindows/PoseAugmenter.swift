import CoachRandom
import Foundation

/// Applies the enabled `PoseAugmentation`s to training windows, drawing every random choice
/// from the generator it is given.
///
/// Time augmentations (`interpolateFrames`, `dropFrames`) act while a window is cut from its
/// sequence (see `PoseWindowSampler.randomWindow(from:augmenter:generator:)`); spatial ones act on
/// the cut window (`apply(to:generator:)`). Magnitudes are relative to the window's own size
/// (`PoseWindow.spread`, or `extent` for a single joint), so they mean the same in any unit.
public struct PoseAugmenter: Hashable, Sendable {
    /// The augmentations to apply.
    public var augmentations: Set<PoseAugmentation>
    /// For each joint, the index of its left/right counterpart (`JointSet.mirroredIndices`).
    public var mirroredIndices: [Int]
    /// For each joint, the joint it hangs from in the skeleton (`JointSet.skeletonParents`); empty
    /// when the joints have no known skeleton (`proportions` then does nothing).
    public var skeletonParents: [Int?] = []
    /// The largest relative change of a bone's length under `proportions` (0.1: 0.9…1.1).
    public var maximumBoneChange: Float = 0.1
    /// The chance a window is flipped when `horizontalFlip` is on.
    public var flipProbability: Float = 0.5
    /// The largest rotation, in degrees either way (about each axis, for poses with depth).
    public var maximumRotationDegrees: Float = 15
    /// The largest constant shift and the largest drift across the window, as fractions of the window's size.
    public var maximumTranslation: Float = 0.1
    /// The largest relative change of each axis's scale (0.15: x and y each scaled by 0.85…1.15).
    public var maximumScaleChange: Float = 0.15
    /// The jitter's standard deviation, as a fraction of the window's size.
    public var jitterStandardDeviation: Float = 0.02
    /// The range of playback speeds for `interpolateFrames` (drawn log-uniformly).
    public var speedRange: ClosedRange<Double> = 0.8...1.25
    /// The chance each frame is skipped when `dropFrames` is on (at most 3 in a row).
    public var dropProbability: Float = 0.1
    /// The chance a window loses joints when `occlude` is on (the action classifier's trainer
    /// sets it from its data: `occlusionProbability(matching:)`).
    public var occlusionProbability: Float = 0.5
    /// In an occluded window, the chance each joint is hidden in every frame, and (otherwise) the
    /// chance it is hidden for one stretch of 10–50 % of the frames.
    public var wholeWindowOcclusion: Float = 0.05, stretchOcclusion: Float = 0.15
    /// In an occluded window, the chance each joint is missed in any one frame.
    public var frameOcclusion: Float = 0.03

    /// An augmenter applying `augmentations` to poses of `jointSet`.
    public init(augmentations: Set<PoseAugmentation>, jointSet: JointSet) {
        self.augmentations = augmentations
        self.mirroredIndices = jointSet.mirroredIndices
        self.skeletonParents = jointSet.skeletonParents
    }

    /// An augmenter applying `augmentations` to poses whose joint `j` mirrors to `mirroredIndices[j]`.
    public init(augmentations: Set<PoseAugmentation>, mirroredIndices: [Int]) {
        self.augmentations = augmentations
        self.mirroredIndices = mirroredIndices
    }

    /// Whether `augmentation` is enabled.
    public func isEnabled(_ augmentation: PoseAugmentation) -> Bool { augmentations.contains(augmentation) }

    /// The source-frame steps between a window's `frameCount` consecutive frames: 1 each without
    /// time augmentations; a random speed with `interpolateFrames`; skipped frames add whole
    /// steps with `dropFrames`. The result has `frameCount − 1` entries.
    public func frameSteps(frameCount: Int, generator: inout SeededGenerator) -> [Double] {
        var speed = 1.0
        if isEnabled(.interpolateFrames) {
            let low = Foundation.log(speedRange.lowerBound), high = Foundation.log(speedRange.upperBound)
            speed = Foundation.exp(low + (high - low) * generator.nextDouble())
        }
        var steps = [Double](repeating: speed, count: max(frameCount - 1, 0))
        if isEnabled(.dropFrames) {
            for k in steps.indices {
                var skipped = 0
                while skipped < 3 && generator.nextBool(probability: dropProbability) { skipped += 1 }
                steps[k] += Double(skipped) * speed
            }
        }
        return steps
    }

    /// Applies the enabled spatial augmentations (flip, proportions, rotate, scale, translate, jitter, occlude —
    /// in that order) to `window`'s detected keypoints; undetected joints and padding stay zero.
    public func apply(to window: inout PoseWindow, generator: inout SeededGenerator) {
        let centre = window.centroid
        var size = window.spread
        if !(size > 0) { size = window.extent }
        if !(size > 0) { size = 1 }
        let t = window.frameCount, j = window.jointCount

        if isEnabled(.horizontalFlip), generator.nextBool(probability: flipProbability) {
            flipHorizontally(&window, about: centre.x)
        }
        if isEnabled(.proportions) { changeProportions(&window, generator: &generator) }
        if isEnabled(.rotate) {
            let angle = generator.nextUniform(-maximumRotationDegrees, maximumRotationDegrees) * .pi / 180
            let c = Foundation.cos(angle), s = Foundation.sin(angle)
            for i in window.confidence.indices where window.confidence[i] > 0 {
                let dx = window.x[i] - centre.x, dy = window.y[i] - centre.y
                window.x[i] = centre.x + c * dx - s * dy
                window.y[i] = centre.y + s * dx + c * dy
            }
            if window.z != nil {
                // Poses with depth also turn about the vertical and the horizontal axis, as a
                // person facing a little away from the camera or a camera higher or lower would.
                let yaw = generator.nextUniform(-maximumRotationDegrees, maximumRotationDegrees) * .pi / 180
                let pitch = generator.nextUniform(-maximumRotationDegrees, maximumRotationDegrees) * .pi / 180
                let cy = Foundation.cos(yaw), sy = Foundation.sin(yaw), cp = Foundation.cos(pitch), sp = Foundation.sin(pitch)
                for i in window.confidence.indices where window.confidence[i] > 0 {
                    let dx = window.x[i] - centre.x, dz = window.z![i] - centre.z
                    window.x[i] = centre.x + cy * dx + sy * dz
                    let turnedZ = -sy * dx + cy * dz
                    let dy = window.y[i] - centre.y
                    window.y[i] = centre.y + cp * dy - sp * turnedZ
                    window.z![i] = centre.z + sp * dy + cp * turnedZ
                }
            }
        }
        if isEnabled(.scale) {
            let sx = 1 + generator.nextUniform(-maximumScaleChange, maximumScaleChange)
            let sy = 1 + generator.nextUniform(-maximumScaleChange, maximumScaleChange)
            for i in window.confidence.indices where window.confidence[i] > 0 {
                window.x[i] = centre.x + sx * (window.x[i] - centre.x)
                window.y[i] = centre.y + sy * (window.y[i] - centre.y)
            }
        }
        if isEnabled(.translate) {
            let m = maximumTranslation * size
            let shiftX = generator.nextUniform(-m, m), shiftY = generator.nextUniform(-m, m)
            let driftX = generator.nextUniform(-m, m), driftY = generator.nextUniform(-m, m)
            for frame in 0..<t {
                let phase = t > 1 ? Float(frame) / Float(t - 1) - 0.5 : 0
                for joint in 0..<j where window.confidence[frame * j + joint] > 0 {
                    let i = frame * j + joint
                    window.x[i] += shiftX + driftX * phase
                    window.y[i] += shiftY + driftY * phase
                }
            }
        }
        if isEnabled(.jitter) {
            let sd = jitterStandardDeviation * size
            for i in window.confidence.indices where window.confidence[i] > 0 {
                window.x[i] += sd * generator.nextNormal()
                window.y[i] += sd * generator.nextNormal()
                if window.z != nil { window.z![i] += sd * generator.nextNormal() }
            }
        }
        if isEnabled(.occlude), j >= 2, occlusionProbability > 0,
           generator.nextBool(probability: occlusionProbability) {
            occlude(&window, generator: &generator)
        }
    }

    /// The share of windows to occlude for training data that misses `missedShare` of its
    /// keypoints (`PoseSequence.missedShare`): four times that share, at most every window. Data
    /// whose every joint is detected in every frame gets no occlusion: hiding joints it always has
    /// cost 4 points on 12 NATOPS clips per class, while on data missing a quarter of its keypoints
    /// the network alone gained 4 (`coach-bench --only action-peers --action-sets
    /// natops-small,natops-occluded`).
    public static func occlusionProbability(matching missedShare: Double) -> Float {
        Float(min(1, max(0, 4 * missedShare)))
    }

    /// Scales each bone of `window` by a factor drawn once for the window (shared by a bone and its
    /// mirror image): walking out from the skeleton's centre, every joint moves with its parent and
    /// then along the bone to it. A joint whose parent is undetected in a frame moves with the
    /// parent's own parent; undetected joints stay zero.
    func changeProportions(_ window: inout PoseWindow, generator: inout SeededGenerator) {
        let t = window.frameCount, j = window.jointCount
        guard skeletonParents.count == j, skeletonParents.contains(where: { $0 != nil }) else { return }
        var factor = [Float](repeating: 1, count: j)
        for joint in 0..<j where skeletonParents[joint] != nil {
            factor[joint] = 1 + generator.nextUniform(-maximumBoneChange, maximumBoneChange)
        }
        for joint in 0..<j {
            let other = mirroredIndices.indices.contains(joint) ? mirroredIndices[joint] : joint
            if other < joint, skeletonParents[other] != nil { factor[joint] = factor[other] }
        }
        // Parents before children: breadth first from the centre, as the parents were found.
        var order: [Int] = [], depth = [Int](repeating: -1, count: j)
        func depthOf(_ joint: Int) -> Int {
            if depth[joint] >= 0 { return depth[joint] }
            let d = skeletonParents[joint].map { depthOf($0) + 1 } ?? 0
            depth[joint] = d
            return d
        }
        order = (0..<j).sorted { (depthOf($0), $0) < (depthOf($1), $1) }
        var dx = [Float](repeating: 0, count: j), dy = dx, dz = dx
        for frame in 0..<t {
            let base = frame * j
            for joint in order {
                guard let parent = skeletonParents[joint] else { dx[joint] = 0; dy[joint] = 0; dz[joint] = 0; continue }
                dx[joint] = dx[parent]; dy[joint] = dy[parent]; dz[joint] = dz[parent]
                let i = base + joint, p = base + parent
                if window.confidence[i] > 0, window.confidence[p] > 0 {
                    let stretch = factor[joint] - 1
                    dx[joint] += stretch * (window.x[i] - window.x[p])
                    dy[joint] += stretch * (window.y[i] - window.y[p])
                    if let z = window.z { dz[joint] += stretch * (z[i] - z[p]) }
                }
            }
            for joint in 0..<j where window.confidence[base + joint] > 0 {
                window.x[base + joint] += dx[joint]
                window.y[base + joint] += dy[joint]
                if window.z != nil { window.z![base + joint] += dz[joint] }
            }
        }
    }

    /// Hides joints of `window` (see `PoseAugmentation.occlude`); a window that would keep no
    /// detected keypoint is left as it was.
    func occlude(_ window: inout PoseWindow, generator: inout SeededGenerator) {
        let t = window.frameCount, j = window.jointCount
        var hidden = [Bool](repeating: false, count: t * j)
        for joint in 0..<j {
            let draw = generator.nextUniform()
            if draw < wholeWindowOcclusion {
                for frame in 0..<t { hidden[frame * j + joint] = true }
            } else if draw < wholeWindowOcclusion + stretchOcclusion {
                let length = max(1, Int(Float(t) * (0.1 + 0.4 * generator.nextUniform())))
                let start = Int(generator.nextUniform() * Float(t - length + 1))
                for frame in start..<min(t, start + length) { hidden[frame * j + joint] = true }
            }
            for frame in 0..<t where generator.nextBool(probability: frameOcclusion) { hidden[frame * j + joint] = true }
        }
        guard window.confidence.indices.contains(where: { window.confidence[$0] > 0 && !hidden[$0] }) else { return }
        for i in hidden.indices where hidden[i] {
            window.x[i] = 0
            window.y[i] = 0
            if window.z != nil { window.z![i] = 0 }
            window.confidence[i] = 0
        }
    }

    /// Mirrors `window` about the vertical line x = `axis`: x → 2·axis − x for every detected
    /// keypoint, each joint swaps places with its `mirroredIndices` counterpart, chirality flips.
    public func flipHorizontally(_ window: inout PoseWindow, about axis: Float) {
        let j = window.jointCount
        for i in window.confidence.indices where window.confidence[i] > 0 {
            window.x[i] = 2 * axis - window.x[i]
        }
        for frame in 0..<window.frameCount {
            for (joint, other) in mirroredIndices.enumerated() where joint < other && other < j {
                let a = frame * j + joint, b = frame * j + other
                window.x.swapAt(a, b)
                window.y.swapAt(a, b)
                if window.z != nil { window.z!.swapAt(a, b) }
                window.confidence.swapAt(a, b)
            }
        }
        switch window.chirality {
        case .left?: window.chirality = .right
        case .right?: window.chirality = .left
        default: break
        }
    }
}
