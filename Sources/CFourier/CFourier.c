#include "CFourier.h"

#include <libavutil/mem.h>
#include <libavutil/tx.h>
#include <string.h>

struct CoachFourierPlan {
    int width;
    int height;
    AVTXContext *rowForward, *rowInverse, *columnForward, *columnInverse;
    av_tx_fn rowForwardFunction, rowInverseFunction, columnForwardFunction, columnInverseFunction;
    AVComplexFloat *buffer;   // width × height
    AVComplexFloat *lineIn;   // max(width, height)
    AVComplexFloat *lineOut;  // max(width, height)
};

void coach_fourier_plan_destroy(CoachFourierPlan *plan) {
    if (!plan) return;
    av_tx_uninit(&plan->rowForward);
    av_tx_uninit(&plan->rowInverse);
    av_tx_uninit(&plan->columnForward);
    av_tx_uninit(&plan->columnInverse);
    av_freep(&plan->buffer);
    av_freep(&plan->lineIn);
    av_freep(&plan->lineOut);
    av_free(plan);
}

CoachFourierPlan *coach_fourier_plan_create(int width, int height) {
    if (width < 1 || height < 1) return NULL;
    if ((long long)width * (long long)height > (1LL << 28)) return NULL;
    CoachFourierPlan *plan = av_mallocz(sizeof(CoachFourierPlan));
    if (!plan) return NULL;
    plan->width = width;
    plan->height = height;
    float scale = 1.0f;
    int longest = width > height ? width : height;
    if (av_tx_init(&plan->rowForward, &plan->rowForwardFunction, AV_TX_FLOAT_FFT, 0, width, &scale, 0) < 0 ||
        av_tx_init(&plan->rowInverse, &plan->rowInverseFunction, AV_TX_FLOAT_FFT, 1, width, &scale, 0) < 0 ||
        av_tx_init(&plan->columnForward, &plan->columnForwardFunction, AV_TX_FLOAT_FFT, 0, height, &scale, 0) < 0 ||
        av_tx_init(&plan->columnInverse, &plan->columnInverseFunction, AV_TX_FLOAT_FFT, 1, height, &scale, 0) < 0) {
        coach_fourier_plan_destroy(plan);
        return NULL;
    }
    plan->buffer = av_mallocz(sizeof(AVComplexFloat) * (size_t)width * (size_t)height);
    plan->lineIn = av_mallocz(sizeof(AVComplexFloat) * (size_t)longest);
    plan->lineOut = av_mallocz(sizeof(AVComplexFloat) * (size_t)longest);
    if (!plan->buffer || !plan->lineIn || !plan->lineOut) {
        coach_fourier_plan_destroy(plan);
        return NULL;
    }
    return plan;
}

float *coach_fourier_plan_buffer(CoachFourierPlan *plan) {
    return plan ? (float *)plan->buffer : NULL;
}

void coach_fourier_transform(CoachFourierPlan *plan, int inverse) {
    if (!plan) return;
    const int width = plan->width, height = plan->height;
    const ptrdiff_t stride = sizeof(AVComplexFloat);
    AVTXContext *rowContext = inverse ? plan->rowInverse : plan->rowForward;
    av_tx_fn rowFunction = inverse ? plan->rowInverseFunction : plan->rowForwardFunction;
    AVTXContext *columnContext = inverse ? plan->columnInverse : plan->columnForward;
    av_tx_fn columnFunction = inverse ? plan->columnInverseFunction : plan->columnForwardFunction;
    AVComplexFloat *data = plan->buffer;

    // Rows: copy in (the transform is out of place, the buffer rows need not be aligned).
    if (width > 1) {
        for (int row = 0; row < height; row++) {
            AVComplexFloat *line = data + (size_t)row * width;
            memcpy(plan->lineIn, line, sizeof(AVComplexFloat) * width);
            rowFunction(rowContext, plan->lineOut, plan->lineIn, stride);
            memcpy(line, plan->lineOut, sizeof(AVComplexFloat) * width);
        }
    }
    // Columns: gather, transform, scatter.
    if (height > 1) {
        for (int column = 0; column < width; column++) {
            for (int row = 0; row < height; row++) plan->lineIn[row] = data[(size_t)row * width + column];
            columnFunction(columnContext, plan->lineOut, plan->lineIn, stride);
            for (int row = 0; row < height; row++) data[(size_t)row * width + column] = plan->lineOut[row];
        }
    }
}
