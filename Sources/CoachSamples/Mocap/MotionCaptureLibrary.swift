import CoachRandom
import Foundation

/// The motion-capture trials the throw generator shows as real background motion, and how one
/// excerpt becomes a body18 body in the scene: moved to the origin, turned, rescaled to a
/// person of a random height and, for half of them, mirrored.
public struct MotionCaptureLibrary: Sendable {
    /// The trials, sorted by name.
    public var clips: [MocapClip]

    /// A library of `clips`.
    public init(clips: [MocapClip]) {
        self.clips = clips
    }

    /// Loads every trial of `directory` (`csv/<trial>.csv`).
    public init(directory: URL) throws {
        clips = try MocapReader.loadLibrary(directory)
    }

    /// The repository's compact copy, `datasets/mocap-motions`: found from the working directory
    /// (as `make demo` runs) or from this source file's place in a checkout.
    public static var bundledDirectory: URL {
        let relative = "datasets/mocap-motions"
        let fromWorkingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relative)
        if FileManager.default.fileExists(atPath: fromWorkingDirectory.path) { return fromWorkingDirectory }
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let fromCheckout = checkout.appendingPathComponent(relative)
        return FileManager.default.fileExists(atPath: fromCheckout.path) ? fromCheckout : fromWorkingDirectory
    }

    /// The trials of the given subjects.
    public func clips(ofSubjects subjects: Set<Int>) -> [MocapClip] {
        clips.filter { subjects.contains($0.subject) }
    }

    /// The bodies of an excerpt of `clip` from `start` lasting `duration` seconds, sampled at
    /// `frameRate`, placed in the scene: its mean ground position at the origin, turned by `yaw`
    /// radians, scaled to a person of `height` metres, mirrored left ↔ right when `mirrored`.
    public static func bodies(of clip: MocapClip, start: Double, duration: Double, frameRate: Double,
                              height: Float, yaw: Float, mirrored: Bool) -> [Body3D] {
        let count = max(Int((duration * frameRate).rounded(.down)) + 1, 2)
        let captures = (0..<count).map { clip.joints(at: start + Double($0) / frameRate) }
        // The capture's own height: head base to floor is about 0.83 of standing height (Winter 2009).
        var headHeights = captures.map { $0[0].y - min($0[12].y, $0[13].y) + 0.039 * 1.75 }
        headHeights.sort()
        let ownHeight = max(headHeights[headHeights.count / 2] / 0.87, 0.5)
        let scale = height / ownHeight
        var centre = SIMD3<Float>(0, 0, 0)
        for capture in captures { centre += SIMD3(capture[14].x, 0, capture[14].z) }
        centre /= Float(captures.count)
        let rotation = Rotation3.aboutY(yaw)
        return captures.map { capture in
            var joints = capture.map { rotation.apply(($0 - centre) * scale) }
            if mirrored {
                for index in joints.indices { joints[index].x = -joints[index].x }
                let swaps = [(2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13)]
                for (a, b) in swaps { joints.swapAt(a, b) }
            }
            return MocapClip.body18(from: joints, height: height)
        }
    }
}
