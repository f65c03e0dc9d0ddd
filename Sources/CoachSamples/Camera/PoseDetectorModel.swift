import Foundation
import CoachData
import CoachRandom

/// What a phone's body-pose detector (Apple Vision's `VNDetectHumanBodyPoseRequest`) reports for
/// a body seen by a camera: body18 keypoints with position error that grows with the body's
/// size in the image and is correlated from frame to frame, confidences that drop for joints
/// the body hides from the camera (a far-side arm behind the trunk, the far ear, the face seen
/// from behind) and for fast-moving, blurred joints, joints missed or outside the picture,
/// occasional left/right swaps, clips where only one head point is tracked (skeleton
/// sources without a face, such as Kinect or hand-annotated sets: no eyes or ears, the nose
/// at the head's centre) and clips without confidences (all 1).
public struct PoseDetectorModel: Equatable, Sendable {
    /// Position error (standard deviation) as a fraction of the body's height in the image: a
    /// clip draws its own level in this range.
    public var noiseRange: ClosedRange<Float> = 0.004...0.02
    /// Frame-to-frame correlation of the error at 30 fps.
    public var noiseCorrelation: Float = 0.75
    /// Probability of missing any one visible joint in a frame.
    public var dropProbability: Float = 0.015
    /// Probability of missing a joint the body hides (otherwise it gets a low confidence).
    public var hiddenDropProbability: Float = 0.5
    /// Probability that a clip has a stretch of frames with left and right swapped.
    public var swapClipProbability: Float = 0.12
    /// Probability that a frame is missing altogether.
    public var frameDropProbability: Float = 0.01
    /// The share of clips with only a head point (no eyes, no ears).
    public var headPointOnlyShare: Float = 0.25
    /// The share of clips from sources without confidences (hand annotations, skeleton files
    /// without a confidence column, which FORMATS.md §3.2 reads as 1.0): every detected joint
    /// has confidence 1.
    public var unitConfidenceShare: Float = 0.2
    /// Confidences below this are reported as not detected (the app's threshold).
    public var confidenceThreshold: Float = 0.1

    /// The default detector.
    public init() {}

    /// The observed frames of `bodies` (one per video frame at `frameRate`) filmed by `camera`
    /// with hand-held `shake` (radians); dropped frames are absent. Also returns the noise-free
    /// image positions of every joint in every frame.
    public func observe(_ bodies: [Body3D], camera: VirtualCamera, shake: Float, frameRate: Double,
                        using g: inout SeededGenerator) -> (frames: [SyntheticPoseFrame], truth: [[SIMD2<Float>]]) {
        let jointCount = Body18.allCases.count
        let noiseLevel = g.nextUniform(noiseRange.lowerBound, noiseRange.upperBound)
        let rho = powf(noiseCorrelation, Float(30 / frameRate))
        let innovation = (1 - rho * rho).squareRoot()
        let headOnly = g.nextBool(probability: headPointOnlyShare)
        let unitConfidence = g.nextBool(probability: unitConfidenceShare)
        // Per-clip confidence of each joint when plainly visible (wrists and ankles lowest).
        let baseConfidence: [Float] = Body18.allCases.map { joint in
            switch joint {
            case .rightWrist, .leftWrist, .rightAnkle, .leftAnkle: return g.nextUniform(0.45, 0.85)
            case .rightElbow, .leftElbow, .rightKnee, .leftKnee: return g.nextUniform(0.55, 0.9)
            default: return g.nextUniform(0.6, 0.95)
            }
        }
        var swapFrames = Set<Int>()
        if g.nextBool(probability: swapClipProbability) {
            for _ in 0..<g.nextInt(in: 1...2) {
                let start = g.nextInt(below: max(bodies.count, 1)), length = Int(Double(g.nextInt(in: 2...8)) * frameRate / 30)
                for frame in start..<min(start + length, bodies.count) { swapFrames.insert(frame) }
            }
        }
        var error = [SIMD2<Float>](repeating: .zero, count: jointCount)
        var wobble = SIMD3<Float>(0, 0, 0)
        var previous: [SIMD2<Float>]? = nil
        var frames: [SyntheticPoseFrame] = []
        var truth: [[SIMD2<Float>]] = []
        frames.reserveCapacity(bodies.count)
        truth.reserveCapacity(bodies.count)
        for (index, body) in bodies.enumerated() {
            wobble = wobble * 0.9 + SIMD3(g.nextNormal(), g.nextNormal(), g.nextNormal()) * (shake * 0.44)
            let view = shake > 0 ? camera.shaken(pan: wobble.x, tilt: wobble.y, roll: wobble.z * 0.5) : camera
            var joints = body.joints
            if headOnly {
                joints[Body18.nose.rawValue] = (body[.rightEar] + body[.leftEar]) / 2
            }
            var image = [SIMD2<Float>](repeating: .zero, count: jointCount)
            var depth = [Float](repeating: -1, count: jointCount)
            for joint in 0..<jointCount {
                if let projected = view.project(joints[joint]) {
                    image[joint] = projected.position
                    depth[joint] = projected.depth
                }
            }
            truth.append(image)
            let aspect = view.width / view.height
            var top: Float = .infinity, bottom: Float = -.infinity
            for joint in 0..<jointCount where depth[joint] > 0 {
                top = min(top, image[joint].y); bottom = max(bottom, image[joint].y)
            }
            let size = max(bottom - top, 0.02)  // body height in image heights
            let hidden = hiddenness(body, view: view, image: image, depth: depth)
            var keypoints = [SyntheticKeypoint?](repeating: nil, count: jointCount)
            for joint in 0..<jointCount {
                let step = g.nextNormal()
                let step2 = g.nextNormal()
                error[joint] = error[joint] * rho + SIMD2(step, step2) * (innovation * noiseLevel * size)
                guard depth[joint] > 0 else { continue }
                if headOnly && Body18(rawValue: joint)!.isFace && joint != Body18.nose.rawValue { continue }
                var confidence = baseConfidence[joint] + g.nextNormal() * 0.05
                var position = image[joint]
                // Motion blur: fast joints are less certain and noisier.
                if let previous {
                    let speed = (((image[joint] - previous[joint]) * SIMD2(aspect, 1)) * ((image[joint] - previous[joint]) * SIMD2(aspect, 1))).sum().squareRoot() * Float(frameRate / 30)
                    let blur = min(speed / (0.08 * size), 1)
                    confidence -= 0.25 * blur
                    position += SIMD2(g.nextNormal(), g.nextNormal()) * (blur * 0.015 * size)
                }
                if hidden[joint] > 0 {
                    if g.nextBool(probability: hiddenDropProbability * hidden[joint]) { continue }
                    confidence = min(confidence, g.nextUniform(0.05, 0.4))
                    position += SIMD2(g.nextNormal(), g.nextNormal()) * (0.02 * size * hidden[joint])
                }
                if g.nextBool(probability: dropProbability) { continue }
                confidence = min(max(confidence, 0), 0.99)
                guard confidence >= confidenceThreshold else { continue }
                position += SIMD2(error[joint].x / aspect, error[joint].y)
                guard (0...1).contains(position.x), (0...1).contains(position.y) else { continue }
                keypoints[joint] = SyntheticKeypoint(x: position.x, y: position.y, confidence: unitConfidence ? 1 : confidence)
            }
            if swapFrames.contains(index) {
                let swapped = keypoints
                for joint in Body18.allCases { keypoints[joint.rawValue] = swapped[joint.mirrorPartner.rawValue] }
            }
            previous = image
            if g.nextBool(probability: frameDropProbability) { continue }
            frames.append(SyntheticPoseFrame(time: Double(index) / frameRate, keypoints: keypoints))
        }
        return (frames, truth)
    }

    /// How hidden each joint is from the camera, 0 (in view) to 1 (behind the body).
    func hiddenness(_ body: Body3D, view: VirtualCamera, image: [SIMD2<Float>], depth: [Float]) -> [Float] {
        var hidden = [Float](repeating: 0, count: Body18.allCases.count)
        let neck = body[.neck], pelvis = (body[.rightHip] + body[.leftHip]) / 2
        let toCamera = normalized3(view.position - (neck + pelvis) / 2)
        let left = normalized3(cross3(SIMD3(0, 1, 0), body.chestForward), fallback: SIMD3(1, 0, 0))
        // The face: hidden from behind; each eye and ear hidden when seen from the other side.
        let headToCamera = normalized3(view.position - body[.nose])
        let facing = dot3(body.headForward, headToCamera)
        let headLeft = normalized3(cross3(SIMD3(0, 1, 0), body.headForward), fallback: left)
        let sideways = dot3(headLeft, headToCamera)
        hidden[Body18.nose.rawValue] = min(max(-facing * 2, 0), 1)
        hidden[Body18.rightEye.rawValue] = min(max(-facing * 2 + max(sideways - 0.6, 0) * 3, 0), 1)
        hidden[Body18.leftEye.rawValue] = min(max(-facing * 2 + max(-sideways - 0.6, 0) * 3, 0), 1)
        hidden[Body18.rightEar.rawValue] = min(max((sideways - 0.3) * 2, 0), 1)
        hidden[Body18.leftEar.rawValue] = min(max((-sideways - 0.3) * 2, 0), 1)
        // Limbs on the far side of the trunk, behind it in depth and inside its outline.
        let sideFacing = dot3(left, toCamera)  // > 0: the left side faces the camera
        guard depth[Body18.neck.rawValue] > 0 else { return hidden }
        let neckImage = image[Body18.neck.rawValue]
        let pelvisImage = (image[Body18.rightHip.rawValue] + image[Body18.leftHip.rawValue]) / 2
        let trunkDepth = (depth[Body18.neck.rawValue] + depth[Body18.rightHip.rawValue] + depth[Body18.leftHip.rawValue]) / 3
        let aspect = view.width / view.height
        let axis = (pelvisImage - neckImage) * SIMD2(aspect, 1)
        let trunkLength = max((axis * axis).sum().squareRoot(), 1e-4)
        let halfWidth = 0.3 * trunkLength
        let limbs: [(Body18, Float)] = [(.rightShoulder, -1), (.rightElbow, -1), (.rightWrist, -1), (.rightHip, -1), (.rightKnee, -1),
                                        (.rightAnkle, -1), (.leftShoulder, 1), (.leftElbow, 1), (.leftWrist, 1), (.leftHip, 1),
                                        (.leftKnee, 1), (.leftAnkle, 1)]
        for (joint, side) in limbs {
            let away = -side * sideFacing  // > 0 when this side faces away
            guard away > 0.35, depth[joint.rawValue] > trunkDepth else { continue }
            let relative = (image[joint.rawValue] - neckImage) * SIMD2(aspect, 1)
            let along = (relative * axis).sum() / trunkLength
            guard along > -0.1 * trunkLength, along < 1.1 * trunkLength else { continue }
            let across = abs(relative.x * axis.y - relative.y * axis.x) / trunkLength
            if across < halfWidth { hidden[joint.rawValue] = min((away - 0.35) * 2.5, 1) * (1 - across / halfWidth * 0.5) }
        }
        return hidden
    }
}
