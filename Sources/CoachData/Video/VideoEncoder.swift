import CVideo
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes RGB frames into a video file (H.264 in MP4/MOV/MKV when FFmpeg has libx264, else
/// MPEG-4 part 2), atomically: frames go to a temporary file beside the destination, which
/// `finish()` renames into place, so an interrupted run never leaves a half-written video there.
///
/// ```swift
/// let encoder = try VideoEncoder(writingTo: url, width: 1280, height: 720, frameRate: 30)
/// for image in frames { try encoder.append(image) }
/// try encoder.finish()
/// ```
public final class VideoEncoder {
    /// Where the finished video goes.
    public let url: URL
    /// The frames' size in pixels.
    public let width: Int, height: Int
    /// Frames written so far.
    public private(set) var frameCount = 0
    private let temporaryURL: URL
    private var handle: OpaquePointer?

    /// Starts a video of `width` × `height` frames at `frameRate` frames per second at `url`
    /// (its extension, .mp4, .mov, .mkv or .avi, picks the container).
    public init(writingTo url: URL, width: Int, height: Int, frameRate: Double) throws {
        self.url = url
        self.width = width
        self.height = height
        let name = ".\(url.deletingPathExtension().lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)"
        VideoEncoder.removeStalePartials(of: url)
        temporaryURL = url.deletingLastPathComponent().appendingPathComponent(name).appendingPathExtension(url.pathExtension)
        var message = [CChar](repeating: 0, count: Int(COACH_VIDEO_MESSAGE_CAPACITY))
        var opened: OpaquePointer?
        let status = temporaryURL.path.withCString {
            coach_video_writer_open($0, Int32(clamping: width), Int32(clamping: height), frameRate, &opened, &message)
        }
        guard status == COACH_VIDEO_OK, let opened else {
            try? FileManager.default.removeItem(at: temporaryURL)
            throw VideoError.unwritable(path: url.path, reason: String(cString: message))
        }
        handle = opened
    }

    /// Removes `.<name>.partial-<pid>.<ext>` files that a killed writer of `url` left behind (their
    /// process no longer runs); a running writer's file is left alone.
    static func removeStalePartials(of url: URL) {
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.deletingPathExtension().lastPathComponent).partial-", suffix = "." + url.pathExtension
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(suffix) {
            guard let pid = Int32(name.dropFirst(prefix.count).dropLast(suffix.count)), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
        }
    }

    deinit {
        coach_video_writer_close(handle)
        if handle != nil { try? FileManager.default.removeItem(at: temporaryURL) }
    }

    /// Encodes the next frame (it must be `width` × `height`).
    public func append(_ image: RGBImage) throws {
        guard let handle else { throw VideoError.unwritable(path: url.path, reason: "the video is already finished") }
        guard image.width == width, image.height == height else {
            throw VideoError.unwritable(path: url.path, reason: "frame \(frameCount) is \(image.width)×\(image.height), the video \(width)×\(height)")
        }
        var message = [CChar](repeating: 0, count: Int(COACH_VIDEO_MESSAGE_CAPACITY))
        let status = image.pixels.withUnsafeBufferPointer {
            coach_video_writer_append_rgb(handle, $0.baseAddress, $0.count, &message)
        }
        guard status == COACH_VIDEO_OK else { throw VideoError.unwritable(path: url.path, reason: String(cString: message)) }
        frameCount += 1
    }

    /// Completes the file and moves it to `url` (replacing what was there).
    public func finish() throws {
        guard let handle else { return }
        var message = [CChar](repeating: 0, count: Int(COACH_VIDEO_MESSAGE_CAPACITY))
        let status = coach_video_writer_finish(handle, &message)
        coach_video_writer_close(handle)
        self.handle = nil
        guard status == COACH_VIDEO_OK else {
            try? FileManager.default.removeItem(at: temporaryURL)
            throw VideoError.unwritable(path: url.path, reason: String(cString: message))
        }
        // rename(2) replaces an earlier video in one step. Foundation's replaceItemAt on Linux
        // failed here ("The file doesn't exist") after removing the earlier video.
        guard rename(temporaryURL.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporaryURL)
            throw VideoError.unwritable(path: url.path, reason: reason)
        }
    }
}
