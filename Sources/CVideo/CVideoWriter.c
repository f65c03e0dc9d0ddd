/* CVideo: encoding RGB frames into a video file with FFmpeg (see CVideo.h). */
#include "CVideo.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

struct CoachVideoWriter {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *scaler;
    int width, height;          /* the RGB frames' size */
    int64_t next_pts;
    int header_written;
    int finished;
};

static void writer_message(char *message, const char *format, ...) {
    if (!message) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, COACH_VIDEO_MESSAGE_CAPACITY, format, arguments);
    va_end(arguments);
}

static const char *reason(int code, char *buffer, size_t capacity) {
    if (av_strerror(code, buffer, capacity) < 0) snprintf(buffer, capacity, "FFmpeg error %d", code);
    return buffer;
}

/* Sends `frame` (NULL: flush) to the encoder and writes every packet it gives back. */
static CoachVideoStatus drain(CoachVideoWriter *w, AVFrame *frame, char *message) {
    char buffer[128];
    int status = avcodec_send_frame(w->codec, frame);
    if (status < 0 && status != AVERROR_EOF) {
        writer_message(message, "the encoder refused a frame: %s", reason(status, buffer, sizeof buffer));
        return COACH_VIDEO_CORRUPT;
    }
    for (;;) {
        status = avcodec_receive_packet(w->codec, w->packet);
        if (status == AVERROR(EAGAIN) || status == AVERROR_EOF) return COACH_VIDEO_OK;
        if (status < 0) {
            writer_message(message, "encoding failed: %s", reason(status, buffer, sizeof buffer));
            return COACH_VIDEO_CORRUPT;
        }
        av_packet_rescale_ts(w->packet, w->codec->time_base, w->stream->time_base);
        w->packet->stream_index = w->stream->index;
        status = av_interleaved_write_frame(w->format, w->packet);
        if (status < 0) {
            writer_message(message, "writing the video failed: %s", reason(status, buffer, sizeof buffer));
            return COACH_VIDEO_UNREADABLE;
        }
    }
}

CoachVideoStatus coach_video_writer_open(const char *path, int32_t width, int32_t height, double frame_rate,
                                         CoachVideoWriter **writer, char *message) {
    char buffer[128];
    if (writer) *writer = NULL;
    if (!path || !writer || width < 2 || height < 2 || width > 16384 || height > 16384 || !(frame_rate > 0 && frame_rate <= 1000)) {
        writer_message(message, "a video needs a path, a size of 2…16384 pixels a side and a frame rate of 0…1000 (got %d×%d at %g)",
                       width, height, frame_rate);
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    av_log_set_level(AV_LOG_QUIET);
    CoachVideoWriter *w = calloc(1, sizeof *w);
    if (!w) { writer_message(message, "out of memory"); return COACH_VIDEO_OUT_OF_MEMORY; }
    w->width = width;
    w->height = height;
    int status = avformat_alloc_output_context2(&w->format, NULL, NULL, path);
    if (status < 0 || !w->format) {
        writer_message(message, "no container for this file name (use .mp4, .mov, .mkv or .avi): %s", reason(status, buffer, sizeof buffer));
        coach_video_writer_close(w);
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    const AVCodec *encoder = avcodec_find_encoder_by_name("libx264");
    if (!encoder || avformat_query_codec(w->format->oformat, AV_CODEC_ID_H264, FF_COMPLIANCE_NORMAL) != 1)
        encoder = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    if (!encoder) {
        writer_message(message, "this FFmpeg build has neither an H.264 nor an MPEG-4 encoder");
        coach_video_writer_close(w);
        return COACH_VIDEO_UNSUPPORTED_CODEC;
    }
    w->stream = avformat_new_stream(w->format, NULL);
    w->codec = avcodec_alloc_context3(encoder);
    w->frame = av_frame_alloc();
    w->packet = av_packet_alloc();
    if (!w->stream || !w->codec || !w->frame || !w->packet) {
        writer_message(message, "out of memory");
        coach_video_writer_close(w);
        return COACH_VIDEO_OUT_OF_MEMORY;
    }
    AVRational rate = av_d2q(frame_rate, 100000);
    w->codec->width = width & ~1;
    w->codec->height = height & ~1;
    w->codec->pix_fmt = AV_PIX_FMT_YUV420P;
    w->codec->time_base = av_inv_q(rate);
    w->codec->framerate = rate;
    w->codec->gop_size = 30;
    w->codec->thread_count = 1;
    if (encoder->id == AV_CODEC_ID_H264) {
        av_opt_set(w->codec->priv_data, "preset", "veryfast", 0);
        av_opt_set(w->codec->priv_data, "crf", "18", 0);
    } else {
        w->codec->bit_rate = (int64_t)width * height * 8;
        w->codec->qmax = 6;
    }
    if (w->format->oformat->flags & AVFMT_GLOBALHEADER) w->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    status = avcodec_open2(w->codec, encoder, NULL);
    if (status < 0) {
        writer_message(message, "cannot open the %s encoder: %s", encoder->name, reason(status, buffer, sizeof buffer));
        coach_video_writer_close(w);
        return COACH_VIDEO_UNSUPPORTED_CODEC;
    }
    avcodec_parameters_from_context(w->stream->codecpar, w->codec);
    w->stream->time_base = w->codec->time_base;
    w->stream->avg_frame_rate = rate;
    w->frame->format = w->codec->pix_fmt;
    w->frame->width = w->codec->width;
    w->frame->height = w->codec->height;
    if (av_frame_get_buffer(w->frame, 0) < 0) {
        writer_message(message, "out of memory");
        coach_video_writer_close(w);
        return COACH_VIDEO_OUT_OF_MEMORY;
    }
    w->scaler = sws_getContext(width, height, AV_PIX_FMT_RGB24, w->codec->width, w->codec->height, AV_PIX_FMT_YUV420P,
                               SWS_BILINEAR, NULL, NULL, NULL);
    if (!w->scaler) {
        writer_message(message, "cannot set up the RGB to YUV conversion");
        coach_video_writer_close(w);
        return COACH_VIDEO_OUT_OF_MEMORY;
    }
    if (!(w->format->oformat->flags & AVFMT_NOFILE)) {
        status = avio_open(&w->format->pb, path, AVIO_FLAG_WRITE);
        if (status < 0) {
            writer_message(message, "cannot create %s: %s", path, reason(status, buffer, sizeof buffer));
            coach_video_writer_close(w);
            return COACH_VIDEO_UNREADABLE;
        }
    }
    status = avformat_write_header(w->format, NULL);
    if (status < 0) {
        writer_message(message, "cannot write the video's header: %s", reason(status, buffer, sizeof buffer));
        coach_video_writer_close(w);
        return COACH_VIDEO_UNREADABLE;
    }
    w->header_written = 1;
    *writer = w;
    return COACH_VIDEO_OK;
}

CoachVideoStatus coach_video_writer_append_rgb(CoachVideoWriter *w, const uint8_t *rgb, size_t capacity, char *message) {
    if (!w || !rgb || w->finished || capacity < (size_t)w->width * (size_t)w->height * 3) {
        writer_message(message, "a frame of %d×%d RGB pixels needs %zu bytes and an open writer",
                       w ? w->width : 0, w ? w->height : 0, w ? (size_t)w->width * (size_t)w->height * 3 : 0);
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    if (av_frame_make_writable(w->frame) < 0) {
        writer_message(message, "out of memory");
        return COACH_VIDEO_OUT_OF_MEMORY;
    }
    const uint8_t *planes[1] = {rgb};
    const int strides[1] = {w->width * 3};
    sws_scale(w->scaler, planes, strides, 0, w->height, w->frame->data, w->frame->linesize);
    w->frame->pts = w->next_pts++;
    return drain(w, w->frame, message);
}

CoachVideoStatus coach_video_writer_finish(CoachVideoWriter *w, char *message) {
    char buffer[128];
    if (!w || w->finished) {
        writer_message(message, "the writer is not open");
        return COACH_VIDEO_INVALID_ARGUMENT;
    }
    CoachVideoStatus flushed = drain(w, NULL, message);
    if (flushed != COACH_VIDEO_OK) return flushed;
    int status = av_write_trailer(w->format);
    if (status < 0) {
        writer_message(message, "cannot finish the video: %s", reason(status, buffer, sizeof buffer));
        return COACH_VIDEO_UNREADABLE;
    }
    w->finished = 1;
    return COACH_VIDEO_OK;
}

void coach_video_writer_close(CoachVideoWriter *w) {
    if (!w) return;
    if (w->scaler) sws_freeContext(w->scaler);
    av_frame_free(&w->frame);
    av_packet_free(&w->packet);
    avcodec_free_context(&w->codec);
    if (w->format) {
        if (w->format->pb && !(w->format->oformat->flags & AVFMT_NOFILE)) avio_closep(&w->format->pb);
        avformat_free_context(w->format);
    }
    free(w);
}
