/* CVideo: a small, safe shim over FFmpeg's libavformat, libavcodec, libswscale and
 * libavutil for reading the frames of one video stream.
 *
 * FFmpeg's API leans on macros (AVERROR codes, AV_NOPTS_VALUE), on side data and on
 * send/receive state machines; this shim hides them behind four calls that return a
 * status code plus a human-readable message. Nothing here prints: opening a video sets
 * FFmpeg's log level to AV_LOG_QUIET.
 *
 * Pixel buffers are interleaved RGB, 8 bits per sample, rows top to bottom, no padding.
 */
#ifndef COACH_VIDEO_H
#define COACH_VIDEO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result of every call. */
typedef enum CoachVideoStatus {
    COACH_VIDEO_OK = 0,
    /* No more frames: the stream is fully decoded (or ends where the file is truncated). */
    COACH_VIDEO_END = 1,
    /* FFmpeg cannot open the file or recognise its container (the message says why). */
    COACH_VIDEO_UNREADABLE = 2,
    /* The container holds no video stream (e.g. audio only). */
    COACH_VIDEO_NO_VIDEO_STREAM = 3,
    /* The video stream's codec or pixel format has no decoder in this FFmpeg build. */
    COACH_VIDEO_UNSUPPORTED_CODEC = 4,
    /* Decoding or reading failed in the middle of the stream. */
    COACH_VIDEO_CORRUPT = 5,
    /* Memory could not be allocated. */
    COACH_VIDEO_OUT_OF_MEMORY = 6,
    /* The caller passed an inconsistent argument (null handle, buffer too small). */
    COACH_VIDEO_INVALID_ARGUMENT = 7
} CoachVideoStatus;

/* Capacity of the message buffer every call fills on failure (including the NUL). */
#define COACH_VIDEO_MESSAGE_CAPACITY 256
/* Capacity of the codec and container name fields (including the NUL). */
#define COACH_VIDEO_NAME_CAPACITY 64

/* What the container says about the chosen video stream. */
typedef struct CoachVideoInfo {
    /* Coded size in pixels, before rotation (0 when the container does not say). */
    int32_t width;
    int32_t height;
    /* Degrees clockwise the stored frames must be turned to be seen upright: 0, 90, 180
     * or 270 (from the display matrix side data, else the "rotate" metadata tag). */
    int32_t rotation;
    /* Average frame rate in frames per second (0 when unknown). */
    double frame_rate;
    /* Stream (else container) duration in seconds (negative when unknown). */
    double duration;
    /* Number of frames the container declares (0 when it does not say). */
    int64_t frame_count;
    /* FFmpeg's short names of the codec ("h264") and the container ("mov,mp4,m4a,..."). */
    char codec_name[COACH_VIDEO_NAME_CAPACITY];
    char container_name[COACH_VIDEO_NAME_CAPACITY];
} CoachVideoInfo;

/* An open video: the demuxer, the decoder and the colour converter. */
typedef struct CoachVideo CoachVideo;

/* Opens the file at `path` (a plain file-system path, never a URL or protocol) and its
 * best video stream. On success stores a handle in *video (free it with
 * coach_video_close) and fills *info; on failure *video is NULL and `message`
 * (COACH_VIDEO_MESSAGE_CAPACITY bytes) says why. */
CoachVideoStatus coach_video_open(const char *path, CoachVideo **video, CoachVideoInfo *info,
                                  char *message);

/* Decodes the next frame in display order, holding it for coach_video_copy_rgb. Stores
 * its size in *width, *height (coded, before rotation) and its time in seconds from the
 * stream's start in *time. Returns COACH_VIDEO_END once every frame, including those
 * held back by the decoder (B-frames), has been returned. A file that ends early ends
 * the stream after the last frame that could be decoded. */
CoachVideoStatus coach_video_decode_next(CoachVideo *video, int32_t *width, int32_t *height,
                                         double *time, char *message);

/* Converts the frame the last successful coach_video_decode_next returned to RGB24 in
 * `rgb`, which must hold width × height × 3 bytes (`capacity`). */
CoachVideoStatus coach_video_copy_rgb(CoachVideo *video, uint8_t *rgb, size_t capacity,
                                      char *message);

/* Whether the decoder concealed errors in the frame the last successful
 * coach_video_decode_next returned (FFmpeg's decode_error_flags, or a frame marked corrupt):
 * its pixels are partly guessed, as a player shows a damaged file. */
int coach_video_frame_damaged(const CoachVideo *video);

/* Packets or frames the decoder has refused so far (each skipped, as players do). */
int64_t coach_video_rejected_packets(const CoachVideo *video);

/* Frees every FFmpeg object the handle owns, then the handle (NULL is allowed). */
void coach_video_close(CoachVideo *video);

/* ---- Writing: frames in, an H.264 (else MPEG-4 part 2) video out ---- */

/* An open video being written. */
typedef struct CoachVideoWriter CoachVideoWriter;

/* Creates the file at `path` (its extension picks the container: .mp4, .mov, .mkv, .avi) for
 * frames of `width` × `height` RGB pixels at `frame_rate` frames per second. Odd sizes are
 * scaled to the even size the encoder needs. H.264 (libx264, high quality, yuv420p) when the
 * FFmpeg build has it, else MPEG-4 part 2. On failure *writer is NULL and `message` says why. */
CoachVideoStatus coach_video_writer_open(const char *path, int32_t width, int32_t height, double frame_rate,
                                         CoachVideoWriter **writer, char *message);

/* Encodes the next frame (interleaved RGB24, rows top to bottom, `capacity` bytes). */
CoachVideoStatus coach_video_writer_append_rgb(CoachVideoWriter *writer, const uint8_t *rgb, size_t capacity,
                                               char *message);

/* Flushes the encoder and writes the container's trailer: the file is complete. */
CoachVideoStatus coach_video_writer_finish(CoachVideoWriter *writer, char *message);

/* Frees the writer (NULL is allowed); a writer not finished leaves an incomplete file. */
void coach_video_writer_close(CoachVideoWriter *writer);

#ifdef __cplusplus
}
#endif

#endif /* COACH_VIDEO_H */
