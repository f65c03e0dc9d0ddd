#!/usr/bin/env python3
"""Self-test of coreml_nn.py, the reference Core ML interpreter.

Run: ``python test_coreml_nn.py`` (with the venv's python, which has numpy and coremltools);
exits non-zero on failure.  Each test builds a small model with coremltools'
``NeuralNetworkBuilder`` (or edits its protobuf directly, to control the stored layout),
runs it through the interpreter and checks the numbers against a naive numpy formula written
from the NeuralNetwork.proto documentation, or against hand-computed values.
"""

import json
import logging
import math
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np

logging.disable(logging.WARNING)          # coremltools' "Failed to load ..." on Linux
# coremltools is imported in full before coreml_nn (see coreml_nn._import_model_pb2)
from coremltools.models import datatypes  # noqa: E402
from coremltools.models.neural_network import NeuralNetworkBuilder  # noqa: E402
from coremltools.proto import FeatureTypes_pb2 as FT, Model_pb2, NeuralNetwork_pb2 as NN  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import coreml_nn  # noqa: E402

RNG = np.random.default_rng(1234)
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def close(actual, expected, tol=1e-4, what=""):
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        raise AssertionError("%s: shape %s, expected %s" % (what, list(actual.shape), list(expected.shape)))
    if not np.allclose(actual, expected, rtol=tol, atol=tol, equal_nan=True):
        err = np.max(np.abs(actual - expected))
        raise AssertionError("%s: max error %g\nactual   %s\nexpected %s" % (what, err, actual.ravel()[:12], expected.ravel()[:12]))


def equal(actual, expected, what=""):
    if actual != expected:
        raise AssertionError("%s: %r != %r" % (what, actual, expected))


# --- model construction helpers --------------------------------------------------------------

def builder(inputs, outputs, nd=True, mode=None):
    """A NeuralNetworkBuilder; nd selects EXACT_ARRAY_MAPPING (else the rank-5 mapping)."""
    return NeuralNetworkBuilder(
        [(n, datatypes.Array(*s)) for n, s in inputs],
        [(n, datatypes.Array(*s) if s else None) for n, s in outputs],
        disable_rank5_shape_mapping=nd, mode=mode)


def add_layer(b, kind, inputs, outputs, name=None):
    """Appends a raw layer of type ``kind`` and returns its parameter message."""
    L = b.nn_spec.layers.add()
    L.name = name or "%s_%d" % (kind, len(b.nn_spec.layers))
    L.input.extend(inputs)
    L.output.extend(outputs)
    params = getattr(L, kind)
    params.SetInParent()
    return params


def set_weights(wp, array, fp16=False):
    wp.Clear()
    flat = np.asarray(array, dtype=np.float32).ravel()
    if fp16:
        wp.float16Value = flat.astype("<f2").tobytes()
    else:
        wp.floatValue.extend(flat.tolist())


def run(b_or_spec, feeds):
    spec = b_or_spec.spec if hasattr(b_or_spec, "spec") else b_or_spec
    model = coreml_nn.Model(spec.SerializeToString())
    return model.predict(feeds)


def run1(b, feeds, name="out"):
    return run(b, feeds)[name]


# --- naive references (written from the proto docs, independent of coreml_nn) ---------------

def naive_conv(x, w, bias, stride, dilation, pads, groups):
    """x [C, H, W], w [O, C/groups, kh, kw]; pads (top, bottom, left, right)."""
    C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    t, b, l, r = pads
    xp = np.zeros((C, H + t + b, W + l + r))
    xp[:, t:t + H, l:l + W] = x
    keh, kew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    Ho = (H + t + b - keh) // stride[0] + 1
    Wo = (W + l + r - kew) // stride[1] + 1
    Og = O // groups
    out = np.zeros((O, Ho, Wo))
    for o in range(O):
        g = o // Og
        for y in range(Ho):
            for xx in range(Wo):
                s = 0.0
                for c in range(Cg):
                    for i in range(kh):
                        for j in range(kw):
                            s += xp[g * Cg + c, y * stride[0] + i * dilation[0], xx * stride[1] + j * dilation[1]] * w[o, c, i, j]
                out[o, y, xx] = s + (bias[o] if bias is not None else 0)
    return out


def naive_pool(x, k, s, pads, out_hw, kind, exclude):
    """x [C, H, W]; pads (t, b, l, r) bound the padded region; windows past it (the
    includeLastPixel overhang) count nothing."""
    C, H, W = x.shape
    t, b, l, r = pads
    Ho, Wo = out_hw
    out = np.zeros((C, Ho, Wo))
    for c in range(C):
        for oy in range(Ho):
            for ox in range(Wo):
                vals, n_pad = [], 0
                for i in range(k[0]):
                    for j in range(k[1]):
                        yy, xx = oy * s[0] + i - t, ox * s[1] + j - l
                        if 0 <= yy < H and 0 <= xx < W:
                            vals.append(x[c, yy, xx])
                            n_pad += 1
                        elif -t <= yy < H + b and -l <= xx < W + r:
                            n_pad += 1
                if kind == "MAX":
                    out[c, oy, ox] = max(vals)
                elif kind == "L2":
                    out[c, oy, ox] = math.sqrt(sum(v * v for v in vals))
                else:
                    out[c, oy, ox] = sum(vals) / (len(vals) if exclude else n_pad)
    return out


def bilinear_ref(x, gy, gx):
    H, W = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (len(gy), len(gx)))
    for a, yv in enumerate(gy):
        for c, xv in enumerate(gx):
            y0, x0 = int(math.floor(yv)), int(math.floor(xv))
            y1, x1 = min(y0 + 1, H - 1), min(x0 + 1, W - 1)
            fy, fx = yv - y0, xv - x0
            out[..., a, c] = ((1 - fy) * ((1 - fx) * x[..., y0, x0] + fx * x[..., y0, x1])
                              + fy * ((1 - fx) * x[..., y1, x0] + fx * x[..., y1, x1]))
    return out


# --- convolution -----------------------------------------------------------------------------

def conv_model(C, H, W, O, k, stride=(1, 1), dilation=(1, 1), groups=1, padding="valid",
               pads=(0, 0, 0, 0), asym="BOTTOM_RIGHT_HEAVY", bias=True, fp16=False, nd=True):
    Cg = C // groups
    w = rand(O, Cg, k[0], k[1])
    bvec = rand(O) if bias else None
    b = builder([("x", (C, H, W) if not nd else (1, C, H, W))], [("out", None)], nd=nd)
    p = add_layer(b, "convolution", ["x"], ["out"])
    p.outputChannels, p.kernelChannels, p.nGroups = O, Cg, groups
    p.kernelSize.extend(k)
    p.stride.extend(stride)
    p.dilationFactor.extend(dilation)
    if padding == "same":
        p.same.asymmetryMode = NN.SamePadding.SamePaddingMode.Value(asym)
    else:
        ba = p.valid.paddingAmounts.borderAmounts
        h, wd = ba.add(), ba.add()
        h.startEdgeSize, h.endEdgeSize, wd.startEdgeSize, wd.endEdgeSize = pads
    set_weights(p.weights, w, fp16)
    if bias:
        p.hasBias = True
        set_weights(p.bias, bvec, fp16)
    if fp16:   # the reference sees the same rounded values
        w = w.astype(np.float16).astype(np.float32)
        bvec = bvec.astype(np.float16).astype(np.float32) if bias else None
    return b, w, bvec


@test
def conv_valid_plain_and_padded():
    b, w, bias = conv_model(3, 6, 7, 4, (3, 3))
    x = rand(3, 6, 7)
    close(run1(b, {"x": x[None]})[0], naive_conv(x, w, bias, (1, 1), (1, 1), (0, 0, 0, 0), 1), what="valid")
    # ValidPadding with explicit, asymmetric paddingAmounts and stride 2
    b, w, bias = conv_model(2, 5, 6, 3, (3, 2), stride=(2, 2), pads=(1, 2, 0, 3))
    x = rand(2, 5, 6)
    y = run1(b, {"x": x[None]})[0]
    # H_out = floor((5 + 1 + 2 - 3) / 2) + 1 = 3, W_out = floor((6 + 0 + 3 - 2) / 2) + 1 = 4
    equal(list(y.shape), [3, 3, 4], "valid padded shape")
    close(y, naive_conv(x, w, bias, (2, 2), (1, 1), (1, 2, 0, 3), 1), what="valid padded")


@test
def conv_same_asymmetric():
    # H = 6, k = 3, s = 2: H_out = 3, total = (3-1)*2 + 3 - 6 = 1 -> BOTTOM_RIGHT_HEAVY puts it
    # at the bottom (0, 1), TOP_LEFT_HEAVY at the top (1, 0).  W = 5: W_out = 3,
    # total = 2*2 + 3 - 5 = 2 -> (1, 1) either way.  W = 8, k = 4 ... see the 2nd case.
    x = rand(2, 6, 5)
    for mode, pads in (("BOTTOM_RIGHT_HEAVY", (0, 1, 1, 1)), ("TOP_LEFT_HEAVY", (1, 0, 1, 1))):
        b, w, bias = conv_model(2, 6, 5, 3, (3, 3), stride=(2, 2), padding="same", asym=mode)
        y = run1(b, {"x": x[None]})[0]
        equal(list(y.shape), [3, 3, 3], "same shape " + mode)
        close(y, naive_conv(x, w, bias, (2, 2), (1, 1), pads, 1), what="same " + mode)
    # k = 4, s = 1 on W = 5: total = 3 -> BOTTOM_RIGHT_HEAVY (1, 2), TOP_LEFT_HEAVY (2, 1)
    x = rand(1, 4, 5)
    for mode, pads in (("BOTTOM_RIGHT_HEAVY", (1, 2, 1, 2)), ("TOP_LEFT_HEAVY", (2, 1, 2, 1))):
        b, w, bias = conv_model(1, 4, 5, 2, (4, 4), padding="same", asym=mode)
        y = run1(b, {"x": x[None]})[0]
        equal(list(y.shape), [2, 4, 5], "same k4 shape")
        close(y, naive_conv(x, w, bias, (1, 1), (1, 1), pads, 1), what="same k4 " + mode)


@test
def conv_grouped_depthwise_dilated_fp16():
    x = rand(4, 7, 7)
    b, w, bias = conv_model(4, 7, 7, 6, (3, 3), groups=2)
    close(run1(b, {"x": x[None]})[0], naive_conv(x, w, bias, (1, 1), (1, 1), (0,) * 4, 2), what="groups=2")
    b, w, bias = conv_model(4, 7, 7, 8, (3, 3), groups=4, stride=(2, 1), padding="same")
    # depthwise with multiplier 2; H: out 4, total = 3*2+3-7 = 2 -> (1, 1); W: total 2 -> (1, 1)
    close(run1(b, {"x": x[None]})[0], naive_conv(x, w, bias, (2, 1), (1, 1), (1, 1, 1, 1), 4), what="depthwise")
    b, w, bias = conv_model(4, 7, 7, 2, (3, 2), dilation=(2, 3))
    close(run1(b, {"x": x[None]})[0], naive_conv(x, w, bias, (1, 1), (2, 3), (0,) * 4, 1), what="dilated")
    b, w, bias = conv_model(4, 7, 7, 3, (3, 3), fp16=True)
    close(run1(b, {"x": x[None]})[0], naive_conv(x, w, bias, (1, 1), (1, 1), (0,) * 4, 1), what="fp16")


@test
def conv_rank5_mapping_and_batch():
    # RANK5_ARRAY_MAPPING: a [C, H, W] input is the blob [1, 1, C, H, W]; output presented [C, H, W]
    b, w, bias = conv_model(3, 5, 5, 2, (3, 3), nd=False)
    x = rand(3, 5, 5)
    y = run1(b, {"x": x})
    equal(list(y.shape), [2, 3, 3], "rank5 output shape")
    close(y, naive_conv(x, w, bias, (1, 1), (1, 1), (0,) * 4, 1), what="rank5 conv")
    # ND: a batch of 2 is two independent images
    b, w, bias = conv_model(3, 5, 5, 2, (3, 3))
    b.spec.description.input[0].type.multiArrayType.shape[0] = 2
    x = rand(2, 3, 5, 5)
    y = run1(b, {"x": x})
    close(y, np.stack([naive_conv(x[i], w, bias, (1, 1), (1, 1), (0,) * 4, 1) for i in range(2)]), what="batch")


@test
def deconvolution():
    C, H, W, O, k, s = 2, 3, 4, 3, (3, 2), (2, 2)
    x, w, bias = rand(C, H, W), rand(C, O, k[0], k[1]), rand(O)
    full = np.zeros((O, (H - 1) * s[0] + k[0], (W - 1) * s[1] + k[1]))
    for c in range(C):
        for h in range(H):
            for ww in range(W):
                full[:, h * s[0]:h * s[0] + k[0], ww * s[1]:ww * s[1] + k[1]] += x[c, h, ww] * w[c]
    full += bias.reshape(-1, 1, 1)
    b = builder([("x", (1, C, H, W))], [("out", None)])
    p = add_layer(b, "convolution", ["x"], ["out"])
    p.isDeconvolution, p.outputChannels, p.kernelChannels, p.hasBias = True, O, C, True
    p.kernelSize.extend(k)
    p.stride.extend(s)
    p.valid.SetInParent()
    set_weights(p.weights, w)
    set_weights(p.bias, bias)
    close(run1(b, {"x": x[None]})[0], full, what="deconv valid")
    # ValidPadding crops: H_out = (H-1)*s + k - (top + bottom)
    ba = p.valid.paddingAmounts.borderAmounts
    h, wd = ba.add(), ba.add()
    h.startEdgeSize, h.endEdgeSize, wd.startEdgeSize, wd.endEdgeSize = 1, 0, 0, 1
    close(run1(b, {"x": x[None]})[0], full[:, 1:, :-1], what="deconv padded")


@test
def conv_weights_as_input():
    x, w = rand(4, 5, 5), rand(6, 2, 3, 3)
    b = builder([("x", (1, 4, 5, 5)), ("w", (6, 2, 3, 3))], [("out", None)])
    p = add_layer(b, "convolution", ["x", "w"], ["out"])
    p.nGroups = 2
    p.same.SetInParent()
    close(run1(b, {"x": x[None], "w": w})[0], naive_conv(x, w, None, (1, 1), (1, 1), (1, 1, 1, 1), 2), what="weight input")


@test
def quantized_weights():
    Cin, Cout = 4, 3
    q = RNG.integers(0, 256, size=(Cout, Cin)).astype(np.uint8)
    scale, shift = np.array([0.01, 0.02, 0.03], np.float32), np.array([-1.0, 0.0, 1.0], np.float32)
    x = rand(Cin)
    for kind in ("linear", "lut"):
        b = builder([("x", (Cin,))], [("out", None)])
        p = add_layer(b, "innerProduct", ["x"], ["out"])
        p.inputChannels, p.outputChannels = Cin, Cout
        p.weights.rawValue = q.tobytes()
        p.weights.quantization.numberOfBits = 8
        if kind == "linear":
            # W = q * scale + bias, one scale and bias per output channel
            p.weights.quantization.linearQuantization.scale.extend(scale.tolist())
            p.weights.quantization.linearQuantization.bias.extend(shift.tolist())
            w = q * scale.reshape(-1, 1) + shift.reshape(-1, 1)
        else:
            table = rand(256)
            p.weights.quantization.lookupTableQuantization.floatValue.extend(table.tolist())
            w = table[q]
        close(run1(b, {"x": x}), w @ x, what="quantized " + kind)


# --- pooling ---------------------------------------------------------------------------------

def pool_model(C, H, W, k, s, kind, padding="valid", pads=(0, 0, 0, 0), asym="BOTTOM_RIGHT_HEAVY",
               exclude=False, glob=False, last_pixel=None):
    b = builder([("x", (1, C, H, W))], [("out", None)])
    p = add_layer(b, "pooling", ["x"], ["out"])
    p.type = NN.PoolingLayerParams.PoolingType.Value(kind)
    p.kernelSize.extend(k)
    p.stride.extend(s)
    p.avgPoolExcludePadding = exclude
    p.globalPooling = glob
    if last_pixel is not None:
        p.includeLastPixel.paddingAmounts.extend(last_pixel)
    elif padding == "same":
        p.same.asymmetryMode = NN.SamePadding.SamePaddingMode.Value(asym)
    else:
        ba = p.valid.paddingAmounts.borderAmounts
        h, wd = ba.add(), ba.add()
        h.startEdgeSize, h.endEdgeSize, wd.startEdgeSize, wd.endEdgeSize = pads
    return b


@test
def pooling_valid_same_global():
    x = rand(2, 6, 7)
    for kind in ("MAX", "AVERAGE", "L2"):
        b = pool_model(2, 6, 7, (2, 3), (2, 2), kind)
        # valid: H_out = floor((6-2)/2)+1 = 3, W_out = floor((7-3)/2)+1 = 3
        close(run1(b, {"x": x[None]})[0], naive_pool(x, (2, 3), (2, 2), (0,) * 4, (3, 3), kind, False), what="valid " + kind)
    # same, stride 2 on 6 x 7 with k 3: H_out 3, total 1 -> (0, 1); W_out 4, total 2 -> (1, 1)
    for exclude in (False, True):
        b = pool_model(2, 6, 7, (3, 3), (2, 2), "AVERAGE", padding="same", exclude=exclude)
        close(run1(b, {"x": x[None]})[0], naive_pool(x, (3, 3), (2, 2), (0, 1, 1, 1), (3, 4), "AVERAGE", exclude),
              what="same avg exclude=%s" % exclude)
    b = pool_model(2, 6, 7, (3, 3), (2, 2), "AVERAGE", padding="same", asym="TOP_LEFT_HEAVY")
    close(run1(b, {"x": x[None]})[0], naive_pool(x, (3, 3), (2, 2), (1, 0, 1, 1), (3, 4), "AVERAGE", False), what="same TLH")
    b = pool_model(2, 6, 7, (3, 3), (2, 2), "MAX", padding="same")
    close(run1(b, {"x": -np.abs(x)[None]})[0], naive_pool(-np.abs(x), (3, 3), (2, 2), (0, 1, 1, 1), (3, 4), "MAX", False),
          what="same max of negatives ignores padding")
    b = pool_model(2, 6, 7, (2, 2), (1, 1), "AVERAGE", pads=(1, 0, 2, 1))
    close(run1(b, {"x": x[None]})[0], naive_pool(x, (2, 2), (1, 1), (1, 0, 2, 1), (6, 9), "AVERAGE", False), what="valid padded avg")
    for kind, ref in (("MAX", x.max(axis=(1, 2))), ("AVERAGE", x.mean(axis=(1, 2)))):
        b = pool_model(2, 6, 7, (3, 3), (1, 1), kind, glob=True)
        close(run1(b, {"x": x[None]})[0], ref.reshape(2, 1, 1), what="global " + kind)


@test
def pooling_include_last_pixel():
    x = rand(1, 5, 5)
    # k 2, s 2, pad 1: H_out = ceil((5 + 2 - 2) / 2) + 1 = 4; (4-1)*2 = 6 >= 5 + 1 -> 3
    b = pool_model(1, 5, 5, (2, 2), (2, 2), "AVERAGE", last_pixel=(1, 1))
    y = run1(b, {"x": x[None]})[0]
    equal(list(y.shape), [1, 3, 3], "includeLastPixel shape")
    close(y, naive_pool(x, (2, 2), (2, 2), (1, 1, 1, 1), (3, 3), "AVERAGE", False), what="includeLastPixel avg")
    # k 3, s 2, no padding: H_out = ceil((6 - 3) / 2) + 1 = 3: the last window hangs over
    x = rand(1, 6, 6)
    b = pool_model(1, 6, 6, (3, 3), (2, 2), "MAX", last_pixel=(0, 0))
    y = run1(b, {"x": x[None]})[0]
    equal(list(y.shape), [1, 3, 3], "includeLastPixel overhang shape")
    close(y, naive_pool(x, (3, 3), (2, 2), (0, 0, 0, 0), (3, 3), "MAX", False), what="includeLastPixel max")


# --- activations and element-wise ------------------------------------------------------------

@test
def activations():
    x = rand(3, 4, 5) * 3
    alpha3 = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    beta3 = np.array([1.0, 2.0, 0.5], dtype=np.float32)
    cases = [
        ("LINEAR", [2.0, 0.5], 2 * x + 0.5),
        ("RELU", None, np.maximum(x, 0)),
        ("LEAKYRELU", [0.1], np.where(x >= 0, x, 0.1 * x)),
        ("THRESHOLDEDRELU", 0.7, np.where(x >= 0.7, x, 0)),
        ("PRELU", alpha3, np.where(x >= 0, x, alpha3.reshape(3, 1, 1) * x)),
        ("TANH", None, np.tanh(x)),
        ("SCALED_TANH", [1.7, 0.6], 1.7 * np.tanh(0.6 * x)),
        ("SIGMOID", None, 1 / (1 + np.exp(-x))),
        ("SIGMOID_HARD", [0.2, 0.5], np.clip(0.2 * x + 0.5, 0, 1)),
        ("ELU", 0.9, np.where(x >= 0, x, 0.9 * (np.exp(x) - 1))),
        ("SOFTSIGN", None, x / (1 + np.abs(x))),
        ("SOFTPLUS", None, np.log1p(np.exp(x))),
        ("PARAMETRICSOFTPLUS", [alpha3, beta3],
         alpha3.reshape(3, 1, 1) * np.log1p(np.exp(beta3.reshape(3, 1, 1) * x))),
    ]
    for mode, params, ref in cases:
        b = builder([("x", (3, 4, 5))], [("out", None)])
        b.add_activation("a", mode, "x", "out", params=params)
        close(run1(b, {"x": x}), ref, what=mode)
    b = builder([("x", (3, 4, 5))], [("out", None)])
    b.add_clip("c", "x", "out", min_value=-0.5, max_value=1.25)
    close(run1(b, {"x": x}), np.clip(x, -0.5, 1.25), what="clip")
    b = builder([("x", (3, 4, 5))], [("out", None)])
    b.add_clamped_relu("c", "x", "out", alpha=0.1, beta=2.0)
    close(run1(b, {"x": x}), np.where(x >= 0, np.minimum(2.0, x), np.minimum(2.0, 0.1 * x)), what="clampedReLU")


@test
def unary_functions():
    x = np.abs(rand(2, 3, 4)) + 0.1
    U = NN.UnaryFunctionLayerParams
    cases = [
        (U.SQRT, {}, lambda v: np.sqrt(v)),
        (U.RSQRT, {"epsilon": 1e-3}, lambda v: 1 / np.sqrt(v + 1e-3)),
        (U.INVERSE, {}, lambda v: 1 / (v + 1e-6)),                 # epsilon 0 -> 1e-6
        (U.POWER, {"alpha": 3.0}, lambda v: v ** 3),
        (U.EXP, {}, np.exp),
        (U.LOG, {}, np.log),
        (U.ABS, {}, np.abs),
        (U.THRESHOLD, {"alpha": 0.8}, lambda v: np.maximum(0.8, v)),
    ]
    for op, fields, fn in cases:
        for scale, shift in ((0.0, 0.0), (2.0, 0.5)):   # scale 0 means 1 ("not set or 0")
            b = builder([("x", (2, 3, 4))], [("out", None)])
            p = add_layer(b, "unary", ["x"], ["out"])
            p.type, p.scale, p.shift = op, scale, shift
            for k, v in fields.items():
                setattr(p, k, v)
            z = (scale or 1.0) * x + shift
            close(run1(b, {"x": x}), fn(z), what="unary %d scale %g" % (op, scale))
    for kind, fn in (("floor", np.floor), ("ceil", np.ceil), ("sign", np.sign), ("exp2", np.exp2)):
        b = builder([("x", (5,))], [("out", None)])
        add_layer(b, kind, ["x"], ["out"])
        v = np.array([-1.5, -0.2, 0.0, 0.7, 2.5], dtype=np.float32)
        close(run1(b, {"x": v}), fn(v), what=kind)
    b = builder([("x", (5,))], [("out", None)])
    add_layer(b, "round", ["x"], ["out"])
    close(run1(b, {"x": np.array([-1.5, -0.2, 0.5, 0.7, 2.5], np.float32)}), [-2, 0, 1, 1, 3], what="round")


@test
def legacy_elementwise():
    a, c = rand(3, 4, 5), rand(3, 1, 1)
    for mode, ref in (("ADD", a + c), ("MULTIPLY", a * c), ("MAX", np.maximum(a, c)), ("MIN", np.minimum(a, c)),
                      ("AVE", (a + c) / 2)):
        b = builder([("a", (3, 4, 5)), ("c", (3, 1, 1))], [("out", None)], nd=False)
        b.add_elementwise("e", ["a", "c"], "out", mode)
        close(run1(b, {"a": a, "c": c}), ref, what=mode)
    for mode, ref in (("ADD", a + 1.5), ("MULTIPLY", a * 1.5)):
        b = builder([("a", (3, 4, 5))], [("out", None)], nd=False)
        b.add_elementwise("e", ["a"], "out", mode, alpha=1.5)
        close(run1(b, {"a": a}), ref, what=mode + " alpha")
    b = builder([("a", (3, 4, 5)), ("c", (3, 4, 5)), ("d", (3, 4, 5))], [("out", None)], nd=False)
    b.add_elementwise("e", ["a", "c", "d"], "out", "ADD")
    close(run1(b, {"a": a, "c": a, "d": a}), 3 * a, what="add 3 inputs")


@test
def scale_bias_batchnorm():
    x = rand(3, 2, 4)
    s, bb = rand(3), rand(3)
    b = builder([("x", (3, 2, 4))], [("out", None)], nd=False)
    b.add_scale("s", s, bb, True, "x", "out", shape_scale=[3], shape_bias=[3])
    close(run1(b, {"x": x}), x * s.reshape(3, 1, 1) + bb.reshape(3, 1, 1), what="scale [C]")
    b = builder([("x", (3, 2, 4))], [("out", None)], nd=False)
    full = rand(1, 2, 4)
    b.add_bias("b", full, "x", "out", shape_bias=[1, 2, 4])
    close(run1(b, {"x": x}), x + full, what="bias [1,H,W]")
    g, be, m, v = rand(3), rand(3), rand(3), np.abs(rand(3)) + 0.5
    b = builder([("x", (3, 2, 4))], [("out", None)], nd=False)
    b.add_batchnorm("bn", 3, g, be, m, v, "x", "out", epsilon=1e-3)
    ref = g.reshape(3, 1, 1) * (x - m.reshape(3, 1, 1)) / np.sqrt(v.reshape(3, 1, 1) + 1e-3) + be.reshape(3, 1, 1)
    close(run1(b, {"x": x}), ref, what="batchnorm")
    b = builder([("x", (3, 2, 4))], [("out", None)], nd=False)
    b.add_batchnorm("bn", 3, g, be, None, None, "x", "out", compute_mean_var=True, instance_normalization=True)
    mu, var = x.mean(axis=(1, 2), keepdims=True), x.var(axis=(1, 2), keepdims=True)
    close(run1(b, {"x": x}), g.reshape(3, 1, 1) * (x - mu) / np.sqrt(var + 1e-5) + be.reshape(3, 1, 1), what="instance norm")


@test
def inner_product_and_softmax():
    Cin, Cout = 12, 5
    w, bias = rand(Cout, Cin), rand(Cout)
    # rank-5 mapping: [C, H, W] input -> blob [1,1,C,H,W] -> (1, C*H*W) -> [1,1,Cout,1,1]
    b = builder([("x", (3, 2, 2))], [("out", (Cout,))], nd=False)
    p = add_layer(b, "innerProduct", ["x"], ["ip"])
    p.inputChannels, p.outputChannels, p.hasBias = Cin, Cout, True
    set_weights(p.weights, w)        # Weight matrix [C_out, C_in], row-major
    set_weights(p.bias, bias)
    add_layer(b, "softmax", ["ip"], ["out"])
    x = rand(3, 2, 2)
    z = w @ x.ravel() + bias
    y = run1(b, {"x": x})
    equal(list(y.shape), [Cout], "declared output shape")
    close(y, np.exp(z) / np.exp(z).sum(), what="innerProduct + softmax")
    # ND rank 2 and rank 3
    for shape in ((4, Cin), (2, 3, Cin)):
        b = builder([("x", shape)], [("out", None)])
        p = add_layer(b, "innerProduct", ["x"], ["out"])
        p.inputChannels, p.outputChannels = Cin, Cout
        set_weights(p.weights, w)
        x = rand(*shape)
        close(run1(b, {"x": x}), x @ w.T, what="innerProduct rank %d" % len(shape))
    x = rand(2, 3, 4)
    for axis in (0, -1, 1):
        b = builder([("x", (2, 3, 4))], [("out", None)])
        b.add_softmax_nd("s", "x", "out", axis)
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        close(run1(b, {"x": x}), e / e.sum(axis=axis, keepdims=True), what="softmaxND %d" % axis)


# --- data reorganisation ---------------------------------------------------------------------

@test
def concat_crop_flatten_reshape_permute_slice():
    a, c = rand(2, 3, 4), rand(3, 3, 4)
    b = builder([("a", (2, 3, 4)), ("c", (3, 3, 4))], [("out", None)], nd=False)
    add_layer(b, "concat", ["a", "c"], ["out"])
    close(run1(b, {"a": a, "c": c}), np.concatenate([a, c], 0), what="concat channels")
    b = builder([("a", (2, 3, 4)), ("c", (2, 3, 4))], [("out", None)], nd=False)
    add_layer(b, "concat", ["a", "c"], ["out"]).sequenceConcat = True
    y = run(b, {"a": a, "c": a})["out"]
    close(y, np.stack([a, a]).reshape(2, 1, 2, 3, 4), what="sequence concat")   # rank 5, Seq = 2
    x = rand(2, 6, 7)
    b = builder([("x", (2, 6, 7))], [("out", None)], nd=False)
    b.add_crop("c", left=1, right=2, top=3, bottom=1, offset=[0, 0], input_names=["x"], output_name="out")
    close(run1(b, {"x": x}), x[:, 3:5, 1:5], what="crop border")
    b = builder([("x", (2, 6, 7)), ("r", (2, 2, 3))], [("out", None)], nd=False)
    b.add_crop("c", left=0, right=0, top=0, bottom=0, offset=[1, 3], input_names=["x", "r"], output_name="out")
    close(run1(b, {"x": x, "r": rand(2, 2, 3)}), x[:, 1:3, 3:6], what="crop offset")
    for mode, ref in ((0, x.ravel()), (1, x.transpose(1, 2, 0).ravel())):
        b = builder([("x", (2, 6, 7))], [("out", None)], nd=False)
        b.add_flatten("f", mode, "x", "out")
        close(run1(b, {"x": x}), ref.reshape(-1, 1, 1), what="flatten mode %d" % mode)
    x = rand(4, 2, 3)
    b = builder([("x", (4, 2, 3))], [("out", None)], nd=False)
    b.add_reshape("r", "x", "out", (6, 2, 2), 0)
    close(run1(b, {"x": x}), x.reshape(6, 2, 2), what="reshape CHANNEL_FIRST")
    b = builder([("x", (4, 2, 3))], [("out", None)], nd=False)
    b.add_reshape("r", "x", "out", (6, 2, 2), 1)
    # flatten H, W, C order, reshape to [H_out, W_out, C_out], permute to [C_out, H_out, W_out]
    close(run1(b, {"x": x}), x.transpose(1, 2, 0).reshape(2, 2, 6).transpose(2, 0, 1), what="reshape CHANNEL_LAST")
    # permute axis [0, 3, 1, 2] (over [Seq, C, H, W]) -> [Seq, B, W, C, H]
    b = builder([("x", (4, 2, 3))], [("out", None)], nd=False)
    b.add_permute("p", (0, 3, 1, 2), "x", "out")
    close(run1(b, {"x": x}), x.transpose(2, 0, 1), what="permute")
    x = rand(5, 6, 7)
    for axis, idx in (("channel", (slice(1, 4, 2),)), ("height", (slice(None), slice(0, -1, 1))),
                      ("width", (slice(None), slice(None), slice(2, 7, 3)))):
        s = idx[-1]
        b = builder([("x", (5, 6, 7))], [("out", None)], nd=False)
        b.add_slice("s", "x", "out", axis, start_index=s.start, end_index=s.stop, stride=s.step)
        close(run1(b, {"x": x}), x[idx], what="slice " + axis)


@test
def legacy_reshape_permute_more():
    x = rand(4, 2, 3)
    # targetShape of length 4: [Seq_out, 1, C_out, H_out, W_out]
    b = builder([("x", (4, 2, 3))], [("out", None)], nd=False)
    b.add_reshape("r", "x", "out", (2, 3, 2, 2), 0)
    close(run1(b, {"x": x}), x.reshape(2, 1, 3, 2, 2), what="reshape rank 4 target (Seq 2)")
    # permute axis [3, 1, 2, 0]: [Seq, B, C, H, W] -> [W, B, C, H, Seq]
    b = builder([("x", (4, 2, 3))], [("out", None)], nd=False)
    b.add_permute("p", (3, 1, 2, 0), "x", "out")
    # out[w, 0, c, h, 0] = x[c, h, w]; Seq = W = 3 != 1 so the rank-5 blob is reported
    close(run1(b, {"x": x}), x.transpose(2, 0, 1).reshape(3, 1, 4, 2, 1), what="permute to [W, B, C, H, Seq]")


@test
def legacy_reduce():
    x = np.abs(rand(3, 4, 5)) + 0.1
    cases = [("sum", "CHW", x.sum(axis=(0, 1, 2), keepdims=True)), ("avg", "HW", x.mean(axis=(1, 2), keepdims=True)),
             ("max", "C", x.max(axis=0, keepdims=True)), ("min", "H", x.min(axis=1, keepdims=True)),
             ("prod", "W", x.prod(axis=2, keepdims=True)), ("L1", "W", np.abs(x).sum(axis=2, keepdims=True)),
             ("L2", "HW", np.sqrt((x * x).sum(axis=(1, 2), keepdims=True))),
             ("sumsquare", "C", (x * x).sum(axis=0, keepdims=True)),
             ("logsum", "C", np.log(x + 1e-6).sum(axis=0, keepdims=True)),
             ("argmax", "C", np.argmax(x, axis=0)[None].astype(np.float32))]
    for mode, axis, ref in cases:
        b = builder([("x", (3, 4, 5))], [("out", None)], nd=False)
        b.add_reduce("r", "x", "out", axis, mode)
        close(run1(b, {"x": x}), ref, what="reduce %s %s" % (mode, axis))


@test
def nd_reshapes():
    x = rand(2, 3, 4)
    b = builder([("x", (2, 3, 4))], [("out", None)])
    b.add_transpose("t", (2, 0, 1), "x", "out")
    close(run1(b, {"x": x}), x.transpose(2, 0, 1), what="transpose")
    b = builder([("x", (2, 3, 4))], [("out", None)])
    b.add_reshape_static("r", "x", "out", (4, -1))
    close(run1(b, {"x": x}), x.reshape(4, 6), what="reshapeStatic")
    for axis, shape in ((-1, (6, 4)), (0, (1, 24)), (1, (2, 12)), (3, (24, 1))):
        b = builder([("x", (2, 3, 4))], [("out", None)])
        b.add_flatten_to_2d("f", "x", "out", axis=axis)
        close(run1(b, {"x": x}), x.reshape(shape), what="flattenTo2D %d" % axis)
    b = builder([("x", (2, 3, 4))], [("out", None)])
    b.add_expand_dims("e", "x", "out", axes=[0, -1])
    equal(list(run1(b, {"x": x}).shape), [1, 2, 3, 4, 1], "expandDims")
    b = builder([("x", (1, 3, 1))], [("out", None)])
    b.add_squeeze("s", "x", "out", axes=[0])
    equal(list(run1(b, {"x": rand(1, 3, 1)}).shape), [3, 1], "squeeze axes")
    b = builder([("x", (1, 3, 1))], [("out", None)])
    b.add_squeeze("s", "x", "out", squeeze_all=True)
    equal(list(run1(b, {"x": rand(1, 3, 1)}).shape), [3], "squeezeAll")
    b = builder([("x", (2, 3, 4))], [("out", None)])
    b.add_tile("t", "x", "out", reps=[2, 1])
    close(run1(b, {"x": x}), np.tile(x, (1, 2, 1)), what="tile")
    idx = np.array([[2, 0], [-1, 1]], dtype=np.float32)
    b = builder([("x", (2, 3, 4)), ("i", (2, 2))], [("out", None)])
    b.add_gather("g", ["x", "i"], "out", axis=1)
    close(run1(b, {"x": x, "i": idx}), np.take(x, idx.astype(int), axis=1), what="gather")
    a, c = rand(2, 3), rand(2, 3)
    b = builder([("a", (2, 3)), ("c", (2, 3))], [("out", None)])
    b.add_concat_nd("c", ["a", "c"], "out", axis=-1)
    close(run1(b, {"a": a, "c": c}), np.concatenate([a, c], -1), what="concatND")
    b = builder([("a", (2, 3)), ("c", (2, 3))], [("out", None)])
    b.add_concat_nd("c", ["a", "c"], "out", axis=0, interleave=True)
    close(run1(b, {"a": a, "c": c}), np.stack([a[0], c[0], a[1], c[1]]), what="concatND interleave")
    b = builder([("x", (2, 3, 4))], [("o1", None), ("o2", None)])
    b.add_split_nd("s", "x", ["o1", "o2"], axis=2, split_sizes=[1, 3])
    out = run(b, {"x": x})
    close(out["o2"], x[:, :, 1:], what="splitND")


@test
def slice_static():
    x = rand(5, 5, 5)
    # the documented example: input[:3:2, 2::2, ::2] -> shape (2, 2, 3)
    b = builder([("x", (5, 5, 5))], [("out", None)])
    b.add_slice_static("s", "x", "out", begin_ids=[1, 2, 3], end_ids=[3, -3, 2], strides=[2, 2, 2],
                       begin_masks=[True, False, True], end_masks=[False, True, True])
    y = run1(b, {"x": x})
    equal(list(y.shape), [2, 2, 3], "sliceStatic doc example shape")
    close(y, x[:3:2, 2::2, ::2], what="sliceStatic")
    b = builder([("x", (5, 5, 5))], [("out", None)])
    b.add_slice_static("s", "x", "out", begin_ids=[1, 2, 3], end_ids=[3, -3, 2], strides=[2, 2, 2],
                       begin_masks=[True, False, True], end_masks=[False, True, True],
                       squeeze_masks=[False, True, False])
    close(run1(b, {"x": x}), x[:3:2, 2, ::2], what="sliceStatic squeeze")
    b = builder([("x", (5, 5, 5))], [("out", None)])
    b.add_slice_static("s", "x", "out", begin_ids=[-1, 0, 4], end_ids=[0, 5, 0], strides=[-1, 1, -2],
                       begin_masks=[False, False, False], end_masks=[True, False, False])
    close(run1(b, {"x": x}), x[::-1, 0:5, 4:0:-2], what="sliceStatic negative strides")


@test
def padding_layer():
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 3, 4)
    # the documented example: top = 2, left = 2
    expected = {
        "constant": [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 2, 3, 4], [0, 0, 5, 6, 7, 8], [0, 0, 9, 10, 11, 12]],
        "reflection": [[11, 10, 9, 10, 11, 12], [7, 6, 5, 6, 7, 8], [3, 2, 1, 2, 3, 4], [7, 6, 5, 6, 7, 8], [11, 10, 9, 10, 11, 12]],
        "replication": [[1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4], [1, 1, 1, 2, 3, 4], [5, 5, 5, 6, 7, 8], [9, 9, 9, 10, 11, 12]],
    }
    for kind, ref in expected.items():
        b = builder([("x", (1, 3, 4))], [("out", None)], nd=False)
        b.add_padding("p", left=2, top=2, input_name="x", output_name="out", padding_type=kind)
        close(run1(b, {"x": x}), np.array(ref, np.float32)[None], what="padding " + kind)
    b = builder([("x", (2, 3))], [("out", None)])
    b.add_constant_pad("p", ["x"], "out", value=-1.0, pad_amounts=[0, 1, 2, 0])
    close(run1(b, {"x": x[0, :2, :3]}), np.pad(x[0, :2, :3], ((0, 1), (2, 0)), constant_values=-1), what="constantPad")


# --- ND arithmetic ---------------------------------------------------------------------------

@test
def broadcastable_and_constants():
    a = rand(2, 3, 4)
    const = np.abs(rand(3, 1)) + 0.5
    ops = {"addBroadcastable": np.add, "subtractBroadcastable": np.subtract, "multiplyBroadcastable": np.multiply,
           "divideBroadcastable": np.divide, "maxBroadcastable": np.maximum, "minBroadcastable": np.minimum}
    for kind, fn in ops.items():
        b = builder([("a", (2, 3, 4))], [("out", None)])
        b.add_load_constant_nd("k", "k", const, (3, 1))
        add_layer(b, kind, ["a", "k"], ["out"])
        close(run1(b, {"a": a}), fn(a, const), what=kind)
    b = builder([("a", (2, 3, 4))], [("out", None)])
    b.add_load_constant_nd("k", "k", const, (3, 1))
    add_layer(b, "powBroadcastable", ["k", "a"], ["out"])
    close(run1(b, {"a": a}), np.power(const, a), what="pow")
    # legacy loadConstant is rank 5 [1, 1, C, H, W]
    b = builder([("a", (2, 1, 1))], [("out", None)], nd=False)
    b.add_load_constant("k", "k", const.ravel()[:2].reshape(2, 1, 1), (2, 1, 1))
    b.add_elementwise("e", ["a", "k"], "out", "ADD")
    close(run1(b, {"a": a[:, :1, :1]}), a[:, :1, :1] + const.ravel()[:2].reshape(2, 1, 1), what="loadConstant")


@test
def comparisons_logical_where():
    a, c = rand(3, 4), rand(1, 4)
    for kind, fn in (("greaterThan", np.greater), ("greaterEqual", np.greater_equal), ("lessThan", np.less),
                     ("lessEqual", np.less_equal), ("equal", np.equal), ("notEqual", np.not_equal)):
        b = builder([("a", (3, 4)), ("c", (1, 4))], [("out", None)])
        add_layer(b, kind, ["a", "c"], ["out"])
        close(run1(b, {"a": a, "c": c}), fn(a, c).astype(np.float32), what=kind)
        b = builder([("a", (3, 4))], [("out", None)])
        add_layer(b, kind, ["a"], ["out"]).alpha = 0.25
        close(run1(b, {"a": a}), fn(a, np.float32(0.25)).astype(np.float32), what=kind + " alpha")
    ga, gc = (a > 0).astype(np.float32), (c > 0).astype(np.float32)
    for mode, fn in (("AND", np.logical_and), ("OR", np.logical_or), ("XOR", np.logical_xor)):
        b = builder([("a", (3, 4)), ("c", (1, 4))], [("out", None)])
        b.add_logical("l", ["a", "c"], "out", mode)
        close(run1(b, {"a": ga, "c": gc}), fn(ga, gc).astype(np.float32), what="logical " + mode)
    b = builder([("a", (3, 4))], [("out", None)])
    b.add_logical("l", ["a"], "out", "NOT")
    close(run1(b, {"a": ga}), 1 - ga, what="logical NOT")
    b = builder([("m", (3, 4)), ("a", (3, 4)), ("c", (1, 4))], [("out", None)])
    b.add_where_broadcastable("w", ["m", "a", "c"], "out")
    close(run1(b, {"m": ga, "a": a, "c": c}), np.where(ga != 0, a, c), what="where")


@test
def batched_matmul():
    X1, X2 = 4, 3
    w, bias = rand(X1, X2), rand(X2)
    b = builder([("a", (2, 5, X1))], [("out", None)])
    p = add_layer(b, "batchedMatmul", ["a"], ["out"])
    p.weightMatrixFirstDimension, p.weightMatrixSecondDimension, p.hasBias = X1, X2, True
    set_weights(p.weights, w.T)          # [X1, X2] stored column-major == w.T row-major
    set_weights(p.bias, bias)
    a = rand(2, 5, X1)
    close(run1(b, {"a": a}), a @ w + bias, what="batchedMatMul weights")
    # the builder takes W as [X1, X2] and must store it the same way
    b = builder([("a", (2, 5, X1))], [("out", None)])
    b.add_batched_mat_mul("m", ["a"], "out", weight_matrix_rows=X1, weight_matrix_columns=X2, W=w, bias=bias)
    close(run1(b, {"a": a}), a @ w + bias, what="batchedMatMul builder weights")
    a, c = rand(2, 3, 4), rand(5, 4)
    b = builder([("a", (2, 3, 4)), ("c", (5, 4))], [("out", None)])
    b.add_batched_mat_mul("m", ["a", "c"], "out", transpose_b=True)
    close(run1(b, {"a": a, "c": c}), a @ c.T, what="batchedMatMul transposeB")
    b = builder([("a", (4, 3)), ("c", (4,))], [("out", None)])
    b.add_batched_mat_mul("m", ["a", "c"], "out", transpose_a=True)
    a, c = rand(4, 3), rand(4)
    close(run1(b, {"a": a, "c": c}), (a.T @ c).reshape(3, 1), what="batchedMatMul 1-D b -> (D, 1)")


@test
def nd_reductions():
    x = np.abs(rand(2, 3, 4)) + 0.1
    fns = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod,
           "l2": lambda v, axis, keepdims: np.sqrt(np.sum(v * v, axis=axis, keepdims=keepdims)),
           "logsumexp": lambda v, axis, keepdims: np.log(np.sum(np.exp(v), axis=axis, keepdims=keepdims))}
    for name, fn in fns.items():
        for axes, keep, all_ in (([1], True, False), ([0, -1], False, False), (None, True, True), (None, False, True)):
            b = builder([("x", (2, 3, 4))], [("out", None)])
            getattr(b, "add_reduce_" + name)("r", "x", "out", axes=axes, keepdims=keep, reduce_all=all_)
            ax = tuple(range(3)) if all_ else tuple(a % 3 for a in axes)
            ref = np.asarray(fn(x.astype(np.float64), axis=ax, keepdims=keep))
            if ref.ndim == 0:
                ref = ref.reshape(1)
            close(run1(b, {"x": x}), ref, what="reduce %s %s keep=%s all=%s" % (name, axes, keep, all_))


@test
def upsample_and_resize():
    x = rand(2, 3, 4)
    b = builder([("x", (2, 3, 4))], [("out", None)], nd=False)
    b.add_upsample("u", 2, 3, "x", "out", mode="NN")
    close(run1(b, {"x": x}), np.repeat(np.repeat(x, 2, axis=1), 3, axis=2), what="upsample NN")
    H, W, fh, fw = 3, 4, 2, 2
    grids = {
        "ALIGN_CORNERS_TRUE": lambda n, m: np.arange(m) * (n - 1) / (m - 1),
        "ALIGN_CORNERS_FALSE": lambda n, m: np.clip(np.arange(m) * n / m + 0.5 * n / m - 0.5, 0, n - 1),
        "DEFAULT": lambda n, m: np.minimum(n - 1, np.arange(m) * (n - n / m) / (m - 1)),
    }
    for mode, g in grids.items():
        b = builder([("x", (2, 3, 4))], [("out", None)], nd=False)
        b.add_upsample("u", fh, fw, "x", "out", mode="BILINEAR", linear_upsample_mode=mode)
        close(run1(b, {"x": x}), bilinear_ref(x, g(H, H * fh), g(W, W * fw)), what="upsample " + mode)
    for mode, g in (("STRICT_ALIGN_ENDPOINTS_MODE", lambda n, m: np.linspace(0, n - 1, m)),
                    ("UPSAMPLE_MODE", lambda n, m: np.minimum(n - 1, np.linspace(0, n - n / m, m)))):
        b = builder([("x", (2, 3, 4))], [("out", None)], nd=False)
        b.add_resize_bilinear("r", "x", "out", target_height=5, target_width=7, mode=mode)
        close(run1(b, {"x": x}), bilinear_ref(x, g(3, 5), g(4, 7)), what="resizeBilinear " + mode)


def one_layer(kind, x, shape=None, nd=True, extra_inputs=(), outputs=("out",)):
    """A model with input "x" (and extra named inputs) and one raw layer; returns (builder,
    params)."""
    inputs = [("x", shape or x.shape)] + [(n, v.shape) for n, v in extra_inputs]
    b = builder(inputs, [(o, None) for o in outputs], nd=nd)
    p = add_layer(b, kind, ["x"] + [n for n, _ in extra_inputs], list(outputs))
    return b, p


def feeds_of(x, extra_inputs=()):
    return dict([("x", x)] + list(extra_inputs))


@test
def documented_examples():
    # ReorganizeDataLayerParams: the [C=8, H=1, W=2] example
    x = np.arange(1, 17, dtype=np.float32).reshape(8, 1, 2)
    R = NN.ReorganizeDataLayerParams
    for mode, ref in ((R.DEPTH_TO_SPACE, [[[1, 5, 2, 6], [9, 13, 10, 14]], [[3, 7, 4, 8], [11, 15, 12, 16]]]),
                      (R.PIXEL_SHUFFLE, [[[1, 3, 2, 4], [5, 7, 6, 8]], [[9, 11, 10, 12], [13, 15, 14, 16]]])):
        b, p = one_layer("reorganizeData", x, nd=False)
        p.mode, p.blockSize = mode, 2
        close(run1(b, {"x": x}), ref, what="reorganizeData %d" % mode)
    b, p = one_layer("reorganizeData", np.zeros((2, 2, 4), np.float32), nd=False)
    p.mode, p.blockSize = R.SPACE_TO_DEPTH, 2
    close(run1(b, {"x": np.array([[[1, 5, 2, 6], [9, 13, 10, 14]], [[3, 7, 4, 8], [11, 15, 12, 16]]], np.float32)}),
          x, what="SPACE_TO_DEPTH inverts DEPTH_TO_SPACE")
    # CumSumLayerParams: [4, 6, 7]
    v = np.array([4, 6, 7], np.float32)
    for exclude, reverse, ref in ((False, False, [4, 10, 17]), (True, False, [0, 4, 10]),
                                  (False, True, [17, 13, 7]), (True, True, [13, 7, 0])):
        b, p = one_layer("cumSum", v)
        p.excludeFinalSum, p.reverse = exclude, reverse
        close(run1(b, {"x": v}), ref, what="cumSum %s %s" % (exclude, reverse))
    # OneHotLayerParams: [2, 0] and [2, -1], size 4, on 5, off -1
    for idx, ref in (([2, 0], [[-1, -1, 5, -1], [5, -1, -1, -1]]), ([2, -1], [[-1, -1, 5, -1], [-1, -1, -1, -1]])):
        b, p = one_layer("oneHot", np.zeros(2, np.float32))
        p.oneHotVectorSize, p.axis, p.onValue, p.offValue = 4, -1, 5, -1
        close(run1(b, {"x": np.array(idx, np.float32)}), ref, what="oneHot %s" % idx)
    # WhereNonZeroLayerParams: the 3 x 3 example
    m = np.array([[1, 2, 1], [0, 2, 2], [2, 1, 0]], np.float32)
    b, p = one_layer("whereNonZero", m)
    close(run1(b, {"x": m}), [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2], [2, 0], [2, 1]], what="whereNonZero")
    # RankPreservingReshapeLayerParams examples
    for shape, target, out in (((20, 10), (5, -1), [5, 40]), ((20, 10, 5), (0, 2, 25), [20, 2, 25]),
                               ((10, 3, 5), (25, 0, -1), [25, 3, 2])):
        b, p = one_layer("rankPreservingReshape", np.zeros(shape, np.float32))
        p.targetShape.extend(target)
        equal(list(run1(b, {"x": rand(*shape)}).shape), out, "rankPreservingReshape %s" % (target,))
    # ConstantPaddingLayerParams examples (both modes)
    for shape, amounts, to_size, out in (((20, 10), [0, 1, 4, 0], False, [21, 14]),
                                         ((20, 10, 5), [0, 0, 3, 4, 0, 9], False, [20, 17, 14]),
                                         ((20, 10), [0, 21, 14, 0], True, [21, 14]),
                                         ((20, 10, 5), [0, 0, 17, 0, 0, 14], True, [20, 17, 14])):
        b, p = one_layer("constantPad", np.zeros(shape, np.float32))
        p.padAmounts.extend(amounts)
        p.padToGivenOutputSizeMode = to_size
        equal(list(run1(b, {"x": rand(*shape)}).shape), out, "constantPad %s" % amounts)
    # ArgSortLayerParams examples
    for vals, axis, desc, ref in (([3.1, 5.4, 32.9, 3.2, 77.0], 0, False, [0, 3, 1, 2, 4]),
                                  ([3.1, 5.4, 32.9, 3.2, 77.0], 0, True, [4, 2, 1, 3, 0]),
                                  ([[3, 5, 32], [3, 77, 6]], 1, False, [[0, 1, 2], [0, 2, 1]]),
                                  ([[3, 5, 32], [3, 77, 6]], 1, True, [[2, 1, 0], [1, 2, 0]])):
        vals = np.array(vals, np.float32)
        b, p = one_layer("argSort", vals)
        p.axis, p.descending = axis, desc
        close(run1(b, {"x": vals}), ref, what="argSort")
    # FlattenTo2D, ExpandDims, Squeeze, ArgMax shapes from their examples
    for shape, axes, out in (((10, 5), (0, 1), [1, 1, 10, 5]), ((10, 5), (0, 2), [1, 10, 1, 5]),
                             ((10, 5), (-2, -1), [10, 5, 1, 1])):
        b, p = one_layer("expandDims", np.zeros(shape, np.float32))
        p.axes.extend(axes)
        equal(list(run1(b, {"x": rand(*shape)}).shape), out, "expandDims %s" % (axes,))
    for shape, axes, out in (((1, 1, 10, 5), (0, 1), [10, 5]), ((1, 10, 5, 1), (0, 3), [10, 5]),
                             ((10, 5, 1, 1), (-2, -1), [10, 5]), ((1,), (0,), [1])):
        b, p = one_layer("squeeze", np.zeros(shape, np.float32))
        p.axes.extend(axes)
        equal(list(run1(b, {"x": rand(*shape)}).shape), out, "squeeze %s" % (axes,))
    x = rand(4, 3, 2, 5)
    for remove, out in ((False, [4, 1, 2, 5]), (True, [4, 2, 5])):
        b, p = one_layer("argMax", x)
        p.axis, p.removeDim = -3, remove
        y = run1(b, {"x": x})
        equal(list(y.shape), out, "argMax shape")
        close(y.reshape(4, 2, 5), np.argmax(x, axis=1), what="argMax")
    # Tile examples
    x = rand(2, 4, 2)
    for reps, out in (((1, 2, 6), [2, 8, 12]), ((6,), [2, 4, 12])):
        b, p = one_layer("tile", x)
        p.reps.extend(reps)
        equal(list(run1(b, {"x": x}).shape), out, "tile %s" % (reps,))
    # Gather shape examples
    for dshape, ishape, axis, out in (((2, 3), (6, 8), 0, [6, 8, 3]), ((2, 3, 5), (6, 8), 1, [2, 6, 8, 5])):
        idx = RNG.integers(0, dshape[axis], size=ishape).astype(np.float32)
        b, p = one_layer("gather", np.zeros(dshape, np.float32), extra_inputs=[("i", idx)])
        p.axis = axis
        data = rand(*dshape)
        y = run1(b, {"x": data, "i": idx})
        equal(list(y.shape), out, "gather shape")
        close(y, np.take(data, idx.astype(int), axis=axis), what="gather values")


@test
def normalisation_and_misc_layers():
    x = rand(2, 3, 4, 5)
    b, p = one_layer("l2normalize", x)
    close(run1(b, {"x": x}), x / np.sqrt((x * x).sum(axis=(1, 2, 3), keepdims=True) + 1e-6), what="l2normalize")
    b, p = one_layer("mvn", x)
    p.acrossChannels, p.normalizeVariance = False, True
    mu, var = x.mean(axis=(2, 3), keepdims=True), x.var(axis=(2, 3), keepdims=True)
    close(run1(b, {"x": x}), (x - mu) / np.sqrt(var + 1e-6), what="mvn")
    b, p = one_layer("lrn", x)
    p.alpha, p.beta, p.localSize, p.k = 0.1, 0.75, 3, 2.0
    sq = x * x
    acc = np.stack([sq[:, max(0, c - 1):c + 2].sum(axis=1) for c in range(3)], axis=1)
    close(run1(b, {"x": x}), x / (2.0 + 0.1 / 3 * acc) ** 0.75, what="lrn")
    b, p = one_layer("layerNormalization", x)
    p.normalizedShape.extend([4, 5])
    p.eps = 1e-5
    g, be = rand(4, 5), rand(4, 5)
    set_weights(p.gamma, g)
    set_weights(p.beta, be)
    mu, var = x.mean(axis=(2, 3), keepdims=True), x.var(axis=(2, 3), keepdims=True)
    close(run1(b, {"x": x}), g * (x - mu) / np.sqrt(var + 1e-5) + be, what="layerNormalization")
    b, p = one_layer("split", x, outputs=("a", "c", "d"))
    p.nOutputs = 3
    out = run(b, {"x": x})
    close(out["c"], x[:, 1:2], what="split")
    b, p = one_layer("topK", x, outputs=("v", "i"))
    p.axis, p.K = -1, 2
    out = run(b, {"x": x})
    close(out["v"], -np.sort(-x, axis=-1)[..., :2], what="topK values")
    close(out["i"], np.argsort(-x, axis=-1)[..., :2], what="topK indices")
    b, p = one_layer("gelu", x)
    p.mode = NN.GeluLayerParams.TANH_APPROXIMATION
    close(run1(b, {"x": x}), 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), what="gelu")
    a, c = rand(3, 4, 1, 1), rand(3, 4, 1, 1)
    b, p = one_layer("dot", a, extra_inputs=[("c", c)])
    close(run1(b, {"x": a, "c": c}), (a * c).sum(axis=1, keepdims=True), what="dot")
    # embedding ND: weights [embeddingSize, vocabSize]
    w, idx = rand(3, 5), np.array([[4], [0], [2]], np.float32)
    b, p = one_layer("embeddingND", idx)
    p.vocabSize, p.embeddingSize = 5, 3
    set_weights(p.weights, w)
    close(run1(b, {"x": idx}), w[:, [4, 0, 2]].T, what="embeddingND")
    # NMS layer: batch of one, the NMS model's boxes, maxBoxes 4 (padded with 0 / -1)
    coords, scores = NMS_COORDS[None].astype(np.float32), NMS_CONF[None].astype(np.float32)
    b, p = one_layer("NonMaximumSuppression", coords, extra_inputs=[("s", scores)], outputs=("bx", "sc", "ix", "n"))
    p.iouThreshold, p.scoreThreshold, p.maxBoxes = 0.5, 0.3, 4
    out = run(b, {"x": coords, "s": scores})
    close(out["ix"], [[0, 2, 3, -1]], what="nms layer indices")
    close(out["n"], [3], what="nms layer count")
    close(out["bx"][0, :3], NMS_COORDS[[0, 2, 3]], what="nms layer boxes")
    close(out["bx"][0, 3], np.zeros(4), what="nms layer padding")


@test
def remaining_nd_layers():
    # ReverseSeqLayerParams: both documented examples
    data = np.arange(8, dtype=np.float32).reshape(2, 4)
    lengths = np.array([3, 0], np.float32)
    b, p = one_layer("reverseSeq", data, extra_inputs=[("l", lengths)])
    p.batchAxis, p.sequenceAxis = 0, 1
    close(run1(b, {"x": data, "l": lengths}), [[2, 1, 0, 3], [4, 5, 6, 7]], what="reverseSeq 1")
    data = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    lengths = np.array([2, 3], np.float32)
    b, p = one_layer("reverseSeq", data, extra_inputs=[("l", lengths)])
    p.batchAxis, p.sequenceAxis = 0, 1
    close(run1(b, {"x": data, "l": lengths}), [[[2, 3], [0, 1], [4, 5]], [[10, 11], [8, 9], [6, 7]]], what="reverseSeq 2")
    # SlidingWindows: axis 0 on (L,) -> (M, W), M = (L - W) / step + 1
    v = np.arange(7, dtype=np.float32)
    b, p = one_layer("slidingWindows", v)
    p.axis, p.windowSize, p.step = 0, 3, 2
    close(run1(b, {"x": v}), [[0, 1, 2], [2, 3, 4], [4, 5, 6]], what="slidingWindows")
    x = rand(2, 3, 4)
    b, p = one_layer("reverse", x)
    p.reverseDim.extend([True, False, True])
    close(run1(b, {"x": x}), x[::-1, :, ::-1], what="reverse")
    b = builder([("x", (2, 3, 4)), ("c", (2, 3, 4))], [("out", None)])
    add_layer(b, "stack", ["x", "c"], ["out"]).axis = -1
    close(run1(b, {"x": x, "c": 2 * x}), np.stack([x, 2 * x], -1), what="stack")
    b, p = one_layer("getShape", x)
    close(run1(b, {"x": x}), [2, 3, 4], what="getShape")
    b, p = one_layer("fillLike", x)
    p.value = 7
    close(run1(b, {"x": x}), np.full((2, 3, 4), 7), what="fillLike")
    b, p = one_layer("broadcastToStatic", rand(3, 1))
    p.targetShape.extend([2, 3, 4])
    c = rand(3, 1)
    close(run1(b, {"x": c}), np.broadcast_to(c, (2, 3, 4)), what="broadcastToStatic")
    b, p = one_layer("reshapeLike", x, extra_inputs=[("r", np.zeros((4, 6), np.float32))])
    close(run1(b, {"x": x, "r": np.zeros((4, 6), np.float32)}), x.reshape(4, 6), what="reshapeLike")
    b = builder([("x", (1,))], [("out", None)])
    p = add_layer(b, "rangeStatic", [], ["out"])
    p.startValue, p.endValue, p.stepSizeValue = 1, 2.5, 0.5
    close(run1(b, {"x": np.zeros(1, np.float32)}), [1, 1.5, 2], what="rangeStatic")
    m = rand(4, 4)
    b, p = one_layer("matrixBandPart", m)
    p.numLower, p.numUpper = 1, 0
    close(run1(b, {"x": m}), np.tril(m) - np.tril(m, -2), what="matrixBandPart")
    b, p = one_layer("upperTriangular", m)
    p.k = 1
    close(run1(b, {"x": m}), np.triu(m, 1), what="upperTriangular")
    begin = np.array([1, 0, 2], np.float32)
    b, p = one_layer("sliceDynamic", x, extra_inputs=[("bg", begin)])
    p.endIds.extend([2, 3, 4])
    p.strides.extend([1, 2, 1])
    close(run1(b, {"x": x, "bg": begin}), x[1:2, 0:3:2, 2:4], what="sliceDynamic")
    b, p = one_layer("sliceBySize", x, extra_inputs=[("bg", np.array([1], np.float32))])
    p.axis, p.size = 1, 2
    close(run1(b, {"x": x, "bg": np.array([1], np.float32)}), x[:, 1:3], what="sliceBySize")
    a, c = rand(2, 3) * 4, rand(1, 3) + 2.5
    for kind, fn in (("floorDivBroadcastable", lambda u, v: np.floor(u / v)), ("modBroadcastable", np.mod)):
        b = builder([("x", (2, 3)), ("c", (1, 3))], [("out", None)])
        add_layer(b, kind, ["x", "c"], ["out"])
        close(run1(b, {"x": a, "c": c}), fn(a, c), what=kind)
    # gatherND / scatterND / scatter / gatherAlongAxis
    data, idx = rand(3, 4, 2), np.array([[0, 1], [2, 3]], np.float32)
    b, p = one_layer("gatherND", data, extra_inputs=[("i", idx)])
    close(run1(b, {"x": data, "i": idx}), np.stack([data[0, 1], data[2, 3]]), what="gatherND")
    upd = rand(2, 2)
    b = builder([("x", (3, 4, 2)), ("i", (2, 2)), ("u", (2, 2))], [("out", None)])
    add_layer(b, "scatterND", ["x", "i", "u"], ["out"]).mode = NN.SCATTER_ADD
    ref = data.copy()
    ref[0, 1] += upd[0]
    ref[2, 3] += upd[1]
    close(run1(b, {"x": data, "i": idx, "u": upd}), ref, what="scatterND add")
    rows, upd = np.array([2, 0], np.float32), rand(2, 4, 2)
    b = builder([("x", (3, 4, 2)), ("i", (2,)), ("u", (2, 4, 2))], [("out", None)])
    add_layer(b, "scatter", ["x", "i", "u"], ["out"]).axis = 0
    ref = data.copy()
    ref[2], ref[0] = upd[0], upd[1]
    close(run1(b, {"x": data, "i": rows, "u": upd}), ref, what="scatter update")
    ia = RNG.integers(0, 4, size=(3, 2, 2)).astype(np.float32)
    b, p = one_layer("gatherAlongAxis", data, extra_inputs=[("i", ia)])
    p.axis = 1
    close(run1(b, {"x": data, "i": ia}), np.take_along_axis(data, ia.astype(int), 1), what="gatherAlongAxis")
    # legacy embedding: weights [outputChannels, inputDim], input [1, 1, 1] (rank 5 blob)
    w = rand(3, 5)
    b, p = one_layer("embedding", np.zeros((1,), np.float32), nd=False)
    p.inputDim, p.outputChannels = 5, 3
    set_weights(p.weights, w)
    close(run1(b, {"x": np.array([4], np.float32)}), w[:, 4].reshape(3, 1, 1), what="embedding")
    # sequenceRepeat: rank 5 [Seq, B, C, H, W] -> [n * Seq, ...]
    b, p = one_layer("sequenceRepeat", rand(2, 1, 1), nd=False)
    p.nRepetitions = 3
    v = rand(2, 1, 1)
    close(run1(b, {"x": v}), np.tile(v.reshape(1, 1, 2, 1, 1), (3, 1, 1, 1, 1)), what="sequenceRepeat")


@test
def control_flow():
    # branch: if x > 0 then out = x + 1 else out = x - 1 (condition computed by greaterThan)
    for value, ref in ((2.0, 3.0), (-2.0, -3.0)):
        b = builder([("x", (1,))], [("out", None)])
        add_layer(b, "greaterThan", ["x"], ["cond"]).alpha = 0.0
        p = add_layer(b, "branch", ["cond"], [])
        for branch, delta in ((p.ifBranch, 1.0), (p.elseBranch, -1.0)):
            L = branch.layers.add()
            L.name, L.input[:], L.output[:] = "b%g" % delta, ["x"], ["out"]
            L.add.alpha = delta
        close(run1(b, {"x": np.array([value], np.float32)}), [ref], what="branch")
    # loop: 3 iterations of acc = acc * 2 (copy overwrites its output)
    b = builder([("x", (1,))], [("out", None)])
    add_layer(b, "copy", ["x"], ["out"])
    p = add_layer(b, "loop", [], [])
    p.maxLoopIterations = 3
    L = p.bodyNetwork.layers.add()
    L.name, L.input[:], L.output[:] = "double", ["out"], ["tmp"]
    L.multiply.alpha = 2.0
    L = p.bodyNetwork.layers.add()
    L.name, L.input[:], L.output[:] = "back", ["tmp"], ["out"]
    L.copy.SetInParent()
    close(run1(b, {"x": np.array([1.5], np.float32)}), [12.0], what="loop")


# --- inputs, model types ---------------------------------------------------------------------

def image_model(color, nd_image=False):
    b = NeuralNetworkBuilder([("image", datatypes.Array(3 if color != "GRAYSCALE" else 1, 2, 3))],
                             [("out", None)], disable_rank5_shape_mapping=nd_image)
    b.add_activation("id", "LINEAR", "image", "out", params=[1.0, 0.0])
    b.set_pre_processing_parameters(image_input_names=["image"], is_bgr=(color == "BGR"),
                                    red_bias=-1.0, green_bias=-2.0, blue_bias=-3.0, gray_bias=-4.0, image_scale=0.5)
    t = b.spec.description.input[0].type
    t.imageType.width, t.imageType.height = 3, 2
    t.imageType.colorSpace = FT.ImageFeatureType.ColorSpace.Value(color)
    if nd_image:
        b.nn_spec.imageInputShapeMapping = NN.RANK4_IMAGE_MAPPING
    return b


@test
def image_preprocessing():
    rgb = RNG.integers(0, 256, size=(3, 2, 3)).astype(np.float32)
    y = run1(image_model("RGB"), {"image": rgb})
    ref = 0.5 * rgb + np.array([-1.0, -2.0, -3.0]).reshape(3, 1, 1)          # R, G, B biases
    close(y, ref, what="RGB scaler")
    y = run1(image_model("BGR"), {"image": rgb})
    ref = 0.5 * rgb[::-1] + np.array([-3.0, -2.0, -1.0]).reshape(3, 1, 1)    # B, G, R order
    close(y, ref, what="BGR scaler")
    gray = rgb[:1]
    close(run1(image_model("GRAYSCALE"), {"image": gray}), 0.5 * gray - 4.0, what="gray scaler")
    y = run1(image_model("RGB", nd_image=True), {"image": rgb})
    equal(list(y.shape), [1, 3, 2, 3], "RANK4_IMAGE_MAPPING blob")


@test
def image_command_line():
    b = image_model("BGR")
    rgb = RNG.integers(0, 256, size=(3, 2, 3)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        path, data = os.path.join(tmp, "i.mlmodel"), os.path.join(tmp, "i.f32")
        with open(path, "wb") as fh:
            fh.write(b.spec.SerializeToString())
        rgb.astype("<f4").tofile(data)
        proc = subprocess.run([sys.executable, os.path.join(HERE, "coreml_nn.py"), path, "--input", "image=" + data],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise AssertionError("CLI failed: " + proc.stderr)
        report = json.loads(proc.stdout)
    d = report["description"]["inputs"][0]
    equal((d["type"], d["width"], d["height"], d["colorSpace"]), ("image", 3, 2, "BGR"), "image description")
    equal(report["preprocessing"][0]["scaler"]["channelScale"], 0.5, "scaler description")
    out = report["results"][0]["out"]
    equal(out["shape"], [3, 2, 3], "image output shape")
    close(np.array(out["values"]).reshape(3, 2, 3), 0.5 * rgb[::-1] + np.array([-3.0, -2.0, -1.0]).reshape(3, 1, 1),
          what="image via CLI")


@test
def classifiers():
    for labels in (["cat", "dog", "eel"], [10, 20, 30]):
        b = builder([("x", (3,))], [("probs", None)], nd=False, mode="classifier")
        b.add_softmax("sm", "x", "probs")
        b.set_class_labels(labels, predicted_feature_name="label")
        x = np.array([0.5, 2.0, -1.0], np.float32)
        out = run(b, {"x": x})
        equal(out["label"], labels[1], "predicted label")
        e = np.exp(x) / np.exp(x).sum()
        close([out["probs"][k] for k in labels], e, what="probabilities")
        report = coreml_nn.Model(b.spec.SerializeToString()).report()
        equal(report["type"], "neuralNetworkClassifier", "type")
        equal(report["classLabels"], labels, "classLabels")


def nms_spec(iou=0.5, conf=0.3, per_class=False, fixed_rows=None, optional_inputs=False):
    m = Model_pb2.Model()
    m.specificationVersion = 3
    p = m.nonMaximumSuppression
    p.iouThreshold, p.confidenceThreshold = iou, conf
    p.pickTop.perClass = per_class
    p.stringClassLabels.vector.extend(["a", "b"])
    p.confidenceInputFeatureName, p.coordinatesInputFeatureName = "raw_conf", "raw_coords"
    p.confidenceOutputFeatureName, p.coordinatesOutputFeatureName = "confidence", "coordinates"
    d = m.description
    for name in ("raw_conf", "raw_coords"):
        f = d.input.add()
        f.name = name
        f.type.multiArrayType.dataType = 65600
    if optional_inputs:
        p.iouThresholdInputFeatureName, p.confidenceThresholdInputFeatureName = "iouThreshold", "confidenceThreshold"
        for name in ("iouThreshold", "confidenceThreshold"):
            f = d.input.add()
            f.name = name
            f.type.doubleType.SetInParent()
            f.type.isOptional = True
    for name, cols in (("confidence", 2), ("coordinates", 4)):
        f = d.output.add()
        f.name = name
        f.type.multiArrayType.dataType = 65600
        if fixed_rows:
            f.type.multiArrayType.shape.extend([fixed_rows, cols])
    return m


# boxes (centre x, centre y, w, h); box 1 overlaps box 0 with IoU 81/119 = 0.68,
# box 2 is far away, box 3 overlaps box 0 with IoU 0.25 (10x10 and 10x10 shifted by 6 in x:
# inter 4*10 = 40, union 160), box 4 is below the confidence threshold.
NMS_COORDS = np.array([[10, 10, 10, 10], [11, 11, 10, 10], [50, 50, 8, 8], [16, 10, 10, 10], [30, 30, 5, 5]], np.float64)
NMS_CONF = np.array([[0.9, 0.05], [0.1, 0.8], [0.7, 0.2], [0.6, 0.3], [0.1, 0.2]], np.float64)


@test
def nms_model():
    feeds = {"raw_conf": NMS_CONF, "raw_coords": NMS_COORDS}
    # global suppression: order by max confidence 0, 1, 2, 3 (0.9, 0.8, 0.7, 0.6); 1 is
    # suppressed by 0 (IoU 0.68 > 0.5), 3 is kept (IoU 0.25), 4 is under 0.3.
    out = run(nms_spec(), feeds)
    close(out["confidence"], NMS_CONF[[0, 2, 3]], what="nms confidence")
    close(out["coordinates"], NMS_COORDS[[0, 2, 3]], what="nms coordinates")
    # per class: box 1 is labelled "b" (argmax), box 0 "a": no suppression between them
    out = run(nms_spec(per_class=True), feeds)
    close(out["coordinates"], NMS_COORDS[[0, 1, 2, 3]], what="nms per class")
    # iouThreshold input 0.2 also suppresses box 3; confidence threshold 0.75 keeps only 0, 1
    out = run(nms_spec(optional_inputs=True), dict(feeds, iouThreshold=0.2))
    close(out["coordinates"], NMS_COORDS[[0, 2]], what="nms iou input")
    out = run(nms_spec(optional_inputs=True), dict(feeds, confidenceThreshold=0.75))
    close(out["coordinates"], NMS_COORDS[[0]], what="nms confidence input")
    out = run(nms_spec(optional_inputs=True), feeds)       # omitted -> model defaults
    close(out["coordinates"], NMS_COORDS[[0, 2, 3]], what="nms defaults")
    # iouThreshold 1.0 means "no suppression based on IOU" even for identical boxes
    out = run(nms_spec(iou=1.0), {"raw_conf": NMS_CONF[[0, 0]], "raw_coords": NMS_COORDS[[0, 0]]})
    equal(out["coordinates"].shape[0], 2, "iou 1.0 keeps identical boxes")
    # a fixed output shape pads with zero rows
    out = run(nms_spec(fixed_rows=5), feeds)
    close(out["confidence"], np.vstack([NMS_CONF[[0, 2, 3]], np.zeros((2, 2))]), what="nms fixed rows")
    out = run(nms_spec(fixed_rows=2), feeds)
    close(out["coordinates"], NMS_COORDS[[0, 2]], what="nms truncated rows")


def detector_pipeline():
    """A neural network (ND mapping: features [N, 6] -> softmax confidences [N, 2] and
    coordinates [N, 4]) followed by a NonMaximumSuppression model, as a Pipeline."""
    nn = NeuralNetworkBuilder([("features", datatypes.Array(5, 6))],
                              [("raw_conf", None), ("raw_coords", None)], disable_rank5_shape_mapping=True)
    nn.add_slice_static("c", "features", "logits", [0, 0], [5, 2], [1, 1], [True, False], [True, False])
    nn.add_softmax_nd("sm", "logits", "raw_conf", axis=-1)
    nn.add_slice_static("b", "features", "raw_coords", [0, 2], [5, 6], [1, 1], [True, False], [True, True])
    pipe = Model_pb2.Model()
    pipe.specificationVersion = 4
    nms = nms_spec(iou=0.5, conf=0.6)
    pipe.pipeline.models.add().CopyFrom(nn.spec)
    pipe.pipeline.models.add().CopyFrom(nms)
    i = pipe.description.input.add()
    i.CopyFrom(nn.spec.description.input[0])
    for o in nms.description.output:
        pipe.description.output.add().CopyFrom(o)
    pipe.description.metadata.author = "coach"
    pipe.description.metadata.userDefined["k"] = "v"
    return pipe


@test
def pipeline_and_command_line():
    # softmax confidences: 0.881 (a), 0.818 (b), 0.731 (a), 0.622 (a), 0.525 (b, under the
    # pipeline's threshold 0.6).  Run 1: box 1 is suppressed by box 0 (IoU 0.68) -> [0, 2, 3].
    # Run 2: box 1's logits [0, 5] give it 0.993, so it suppresses box 0 -> [1, 2, 3].
    logits = np.array([[2, 0], [0, 1.5], [1, 0], [0.5, 0], [0, 0.1]], np.float32)
    feats1 = np.hstack([logits, NMS_COORDS]).astype(np.float32)
    feats2 = feats1.copy()
    feats2[1, :2] = [0, 5]
    probs = lambda f: np.exp(f[:, :2]) / np.exp(f[:, :2]).sum(1, keepdims=True)
    spec = detector_pipeline()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pipe.mlmodel")
        with open(path, "wb") as fh:
            fh.write(spec.SerializeToString())
        data = os.path.join(tmp, "features.f32")
        np.concatenate([feats1.ravel(), feats2.ravel()]).astype("<f4").tofile(data)
        proc = subprocess.run([sys.executable, os.path.join(HERE, "coreml_nn.py"), path, "--input", "features=" + data],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise AssertionError("CLI failed: " + proc.stderr)
        report = json.loads(proc.stdout)
    equal(report["type"], "pipeline", "type")
    equal([m["type"] for m in report["models"]], ["neuralNetwork", "nonMaximumSuppression"], "sub-model types")
    equal(report["classLabels"], ["a", "b"], "labels from the NMS model")
    equal(report["layers"], {"sliceStatic": 2, "softmaxND": 1}, "layer counts")
    equal(report["description"]["inputs"][0]["shape"], [5, 6], "input shape")
    equal(report["description"]["metadata"]["userDefined"], {"k": "v"}, "metadata")
    equal(len(report["results"]), 2, "two runs")
    for run_result, feats, keep in zip(report["results"], (feats1, feats2), ([0, 2, 3], [1, 2, 3])):
        p = probs(feats)
        got = run_result["coordinates"]
        equal(got["shape"], [len(keep), 4], "pipeline coordinates shape")
        close(np.array(got["values"]).reshape(got["shape"]), feats[keep, 2:], what="pipeline coordinates")
        close(np.array(run_result["confidence"]["values"]).reshape(-1, 2), p[keep], what="pipeline confidence")


@test
def command_line_classifier_json():
    b = builder([("x", (3,))], [("probs", None)], nd=False, mode="classifier")
    b.add_softmax("sm", "x", "probs")
    b.set_class_labels(["cat", "dog", "eel"], predicted_feature_name="label")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c.mlmodel")
        with open(path, "wb") as fh:
            fh.write(b.spec.SerializeToString())
        data = os.path.join(tmp, "x.f32")
        np.array([0, 0, 3, 3, 0, 0], dtype="<f4").tofile(data)
        proc = subprocess.run([sys.executable, os.path.join(HERE, "coreml_nn.py"), path, "--input", "x=" + data,
                               "--runs", "2"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise AssertionError("CLI failed: " + proc.stderr)
        report = json.loads(proc.stdout)
    equal([r["label"] for r in report["results"]], ["eel", "cat"], "labels per run")
    equal(sorted(report["results"][0]["probs"]), ["cat", "dog", "eel"], "probability keys")
    equal(report["description"]["outputs"][0]["type"], "dictionary", "probs output type")
    equal(report["shapeMapping"]["array"], "RANK5_ARRAY_MAPPING", "shape mapping")


@test
def unsupported_layer_is_named():
    b = builder([("x", (3, 1, 1))], [("out", None)], nd=False)
    add_layer(b, "simpleRecurrent", ["x"], ["out"], name="rnn")
    try:
        run(b, {"x": rand(3, 1, 1)})
    except NotImplementedError as e:
        if "simpleRecurrent" not in str(e) or "rnn" not in str(e):
            raise AssertionError("message does not name the layer: %s" % e)
        return
    raise AssertionError("expected NotImplementedError")


def main():
    failed = 0
    for fn in TESTS:
        try:
            fn()
            print("ok    %s" % fn.__name__)
        except Exception:
            failed += 1
            print("FAIL  %s" % fn.__name__)
            traceback.print_exc()
    print("%d passed, %d failed" % (len(TESTS) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
