import Foundation
import CoachRandom

/// Turns a `ThrowClipPlan` into a `SyntheticClip`: animates the stick figure, mirrors it
/// for left-handed subjects, films it with the plan's camera, and simulates a pose
/// detector (position noise, confidences, missed and hidden joints, dropped frames).
struct ThrowClipRenderer {
    let configuration: ThrowDatasetConfiguration

    private enum Joint {
        static let nose = 0, neck = 1
        static let rightShoulder = 2, leftShoulder = 5, rightHip = 8, leftHip = 11
        static let rightEye = 14, leftEye = 15, rightEar = 16, leftEar = 17
    }

    func render(_ plan: ThrowClipPlan) -> SyntheticClip {
        let jointNames = SyntheticJointNames.body18
        let frameRate = configuration.frameRate
        let frameCount = max(1, Int((plan.duration * frameRate + 1e-6).rounded(.down)))

        // 1. Animate (always right-handed), then mirror left-handed subjects.
        var motionGenerator = SeededGenerator(seed: plan.motionSeed)
        let timeline = ActionTimeline(steps: plan.steps, subject: plan.subject, using: &motionGenerator)
        let figure = StickFigure(subject: plan.subject)
        let partners = SyntheticJointNames.mirrorPartners(of: jointNames)
        var world: [[SIMD3<Float>]] = []
        world.reserveCapacity(frameCount)
        for k in 0..<frameCount {
            let joints = figure.joints(for: timeline.pose(at: Float(Double(k) / frameRate)))
            if plan.subject.isLeftHanded {
                world.append(partners.map { partner in
                    let p = joints[partner]
                    return SIMD3(p.x, p.y, -p.z)
                })
            } else {
                world.append(joints)
            }
        }

        // 2. Film: aim at the centre of the action, then fit it into the frame.
        var low = world[0][0], high = world[0][0]
        for frame in world {
            for p in frame {
                low = pointwiseMin(low, p)
                high = pointwiseMax(high, p)
            }
        }
        var projection = SyntheticProjection(camera: plan.camera, target: (low + high) / 2)
        let lens = world.map { $0.map(projection.lens) }
        projection.fit(lensPoints: lens.flatMap { $0 })
        let truePositions = lens.map { $0.map(projection.image(ofLens:)) }

        // 3. Detect: noise, confidence, hidden and missed joints, dropped frames.
        var detector = SeededGenerator(seed: plan.observationSeed)
        let height = plan.subject.height
        let sigmaY = configuration.keypointNoise * height * projection.metreInImage
        let sigma = SIMD2<Float>(sigmaY / plan.camera.aspectRatio, sigmaY)
        var frames: [SyntheticPoseFrame] = []
        frames.reserveCapacity(frameCount)
        for k in 0..<frameCount {
            // The first and last frames are never dropped, so the written clip spans the
            // whole annotated time range.
            let dropFrame = detector.nextBool(probability: configuration.frameDropProbability) && k > 0 && k < frameCount - 1
            let depth = world[k].map { projection.cameraSpace($0).z }
            let hidden = Self.hiddenness(depth: depth, height: height)
            var keypoints: [SyntheticKeypoint?] = []
            keypoints.reserveCapacity(jointNames.count)
            for j in 0..<jointNames.count {
                let noise = SIMD2(detector.nextNormal(), detector.nextNormal()) * sigma
                let confidenceNoise = 0.05 * detector.nextNormal()
                let missProbability = configuration.jointDropProbability
                    + configuration.occludedJointDropProbability * hidden[j]
                let missed = detector.nextBool(probability: missProbability)
                if missed {
                    keypoints.append(nil)
                    continue
                }
                let p = pointwiseMin(pointwiseMax(truePositions[k][j] + noise, .zero), SIMD2(repeating: 1))
                let confidence = min(max(0.9 - 0.45 * hidden[j] + confidenceNoise, 0.05), 1)
                keypoints.append(SyntheticKeypoint(x: p.x, y: p.y, confidence: confidence))
            }
            if !dropFrame {
                frames.append(SyntheticPoseFrame(time: Double(k) / frameRate, keypoints: keypoints))
            }
        }

        // 4. Labels.
        var actions: [SyntheticActionSpan] = []
        var start = 0.0
        for step in plan.steps {
            actions.append(SyntheticActionSpan(action: step.action, start: start, end: start + step.duration))
            start += step.duration
        }
        // Segments end where the clip does: frameCount frames at frameRate (the plan's
        // duration may end part-way through a frame interval).
        let clipEnd = Double(frameCount) / frameRate
        if var last = actions.popLast() {
            last.end = min(last.end, clipEnd)
            actions.append(last)
        }
        let background = configuration.backgroundLabel
        var segments: [SyntheticSegment] = []
        for span in actions {
            let label = span.action.throwKind?.rawValue ?? background
            if let last = segments.last, last.label == background, label == background {
                segments[segments.count - 1].end = span.end
            } else {
                segments.append(SyntheticSegment(label: label, start: span.start, end: span.end))
            }
        }
        return SyntheticClip(plan: plan, frameRate: frameRate, jointNames: jointNames, frames: frames,
                             truePositions: truePositions, actions: actions, segments: segments,
                             label: plan.throwKind?.rawValue ?? background)
    }

    /// How hidden each joint is from the camera (0 visible … 1 hidden): far-side face
    /// points behind the head, far-side limbs behind the trunk (at most one half).
    private static func hiddenness(depth: [Float], height: Float) -> [Float] {
        func clamp(_ v: Float) -> Float { min(max(v, 0), 1) }
        var hidden = [Float](repeating: 0, count: depth.count)
        let headCentre = (depth[Joint.rightEar] + depth[Joint.leftEar]) / 2
        for j in [Joint.rightEye, Joint.leftEye, Joint.rightEar, Joint.leftEar] {
            hidden[j] = clamp((depth[j] - headCentre) / (0.05 * height))
        }
        hidden[Joint.nose] = clamp((depth[Joint.nose] - headCentre) / (0.03 * height))
        let chest = (depth[Joint.rightShoulder] + depth[Joint.leftShoulder]) / 2
        let pelvis = (depth[Joint.rightHip] + depth[Joint.leftHip]) / 2
        for j in 2...7 { hidden[j] = 0.5 * clamp((depth[j] - chest) / (0.12 * height)) }
        for j in 8...13 { hidden[j] = 0.5 * clamp((depth[j] - pelvis) / (0.12 * height)) }
        return hidden
    }
}
