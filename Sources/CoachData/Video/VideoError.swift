import Foundation

/// Why a video could not be read; every message names the file and says what to do.
public enum VideoError: LocalizedError, Equatable, Sendable {
    /// Nothing exists at the path.
    case fileNotFound(path: String)
    /// The file is not a media file FFmpeg can open (or is empty, a directory, unreadable);
    /// `reason` is FFmpeg's (or the file system's) own explanation.
    case unreadable(path: String, reason: String)
    /// The file opens but holds no video stream (audio only, subtitles...).
    case noVideoStream(path: String)
    /// The video stream uses a codec (or pixel format) this FFmpeg build cannot decode.
    case unsupportedCodec(path: String, codec: String)
    /// Decoding failed in the middle of the stream, at the frame with index `frame`.
    case corrupt(path: String, frame: Int, reason: String)
    /// The file has a video stream but not one frame of it decodes.
    case empty(path: String)
    /// A video could not be written (`reason` says why: the name, the size, the disk).
    case unwritable(path: String, reason: String)

    /// A sentence saying what is wrong with which file, and what to do about it.
    public var errorDescription: String? {
        switch self {
        case let .fileNotFound(path):
            return "\(path): no such video file; check the path"
        case let .unreadable(path, reason):
            return "\(path): cannot open the file as a video (\(reason)); pass a complete video file "
                + "FFmpeg can read (MP4, MOV, MKV, AVI...)"
        case let .noVideoStream(path):
            return "\(path): the file has no video stream (audio only?); pass a file with video"
        case let .unsupportedCodec(path, codec):
            return "\(path): the video is encoded as \(codec), which this FFmpeg build cannot decode; "
                + "re-encode it, e.g. `ffmpeg -i \(path) -c:v libx264 -pix_fmt yuv420p out.mp4`"
        case let .corrupt(path, frame, reason):
            return "\(path): the video is corrupt at frame \(frame) (\(reason)); re-export or re-encode it, "
                + "or remove it"
        case let .empty(path):
            return "\(path): the video stream holds no decodable frame; re-export the video or remove it"
        case let .unwritable(path, reason):
            return "\(path): cannot write the video (\(reason))"
        }
    }
}
