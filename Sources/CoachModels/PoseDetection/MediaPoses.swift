import CoachData
import Foundation

/// Pose extraction wherever a dataset names a video or photo instead of a pose clip (as Create ML
/// trains from videos): clips are extracted once and cached on disk, keyed by the media's SHA-256,
/// the joints, the frame rate of photo folders, and the pose models' digests.
public enum MediaPoses {
    /// `$COACH_POSE_CACHE`, else `$XDG_CACHE_HOME/coach/poses`, else `~/.cache/coach/poses`.
    public static var defaultCacheFolder: URL {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment["COACH_POSE_CACHE"], !folder.isEmpty { return URL(fileURLWithPath: folder) }
        if let base = environment["XDG_CACHE_HOME"], !base.isEmpty {
            return URL(fileURLWithPath: base).appendingPathComponent("coach/poses")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/coach/poses")
    }

    /// Whether `folder` holds the imported pose models.
    public static func modelsExist(in folder: URL) -> Bool {
        MediaPipeModel.allCases.allSatisfy { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0.modelFileName).path) }
    }

    /// The content key of a media file or photo folder.
    static func digest(of url: URL, frameRate: Double) throws -> String {
        if MediaKind.of(url) == .imageSequence {
            let parts = try PoseExtractor.photos(in: url).map { "\($0.lastPathComponent):\(try FileDigest.sha256(ofFileAt: $0))" }
            return try FileDigest.sha256(of: Data((parts + ["rate:\(frameRate)"]).joined(separator: "\n").utf8))
        }
        return try FileDigest.sha256(ofFileAt: url)
    }

    /// A reader that extracts `joints` with the models in `modelFolder`, caching clips in
    /// `cacheFolder` (nil: no cache). `note` hears about each extraction that is not cached, and
    /// warns (`warning: …`) about a damaged video, whose poses are then not cached.
    public static func reader(joints: ExtractedJoints, modelFolder: URL, cacheFolder: URL? = MediaPoses.defaultCacheFolder,
                              mirrored: Bool = false, frameRate: Double = 30,
                              note: (@Sendable (String) -> Void)? = nil) throws -> MediaPoseReader {
        let extractor = try PoseExtractor(joints: joints, modelFolder: modelFolder, mirrored: mirrored)
        let models = try MediaPipeModel.allCases.map { try FileDigest.sha256(ofFileAt: modelFolder.appendingPathComponent($0.modelFileName)) }
        let identity = "coach-poses-1 \(joints.rawValue) mirrored:\(mirrored) models:\(models.joined(separator: ","))"
        return MediaPoseReader(identifier: identity) { url in
            let key = try FileDigest.sha256(of: Data("\(identity) media:\(try digest(of: url, frameRate: frameRate))".utf8))
            let cached = cacheFolder?.appendingPathComponent(String(key.prefix(40)) + ".json")
            if let cached, FileManager.default.fileExists(atPath: cached.path),
               var clip = try? PoseClipReader.readJSON(cached) {
                clip.source = PoseSource(file: url)
                return clip
            }
            let started = Date()
            var damaged = false
            var clip = try extractor.extract(from: url, frameRate: frameRate, warn: { damage in
                damaged = true
                note?("warning: \(damage)")
            })
            note?("extracted \(joints.rawValue) poses from \(url.lastPathComponent): \(clip.frames.count) frame\(clip.frames.count == 1 ? "" : "s") in "
                  + String(format: "%.1f s", Date().timeIntervalSince(started)))
            // Poses of a damaged video are not cached, so every run that reads it says so.
            if let cached, !damaged {
                do {
                    try FileManager.default.createDirectory(at: cached.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try Data(clip.jsonText().utf8).write(to: cached, options: .atomic)
                } catch {
                    note?("warning: could not cache poses in \(cached.path): \(error.localizedDescription)")
                }
            }
            clip.source = PoseSource(file: url)
            return clip
        }
    }
}
