import CoachData
import Foundation

/// The files of a rendered game: the video, its player's poses and the truth.
public struct GameVideoFiles: Equatable, Sendable {
    /// The video (H.264 MP4).
    public var video: URL
    /// The player's body18 poses per frame (FORMATS §3.2 CSV, origin top-left).
    public var poses: URL
    /// Everything the video shows, as JSON (board, hole, scale, each throw's truth).
    public var truth: URL
    /// The board's box in pixels (x, y, width, height), as a detector would give it.
    public var boardBox: (x: Double, y: Double, width: Double, height: Double)

    /// Files are equal when every path and the box are.
    public static func == (lhs: GameVideoFiles, rhs: GameVideoFiles) -> Bool {
        lhs.video == rhs.video && lhs.poses == rhs.poses && lhs.truth == rhs.truth && lhs.boardBox == rhs.boardBox
    }
}

extension GameVideo {
    /// The board's axis-aligned box in pixels with a 4 % margin, as a detector draws it.
    public var boardBox: (x: Double, y: Double, width: Double, height: Double) {
        let xs = boardCorners.map(\.x), ys = boardCorners.map(\.y)
        let width = xs.max()! - xs.min()!, height = ys.max()! - ys.min()!
        let margin = 0.04 * width
        return (xs.min()! - margin, ys.min()! - margin, width + 2 * margin, height + 2 * margin)
    }

    /// The player's poses as a body18 clip (normalised, origin top-left; empty without a player).
    public func poseSequence(source: URL) -> PoseSequence {
        let width = Double(configuration.width), height = Double(configuration.height)
        let frames = poses.enumerated().map { index, joints in
            PoseFrame(time: time(ofFrame: index), keypoints: joints.map {
                Keypoint(x: Float($0.x / width), y: Float($0.y / height), confidence: 1)
            })
        }
        return PoseSequence(jointSet: .body18, frames: frames, source: PoseSource(file: source), hasDepth: false,
                            nominalFrameRate: configuration.frameRate)
    }

    /// Writes `game.mp4`, `poses.csv` and `truth.json` into `folder` (which must exist).
    public func write(into folder: URL) throws -> GameVideoFiles {
        let video = folder.appendingPathComponent("game.mp4")
        let encoder = try VideoEncoder(writingTo: video, width: background.width, height: background.height,
                                       frameRate: configuration.frameRate)
        for index in 0..<frameCount { try encoder.append(frame(index)) }
        try encoder.finish()
        let posesURL = folder.appendingPathComponent("poses.csv")
        try Data(poseSequence(source: posesURL).csvText().utf8).write(to: posesURL, options: .atomic)
        let truthURL = folder.appendingPathComponent("truth.json")
        try truthJSON().write(to: truthURL, options: .atomic)
        return GameVideoFiles(video: video, poses: posesURL, truth: truthURL, boardBox: boardBox)
    }

    /// The truth as JSON.
    func truthJSON() throws -> Data {
        struct Throw: Encodable {
            var kind: String, bag: String, landing: String, releaseTime: Double, landingTime: Double
            var releasePoint: [Double], landingPoint: [Double], equationCoefficients: [Double]
            var speed: Double, releaseAngle: Double, points: Int
        }
        struct Truth: Encodable {
            var width: Int, height: Int, frameRate: Double, frameCount: Int, firstStillFrame: Int
            var boardBox: [Double], boardCorners: [[Double]], holeCentre: [Double], holeRadius: Double
            var metresPerPixel: Double, throwTruths: [Throw], total: Int
            enum CodingKeys: String, CodingKey {
                case width, height, frameRate, frameCount, firstStillFrame, boardBox, boardCorners, holeCentre, holeRadius
                case metresPerPixel, throwTruths = "throws", total
            }
        }
        let throwList = throwTruths.map { t in
            Throw(kind: t.kind.rawValue, bag: t.isRedBag ? "red" : "blue", landing: t.landing.rawValue, releaseTime: t.releaseTime,
                  landingTime: t.landingTime, releasePoint: [t.releasePoint.x, t.releasePoint.y],
                  landingPoint: [t.landingPoint.x, t.landingPoint.y],
                  equationCoefficients: [t.equationCoefficients.x, t.equationCoefficients.y, t.equationCoefficients.z],
                  speed: t.speed, releaseAngle: t.releaseAngle, points: t.landing == .hole ? 3 : t.landing == .board ? 1 : 0)
        }
        let box = boardBox
        let truth = Truth(width: background.width, height: background.height, frameRate: configuration.frameRate,
                          frameCount: frameCount, firstStillFrame: firstStillFrame, boardBox: [box.x, box.y, box.width, box.height],
                          boardCorners: boardCorners.map { [$0.x, $0.y] }, holeCentre: [holeCentre.x, holeCentre.y],
                          holeRadius: holeRadius, metresPerPixel: metresPerPixel, throwTruths: throwList,
                          total: throwList.reduce(0) { $0 + $1.points })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(truth)
    }
}
