import CVideo
import Foundation

/// Reads the frames of a video file (any container and codec FFmpeg decodes) as upright
/// RGB images with their presentation times.
///
/// ```swift
/// let decoder = try VideoDecoder(contentsOf: url)
/// while let frame = try decoder.nextFrame() { use(frame.image, at: frame.time) }
/// ```
/// Opening decodes the first frame, so a file without one fails at once. A class because it
/// owns FFmpeg's demuxer and decoder, which are freed by `close()` or when it is released;
/// use one decoder from one thread at a time.
public final class VideoDecoder {
    /// The file being read.
    public let url: URL
    /// Width of the frames as displayed (after `rotation`), from the first frame.
    public let width: Int
    /// Height of the frames as displayed (after `rotation`), from the first frame.
    public let height: Int
    /// Degrees clockwise (0, 90, 180 or 270) the stored frames are turned to be upright: the
    /// stream's display matrix, else its `rotate` tag. Frames are returned already turned.
    public let rotation: Int
    /// Average frames per second the container declares (0 when it does not say).
    public let frameRate: Double
    /// Length of the video stream in seconds, when the container says.
    public let duration: Double?
    /// The number of frames the container declares, else `duration × frameRate` rounded;
    /// nil when neither is known. The frames actually decoded may differ by a few.
    public let estimatedFrameCount: Int?
    /// FFmpeg's name for the video codec (e.g. "h264", "mpeg4", "mjpeg").
    public let codecName: String

    private var handle: OpaquePointer?
    private var bufferedFrame: VideoFrame?
    private var nextIndex = 0

    /// Opens the video file at `url` and decodes its first frame; throws a `VideoError`.
    public init(contentsOf url: URL) throws {
        self.url = url
        let path = url.path
        guard url.isFileURL else {
            throw VideoError.unreadable(path: url.absoluteString, reason: "not a file URL")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw VideoError.fileNotFound(path: path)
        }
        if isDirectory.boolValue { throw VideoError.unreadable(path: path, reason: "it is a directory") }
        // A named pipe, socket or device: say so, and never open it (a pipe would block).
        if let problem = DataFiles.problem(with: url) { throw VideoError.unreadable(path: path, reason: problem) }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber,
           size.intValue == 0 {
            throw VideoError.unreadable(path: path, reason: "the file is empty, 0 bytes")
        }

        var message = VideoDecoder.messageBuffer()
        var info = CoachVideoInfo()
        var opened: OpaquePointer?
        let status = path.withCString { coach_video_open($0, &opened, &info, &message) }
        let reason = VideoDecoder.string(from: message)
        switch status {
        case COACH_VIDEO_OK: break
        case COACH_VIDEO_NO_VIDEO_STREAM: throw VideoError.noVideoStream(path: path)
        case COACH_VIDEO_UNSUPPORTED_CODEC:
            throw VideoError.unsupportedCodec(path: path, codec: VideoDecoder.name(from: info.codec_name, reason: reason))
        default: throw VideoError.unreadable(path: path, reason: reason)
        }
        guard let opened else { throw VideoError.unreadable(path: path, reason: "FFmpeg returned no decoder") }
        // Decode the first frame now: its size is the displayed size, and a file with no
        // decodable frame fails here rather than on the first `nextFrame()`.
        let first: VideoFrame?
        do {
            first = try VideoDecoder.decodeFrame(handle: opened, rotation: Int(info.rotation), index: 0, path: path)
        } catch {
            coach_video_close(opened)
            throw error
        }
        guard let first else {
            coach_video_close(opened)
            throw VideoError.empty(path: path)
        }
        handle = opened
        rotation = Int(info.rotation)
        frameRate = info.frame_rate.isFinite && info.frame_rate > 0 ? info.frame_rate : 0
        duration = info.duration.isFinite && info.duration >= 0 ? info.duration : nil
        codecName = VideoDecoder.name(from: info.codec_name, reason: "")
        if info.frame_count > 0 {
            estimatedFrameCount = Int(info.frame_count)
        } else if let duration, frameRate > 0, (duration * frameRate).isFinite {
            estimatedFrameCount = Int((duration * frameRate).rounded())
        } else {
            estimatedFrameCount = nil
        }
        width = first.image.width
        height = first.image.height
        bufferedFrame = first
    }

    deinit { close() }

    /// The next frame in display order (times strictly increase), or nil after the last one.
    ///
    /// Frames the decoder holds back (B-frames) are drained at the end of the file; a file
    /// cut short ends after the last frame that decodes. Throws `VideoError.corrupt` when
    /// decoding fails for good mid-stream; after a throw or `close()` it returns nil.
    public func nextFrame() throws -> VideoFrame? {
        if let frame = bufferedFrame {
            bufferedFrame = nil
            nextIndex = frame.index + 1
            if frame.isDamaged { damagedFrameCount += 1 }
            return frame
        }
        guard let handle else { return nil }
        do {
            guard let frame = try VideoDecoder.decodeFrame(handle: handle, rotation: rotation,
                                                          index: nextIndex, path: url.path) else {
                rejectedPacketCount = Int(coach_video_rejected_packets(handle))
                close()
                return nil
            }
            nextIndex += 1
            if frame.isDamaged { damagedFrameCount += 1 }
            rejectedPacketCount = Int(coach_video_rejected_packets(handle))
            return frame
        } catch {
            close()
            throw error
        }
    }

    /// Frames returned so far in which the decoder concealed damaged data.
    public private(set) var damagedFrameCount = 0
    /// Packets the decoder has refused so far (skipped, as players skip them).
    public private(set) var rejectedPacketCount = 0

    /// What was damaged in the frames decoded so far, as a sentence naming the file; nil when
    /// the decoder met no damaged data. A damaged file still plays, so it is decoded, but what is
    /// computed from it may be wrong and its user should hear so (issue 14).
    public var damageReport: String? {
        guard damagedFrameCount > 0 || rejectedPacketCount > 0 else { return nil }
        var parts: [String] = []
        if damagedFrameCount > 0 {
            parts.append("concealed errors in \(damagedFrameCount) of \(nextIndex) frame\(nextIndex == 1 ? "" : "s")")
        }
        if rejectedPacketCount > 0 {
            parts.append("skipped \(rejectedPacketCount) undecodable packet\(rejectedPacketCount == 1 ? "" : "s")")
        }
        return "\(url.path) is damaged: the decoder " + parts.joined(separator: " and ")
            + "; what is computed from those frames may be wrong"
    }

    /// Frees FFmpeg's demuxer, decoder and converter now (also done on release); later
    /// calls to `nextFrame()` return nil.
    public func close() {
        bufferedFrame = nil
        if let handle { coach_video_close(handle) }
        handle = nil
    }

    /// Every frame of the video at `url`, in display order.
    public static func frames(of url: URL) throws -> [VideoFrame] {
        let decoder = try VideoDecoder(contentsOf: url)
        var frames: [VideoFrame] = []
        if let count = decoder.estimatedFrameCount, count > 0 { frames.reserveCapacity(min(count, 100_000)) }
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }

    /// Decodes, converts and turns upright one frame; nil at the end of the stream.
    private static func decodeFrame(handle: OpaquePointer, rotation: Int, index: Int,
                                    path: String) throws -> VideoFrame? {
        var message = messageBuffer()
        var frameWidth: Int32 = 0, frameHeight: Int32 = 0
        var time = 0.0
        let status = coach_video_decode_next(handle, &frameWidth, &frameHeight, &time, &message)
        switch status {
        case COACH_VIDEO_OK: break
        case COACH_VIDEO_END: return nil
        case COACH_VIDEO_UNSUPPORTED_CODEC:
            throw VideoError.unsupportedCodec(path: path, codec: string(from: message))
        default: throw VideoError.corrupt(path: path, frame: index, reason: string(from: message))
        }
        let storedWidth = Int(frameWidth), storedHeight = Int(frameHeight)
        let count = storedWidth * storedHeight * 3
        var copyStatus = COACH_VIDEO_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            copyStatus = coach_video_copy_rgb(handle, buffer.baseAddress, count, &message)
            initialized = copyStatus == COACH_VIDEO_OK ? count : 0
        }
        switch copyStatus {
        case COACH_VIDEO_OK: break
        case COACH_VIDEO_UNSUPPORTED_CODEC:
            throw VideoError.unsupportedCodec(path: path, codec: string(from: message))
        default: throw VideoError.corrupt(path: path, frame: index, reason: string(from: message))
        }
        let stored = RGBImage(uncheckedWidth: storedWidth, height: storedHeight, pixels: pixels)
        return VideoFrame(image: upright(stored, rotation: rotation), time: time, index: index,
                          isDamaged: coach_video_frame_damaged(handle) != 0)
    }

    /// `image` turned `rotation` degrees clockwise (0, 90, 180 or 270).
    private static func upright(_ image: RGBImage, rotation: Int) -> RGBImage {
        switch rotation {
        case 90: return image.oriented(.rightTop)
        case 180: return image.oriented(.bottomRight)
        case 270: return image.oriented(.leftBottom)
        default: return image
        }
    }

    private static func messageBuffer() -> [CChar] {
        [CChar](repeating: 0, count: Int(COACH_VIDEO_MESSAGE_CAPACITY))
    }

    /// The NUL-terminated text in `buffer`.
    private static func string(from buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The codec name in a fixed-size C field, or `fallback` when it is empty.
    private static func name<Field>(from field: Field, reason fallback: String) -> String {
        let text = withUnsafeBytes(of: field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? fallback : text
    }
}
