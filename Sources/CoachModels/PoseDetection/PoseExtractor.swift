import CoachData
import Foundation

/// Which joints to extract from photos and videos.
public enum ExtractedJoints: String, CaseIterable, Sendable {
    /// Vision's 18 body joints (`JointSet.body18`), from MediaPipe's BlazePose.
    case body18
    /// Vision's 21 hand joints (`JointSet.hand21`), from MediaPipe's hand models.
    case hand21

    public var jointSet: JointSet { self == .body18 ? .body18 : .hand21 }
}

/// Why poses could not be extracted from a file.
public enum PoseExtractionError: LocalizedError, Equatable, Sendable {
    case notMedia(path: String)
    case emptySequence(path: String)
    /// A photo of a folder of frames is not the size of the first (`expected`).
    case mixedFrameSizes(path: String, width: Int, height: Int, expectedWidth: Int, expectedHeight: Int, first: String)
    /// An entry of a folder of frames named like a photo is not a file that can be read (`reason`).
    case unreadableFrame(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .notMedia(let path):
            return "'\(path)' is not a photo (\(MediaKind.photoExtensions.sorted().joined(separator: ", "))), a video "
                + "(\(MediaKind.videoExtensions.sorted().joined(separator: ", "))) or a folder of photos"
        case .emptySequence(let path):
            return "the folder '\(path)' holds no photos (\(MediaKind.photoExtensions.sorted().joined(separator: ", ")))"
        case let .mixedFrameSizes(path, width, height, expectedWidth, expectedHeight, first):
            return "'\(path)' is \(width)×\(height), but the folder's first frame '\(first)' is \(expectedWidth)×\(expectedHeight): "
                + "a folder of frames is one video, whose frames share one size (poses are measured relative to it)"
        case let .unreadableFrame(path, reason):
            return "'\(path)' in a folder of frames cannot be read as a frame: \(reason); remove it or rename it, "
                + "so the video has no hole"
        }
    }
}

/// Extracts Vision-compatible pose clips (FORMATS §3) from photos, photo folders (an image
/// sequence, sorted by name, at `frameRate`) and videos, with Coach's run of MediaPipe's models.
public struct PoseExtractor: Sendable {
    public let joints: ExtractedJoints
    /// Whether the media are mirrored (front-camera selfies): decides hand chirality.
    public var mirrored: Bool
    let body: BodyPoseEstimator?
    let hands: HandPoseEstimator?

    /// An extractor of `joints` with the imported models in `modelFolder` (`coach import-pose-models`).
    public init(joints: ExtractedJoints, modelFolder: URL, mirrored: Bool = false) throws {
        self.joints = joints
        self.mirrored = mirrored
        body = joints == .body18 ? try BodyPoseEstimator(folder: modelFolder) : nil
        hands = joints == .hand21 ? try HandPoseEstimator(folder: modelFolder) : nil
    }

    /// One frame's result: keypoints in joint-set order (nil where not found), the hand's
    /// chirality, and the landmarks for drawing.
    public struct FrameResult: Sendable {
        public var keypoints: [Keypoint?]
        public var chirality: Chirality?
    }

    /// A stateful per-frame runner (tracking and smoothing across frames of one clip).
    public struct Runner: Sendable {
        var body: BodyPoseTracker?
        var hands: HandPoseTracker?
        let jointCount: Int
        let mirrored: Bool

        /// The poses in `image` at `time` seconds.
        public mutating func process(_ image: RGBImage, time: Double) -> FrameResult {
            if body != nil {
                guard let pose = body!.process(image, time: time) else { return FrameResult(keypoints: .init(repeating: nil, count: jointCount)) }
                return FrameResult(keypoints: pose.body18Keypoints, chirality: nil)
            }
            guard let hand = hands!.process(image, time: time).first else {
                return FrameResult(keypoints: .init(repeating: nil, count: jointCount))
            }
            return FrameResult(keypoints: hand.hand21Keypoints, chirality: hand.chirality(mirrored: mirrored))
        }
    }

    /// A runner for one clip; `tracking` smooths and tracks across frames (video), off for
    /// independent photos.
    public func runner(tracking: Bool) -> Runner {
        Runner(body: body.map { BodyPoseTracker(estimator: $0, smoothing: tracking) },
               hands: hands.map { HandPoseTracker(estimator: $0, smoothing: tracking) },
               jointCount: joints.jointSet.count, mirrored: mirrored)
    }

    /// The photos of an image-sequence folder, sorted by name (hidden files left out). Throws
    /// `PoseExtractionError.unreadableFrame` for an entry named like a photo that is not a readable file.
    public static func photos(in folder: URL) throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let photos = names.filter { MediaKind.photoExtensions.contains(($0 as NSString).pathExtension.lowercased()) && !$0.hasPrefix(".") }
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
            .map { folder.appendingPathComponent($0) }
        // Every frame is read, or the video would silently lose some (a pipe, socket or device
        // named like a photo, a folder, a broken link): refused, named.
        for photo in photos {
            if let reason = DataFiles.problem(with: photo) { throw PoseExtractionError.unreadableFrame(path: photo.path, reason: reason) }
        }
        return photos
    }

    /// The pose clip of the photo, photo folder or video at `url`. `frameRate` times an image
    /// sequence's frames; `observe(image, time, keypoints)` sees each frame as it is done (for
    /// progress and drawing); `warn` hears about a damaged video (decoded, as a player would,
    /// but its poses may be wrong).
    public func extract(from url: URL, frameRate: Double = 30,
                        observe: ((RGBImage, Double, [Keypoint?]) -> Void)? = nil,
                        warn: ((String) -> Void)? = nil) throws -> PoseSequence {
        guard let kind = MediaKind.of(url) else { throw PoseExtractionError.notMedia(path: url.path) }
        var runner = self.runner(tracking: kind != .photo)
        var frames: [PoseFrame] = []
        var chiralityVotes: [Chirality: Int] = [:]
        func add(_ image: RGBImage, time: Double) {
            let result = runner.process(image, time: time)
            frames.append(PoseFrame(time: time, keypoints: result.keypoints))
            if let chirality = result.chirality { chiralityVotes[chirality, default: 0] += 1 }
            observe?(image, time, result.keypoints)
        }
        var nominalRate: Double? = nil
        switch kind {
        case .photo:
            add(try ImageDecoder.decode(contentsOf: url).image, time: 0)
        case .imageSequence:
            let photos = try PoseExtractor.photos(in: url)
            guard !photos.isEmpty else { throw PoseExtractionError.emptySequence(path: url.path) }
            nominalRate = frameRate
            var size: (width: Int, height: Int)?
            for (index, photo) in photos.enumerated() {
                let image = try ImageDecoder.decode(contentsOf: photo).image
                if let size, size != (image.width, image.height) {
                    throw PoseExtractionError.mixedFrameSizes(path: photo.path, width: image.width, height: image.height,
                                                              expectedWidth: size.width, expectedHeight: size.height,
                                                              first: photos[0].lastPathComponent)
                }
                size = (image.width, image.height)
                add(image, time: Double(index) / frameRate)
            }
        case .video:
            let video = try extractVideo(url, add: add)
            nominalRate = video.frameRate
            if let damage = video.damage { warn?(damage) }
        }
        let chirality = chiralityVotes.max { $0.value < $1.value }?.key
        return PoseSequence(jointSet: joints.jointSet, frames: frames, source: PoseSource(file: url), chirality: chirality,
                            hasDepth: false, nominalFrameRate: nominalRate)
    }
}
