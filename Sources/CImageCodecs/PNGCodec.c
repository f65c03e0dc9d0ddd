/* PNG decoding and encoding through libpng, with errors returned, never abort(). */
#include "CImageCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

/* State shared with libpng's callbacks. Everything the error path needs after
 * longjmp lives here (memory, not registers). */
typedef struct CoachPNGContext {
    const uint8_t *data;        /* reading: the whole file */
    size_t size;
    size_t offset;
    int reachedEnd;             /* the read callback ran out of data */
    CoachCodecStatus status;
    char *message;
    png_structp png;
    png_infop info;
    png_bytep *rows;
    uint8_t *scratch;           /* RGBA pixels before compositing */
    uint8_t *encoded;           /* writing: the growing output */
    size_t encodedSize;
    size_t encodedCapacity;
} CoachPNGContext;

static CoachCodecStatus coach_png_fail(char *message, CoachCodecStatus status, const char *text) {
    if (message != NULL) snprintf(message, COACH_CODEC_MESSAGE_CAPACITY, "%s", text);
    return status;
}

static void coach_png_error(png_structp png, png_const_charp text) {
    CoachPNGContext *context = (CoachPNGContext *)png_get_error_ptr(png);
    if (context->status == COACH_CODEC_OK) {
        context->status = context->reachedEnd ? COACH_CODEC_TRUNCATED : COACH_CODEC_CORRUPT;
        if (context->message != NULL)
            snprintf(context->message, COACH_CODEC_MESSAGE_CAPACITY, "%s", text ? text : "libpng error");
    }
    png_longjmp(png, 1);
}

/* Warnings (bad ancillary chunks, profile mismatches) are ignored, silently. */
static void coach_png_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void coach_png_read(png_structp png, png_bytep out, size_t length) {
    CoachPNGContext *context = (CoachPNGContext *)png_get_io_ptr(png);
    if (length > context->size - context->offset) {
        context->reachedEnd = 1;
        png_error(png, "the file ends before the image is complete");
    }
    memcpy(out, context->data + context->offset, length);
    context->offset += length;
}

static void coach_png_write(png_structp png, png_bytep bytes, size_t length) {
    CoachPNGContext *context = (CoachPNGContext *)png_get_io_ptr(png);
    if (length > context->encodedCapacity - context->encodedSize) {
        size_t capacity = context->encodedCapacity ? context->encodedCapacity : 4096;
        while (capacity - context->encodedSize < length) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(context->encoded, capacity);
        if (grown == NULL) {
            context->status = COACH_CODEC_OUT_OF_MEMORY;
            if (context->message != NULL)
                snprintf(context->message, COACH_CODEC_MESSAGE_CAPACITY, "out of memory while encoding PNG");
            png_error(png, "out of memory");
        }
        context->encoded = grown;
        context->encodedCapacity = capacity;
    }
    memcpy(context->encoded + context->encodedSize, bytes, length);
    context->encodedSize += length;
}

static void coach_png_flush(png_structp png) { (void)png; }

static void coach_png_context_start(CoachPNGContext *context, const uint8_t *data, size_t size,
                                    char *message) {
    memset(context, 0, sizeof(*context));
    context->data = data;
    context->size = size;
    context->message = message;
    context->status = COACH_CODEC_OK;
    if (message != NULL) message[0] = '\0';
}

static void coach_png_context_release_read(CoachPNGContext *context) {
    png_destroy_read_struct(&context->png, context->info ? &context->info : NULL, NULL);
    free(context->rows);
    free(context->scratch);
    context->rows = NULL;
    context->scratch = NULL;
}

CoachCodecStatus coach_png_read_info(const uint8_t *data, size_t size, CoachPNGInfo *info,
                                     char *message) {
    CoachPNGContext context;
    if (data == NULL || info == NULL) return coach_png_fail(message, COACH_CODEC_INVALID_ARGUMENT, "no data");
    if (size == 0) return coach_png_fail(message, COACH_CODEC_TRUNCATED, "the file is empty");
    memset(info, 0, sizeof(*info));
    coach_png_context_start(&context, data, size, message);
    context.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, coach_png_error, coach_png_warning);
    if (context.png == NULL) return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
    context.info = png_create_info_struct(context.png);
    if (context.info == NULL) {
        coach_png_context_release_read(&context);
        return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
    }
    if (setjmp(png_jmpbuf(context.png))) {
        coach_png_context_release_read(&context);
        return context.status;
    }
    png_set_read_fn(context.png, &context, coach_png_read);
    png_read_info(context.png, context.info);
    info->width = png_get_image_width(context.png, context.info);
    info->height = png_get_image_height(context.png, context.info);
    info->bitDepth = png_get_bit_depth(context.png, context.info);
    info->colorType = png_get_color_type(context.png, context.info);
    info->interlaced = png_get_interlace_type(context.png, context.info) != PNG_INTERLACE_NONE;
    info->hasTransparency = (info->colorType & PNG_COLOR_MASK_ALPHA) != 0 ||
                            png_get_valid(context.png, context.info, PNG_INFO_tRNS) != 0;
    coach_png_context_release_read(&context);
    return COACH_CODEC_OK;
}

CoachCodecStatus coach_png_decode_rgb(const uint8_t *data, size_t size,
                                      uint8_t *rgb, size_t capacity,
                                      uint32_t *width, uint32_t *height, char *message) {
    CoachPNGContext context;
    if (data == NULL || rgb == NULL) return coach_png_fail(message, COACH_CODEC_INVALID_ARGUMENT, "no data or no output buffer");
    if (size == 0) return coach_png_fail(message, COACH_CODEC_TRUNCATED, "the file is empty");
    coach_png_context_start(&context, data, size, message);
    context.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, coach_png_error, coach_png_warning);
    if (context.png == NULL) return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
    context.info = png_create_info_struct(context.png);
    if (context.info == NULL) {
        coach_png_context_release_read(&context);
        return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
    }
    if (setjmp(png_jmpbuf(context.png))) {
        coach_png_context_release_read(&context);
        return context.status;
    }
    png_set_read_fn(context.png, &context, coach_png_read);
    png_read_info(context.png, context.info);

    /* Everything becomes 8-bit RGB, or RGBA when the image has transparency. */
    png_set_expand(context.png);          /* palette -> RGB, grey < 8 bits -> 8, tRNS -> alpha */
    png_set_scale_16(context.png);        /* 16 -> 8 bits, rounded */
    png_set_gray_to_rgb(context.png);
    png_set_interlace_handling(context.png);
    png_read_update_info(context.png, context.info);

    uint32_t w = png_get_image_width(context.png, context.info);
    uint32_t h = png_get_image_height(context.png, context.info);
    int channels = png_get_channels(context.png, context.info);
    size_t rowBytes = png_get_rowbytes(context.png, context.info);
    if ((channels != 3 && channels != 4) || png_get_bit_depth(context.png, context.info) != 8 ||
        rowBytes != (size_t)w * (size_t)channels) {
        coach_png_context_release_read(&context);
        return coach_png_fail(message, COACH_CODEC_UNSUPPORTED, "PNG pixel layout could not be converted to 8-bit RGB");
    }
    if ((size_t)w * 3 * (size_t)h > capacity) {
        coach_png_context_release_read(&context);
        return coach_png_fail(message, COACH_CODEC_INVALID_ARGUMENT, "the output buffer is too small for the decoded image");
    }
    uint8_t *target = rgb;
    if (channels == 4) {
        context.scratch = (uint8_t *)malloc(rowBytes * (size_t)h);
        if (context.scratch == NULL) {
            coach_png_context_release_read(&context);
            return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
        }
        target = context.scratch;
    }
    context.rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)h);
    if (context.rows == NULL) {
        coach_png_context_release_read(&context);
        return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
    }
    for (uint32_t y = 0; y < h; y++) context.rows[y] = target + (size_t)y * rowBytes;
    png_read_image(context.png, context.rows);
    png_read_end(context.png, NULL);

    if (channels == 4) {
        /* Composite onto white in sample space: round((c·a + 255·(255 − a)) / 255). */
        size_t pixels = (size_t)w * (size_t)h;
        const uint8_t *source = context.scratch;
        for (size_t i = 0; i < pixels; i++) {
            unsigned alpha = source[4 * i + 3];
            unsigned background = 255u * (255u - alpha);
            for (int c = 0; c < 3; c++) {
                unsigned value = (unsigned)source[4 * i + c] * alpha + background;
                rgb[3 * i + c] = (uint8_t)((value + 127u) / 255u);
            }
        }
    }
    if (width != NULL) *width = w;
    if (height != NULL) *height = h;
    coach_png_context_release_read(&context);
    return COACH_CODEC_OK;
}

CoachCodecStatus coach_png_encode(const uint8_t *samples, uint32_t width, uint32_t height,
                                  int colorType, int bitDepth,
                                  const uint8_t *palette, int paletteCount,
                                  const uint8_t *paletteAlpha, int alphaCount,
                                  int interlaced,
                                  uint8_t **output, size_t *outputSize, char *message) {
    CoachPNGContext context;
    int channels;
    switch (colorType) {
    case COACH_PNG_GRAY: channels = 1; break;
    case COACH_PNG_RGB: channels = 3; break;
    case COACH_PNG_PALETTE: channels = 1; break;
    case COACH_PNG_GRAY_ALPHA: channels = 2; break;
    case COACH_PNG_RGBA: channels = 4; break;
    default: return coach_png_fail(message, COACH_CODEC_INVALID_ARGUMENT, "unknown PNG colour type");
    }
    if (samples == NULL || output == NULL || outputSize == NULL)
        return coach_png_fail(message, COACH_CODEC_INVALID_ARGUMENT, "no samples or no output");
    if (width == 0 || height == 0)
        return coach_png_fail(message, COACH_CODEC_INVALID_ARGUMENT, "PNG sides must be at least 1 pixel");
    if (colorType == COACH_PNG_PALETTE && (palette == NULL || paletteCount < 1 || paletteCount > 256))
        return coach_png_fail(message, COACH_CODEC_INVALID_ARGUMENT, "a palette PNG needs 1...256 palette entries");
    *output = NULL;
    *outputSize = 0;
    coach_png_context_start(&context, NULL, 0, message);
    context.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, coach_png_error, coach_png_warning);
    if (context.png == NULL) return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
    context.info = png_create_info_struct(context.png);
    if (context.info == NULL) {
        png_destroy_write_struct(&context.png, NULL);
        return coach_png_fail(message, COACH_CODEC_OUT_OF_MEMORY, "out of memory");
    }
    if (setjmp(png_jmpbuf(context.png))) {
        png_destroy_write_struct(&context.png, &context.info);
        free(context.rows);
        free(context.encoded);
        return context.status == COACH_CODEC_CORRUPT ? COACH_CODEC_INVALID_ARGUMENT : context.status;
    }
    /* Errors while writing come from our arguments (bad depth for the colour type...). */
    png_set_write_fn(context.png, &context, coach_png_write, coach_png_flush);
    png_set_IHDR(context.png, context.info, width, height, bitDepth, colorType,
                 interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (colorType == COACH_PNG_PALETTE) {
        png_color entries[256];
        for (int i = 0; i < paletteCount; i++) {
            entries[i].red = palette[3 * i];
            entries[i].green = palette[3 * i + 1];
            entries[i].blue = palette[3 * i + 2];
        }
        png_set_PLTE(context.png, context.info, entries, paletteCount);
        if (paletteAlpha != NULL && alphaCount > 0)
            png_set_tRNS(context.png, context.info, paletteAlpha, alphaCount, NULL);
    }
    png_write_info(context.png, context.info);
    if (bitDepth < 8) png_set_packing(context.png);
    size_t stride = (size_t)width * (size_t)channels * (bitDepth == 16 ? 2 : 1);
    context.rows = (png_bytep *)malloc(sizeof(png_bytep) * (size_t)height);
    if (context.rows == NULL) {
        context.status = COACH_CODEC_OUT_OF_MEMORY;
        if (message != NULL) snprintf(message, COACH_CODEC_MESSAGE_CAPACITY, "out of memory");
        png_error(context.png, "out of memory");
    }
    for (uint32_t y = 0; y < height; y++) context.rows[y] = (png_bytep)(samples + (size_t)y * stride);
    png_write_image(context.png, context.rows);
    png_write_end(context.png, NULL);
    png_destroy_write_struct(&context.png, &context.info);
    free(context.rows);
    *output = context.encoded;
    *outputSize = context.encodedSize;
    return COACH_CODEC_OK;
}
