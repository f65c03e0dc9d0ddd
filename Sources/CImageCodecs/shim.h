#ifndef COACH_IMAGE_CODECS_SHIM_H
#define COACH_IMAGE_CODECS_SHIM_H
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
#include <png.h>
#include <libexif/exif-data.h>
#endif
