/* JPEG decoding and encoding through libjpeg-turbo, with errors returned, never exit(). */
#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <libexif/exif-data.h>

/* libjpeg error manager that records the message and jumps back instead of exiting.
 * Everything the error path needs after longjmp lives in this struct (memory, not
 * registers), so no local variable has to be volatile. */
typedef struct CoachJPEGContext {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    CoachCodecStatus status;
    int scanning;                    /* set once the header is read: warnings now concern the image data */
    char *message;
    unsigned char *encodedBuffer;    /* jpeg_mem_dest's buffer while encoding */
    unsigned long encodedSize;
} CoachJPEGContext;

static void coach_jpeg_record(j_common_ptr cinfo, CoachCodecStatus status) {
    CoachJPEGContext *context = (CoachJPEGContext *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    context->status = status;
    if (context->message != NULL) {
        snprintf(context->message, COACH_CODEC_MESSAGE_CAPACITY, "%s", text);
    }
}

static void coach_jpeg_error_exit(j_common_ptr cinfo) {
    CoachJPEGContext *context = (CoachJPEGContext *)cinfo->err;
    CoachCodecStatus status = COACH_CODEC_CORRUPT;
    switch (cinfo->err->msg_code) {
    case JERR_OUT_OF_MEMORY: status = COACH_CODEC_OUT_OF_MEMORY; break;
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF: status = COACH_CODEC_TRUNCATED; break;
    case JERR_BAD_PRECISION:  /* e.g. a 12-bit JPEG: valid, but not 8-bit */
    case JERR_CONVERSION_NOTIMPL: status = COACH_CODEC_UNSUPPORTED; break;
    default: break;
    }
    coach_jpeg_record(cinfo, status);
    longjmp(context->jump, 1);
}

/* Warnings about missing or corrupt entropy-coded data mean libjpeg would go on and
 * fill the rest of the image with grey or garbage: those become errors. So do more
 * than a few extraneous bytes after the image data: the compressed data did not end
 * where the image did, which is what flipped bits in it look like (a damaged photo
 * decoded "normally" was issue 14's silent wrong answer), whereas some encoders pad a
 * byte or two. Harmless warnings (extraneous bytes among the header's markers, unknown
 * JFIF revision, bad ICC marker, odd progression parameters) are ignored. Nothing is
 * printed. */
/* Extraneous bytes after the image data tolerated as an encoder's padding. */
#define COACH_JPEG_PADDING_TOLERANCE 8

static void coach_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  /* trace messages */
    CoachJPEGContext *context = (CoachJPEGContext *)cinfo->err;
    switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF:
        coach_jpeg_record(cinfo, COACH_CODEC_TRUNCATED);
        longjmp(context->jump, 1);
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
        coach_jpeg_record(cinfo, COACH_CODEC_CORRUPT);
        longjmp(context->jump, 1);
    case JWRN_EXTRANEOUS_DATA:
        if (context->scanning && cinfo->err->msg_parm.i[0] > COACH_JPEG_PADDING_TOLERANCE) {
            coach_jpeg_record(cinfo, COACH_CODEC_CORRUPT);
            longjmp(context->jump, 1);
        }
        cinfo->err->num_warnings++;
        break;
    default:
        cinfo->err->num_warnings++;
        break;
    }
}

static void coach_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static struct jpeg_error_mgr *coach_jpeg_install(CoachJPEGContext *context, char *message) {
    memset(context, 0, sizeof(*context));
    context->message = message;
    context->status = COACH_CODEC_OK;
    if (message != NULL) message[0] = '\0';
    jpeg_std_error(&context->manager);
    context->manager.error_exit = coach_jpeg_error_exit;
    context->manager.emit_message = coach_jpeg_emit_message;
    context->manager.output_message = coach_jpeg_output_message;
    return &context->manager;
}

static CoachCodecStatus coach_fail(char *message, CoachCodecStatus status, const char *text) {
    if (message != NULL) snprintf(message, COACH_CODEC_MESSAGE_CAPACITY, "%s", text);
    return status;
}

static int coach_jpeg_color_model(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return COACH_JPEG_GRAYSCALE;
    case JCS_RGB: return COACH_JPEG_RGB;
    case JCS_YCbCr: return COACH_JPEG_YCBCR;
    case JCS_CMYK: return COACH_JPEG_CMYK;
    case JCS_YCCK: return COACH_JPEG_YCCK;
    default: return COACH_JPEG_OTHER;
    }
}

/* The EXIF orientation (1...8) in a saved APP1 marker list, or 1. */
static int coach_jpeg_orientation(jpeg_saved_marker_ptr marker) {
    for (; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 6) continue;
        if (memcmp(marker->data, "Exif\0\0", 6) != 0) continue;
        ExifData *exif = exif_data_new();
        if (exif == NULL) return 1;
        /* Read what is there; do not let libexif add or "fix" entries. */
        exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
        exif_data_load_data(exif, marker->data, marker->data_length);
        int orientation = 1;
        ExifEntry *entry = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
        if (entry != NULL && entry->format == EXIF_FORMAT_SHORT && entry->components >= 1 &&
            entry->data != NULL && entry->size >= 2) {
            int value = exif_get_short(entry->data, exif_data_get_byte_order(exif));
            if (value >= 1 && value <= 8) orientation = value;
        }
        exif_data_unref(exif);
        return orientation;
    }
    return 1;
}

CoachCodecStatus coach_jpeg_read_info(const uint8_t *data, size_t size, CoachJPEGInfo *info,
                                      char *message) {
    struct jpeg_decompress_struct cinfo;
    CoachJPEGContext context;
    if (data == NULL || info == NULL) return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "no data");
    if (size == 0) return coach_fail(message, COACH_CODEC_TRUNCATED, "the file is empty");
    memset(&cinfo, 0, sizeof(cinfo));
    memset(info, 0, sizeof(*info));
    cinfo.err = coach_jpeg_install(&context, message);
    if (setjmp(context.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return context.status;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    info->width = cinfo.image_width;
    info->height = cinfo.image_height;
    info->components = cinfo.num_components;
    info->colorModel = coach_jpeg_color_model(cinfo.jpeg_color_space);
    info->progressive = cinfo.progressive_mode ? 1 : 0;
    info->orientation = coach_jpeg_orientation(cinfo.marker_list);
    jpeg_destroy_decompress(&cinfo);
    return COACH_CODEC_OK;
}

void coach_jpeg_scaled_size(uint32_t width, uint32_t height, int denominator,
                            uint32_t *scaledWidth, uint32_t *scaledHeight) {
    uint32_t d = (denominator == 2 || denominator == 4 || denominator == 8) ? (uint32_t)denominator : 1;
    if (scaledWidth != NULL) *scaledWidth = (width + d - 1) / d;
    if (scaledHeight != NULL) *scaledHeight = (height + d - 1) / d;
}

CoachCodecStatus coach_jpeg_decode_rgb(const uint8_t *data, size_t size, int denominator,
                                       uint8_t *rgb, size_t capacity,
                                       uint32_t *width, uint32_t *height, char *message) {
    struct jpeg_decompress_struct cinfo;
    CoachJPEGContext context;
    if (data == NULL || rgb == NULL) return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "no data or no output buffer");
    if (denominator != 1 && denominator != 2 && denominator != 4 && denominator != 8)
        return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "the scale denominator must be 1, 2, 4 or 8");
    if (size == 0) return coach_fail(message, COACH_CODEC_TRUNCATED, "the file is empty");
    memset(&cinfo, 0, sizeof(cinfo));
    cinfo.err = coach_jpeg_install(&context, message);
    if (setjmp(context.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return context.status;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    /* CMYK and YCCK (libjpeg turns YCCK into CMYK) are read as CMYK and converted below. */
    int fourComponents = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    if (!fourComponents && cinfo.num_components != 1 && cinfo.num_components != 3) {
        int components = cinfo.num_components;
        jpeg_destroy_decompress(&cinfo);
        if (message != NULL)
            snprintf(message, COACH_CODEC_MESSAGE_CAPACITY,
                     "JPEG with %d colour components is not supported (expected 1, 3 or 4)", components);
        return COACH_CODEC_UNSUPPORTED;
    }
    /* Photoshop, which writes the Adobe marker, stores CMYK inverted (0 = full ink), as
       Pillow and browsers read it; without the marker, 255 = full ink. */
    int inverted = fourComponents && cinfo.saw_Adobe_marker;
    cinfo.out_color_space = fourComponents ? JCS_CMYK : JCS_RGB;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)denominator;
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.do_fancy_upsampling = TRUE;
    context.scanning = 1;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 3;
    if (cinfo.output_components != (fourComponents ? 4 : 3) || stride * cinfo.output_height > capacity) {
        jpeg_destroy_decompress(&cinfo);
        return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "the output buffer is too small for the decoded image");
    }
    JSAMPROW cmyk = NULL;
    if (fourComponents) {
        /* One row of C, M, Y, K from libjpeg's pool (freed with the decompressor, also on error). */
        cmyk = (JSAMPROW)(*cinfo.mem->alloc_large)((j_common_ptr)&cinfo, JPOOL_IMAGE, (size_t)cinfo.output_width * 4);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = rgb + (size_t)cinfo.output_scanline * stride;
        if (!fourComponents) {
            jpeg_read_scanlines(&cinfo, &row, 1);
            continue;
        }
        jpeg_read_scanlines(&cinfo, &cmyk, 1);
        for (size_t x = 0; x < cinfo.output_width; x++) {
            /* Each channel's share of white times black's: (1 - ink)(1 - K), rounded. */
            unsigned k = inverted ? cmyk[4 * x + 3] : 255u - cmyk[4 * x + 3];
            for (int c = 0; c < 3; c++) {
                unsigned paper = inverted ? cmyk[4 * x + c] : 255u - cmyk[4 * x + c];
                row[3 * x + c] = (JSAMPLE)((paper * k + 127u) / 255u);
            }
        }
    }
    if (width != NULL) *width = cinfo.output_width;
    if (height != NULL) *height = cinfo.output_height;
    /* Reads up to EOI: a file cut after the last scanline's data still fails here. */
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return COACH_CODEC_OK;
}

CoachCodecStatus coach_jpeg_encode(const uint8_t *samples, uint32_t width, uint32_t height,
                                   int layout, int quality, int progressive,
                                   uint8_t **output, size_t *outputSize, char *message) {
    struct jpeg_compress_struct cinfo;
    CoachJPEGContext context;
    int components;
    J_COLOR_SPACE inputSpace, storedSpace;
    switch (layout) {
    case COACH_JPEG_INPUT_GRAY: components = 1; inputSpace = JCS_GRAYSCALE; storedSpace = JCS_GRAYSCALE; break;
    case COACH_JPEG_INPUT_RGB: components = 3; inputSpace = JCS_RGB; storedSpace = JCS_YCbCr; break;
    case COACH_JPEG_INPUT_CMYK: components = 4; inputSpace = JCS_CMYK; storedSpace = JCS_CMYK; break;
    case COACH_JPEG_INPUT_CMYK_AS_YCCK: components = 4; inputSpace = JCS_CMYK; storedSpace = JCS_YCCK; break;
    default: return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "unknown JPEG input layout");
    }
    if (samples == NULL || output == NULL || outputSize == NULL)
        return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "no samples or no output");
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION)
        return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "JPEG sides must be 1...65500 pixels");
    if (quality < 1 || quality > 100)
        return coach_fail(message, COACH_CODEC_INVALID_ARGUMENT, "JPEG quality must be 1...100");
    *output = NULL;
    *outputSize = 0;
    memset(&cinfo, 0, sizeof(cinfo));
    cinfo.err = coach_jpeg_install(&context, message);
    if (setjmp(context.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(context.encodedBuffer);
        return context.status;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &context.encodedBuffer, &context.encodedSize);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = components;
    cinfo.in_color_space = inputSpace;
    jpeg_set_defaults(&cinfo);
    jpeg_set_colorspace(&cinfo, storedSpace);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(samples + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *output = context.encodedBuffer;
    *outputSize = (size_t)context.encodedSize;
    return COACH_CODEC_OK;
}

void coach_codec_free(void *buffer) { free(buffer); }
