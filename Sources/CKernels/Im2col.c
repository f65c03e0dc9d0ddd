// Unfolding a convolution's windows into GEMM rows, a chunk of output pixels at a time (so the
// rows are still in cache when the packed GEMM reads them).
#include "CKernels.h"

#include <string.h>

void coach_im2col(const float *image, int height, int width, int channels, int kernelHeight, int kernelWidth,
                  int strideHeight, int strideWidth, int padTop, int padLeft, int outputWidth, int first, int count,
                  float *columns) {
    const long rowLength = (long)kernelHeight * kernelWidth * channels;
    for (int pixel = first; pixel < first + count; pixel++) {
        int oy = pixel / outputWidth, ox = pixel % outputWidth;
        float *dst = columns + (long)(pixel - first) * rowLength;
        for (int ky = 0; ky < kernelHeight; ky++) {
            int iy = oy * strideHeight - padTop + ky;
            for (int kx = 0; kx < kernelWidth; kx++, dst += channels) {
                int ix = ox * strideWidth - padLeft + kx;
                if (iy < 0 || iy >= height || ix < 0 || ix >= width) {
                    for (int c = 0; c < channels; c++) dst[c] = 0.0f;
                } else {
                    const float *src = image + ((long)iy * width + ix) * channels;
                    if (channels == 3) {
                        dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2];
                    } else {
                        memcpy(dst, src, sizeof(float) * (size_t)channels);
                    }
                }
            }
        }
    }
}
