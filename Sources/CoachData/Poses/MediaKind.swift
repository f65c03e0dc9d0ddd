import Foundation

/// What a media file is, by its name.
public enum MediaKind: Equatable, Sendable {
    case photo, video, imageSequence

    /// Photo extensions Coach decodes.
    public static let photoExtensions: Set<String> = ["jpg", "jpeg", "png"]
    /// Video extensions handed to FFmpeg.
    public static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "avi", "mkv", "webm", "mpg", "mpeg", "3gp", "wmv", "flv", "ts", "mts"]

    /// The kind of `url`: a folder is an image sequence; nil for files that are neither.
    public static func of(_ url: URL) -> MediaKind? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue { return .imageSequence }
        let ext = url.pathExtension.lowercased()
        if photoExtensions.contains(ext) { return .photo }
        if videoExtensions.contains(ext) { return .video }
        return nil
    }
}
