/// One motion-capture trial: 15 joints in metres (y up) at a fixed frame rate.
public struct MocapClip: Equatable, Sendable {
    /// The joints of the capture files, in column order. "nose" is the base of the head.
    public static let jointNames = ["nose", "neck", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow",
                                    "leftWrist", "rightWrist", "leftHip", "rightHip", "leftKnee", "rightKnee",
                                    "leftAnkle", "rightAnkle", "root"]

    /// The trial's name (`02_06`).
    public var name: String
    /// The subject's number (`2` for trial `02_06`).
    public var subject: Int
    /// Frames per second.
    public var frameRate: Double
    /// Per frame, one position per joint of `jointNames`.
    public var frames: [[SIMD3<Float>]]

    /// A clip with the given frames.
    public init(name: String, subject: Int, frameRate: Double, frames: [[SIMD3<Float>]]) {
        self.name = name
        self.subject = subject
        self.frameRate = frameRate
        self.frames = frames
    }

    /// The clip's length in seconds.
    public var duration: Double { Double(max(frames.count - 1, 0)) / frameRate }

    /// The joints at `time` seconds, interpolated linearly between frames (clamped to the clip).
    public func joints(at time: Double) -> [SIMD3<Float>] {
        let position = min(max(time * frameRate, 0), Double(frames.count - 1))
        let index = Int(position), fraction = Float(position - Double(index))
        guard index + 1 < frames.count, fraction > 0 else { return frames[index] }
        let a = frames[index], b = frames[index + 1]
        return a.indices.map { a[$0] + (b[$0] - a[$0]) * fraction }
    }

    /// The body18 joints of `capture` (15 joints in `jointNames` order) for a person of `height`
    /// metres: Vision's neck is the midpoint of the shoulders, and the face (nose, eyes, ears)
    /// is placed from the head base and the head's orientation — up along neck → head base,
    /// facing perpendicular to the shoulder line.
    public static func body18(from capture: [SIMD3<Float>], height: Float) -> Body3D {
        let headBase = capture[0], neck = capture[1], leftShoulder = capture[2], rightShoulder = capture[3]
        let up = normalized3(headBase - neck, fallback: SIMD3(0, 1, 0))
        let across = leftShoulder - rightShoulder
        let chestForward = normalized3(cross3(across, SIMD3(0, 1, 0)), fallback: SIMD3(0, 0, 1))
        let headForward = normalized3(cross3(across, up), fallback: chestForward)
        let face = HeadModel.facePoints(base: headBase, up: up, forward: headForward, height: height)
        var joints = [SIMD3<Float>](repeating: .zero, count: Body18.allCases.count)
        joints[Body18.nose.rawValue] = face.nose
        joints[Body18.neck.rawValue] = (leftShoulder + rightShoulder) / 2
        joints[Body18.rightShoulder.rawValue] = rightShoulder
        joints[Body18.rightElbow.rawValue] = capture[5]
        joints[Body18.rightWrist.rawValue] = capture[7]
        joints[Body18.leftShoulder.rawValue] = leftShoulder
        joints[Body18.leftElbow.rawValue] = capture[4]
        joints[Body18.leftWrist.rawValue] = capture[6]
        joints[Body18.rightHip.rawValue] = capture[9]
        joints[Body18.rightKnee.rawValue] = capture[11]
        joints[Body18.rightAnkle.rawValue] = capture[13]
        joints[Body18.leftHip.rawValue] = capture[8]
        joints[Body18.leftKnee.rawValue] = capture[10]
        joints[Body18.leftAnkle.rawValue] = capture[12]
        joints[Body18.rightEye.rawValue] = face.rightEye
        joints[Body18.leftEye.rawValue] = face.leftEye
        joints[Body18.rightEar.rawValue] = face.rightEar
        joints[Body18.leftEar.rawValue] = face.leftEar
        return Body3D(joints: joints, headForward: headForward, chestForward: chestForward, height: height)
    }
}
