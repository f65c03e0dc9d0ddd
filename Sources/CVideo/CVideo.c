/* CVideo: FFmpeg demuxing, decoding and RGB conversion behind status codes (see CVideo.h). */
#include "CVideo.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/* Packets in a row the decoder may reject before the stream counts as corrupt (a few bad
 * packets are concealed, as players do). */
#define COACH_VIDEO_MAX_CONSECUTIVE_ERRORS 25
/* Reads in a row that may ask to be retried (EAGAIN) before giving up. */
#define COACH_VIDEO_MAX_RETRIES 1000

struct CoachVideo {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    struct SwsContext *scaler;
    int stream_index;
    AVRational time_base;
    int64_t start_time;        /* the stream's start_time, or the first frame's timestamp */
    double frame_interval;     /* seconds between frames, for streams without timestamps */
    int has_frame;             /* `frame` holds a decoded frame for coach_video_copy_rgb */
    int frame_damaged;         /* the decoder concealed errors in `frame` (damaged data) */
    int packet_pending;        /* `packet` holds data the decoder could not take yet */
    int draining;              /* the end-of-stream (NULL) packet has been sent */
    int64_t frames_returned;
    double last_time;
    int consecutive_errors;
    int64_t error_count;
    char last_error[128];
    /* The conversion buffer (aligned rows, as swscale likes) and the colour set-up. */
    uint8_t *rgb_data[4];
    int rgb_linesize[4];
    int rgb_width, rgb_height;
    int scaler_width, scaler_height, scaler_format;
    int scaler_colorspace, scaler_full_range;
};

static void set_message(char *message, const char *format, ...) {
    if (!message) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, COACH_VIDEO_MESSAGE_CAPACITY, format, arguments);
    va_end(arguments);
}

static void error_string(int code, char *buffer, size_t capacity) {
    if (av_strerror(code, buffer, capacity) < 0) snprintf(buffer, capacity, "FFmpeg error %d", code);
}

static void copy_name(char *target, const char *name) {
    snprintf(target, COACH_VIDEO_NAME_CAPACITY, "%s", name ? name : "unknown");
}

/* Degrees clockwise to turn stored frames upright, rounded to a multiple of 90. */
static int32_t stream_rotation(const AVStream *stream) {
    const int32_t *matrix = NULL;
#if LIBAVFORMAT_VERSION_MAJOR >= 61
    const AVPacketSideData *side = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_DISPLAYMATRIX);
    if (side && side->size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)side->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (data && size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)data;
#endif
    double clockwise = 0;
    if (matrix) {
        /* av_display_rotation_get gives the counter-clockwise angle the matrix applies. */
        double counterClockwise = av_display_rotation_get(matrix);
        if (isnan(counterClockwise)) return 0;
        clockwise = -counterClockwise;
    } else {
        const AVDictionaryEntry *tag = av_dict_get(stream->metadata, "rotate", NULL, 0);
        if (!tag || !tag->value) return 0;
        char *end = NULL;
        clockwise = strtod(tag->value, &end);
        if (end == tag->value || !isfinite(clockwise)) return 0;
    }
    long quarter = lround(clockwise / 90.0) % 4;
    if (quarter < 0) quarter += 4;
    return (int32_t)(quarter * 90);
}

/* The best video stream that is not a cover picture, or a negative AVERROR. */
static int choose_stream(AVFormatContext *format) {
    int best = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (best >= 0 && !(format->streams[best]->disposition & AV_DISPOSITION_ATTACHED_PIC)) return best;
    for (unsigned index = 0; index < format->nb_streams; index++) {
        const AVStream *stream = format->streams[index];
        if (stream->codecpar->codec_type == AVMEDIA_TYPE_VIDEO &&
            !(stream->disposition & AV_DISPOSITION_ATTACHED_PIC)) return (int)index;
    }
    return AVERROR_STREAM_NOT_FOUND;
}

CoachVideoStatus coach_video_open(const char *path, CoachVideo **video, CoachVideoInfo *info,
                                  char *message) {
    if (video) *video = NULL;
    if (!path || !video || !info) {
        set_message(message, "coach_video_open needs a path, a handle and an info record");
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    memset(info, 0, sizeof(*info));
    av_log_set_level(AV_LOG_QUIET);

    CoachVideo *state = calloc(1, sizeof(CoachVideo));
    if (!state) {
        set_message(message, "out of memory");
        return COACH_VIDEO_OUT_OF_MEMORY;
    }
    state->stream_index = -1;
    state->start_time = AV_NOPTS_VALUE;
    state->scaler_colorspace = -1;
    state->scaler_full_range = -1;

    /* The file: protocol, so a path containing ':' is never taken for another protocol. */
    size_t length = strlen(path);
    char *url = malloc(length + 6);
    if (!url) {
        free(state);
        set_message(message, "out of memory");
        return COACH_VIDEO_OUT_OF_MEMORY;
    }
    memcpy(url, "file:", 5);
    memcpy(url + 5, path, length + 1);

    char reason[128];
    int code = avformat_open_input(&state->format, url, NULL, NULL);
    free(url);
    if (code < 0) {
        error_string(code, reason, sizeof reason);
        set_message(message, "%s", reason);
        coach_video_close(state);
        return code == AVERROR(ENOMEM) ? COACH_VIDEO_OUT_OF_MEMORY : COACH_VIDEO_UNREADABLE;
    }
    code = avformat_find_stream_info(state->format, NULL);
    if (code < 0) {
        error_string(code, reason, sizeof reason);
        set_message(message, "cannot read the streams: %s", reason);
        coach_video_close(state);
        return COACH_VIDEO_UNREADABLE;
    }
    code = choose_stream(state->format);
    if (code < 0) {
        set_message(message, "no video stream among %u stream(s)", state->format->nb_streams);
        coach_video_close(state);
        return COACH_VIDEO_NO_VIDEO_STREAM;
    }
    state->stream_index = code;
    for (unsigned index = 0; index < state->format->nb_streams; index++) {
        if ((int)index != state->stream_index) state->format->streams[index]->discard = AVDISCARD_ALL;
    }
    AVStream *stream = state->format->streams[state->stream_index];
    state->time_base = stream->time_base;
    state->start_time = stream->start_time;
    copy_name(info->codec_name, avcodec_get_name(stream->codecpar->codec_id));
    copy_name(info->container_name, state->format->iformat ? state->format->iformat->name : NULL);

    if (stream->codecpar->codec_id == AV_CODEC_ID_NONE) {
        uint32_t tag = stream->codecpar->codec_tag;
        if (tag == 0) {
            set_message(message, "the video stream does not say how it is encoded (is the file complete?)");
            coach_video_close(state);
            return COACH_VIDEO_UNREADABLE;
        }
        char fourcc[AV_FOURCC_MAX_STRING_SIZE];
        av_fourcc_make_string(fourcc, tag);
        snprintf(info->codec_name, COACH_VIDEO_NAME_CAPACITY, "unknown codec '%s'", fourcc);
        set_message(message, "FFmpeg does not know the codec '%s'", fourcc);
        coach_video_close(state);
        return COACH_VIDEO_UNSUPPORTED_CODEC;
    }
    const AVCodec *decoder = avcodec_find_decoder(stream->codecpar->codec_id);
    if (!decoder) {
        set_message(message, "this FFmpeg build has no decoder for %s", info->codec_name);
        coach_video_close(state);
        return COACH_VIDEO_UNSUPPORTED_CODEC;
    }
    state->codec = avcodec_alloc_context3(decoder);
    state->packet = av_packet_alloc();
    state->frame = av_frame_alloc();
    if (!state->codec || !state->packet || !state->frame) {
        set_message(message, "out of memory");
        coach_video_close(state);
        return COACH_VIDEO_OUT_OF_MEMORY;
    }
    code = avcodec_parameters_to_context(state->codec, stream->codecpar);
    if (code < 0) {
        error_string(code, reason, sizeof reason);
        set_message(message, "cannot set up the %s decoder: %s", info->codec_name, reason);
        coach_video_close(state);
        return COACH_VIDEO_UNSUPPORTED_CODEC;
    }
    state->codec->pkt_timebase = stream->time_base;
    /* One decoding thread. With FFmpeg's frame threads a damaged stream decodes differently from
     * run to run: the concealed pixels change, and a frame whose damage is found after it was
     * queued for output carries no error flags (a 2 s H.264 clip with 60 flipped bytes gave
     * 0 to 17 flagged frames and 9 different decodings in 12 runs; one thread gives 27, always).
     * Slice threads are repeatable but switch H.264 error concealment off. Poses from a damaged video
     * must be the same on every run and machine, so decoding stays on one core. */
    state->codec->thread_count = 1;
    code = avcodec_open2(state->codec, decoder, NULL);
    if (code < 0) {
        error_string(code, reason, sizeof reason);
        set_message(message, "cannot open the %s decoder: %s", info->codec_name, reason);
        coach_video_close(state);
        return COACH_VIDEO_UNSUPPORTED_CODEC;
    }

    info->width = stream->codecpar->width;
    info->height = stream->codecpar->height;
    info->rotation = stream_rotation(stream);
    AVRational rate = stream->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) rate = stream->r_frame_rate;
    info->frame_rate = (rate.num > 0 && rate.den > 0) ? av_q2d(rate) : 0;
    if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0 && stream->time_base.den > 0) {
        info->duration = (double)stream->duration * av_q2d(stream->time_base);
    } else if (state->format->duration != AV_NOPTS_VALUE && state->format->duration > 0) {
        info->duration = (double)state->format->duration / AV_TIME_BASE;
    } else {
        info->duration = -1;
    }
    info->frame_count = stream->nb_frames > 0 ? stream->nb_frames : 0;
    state->frame_interval = info->frame_rate > 0 ? 1.0 / info->frame_rate : 0.001;
    *video = state;
    return COACH_VIDEO_OK;
}

/* Records a decoder error; true when there have been too many in a row. */
static int note_error(CoachVideo *video, int code) {
    video->consecutive_errors++;
    video->error_count++;
    error_string(code, video->last_error, sizeof video->last_error);
    return video->consecutive_errors > COACH_VIDEO_MAX_CONSECUTIVE_ERRORS;
}

/* The time of the frame just received, in seconds from the stream's start. */
static double frame_time(CoachVideo *video) {
    int64_t timestamp = video->frame->best_effort_timestamp;
    if (timestamp == AV_NOPTS_VALUE) timestamp = video->frame->pts;
    double time;
    if (timestamp != AV_NOPTS_VALUE && video->time_base.den > 0) {
        if (video->start_time == AV_NOPTS_VALUE) video->start_time = timestamp;
        time = (double)(timestamp - video->start_time) * av_q2d(video->time_base);
    } else {
        time = video->frames_returned == 0 ? 0 : video->last_time + video->frame_interval;
    }
    /* Broken streams can repeat or reorder timestamps; times stay strictly increasing. */
    if (video->frames_returned > 0 && !(time > video->last_time)) {
        time = video->last_time + video->frame_interval;
    }
    return time;
}

/* Ends the stream: END, or CORRUPT when errors left no frame at all. */
static CoachVideoStatus finish(CoachVideo *video, char *message) {
    if (video->frames_returned == 0 && video->error_count > 0) {
        set_message(message, "no frame could be decoded (%s)", video->last_error);
        return COACH_VIDEO_CORRUPT;
    }
    return COACH_VIDEO_END;
}

CoachVideoStatus coach_video_decode_next(CoachVideo *video, int32_t *width, int32_t *height,
                                         double *time, char *message) {
    if (!video || !video->codec || !width || !height || !time) {
        set_message(message, "coach_video_decode_next needs an open video and three outputs");
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    video->has_frame = 0;
    int retries = 0;
    char reason[128];
    for (;;) {
        int code = avcodec_receive_frame(video->codec, video->frame);
        if (code == 0) {
            video->consecutive_errors = 0;
            video->frame_damaged = video->frame->decode_error_flags != 0 || (video->frame->flags & AV_FRAME_FLAG_CORRUPT) != 0;
            if (video->frame->width <= 0 || video->frame->height <= 0) {
                av_frame_unref(video->frame);
                continue;
            }
            *width = video->frame->width;
            *height = video->frame->height;
            *time = frame_time(video);
            video->last_time = *time;
            video->frames_returned++;
            video->has_frame = 1;
            return COACH_VIDEO_OK;
        }
        if (code == AVERROR_EOF) return finish(video, message);
        if (code == AVERROR(ENOMEM)) {
            set_message(message, "out of memory");
            return COACH_VIDEO_OUT_OF_MEMORY;
        }
        if (code != AVERROR(EAGAIN)) {
            if (note_error(video, code)) {
                set_message(message, "the decoder failed repeatedly: %s", video->last_error);
                return COACH_VIDEO_CORRUPT;
            }
            if (video->draining) return finish(video, message);
            continue;
        }
        if (video->draining) return finish(video, message); /* nothing more will come */

        if (!video->packet_pending) {
            code = av_read_frame(video->format, video->packet);
            if (code == AVERROR(EAGAIN)) {
                if (++retries > COACH_VIDEO_MAX_RETRIES) {
                    set_message(message, "the file keeps asking to be read again");
                    return COACH_VIDEO_CORRUPT;
                }
                continue;
            }
            if (code < 0) {
                /* At the end of the file (complete or truncated): drain what is buffered. */
                int at_end = code == AVERROR_EOF || (video->format->pb && avio_feof(video->format->pb));
                if (!at_end) {
                    error_string(code, reason, sizeof reason);
                    set_message(message, "cannot read the next packet: %s", reason);
                    return code == AVERROR(ENOMEM) ? COACH_VIDEO_OUT_OF_MEMORY : COACH_VIDEO_CORRUPT;
                }
                video->draining = 1;
                code = avcodec_send_packet(video->codec, NULL);
                if (code < 0 && code != AVERROR_EOF) return finish(video, message);
                continue;
            }
            if (video->packet->stream_index != video->stream_index) {
                av_packet_unref(video->packet);
                continue;
            }
            video->packet_pending = 1;
        }
        code = avcodec_send_packet(video->codec, video->packet);
        if (code == AVERROR(EAGAIN)) continue; /* keep the packet; take frames out first */
        video->packet_pending = 0;
        av_packet_unref(video->packet);
        if (code == AVERROR(ENOMEM)) {
            set_message(message, "out of memory");
            return COACH_VIDEO_OUT_OF_MEMORY;
        }
        if (code < 0 && note_error(video, code)) {
            set_message(message, "the decoder rejected %d packets in a row: %s",
                        video->consecutive_errors, video->last_error);
            return COACH_VIDEO_CORRUPT;
        }
    }
}

int coach_video_frame_damaged(const CoachVideo *video) {
    return video && video->has_frame ? video->frame_damaged : 0;
}

int64_t coach_video_rejected_packets(const CoachVideo *video) {
    return video ? video->error_count : 0;
}

static int is_full_range_format(enum AVPixelFormat format) {
    switch (format) {
    case AV_PIX_FMT_YUVJ420P: case AV_PIX_FMT_YUVJ422P: case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_YUVJ440P: case AV_PIX_FMT_YUVJ411P:
        return 1;
    default:
        return 0;
    }
}

CoachVideoStatus coach_video_copy_rgb(CoachVideo *video, uint8_t *rgb, size_t capacity,
                                      char *message) {
    if (!video || !video->has_frame || !rgb) {
        set_message(message, "coach_video_copy_rgb needs a decoded frame and a buffer");
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    AVFrame *frame = video->frame;
    int width = frame->width, height = frame->height;
    if (capacity < (size_t)width * (size_t)height * 3) {
        set_message(message, "the buffer holds %zu bytes, a %d×%d RGB frame needs %zu",
                    capacity, width, height, (size_t)width * (size_t)height * 3);
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    enum AVPixelFormat format = (enum AVPixelFormat)frame->format;
    if (!sws_isSupportedInput(format)) {
        const char *name = av_get_pix_fmt_name(format);
        set_message(message, "frames in pixel format %s cannot be converted to RGB", name ? name : "unknown");
        return COACH_VIDEO_UNSUPPORTED_CODEC;
    }
    if (!video->scaler || video->scaler_width != width || video->scaler_height != height ||
        video->scaler_format != (int)format) {
        sws_freeContext(video->scaler);
        /* Full chroma interpolation keeps colour edges sharp and has a SIMD path;
         * SWS_ACCURATE_RND would cost about 7x the time for at most a level of rounding. */
        video->scaler = sws_getContext(width, height, format, width, height, AV_PIX_FMT_RGB24,
                                       SWS_BILINEAR | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
        video->scaler_width = width;
        video->scaler_height = height;
        video->scaler_format = (int)format;
        video->scaler_colorspace = -1;
        video->scaler_full_range = -1;
        if (!video->scaler) {
            const char *name = av_get_pix_fmt_name(format);
            set_message(message, "cannot set up the conversion from %s to RGB", name ? name : "unknown");
            return COACH_VIDEO_UNSUPPORTED_CODEC;
        }
    }
    /* YUV to RGB with the stream's own matrix and range (BT.601 limited when unsaid). */
    const AVPixFmtDescriptor *descriptor = av_pix_fmt_desc_get(format);
    if (descriptor && !(descriptor->flags & AV_PIX_FMT_FLAG_RGB) && descriptor->nb_components >= 3) {
        int colorspace = frame->colorspace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : (int)frame->colorspace;
        int full_range = frame->color_range == AVCOL_RANGE_JPEG || is_full_range_format(format);
        if (colorspace != video->scaler_colorspace || full_range != video->scaler_full_range) {
            sws_setColorspaceDetails(video->scaler, sws_getCoefficients(colorspace), full_range,
                                     sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
            video->scaler_colorspace = colorspace;
            video->scaler_full_range = full_range;
        }
    }
    if (!video->rgb_data[0] || video->rgb_width != width || video->rgb_height != height) {
        av_freep(&video->rgb_data[0]);
        if (av_image_alloc(video->rgb_data, video->rgb_linesize, width, height, AV_PIX_FMT_RGB24, 32) < 0) {
            video->rgb_width = video->rgb_height = 0;
            set_message(message, "out of memory");
            return COACH_VIDEO_OUT_OF_MEMORY;
        }
        video->rgb_width = width;
        video->rgb_height = height;
    }
    int rows = sws_scale(video->scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, height,
                         video->rgb_data, video->rgb_linesize);
    if (rows != height) {
        set_message(message, "the conversion to RGB produced %d of %d rows", rows, height);
        return COACH_VIDEO_CORRUPT;
    }
    size_t row_bytes = (size_t)width * 3;
    for (int row = 0; row < height; row++) {
        memcpy(rgb + (size_t)row * row_bytes, video->rgb_data[0] + (size_t)row * video->rgb_linesize[0], row_bytes);
    }
    return COACH_VIDEO_OK;
}

void coach_video_close(CoachVideo *video) {
    if (!video) return;
    av_freep(&video->rgb_data[0]);
    sws_freeContext(video->scaler);
    av_frame_free(&video->frame);
    av_packet_free(&video->packet);
    avcodec_free_context(&video->codec);
    avformat_close_input(&video->format);
    free(video);
}
