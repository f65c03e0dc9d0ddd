/* CImageCodecs: safe wrappers around libjpeg-turbo, libpng and libexif.
 *
 * libjpeg's and libpng's default error handlers print to stderr and exit() or
 * abort; Swift cannot use setjmp/longjmp. Every function here installs its own
 * error handler, catches the library's error with setjmp/longjmp, and returns a
 * status code plus a human-readable message instead. Nothing here prints.
 *
 * All pixel buffers are interleaved, 8 bits per sample, rows top to bottom with no
 * padding, unless stated otherwise.
 */
#ifndef COACH_IMAGE_CODECS_H
#define COACH_IMAGE_CODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result of every call. */
typedef enum CoachCodecStatus {
    COACH_CODEC_OK = 0,
    /* The data is not a valid image of the expected format (bad header, bad data). */
    COACH_CODEC_CORRUPT = 1,
    /* The data ends before the image is complete. */
    COACH_CODEC_TRUNCATED = 2,
    /* A valid image in a colour model this library does not decode (CMYK, YCCK). */
    COACH_CODEC_UNSUPPORTED = 3,
    /* The caller passed an inconsistent argument (buffer too small, bad size). */
    COACH_CODEC_INVALID_ARGUMENT = 4,
    /* Memory could not be allocated. */
    COACH_CODEC_OUT_OF_MEMORY = 5
} CoachCodecStatus;

/* Capacity of the message buffer every call fills on failure. */
#define COACH_CODEC_MESSAGE_CAPACITY 256

/* JPEG colour models as stored in the file. */
typedef enum CoachJPEGColorModel {
    COACH_JPEG_GRAYSCALE = 1,
    COACH_JPEG_RGB = 2,
    COACH_JPEG_YCBCR = 3,
    COACH_JPEG_CMYK = 4,
    COACH_JPEG_YCCK = 5,
    COACH_JPEG_OTHER = 6
} CoachJPEGColorModel;

/* What a JPEG header says. */
typedef struct CoachJPEGInfo {
    uint32_t width;          /* full-size width in pixels, as stored (before EXIF orientation) */
    uint32_t height;         /* full-size height in pixels, as stored */
    int components;          /* colour components in the file */
    int colorModel;          /* a CoachJPEGColorModel */
    int progressive;         /* 1 for a progressive JPEG */
    int orientation;         /* EXIF orientation 1...8 from APP1, 1 when absent or invalid */
} CoachJPEGInfo;

/* Reads the header (and the EXIF orientation) of the JPEG in `data`. */
CoachCodecStatus coach_jpeg_read_info(const uint8_t *data, size_t size, CoachJPEGInfo *info,
                                      char *message);

/* The size libjpeg-turbo decodes to at scale 1/`denominator` (1, 2, 4 or 8). */
void coach_jpeg_scaled_size(uint32_t width, uint32_t height, int denominator,
                            uint32_t *scaledWidth, uint32_t *scaledHeight);

/* Decodes the JPEG in `data` at scale 1/`denominator` (1, 2, 4 or 8) into 8-bit RGB.
 * `rgb` must hold `capacity` >= 3 * scaledWidth * scaledHeight bytes (see
 * coach_jpeg_scaled_size). Greyscale files are expanded to RGB; CMYK and YCCK files
 * fail with COACH_CODEC_UNSUPPORTED. Missing or corrupt entropy-coded data (which
 * libjpeg only warns about, filling the rest of the image with grey) is an error. */
CoachCodecStatus coach_jpeg_decode_rgb(const uint8_t *data, size_t size, int denominator,
                                       uint8_t *rgb, size_t capacity,
                                       uint32_t *width, uint32_t *height, char *message);

/* JPEG input sample layouts for encoding. */
typedef enum CoachJPEGInputLayout {
    COACH_JPEG_INPUT_GRAY = 1,  /* 1 sample per pixel, stored as greyscale */
    COACH_JPEG_INPUT_RGB = 3,   /* 3 samples per pixel, stored as YCbCr */
    COACH_JPEG_INPUT_CMYK = 4,  /* 4 samples per pixel, stored as Adobe CMYK */
    COACH_JPEG_INPUT_CMYK_AS_YCCK = 5  /* 4 samples per pixel (CMYK), stored as Adobe YCCK */
} CoachJPEGInputLayout;

/* Encodes interleaved 8-bit samples as a baseline (or progressive) JPEG with the
 * given quality (1...100). On success `*output` is a malloc'd buffer of `*outputSize`
 * bytes to release with coach_codec_free. */
CoachCodecStatus coach_jpeg_encode(const uint8_t *samples, uint32_t width, uint32_t height,
                                   int layout, int quality, int progressive,
                                   uint8_t **output, size_t *outputSize, char *message);

/* PNG colour types (the values of the PNG specification). */
typedef enum CoachPNGColorType {
    COACH_PNG_GRAY = 0,
    COACH_PNG_RGB = 2,
    COACH_PNG_PALETTE = 3,
    COACH_PNG_GRAY_ALPHA = 4,
    COACH_PNG_RGBA = 6
} CoachPNGColorType;

/* What a PNG header says. */
typedef struct CoachPNGInfo {
    uint32_t width;
    uint32_t height;
    int bitDepth;            /* 1, 2, 4, 8 or 16 */
    int colorType;           /* a CoachPNGColorType */
    int interlaced;          /* 1 for Adam7 */
    int hasTransparency;     /* 1 when the image has an alpha channel or a tRNS chunk */
} CoachPNGInfo;

/* Reads the header of the PNG in `data`. */
CoachCodecStatus coach_png_read_info(const uint8_t *data, size_t size, CoachPNGInfo *info,
                                     char *message);

/* Decodes the PNG in `data` into 8-bit RGB (`capacity` >= 3 * width * height).
 * Palette and greyscale images are expanded, 16-bit samples are scaled to 8 bits
 * with rounding, and transparency (alpha channel or tRNS) is composited onto white:
 * out = round((c * a + 255 * (255 - a)) / 255). Gamma and colour-profile chunks are
 * ignored. The whole file must be present: a missing IEND chunk is an error. */
CoachCodecStatus coach_png_decode_rgb(const uint8_t *data, size_t size,
                                      uint8_t *rgb, size_t capacity,
                                      uint32_t *width, uint32_t *height, char *message);

/* Encodes samples as a PNG. `samples` holds rows top to bottom: for bit depth 16,
 * two big-endian bytes per sample; for bit depth 8, one byte per sample; for bit
 * depths 1, 2 and 4 (grey or palette only), one byte per pixel holding the value.
 * Palette images take `paletteCount` RGB triples in `palette` and optionally
 * `alphaCount` alpha values (tRNS) in `paletteAlpha`. On success `*output` is a
 * malloc'd buffer of `*outputSize` bytes to release with coach_codec_free. */
CoachCodecStatus coach_png_encode(const uint8_t *samples, uint32_t width, uint32_t height,
                                  int colorType, int bitDepth,
                                  const uint8_t *palette, int paletteCount,
                                  const uint8_t *paletteAlpha, int alphaCount,
                                  int interlaced,
                                  uint8_t **output, size_t *outputSize, char *message);

/* Releases a buffer returned by an encoder. */
void coach_codec_free(void *buffer);

#ifdef __cplusplus
}
#endif
#endif
