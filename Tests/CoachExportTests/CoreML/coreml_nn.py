#!/usr/bin/env python3
"""Reference interpreter for Core ML ``.mlmodel`` files (NeuralNetwork specification).

Core ML cannot run on Linux, so the export tests run exported models through this
interpreter instead.  It is written from the documentation in the specification's own
``.proto`` files (``Model.proto``, ``NeuralNetwork.proto``, ``FeatureTypes.proto``,
``NonMaximumSuppression.proto``, ``DataStructures.proto``): every rule below that comes from
them names the message or field it comes from.  It uses only numpy and the protobuf classes
``coremltools.proto.Model_pb2`` (to parse the file); nothing of coremltools' converters or
runtime.

Command line
============

::

    python coreml_nn.py MODEL.mlmodel [--input NAME=FILE ...] [--shape NAME=D0,D1,...]
                                      [--runs N] [--trace]

``--input NAME=FILE``
    FILE holds raw little-endian float32 values for the model input NAME:

    * MultiArray input: the values of one sample in the input's declared shape (row-major);
      ``--shape`` overrides the shape (for flexible shapes).
    * Image input: ``[3, H, W]`` channel-major **RGB** values 0...255 (``[1, H, W]`` for a
      grayscale image); the interpreter reorders to BGR itself when the image's colorSpace
      is BGR, and applies the network's ``NeuralNetworkPreprocessing`` (scaler, mean image).
    * Double / Int64 input: one value.

    **Several runs**: FILE may hold several samples concatenated; the model then runs once
    per sample.  Every input must hold either the same number of samples N or exactly one
    (which is then reused by every run).  ``--runs N`` states N (otherwise it is inferred).
    An optional input (``FeatureType.isOptional``) may be omitted, e.g. the
    ``iouThreshold`` / ``confidenceThreshold`` inputs of a NonMaximumSuppression model: the
    model's default is then used.
``--trace``
    print every layer's output shapes on stderr.

Output: one JSON object on stdout::

    {
      "specificationVersion": int,
      "type": "neuralNetwork" | "neuralNetworkClassifier" | "neuralNetworkRegressor" |
              "pipeline" | "pipelineClassifier" | "pipelineRegressor" |
              "nonMaximumSuppression" | ...  (the name of the Model.Type oneof field),
      "description": {
        "inputs":  [FEATURE, ...],
        "outputs": [FEATURE, ...],
        "predictedFeatureName": str, "predictedProbabilitiesName": str,
        "metadata": {"author", "shortDescription", "license", "versionString",
                     "userDefined": {str: str}}
      },
      "classLabels": [str | int, ...] | null,  # the classifier's (or a pipeline's first
                                               # classifier / NMS sub-model's) labels
      "layers": {layerTypeName: count},        # over every neural network (and sub-network)
      "shapeMapping": {"array": "RANK5_ARRAY_MAPPING" | "EXACT_ARRAY_MAPPING",
                       "image": "RANK5_IMAGE_MAPPING" | "RANK4_IMAGE_MAPPING"},
                                               # neural networks only
      "preprocessing": [{"featureName", "scaler"|"meanImage": ...}],  # neural networks only
      "models": [{"name", "type", "layers", "classLabels", "inputs", "outputs"}],
                                               # pipelines only, one per sub-model
      "results": [{outputName: VALUE}, ...]    # one per run
    }

    FEATURE = {"name", "shortDescription", "optional": bool,
               "type": "multiArray" | "image" | "double" | "int64" | "string" |
                       "dictionary" | "sequence" | "state",
               # multiArray:  "shape": [..], "dataType": "FLOAT32" | "DOUBLE" | "INT32" | ...,
               #              "shapeRange": [[lower, upper(-1 = unbounded)], ...] (optional)
               #              "enumeratedShapes": [[..], ...] (optional)
               # image:       "width", "height", "colorSpace": "RGB" | "BGR" | "GRAYSCALE" | ...
               # dictionary:  "keyType": "string" | "int64"
              }

    VALUE = {"shape": [..], "values": [flat row-major list]}   # MultiArray
          | {label: probability}                               # dictionary
          | "label" | int | float                               # string / int64 / double

Non-finite numbers are written as the strings "nan", "inf", "-inf" (JSON has no literal for
them; Swift's ``JSONDecoder.nonConformingFloatDecodingStrategy = .convertFromString`` reads
them).

Module use
==========

::

    import coreml_nn
    model = coreml_nn.load("model.mlmodel")      # or coreml_nn.Model(spec_or_bytes)
    outputs = model.predict({"image": rgb_chw_array})
    model.describe()                              # the JSON's description part

``predict`` takes numpy arrays (MultiArray in its shape, image as ``[C, H, W]`` RGB 0...255,
double as a float) and returns numpy arrays / dicts / str / int / float by output name.

Execution model
===============

* Layers run in file order; each reads the named blobs and writes its outputs
  (``NeuralNetworkLayer.input`` / ``output``).  The model's outputs are the blobs named like
  the description's outputs.
* Shapes (enums ``NeuralNetworkMultiArrayShapeMapping``, ``NeuralNetworkImageShapeMapping``):
  with ``RANK5_ARRAY_MAPPING`` a MultiArray input of shape ``[C]`` becomes the blob
  ``[1, 1, C, 1, 1]`` and ``[C, H, W]`` becomes ``[1, 1, C, H, W]`` (a rank-5 value is taken
  as it is: Seq and Batch "can be presented"); with ``EXACT_ARRAY_MAPPING`` the blob has the
  input's exact shape.  Images become ``[1, 1, C, H, W]`` (``RANK5_IMAGE_MAPPING``) or
  ``[1, C, H, W]`` (``RANK4_IMAGE_MAPPING``).  Layer semantics are then those the docs give
  by rank ("channel" is axis -3, "height" -2, "width" -1, "sequence" -5; leading axes of
  spatial layers are batch).
* MultiArray outputs: with the exact (ND) mapping the blob's own shape is reported.  With
  the rank-5 mapping the blob is reported in the declared output shape when its element
  count matches (that is how a rank-5 blob is presented), otherwise as ``[C, H, W]`` when
  Seq = Batch = 1, otherwise as the rank-5 blob.
* Arithmetic is float32 (numpy), except that convolutions, inner products, matrix products
  and sums accumulate in float64 before rounding to float32.
* Any layer type not implemented raises ``NotImplementedError`` naming it.

Layers
======

Implemented (``NeuralNetworkLayer`` oneof names): convolution (groups, depthwise, stride,
dilation, valid/same padding, weights as a 2nd input, deconvolution without a differing
outputShape), pooling (MAX, AVERAGE, L2; valid, same, includeLastPixel, global,
avgPoolExcludePadding), activation (all 13 ActivationParams kinds), innerProduct, embedding,
embeddingND, batchnorm, mvn, l2normalize, lrn, layerNormalization, softmax, softmaxND, crop,
padding, upsample, resizeBilinear, unary, add, multiply, average, max, min, dot, scale, bias,
reduce, loadConstant, loadConstantND, reshape, flatten, permute, concat, split,
sequenceRepeat, reorganizeData, slice, copy, branch, loop, loopBreak, loopContinue,
rangeStatic, rangeDynamic, clip, clampedReLU, ceil, floor, sign, round, exp2, sin ... atanh,
erf, gelu, equal, notEqual, lessThan, lessEqual, greaterThan, greaterEqual, logicalAnd/Or/
Xor/Not, add/subtract/multiply/divide/max/min/pow/mod/floorDiv-Broadcastable,
whereBroadcastable, tile, stack, gather, gatherND, gatherAlongAxis, scatter, scatterND,
scatterAlongAxis, reverse, reverseSeq, splitND, concatND, transpose, sliceStatic,
sliceDynamic, sliceBySize, slidingWindows, topK, argMax, argMin, argSort, cumSum, oneHot,
batchedMatmul, getShape, fillLike/Static/Dynamic, broadcastToLike/Static/Dynamic, squeeze,
expandDims, flattenTo2D, reshapeLike/Static/Dynamic, rankPreservingReshape, constantPad,
reduceSum/Mean/Prod/Max/Min/L1/L2/SumSquare/LogSum/LogSumExp, whereNonZero, matrixBandPart,
lowerTriangular, upperTriangular, NonMaximumSuppression (the layer).

Not implemented (``NotImplementedError`` naming the layer): cropResize, simpleRecurrent, gru,
uniDirectionalLSTM, biDirectionalLSTM, custom, the random* layers and
categoricalDistribution (not reproducible), convolution3d, pooling3d, globalPooling3d.

Model types: neuralNetwork, neuralNetworkClassifier, neuralNetworkRegressor, pipeline,
pipelineClassifier, pipelineRegressor, nonMaximumSuppression, identity.

Choices where the documentation is silent or ambiguous
======================================================

Each is marked ``AMBIGUOUS`` (or "not documented") where it is implemented.

* Pooling padding: MAX ignores padded cells (they are never the maximum); AVERAGE counts
  them in the denominator unless ``avgPoolExcludePadding``; an ``includeLastPixel`` window
  hanging past the (symmetric) padding counts nothing there.
* ``NeuralNetworkImageScaler.channelScale`` 0 (= not serialised in proto3) is taken
  literally (the image is multiplied by 0) and a warning is printed on stderr.
* Legacy ``slice``: python slicing of ``[startIndex, endIndex)`` ("-1 denotes N-1", end
  exclusive), so endIndex -1 drops the last element; an empty result is an error.
* ``round``: ties away from zero.  ``modBroadcastable``: floor modulo (numpy ``mod``).
* ``mvn``: ``(x - mean) / sqrt(var + epsilon)``.  ``lrn``: the window of localSize channels
  starts (localSize - 1) // 2 channels before the current one.
* NonMaximumSuppression model: a box's confidence (threshold and sort) is its highest class
  confidence; ties keep input order; suppression when IoU > iouThreshold (strictly: the doc
  says 1.0 means no suppression); a fixed output shape (``shape`` with a positive first
  dimension and no flexibility) or a ``shapeRange`` on dimension 0 pads with zero rows /
  truncates.
* Classifier without ``labelProbabilityLayerName``: the blob named like
  ``predictedProbabilitiesName``, else the last layer's first output.
* Fractional ``upsample``: output size floor(in * factor); nearest neighbour picks
  floor(i * in / out).
* Reductions without ``keepDims`` that remove every axis give shape ``[1]``; ND reductions
  with neither ``axes`` nor ``reduceAll`` reduce every axis.
* Deconvolution: ``same`` crops the excess as SamePadding's asymmetryMode splits a padding;
  an ``outputShape`` differing from the padding's shape is not implemented.
* Quantised weights: 8 bits only (sub-byte bit packing is not documented); per-channel
  scales apply to equal consecutive blocks of the stored values.  ``int8DynamicQuantize``
  layers are computed in float (the runtime's int8 rounding of the input is not emulated).
"""

import argparse
import importlib.util
import json
import logging
import math
import sys
import types

import numpy as np

F32 = np.float32


# ---------------------------------------------------------------------------------------------
# Loading the protobuf classes
# ---------------------------------------------------------------------------------------------

def _import_model_pb2():
    """Returns ``coremltools.proto.Model_pb2`` without running coremltools' package
    ``__init__`` when possible (that import takes seconds and logs "Failed to load ..."
    warnings on Linux); falls back to the ordinary import."""
    if "coremltools" not in sys.modules:
        spec = importlib.util.find_spec("coremltools")
        if spec is not None and spec.submodule_search_locations:
            stub = types.ModuleType("coremltools")
            stub.__path__ = list(spec.submodule_search_locations)
            sys.modules["coremltools"] = stub
            try:
                from coremltools.proto import Model_pb2
                return Model_pb2
            except Exception:
                for name in [n for n in sys.modules if n.startswith("coremltools")]:
                    del sys.modules[name]
            finally:
                # Leave the real package importable later in this process.
                if sys.modules.get("coremltools") is stub:
                    del sys.modules["coremltools"]
    logging.getLogger("coremltools").setLevel(logging.ERROR)
    from coremltools.proto import Model_pb2
    return Model_pb2


Model_pb2 = _import_model_pb2()
NN_pb2 = sys.modules[Model_pb2.__name__.rsplit(".", 1)[0] + ".NeuralNetwork_pb2"]
FT_pb2 = sys.modules[Model_pb2.__name__.rsplit(".", 1)[0] + ".FeatureTypes_pb2"]


def _warn(message):
    print("coreml_nn: warning: " + message, file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Weights (message WeightParams, QuantizationParams)
# ---------------------------------------------------------------------------------------------

def weights(wp, count=None, what="weights"):
    """Decodes a ``WeightParams`` into a flat float32 array.

    ``floatValue`` (float32), ``float16Value`` (bytes of IEEE half, little-endian),
    ``rawValue`` with ``quantization`` (``numberOfBits`` 8: uint8; linear
    ``W = q * scale + bias`` with 1 or C (= output channels) scales, or a look-up table of
    2^bits floats), ``int8RawValue`` (int8, linear with one scale and no bias).
    """
    if len(wp.floatValue):
        values = np.asarray(wp.floatValue, dtype=F32)
    elif len(wp.float16Value):
        values = np.frombuffer(wp.float16Value, dtype="<f2").astype(F32)
    elif len(wp.rawValue) or len(wp.int8RawValue):
        q = wp.quantization
        bits = q.numberOfBits
        kind = q.WhichOneof("QuantizationType")
        if len(wp.int8RawValue):
            raw = np.frombuffer(wp.int8RawValue, dtype=np.int8).astype(np.float64)
        elif bits == 8:
            raw = np.frombuffer(wp.rawValue, dtype=np.uint8).astype(np.float64)
        else:
            # AMBIGUOUS: the bit order of packed sub-byte values is not documented.
            raise NotImplementedError(
                "%s: quantized weights with numberOfBits=%d are not implemented" % (what, bits))
        if kind == "linearQuantization":
            lin = q.linearQuantization
            scale = np.asarray(lin.scale, dtype=np.float64)
            bias = np.asarray(lin.bias, dtype=np.float64) if len(lin.bias) else np.zeros(1)
            # "an array of 1 element, or an array of C elements, where C is number of
            # output channels": the stored values are taken as C equal blocks.
            blocks = max(len(scale), len(bias))
            if blocks > 1:
                raw = raw.reshape(blocks, -1)
                scale = scale.reshape(-1, 1) if len(scale) > 1 else scale
                bias = bias.reshape(-1, 1) if len(bias) > 1 else bias
            values = (raw * scale + bias).astype(F32).ravel()
        elif kind == "lookupTableQuantization":
            table = np.asarray(q.lookupTableQuantization.floatValue, dtype=F32)
            values = table[raw.astype(np.int64)]
        else:
            raise NotImplementedError("%s: rawValue without a quantization type" % what)
    else:
        values = np.zeros(0, dtype=F32)
    if count is not None and values.size != count:
        raise ValueError("%s: expected %d values, found %d" % (what, count, values.size))
    return values


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------

def _axis(axis, rank, what="axis"):
    a = int(axis)
    if a < 0:
        a += rank
    if not 0 <= a < rank:
        raise ValueError("%s %d out of range for rank %d" % (what, axis, rank))
    return a


def _need_rank(x, minimum, layer, what="input"):
    if x.ndim < minimum:
        raise ValueError("layer '%s': %s must have rank >= %d, has shape %s"
                         % (layer.name, what, minimum, list(x.shape)))


def _f32(x):
    return np.asarray(x, dtype=F32)


def _pair(values, default):
    values = list(values)
    if not values:
        return list(default)
    if len(values) != 2:
        raise ValueError("expected 2 values [H, W], found %s" % values)
    return [int(v) for v in values]


def _border(border_amounts):
    """``BorderAmounts.borderAmounts`` ([H, W] edge sizes) as (top, bottom, left, right)."""
    b = list(border_amounts.borderAmounts)
    if not b:
        return 0, 0, 0, 0
    if len(b) != 2:
        raise ValueError("BorderAmounts must have length 2 ([H, W])")
    return (int(b[0].startEdgeSize), int(b[0].endEdgeSize),
            int(b[1].startEdgeSize), int(b[1].endEdgeSize))


def _same_padding(mode, size, stride, kernel):
    """``SamePadding``: out = ceil(in / stride); total = max(0, (out-1)*stride + k - in);
    ``BOTTOM_RIGHT_HEAVY`` puts floor(total/2) at the start, ``TOP_LEFT_HEAVY`` at the end."""
    out = -(-size // stride)
    total = max(0, (out - 1) * stride + kernel - size)
    if mode == NN_pb2.SamePadding.TOP_LEFT_HEAVY:
        end = total // 2
        start = total - end
    else:
        start = total // 2
        end = total - start
    return start, end, out


def _spatial_padding(params, which, H, W, kH, kW, sH, sW):
    """Padding and output size of a convolution or pooling (messages ``ValidPadding``,
    ``SamePadding``).  ``kH``, ``kW`` are the effective (dilated) kernel sizes."""
    if which == "same":
        t, b, Ho = _same_padding(params.same.asymmetryMode, H, sH, kH)
        l, r, Wo = _same_padding(params.same.asymmetryMode, W, sW, kW)
    else:  # "valid", or no padding type set (a "true" valid padding)
        t, b, l, r = _border(params.valid.paddingAmounts) if which == "valid" else (0, 0, 0, 0)
        # H_out = int_division_round_down(H_in + top + bottom - KernelSize, stride) + 1
        Ho = (H + t + b - kH) // sH + 1
        Wo = (W + l + r - kW) // sW + 1
    if Ho < 1 or Wo < 1:
        raise ValueError("kernel larger than the padded input (output %dx%d)" % (Ho, Wo))
    return t, b, l, r, Ho, Wo


def _broadcast_all(xs):
    return np.broadcast_arrays(*[_f32(x) for x in xs])


def _to_int(x):
    return np.asarray(np.round(x)).astype(np.int64)


def _softmax(x, axis):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - np.max(x64, axis=axis, keepdims=True))
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(F32)


def _round_half_away(x):
    # AMBIGUOUS: RoundLayerParams says "nearest integer"; ties go away from zero (C round()).
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(F32)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(F32)


# ---------------------------------------------------------------------------------------------
# Layers.  Each takes (net, layer, params, inputs) and returns an array or a list of arrays.
# ---------------------------------------------------------------------------------------------

LAYERS = {}


def layer_impl(*names):
    def register(fn):
        for name in names:
            LAYERS[name] = fn
        return fn
    return register


# --- Convolution (ConvolutionLayerParams) ----------------------------------------------------

@layer_impl("convolution")
def _convolution(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 4, L)
    lead, (C, H, W) = x.shape[:-3], x.shape[-3:]
    G = int(p.nGroups) or 1                                  # nGroups: "0 -> 1"
    kH, kW = _pair(p.kernelSize, (3, 3))                     # kernelSize default [3, 3]
    sH, sW = _pair(p.stride, (1, 1))                         # stride default [1, 1]
    Cout = int(p.outputChannels)
    which = p.WhichOneof("ConvolutionPaddingType")
    if p.isDeconvolution:
        return _deconvolution(L, p, x, lead, C, H, W, G, kH, kW, sH, sW, Cout, which)
    dH, dW = _pair(p.dilationFactor, (1, 1))                 # dilationFactor default [1, 1]
    if C % G:
        raise ValueError("layer '%s': %d input channels not divisible by nGroups %d" % (L.name, C, G))
    Cg = C // G
    if len(xs) > 1:
        # weights as a second input, of shape [outputChannels, kernelChannels, kH, kW]
        Wt = _f32(xs[1])
        Wt = Wt.reshape(Wt.shape[-4:])
        Cout, kH, kW = Wt.shape[0], Wt.shape[2], Wt.shape[3]
        if Wt.shape[1] != Cg:
            raise ValueError("layer '%s': weight input has %d kernel channels, inputChannels / nGroups is %d"
                             % (L.name, Wt.shape[1], Cg))
    else:
        if int(p.kernelChannels) != Cg:
            raise ValueError("layer '%s': kernelChannels %d != inputChannels / nGroups = %d"
                             % (L.name, p.kernelChannels, Cg))
        # weights: [outputChannels, kernelChannels, kernelHeight, kernelWidth]
        Wt = weights(p.weights, Cout * Cg * kH * kW, "layer '%s' weights" % L.name)
        Wt = Wt.reshape(Cout, Cg, kH, kW)
    if Cout % G:
        raise ValueError("layer '%s': outputChannels %d not divisible by nGroups %d" % (L.name, Cout, G))
    # effective kernel size with dilation: (k - 1) * d + 1
    kHe, kWe = (kH - 1) * dH + 1, (kW - 1) * dW + 1
    t, b, l, r, Ho, Wo = _spatial_padding(p, which, H, W, kHe, kWe, sH, sW)
    N = int(np.prod(lead))
    xp = np.zeros((N, C, H + t + b, W + l + r), dtype=np.float64)  # "Padded values are all zeros"
    xp[:, :, t:t + H, l:l + W] = x.reshape(N, C, H, W)
    xp = xp.reshape(N, G, Cg, H + t + b, W + l + r)
    Og = Cout // G
    Wg = Wt.astype(np.float64).reshape(G, Og, Cg, kH, kW)
    out = np.zeros((N, G, Og, Ho * Wo), dtype=np.float64)
    for i in range(kH):
        for j in range(kW):
            h0, w0 = i * dH, j * dW
            patch = xp[:, :, :, h0:h0 + sH * (Ho - 1) + 1:sH, w0:w0 + sW * (Wo - 1) + 1:sW]
            out += np.matmul(Wg[:, :, :, i, j], patch.reshape(N, G, Cg, Ho * Wo))
    out = out.reshape(N, Cout, Ho, Wo)
    if p.hasBias:
        out += weights(p.bias, Cout, "layer '%s' bias" % L.name).astype(np.float64).reshape(1, Cout, 1, 1)
    return out.astype(F32).reshape(lead + (Cout, Ho, Wo))


def _deconvolution(L, p, x, lead, C, H, W, G, kH, kW, sH, sW, Cout, which):
    # weights: [kernelChannels (= inputChannels), outputChannels / nGroups, kH, kW];
    # dilationFactor "is ignored if isDeconvolution == true".
    Kc = int(p.kernelChannels)
    if Kc != C:
        raise ValueError("layer '%s': deconvolution kernelChannels %d != input channels %d" % (L.name, Kc, C))
    if C % G or Cout % G:
        raise ValueError("layer '%s': channels not divisible by nGroups" % L.name)
    Cg, Og = C // G, Cout // G
    Wt = weights(p.weights, C * Og * kH * kW, "layer '%s' weights" % L.name).reshape(C, Og, kH, kW)
    N = int(np.prod(lead))
    Hf, Wf = (H - 1) * sH + kH, (W - 1) * sW + kW            # the un-cropped output
    full = np.zeros((N, G, Og, Hf, Wf), dtype=np.float64)
    xg = x.astype(np.float64).reshape(N, G, Cg, H * W)
    Wg = Wt.astype(np.float64).reshape(G, Cg, Og, kH, kW)
    for i in range(kH):
        for j in range(kW):
            contrib = np.matmul(np.swapaxes(Wg[:, :, :, i, j], 1, 2), xg).reshape(N, G, Og, H, W)
            full[:, :, :, i:i + sH * (H - 1) + 1:sH, j:j + sW * (W - 1) + 1:sW] += contrib
    if which == "same":
        # With Deconvolution: H_out = H_in * stride; the excess is split as SamePadding's
        # asymmetryMode splits a padding (AMBIGUOUS: the doc does not say where it is cut).
        Ho, Wo = H * sH, W * sW
        t = _split_start(p.same.asymmetryMode, Hf - Ho)
        l = _split_start(p.same.asymmetryMode, Wf - Wo)
    else:
        t, b, l, r = _border(p.valid.paddingAmounts) if which == "valid" else (0, 0, 0, 0)
        # H_out = (H_in-1) * stride + kernelSize - (topPaddingAmount + bottomPaddingAmount)
        Ho, Wo = Hf - t - b, Wf - l - r
    if len(p.outputShape):
        if [int(v) for v in p.outputShape] != [Ho, Wo]:
            raise NotImplementedError(
                "layer '%s': deconvolution outputShape %s differs from the padding's %s; where the "
                "output is cut is not documented" % (L.name, list(p.outputShape), [Ho, Wo]))
    if t < 0 or l < 0:
        raise NotImplementedError("layer '%s': deconvolution output larger than its full extent" % L.name)
    out = full[:, :, :, t:t + Ho, l:l + Wo].reshape(N, Cout, Ho, Wo)
    if p.hasBias:
        out = out + weights(p.bias, Cout, "layer '%s' bias" % L.name).astype(np.float64).reshape(1, Cout, 1, 1)
    return out.astype(F32).reshape(lead + (Cout, Ho, Wo))


def _split_start(mode, total):
    if total <= 0:
        return total
    if mode == NN_pb2.SamePadding.TOP_LEFT_HEAVY:
        return total - total // 2
    return total // 2


# --- Pooling (PoolingLayerParams) ------------------------------------------------------------

@layer_impl("pooling")
def _pooling(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 4, L)
    H, W = x.shape[-2:]
    xb = x.reshape(-1, H, W).astype(np.float64)
    kind = p.type
    if p.globalPooling:
        # "Kernel size is inferred from the input data spatial dimensions."
        kH, kW, sH, sW = H, W, 1, 1
        t = b = l = r = 0
        Ho = Wo = 1
    else:
        kH, kW = _pair(p.kernelSize, (3, 3))
        sH, sW = _pair(p.stride, (1, 1))
        which = p.WhichOneof("PoolingPaddingType")
        if which == "includeLastPixel":
            # ValidCompletePadding: symmetric padding; H_out = ceil((H_in + 2*pad - k)/s) + 1,
            # minus one if the last window would start past H_in + pad (when padding > 0).
            pH, pW = _pair(p.includeLastPixel.paddingAmounts, (0, 0))
            t = b = pH
            l = r = pW
            Ho = -(-(H + 2 * pH - kH) // sH) + 1
            Wo = -(-(W + 2 * pW - kW) // sW) + 1
            if pH > 0 or pW > 0:
                if (Ho - 1) * sH >= H + pH:
                    Ho -= 1
                if (Wo - 1) * sW >= W + pW:
                    Wo -= 1
        else:
            t, b, l, r, Ho, Wo = _spatial_padding(p, which, H, W, kH, kW, sH, sW)
    # The padded canvas; windows of includeLastPixel may hang past the padding ("overhang").
    Ht = max(t + H + b, (Ho - 1) * sH + kH)
    Wt = max(l + W + r, (Wo - 1) * sW + kW)
    # AMBIGUOUS: MAX pooling ignores padded cells (they are not candidates); AVERAGE counts
    # them unless avgPoolExcludePadding; the overhang past the padding is never counted.
    fill = -np.inf if kind == NN_pb2.PoolingLayerParams.MAX else 0.0
    canvas = np.full((xb.shape[0], Ht, Wt), fill)
    canvas[:, t:t + H, l:l + W] = xb
    if kind == NN_pb2.PoolingLayerParams.L2:
        canvas = canvas * canvas
    real = np.zeros((Ht, Wt))
    real[t:t + H, l:l + W] = 1
    padded = np.zeros((Ht, Wt))
    padded[:t + H + b, :l + W + r] = 1
    acc = np.full((xb.shape[0], Ho, Wo), fill)
    n_real = np.zeros((Ho, Wo))
    n_padded = np.zeros((Ho, Wo))
    for i in range(kH):
        for j in range(kW):
            sl = (slice(i, i + sH * (Ho - 1) + 1, sH), slice(j, j + sW * (Wo - 1) + 1, sW))
            window = canvas[(slice(None),) + sl]
            if kind == NN_pb2.PoolingLayerParams.MAX:
                acc = np.maximum(acc, window)
            else:
                acc = acc + window
            n_real += real[sl]
            n_padded += padded[sl]
    if kind == NN_pb2.PoolingLayerParams.MAX:
        acc = np.where(np.isneginf(acc), 0.0, acc)
    elif kind == NN_pb2.PoolingLayerParams.AVERAGE:
        count = n_real if p.avgPoolExcludePadding else n_padded
        acc = np.where(count > 0, acc / np.maximum(count, 1), 0.0)
    else:  # L2: sqrt of the sum of squares
        acc = np.sqrt(acc)
    return acc.astype(F32).reshape(x.shape[:-2] + (Ho, Wo))


# --- Activations (ActivationParams) ----------------------------------------------------------

def _per_channel(values, x, L, what):
    """A parameter "of length C or 1" applied along axis -3 (ActivationPReLU,
    ActivationParametricSoftplus)."""
    if values.size == 1:
        return values.reshape(())
    _need_rank(x, 3, L)
    if values.size != x.shape[-3]:
        raise ValueError("layer '%s': %s has %d values for %d channels" % (L.name, what, values.size, x.shape[-3]))
    return values.reshape(-1, 1, 1)


def _activation(x, a, L):
    kind = a.WhichOneof("NonlinearityType")
    x = _f32(x)
    if kind == "linear":
        return (a.linear.alpha * x + a.linear.beta).astype(F32)
    if kind == "ReLU":
        return np.maximum(x, 0).astype(F32)
    if kind == "leakyReLU":
        return np.where(x >= 0, x, a.leakyReLU.alpha * x).astype(F32)
    if kind == "thresholdedReLU":
        return np.where(x >= a.thresholdedReLU.alpha, x, 0).astype(F32)
    if kind == "PReLU":
        alpha = _per_channel(weights(a.PReLU.alpha, None, "PReLU alpha"), x, L, "PReLU alpha")
        return np.where(x >= 0, x, alpha * x).astype(F32)
    if kind == "tanh":
        return np.tanh(x).astype(F32)
    if kind == "scaledTanh":
        return (a.scaledTanh.alpha * np.tanh(a.scaledTanh.beta * x)).astype(F32)
    if kind == "sigmoid":
        return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(F32)
    if kind == "sigmoidHard":
        return np.minimum(np.maximum(a.sigmoidHard.alpha * x + a.sigmoidHard.beta, 0), 1).astype(F32)
    if kind == "ELU":
        return np.where(x >= 0, x, a.ELU.alpha * (np.exp(np.minimum(x, 0)) - 1)).astype(F32)
    if kind == "softsign":
        return (x / (1 + np.abs(x))).astype(F32)
    if kind == "softplus":
        return np.logaddexp(0, x.astype(np.float64)).astype(F32)
    if kind == "parametricSoftplus":
        alpha = _per_channel(weights(a.parametricSoftplus.alpha, None, "alpha"), x, L, "alpha")
        beta = _per_channel(weights(a.parametricSoftplus.beta, None, "beta"), x, L, "beta")
        return (alpha * np.logaddexp(0, beta * x.astype(np.float64))).astype(F32)
    raise NotImplementedError("layer '%s': activation '%s' is not implemented" % (L.name, kind))


@layer_impl("activation")
def _activation_layer(net, L, p, xs):
    return _activation(xs[0], p, L)


@layer_impl("clip")
def _clip(net, L, p, xs):
    # output = min(max(input, minVal), maxVal)
    return np.minimum(np.maximum(xs[0], p.minVal), p.maxVal).astype(F32)


@layer_impl("clampedReLU")
def _clamped_relu(net, L, p, xs):
    x = xs[0]
    return np.where(x >= 0, np.minimum(p.beta, x), np.minimum(p.beta, p.alpha * x)).astype(F32)


# --- Inner product, embedding, batched matmul ------------------------------------------------

@layer_impl("innerProduct")
def _inner_product(net, L, p, xs):
    x = xs[0]
    Cin, Cout = int(p.inputChannels), int(p.outputChannels)
    # weights: Weight matrix [C_out, C_in]
    Wt = weights(p.weights, Cin * Cout, "layer '%s' weights" % L.name).reshape(Cout, Cin).astype(np.float64)
    s, r = x.shape, x.ndim
    # InnerProductLayerParams: how each rank is reshaped into a matrix, and the output shape.
    if r == 1:
        m, out_shape = x.reshape(1, s[0]), (Cout,)
    elif r == 2:
        m, out_shape = x, (s[0], Cout)
    elif r == 3:
        m, out_shape = x.reshape(s[0] * s[1], s[2]), (s[0], s[1], Cout)
    elif r == 4:
        m, out_shape = x.reshape(s[0], s[1] * s[2] * s[3]), (s[0], Cout, 1, 1)
    elif r == 5:
        m, out_shape = x.reshape(s[0] * s[1], s[2] * s[3] * s[4]), (s[0], s[1], Cout, 1, 1)
    else:
        raise ValueError("layer '%s': innerProduct input rank %d not in 1...5" % (L.name, r))
    if m.shape[1] != Cin:
        raise ValueError("layer '%s': input %s has %d features, inputChannels is %d"
                         % (L.name, list(s), m.shape[1], Cin))
    y = m.astype(np.float64) @ Wt.T
    if p.hasBias:
        y = y + weights(p.bias, Cout, "layer '%s' bias" % L.name).astype(np.float64)
    return y.astype(F32).reshape(out_shape)


@layer_impl("embedding")
def _embedding(net, L, p, xs):
    x = xs[0]
    V, Cout = int(p.inputDim), int(p.outputChannels)
    Wt = weights(p.weights, V * Cout, "layer '%s' weights" % L.name).reshape(Cout, V)
    if x.ndim not in (4, 5) or any(d != 1 for d in x.shape[-3:]):
        raise ValueError("layer '%s': embedding input must be rank 4/5 with last 3 dims 1" % L.name)
    idx = _to_int(x.reshape(-1))
    y = Wt[:, idx].T
    if p.hasBias:
        y = y + weights(p.bias, Cout, "bias")
    return y.astype(F32).reshape(x.shape[:-3] + (Cout, 1, 1))


@layer_impl("embeddingND")
def _embedding_nd(net, L, p, xs):
    x = xs[0]
    V, E = int(p.vocabSize), int(p.embeddingSize)
    Wt = weights(p.weights, V * E, "layer '%s' weights" % L.name).reshape(E, V)   # [embeddingSize, vocabSize]
    if x.ndim < 2 or x.shape[-1] != 1:
        raise ValueError("layer '%s': embeddingND input must have rank >= 2 and last dim 1" % L.name)
    y = Wt[:, _to_int(x.reshape(-1))].T
    if p.hasBias:
        y = y + weights(p.bias, E, "bias")
    return y.astype(F32).reshape(x.shape[:-1] + (E,))


@layer_impl("batchedMatmul")
def _batched_matmul(net, L, p, xs):
    a = xs[0].astype(np.float64)
    if len(xs) == 1:
        X1, X2 = int(p.weightMatrixFirstDimension), int(p.weightMatrixSecondDimension)
        # "Weight matrix representing shape [X1, X2]. Values are however stored in column
        # major order": element (i, j) is at i + j * X1.
        Wt = weights(p.weights, X1 * X2, "layer '%s' weights" % L.name).reshape(X2, X1).T.astype(np.float64)
        if a.shape[-1] != X1:
            raise ValueError("layer '%s': input last dim %d != X1 %d" % (L.name, a.shape[-1], X1))
        y = a.reshape(-1, X1) @ Wt
        if p.hasBias:
            y = y + weights(p.bias, X2, "bias").astype(np.float64)
        return y.astype(F32).reshape(a.shape[:-1] + (X2,))
    b = xs[1].astype(np.float64)
    # "If the first tensor is 1-D ... (D) -> (1,D)"; "If the second ... (D) -> (D,1)";
    # output rank max(2, rank(a), rank(b)) (so the added unit dims stay).
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if b.ndim == 1:
        b = b.reshape(-1, 1)
    if p.transposeA:
        a = np.swapaxes(a, -1, -2)
    if p.transposeB:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b).astype(F32)


# --- Normalisation ---------------------------------------------------------------------------

@layer_impl("batchnorm")
def _batchnorm(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    C = int(p.channels)
    if x.shape[-3] != C:
        raise ValueError("layer '%s': %d channels, batchnorm has %d" % (L.name, x.shape[-3], C))
    eps = p.epsilon or 1e-5                                  # "Defaults to 1e-5 if not set or 0"
    gamma = weights(p.gamma, C, "gamma").astype(np.float64).reshape(C, 1, 1)
    beta = weights(p.beta, C, "beta").astype(np.float64).reshape(C, 1, 1)
    x64 = x.astype(np.float64)
    if p.computeMeanVar:
        if p.instanceNormalization:    # per instance: over H, W
            axes = (-2, -1)
        else:                          # over the whole batch: every axis but C
            axes = tuple(range(x.ndim - 3)) + (-2, -1)
        mean = x64.mean(axis=axes, keepdims=True)
        var = x64.var(axis=axes, keepdims=True)
    else:
        mean = weights(p.mean, C, "mean").astype(np.float64).reshape(C, 1, 1)
        var = weights(p.variance, C, "variance").astype(np.float64).reshape(C, 1, 1)
    return (gamma * (x64 - mean) / np.sqrt(var + eps) + beta).astype(F32)


@layer_impl("mvn")
def _mvn(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    eps = p.epsilon or 1e-6
    axes = (-3, -2, -1) if p.acrossChannels else (-2, -1)
    x64 = x.astype(np.float64)
    y = x64 - x64.mean(axis=axes, keepdims=True)
    if p.normalizeVariance:
        # AMBIGUOUS: the formula is not given; (x - mean) / sqrt(var + epsilon).
        y = y / np.sqrt(x64.var(axis=axes, keepdims=True) + eps)
    return y.astype(F32)


@layer_impl("l2normalize")
def _l2normalize(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    eps = p.epsilon or 1e-6
    x64 = x.astype(np.float64)
    return (x64 / np.sqrt(np.sum(x64 * x64, axis=(-3, -2, -1), keepdims=True) + eps)).astype(F32)


@layer_impl("lrn")
def _lrn(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    n = int(p.localSize)
    k = p.k or 1.0                                            # "Defaults to 1 if not set or 0"
    x64 = x.astype(np.float64)
    sq = x64 * x64
    C = x.shape[-3]
    before = (n - 1) // 2  # window of localSize channels around each channel
    acc = np.zeros_like(sq)
    for c in range(C):
        lo, hi = max(0, c - before), min(C, c - before + n)
        acc[..., c, :, :] = sq[..., lo:hi, :, :].sum(axis=-3)
    return (x64 / np.power(k + p.alpha / n * acc, p.beta)).astype(F32)


@layer_impl("layerNormalization")
def _layer_norm(net, L, p, xs):
    x = xs[0]
    shape = [int(v) for v in p.normalizedShape]
    if list(x.shape[x.ndim - len(shape):]) != shape:
        raise ValueError("layer '%s': normalizedShape %s does not end the input shape %s" % (L.name, shape, list(x.shape)))
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    n = int(np.prod(shape))
    gamma = weights(p.gamma, n, "gamma").reshape(shape).astype(np.float64)
    beta = weights(p.beta, n, "beta").reshape(shape).astype(np.float64)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = x64.var(axis=axes, keepdims=True)
    return (gamma * (x64 - mean) / np.sqrt(var + p.eps) + beta).astype(F32)


@layer_impl("softmax")
def _softmax_layer(net, L, p, xs):
    _need_rank(xs[0], 3, L)
    return _softmax(xs[0], -3)                               # "along axis = -3"


@layer_impl("softmaxND")
def _softmax_nd(net, L, p, xs):
    return _softmax(xs[0], _axis(p.axis, xs[0].ndim))


# --- Scale, bias, constants ------------------------------------------------------------------

def _chw_param(shape, values, x, L, what):
    """A parameter of shape [1], [C], [1, H, W] or [C, H, W], broadcast over the input's last
    three axes (ScaleLayerParams, BiasLayerParams)."""
    shape = [int(v) for v in shape]
    if int(np.prod(shape)) != values.size:
        raise ValueError("layer '%s': %s shape %s has %d values" % (L.name, what, shape, values.size))
    if shape == [1] or not shape:
        return values.reshape(())
    _need_rank(x, 3, L)
    if len(shape) == 1:
        return values.reshape(shape[0], 1, 1)
    if len(shape) == 3:
        return values.reshape(shape)
    raise ValueError("layer '%s': %s shape must be [1], [C], [1,H,W] or [C,H,W], is %s" % (L.name, what, shape))


@layer_impl("scale")
def _scale(net, L, p, xs):
    x = xs[0]
    s = _chw_param(p.shapeScale, weights(p.scale, None, "scale"), x, L, "scale")
    y = x * s
    if p.hasBias:
        y = y + _chw_param(p.shapeBias, weights(p.bias, None, "bias"), x, L, "bias")
    return _f32(y)


@layer_impl("bias")
def _bias(net, L, p, xs):
    x = xs[0]
    return _f32(x + _chw_param(p.shape, weights(p.bias, None, "bias"), x, L, "bias"))


@layer_impl("loadConstant")
def _load_constant(net, L, p, xs):
    shape = [int(v) for v in p.shape]
    if len(shape) != 3:
        raise ValueError("layer '%s': loadConstant shape must be [C, H, W]" % L.name)
    # Output: "A blob with rank 5 and shape [1, 1, C, H, W]"
    return weights(p.data, int(np.prod(shape)), "data").reshape([1, 1] + shape)


@layer_impl("loadConstantND")
def _load_constant_nd(net, L, p, xs):
    shape = [int(v) for v in p.shape]
    return weights(p.data, int(np.prod(shape)), "data").reshape(shape)


# --- Legacy element-wise (AddLayerParams, MultiplyLayerParams, Average/Max/Min) --------------

@layer_impl("add")
def _add(net, L, p, xs):
    if len(xs) == 1:
        return _f32(xs[0] + p.alpha)                         # y = x + alpha (single input)
    return _f32(np.sum(_broadcast_all(xs), axis=0))


@layer_impl("multiply")
def _multiply(net, L, p, xs):
    if len(xs) == 1:
        return _f32(p.alpha * xs[0])                          # y = alpha * x (single input)
    out = xs[0]
    for x in xs[1:]:
        out = out * x
    return _f32(out)


@layer_impl("average")
def _average(net, L, p, xs):
    return _f32(np.mean(np.stack(_broadcast_all(xs)).astype(np.float64), axis=0))


@layer_impl("max")
def _max(net, L, p, xs):
    return _f32(np.max(np.stack(_broadcast_all(xs)), axis=0))


@layer_impl("min")
def _min(net, L, p, xs):
    return _f32(np.min(np.stack(_broadcast_all(xs)), axis=0))


@layer_impl("dot")
def _dot(net, L, p, xs):
    a, b = xs[0].astype(np.float64), xs[1].astype(np.float64)
    _need_rank(a, 3, L)
    if p.cosineSimilarity:
        a = a / np.sqrt(np.sum(a * a, axis=(-3, -2, -1), keepdims=True))
        b = b / np.sqrt(np.sum(b * b, axis=(-3, -2, -1), keepdims=True))
    return _f32(np.sum(a * b, axis=(-3, -2, -1), keepdims=True))


# --- Unary (UnaryFunctionLayerParams) and element-wise unary ND layers -----------------------

@layer_impl("unary")
def _unary(net, L, p, xs):
    U = NN_pb2.UnaryFunctionLayerParams
    scale = p.scale or 1.0                                   # "Defaults to 1.0 if not set or 0"
    eps = p.epsilon or 1e-6                                   # "Defaults to 1e-6 if not set or 0"
    x = (scale * xs[0].astype(np.float64) + p.shift)          # x <- scale * x + shift
    t = p.type
    with np.errstate(divide="ignore", invalid="ignore"):
        if t == U.SQRT:
            y = np.sqrt(x)
        elif t == U.RSQRT:
            y = 1.0 / np.sqrt(x + eps)
        elif t == U.INVERSE:
            y = 1.0 / (x + eps)
        elif t == U.POWER:
            y = np.power(x, p.alpha)
        elif t == U.EXP:
            y = np.exp(x)
        elif t == U.LOG:
            y = np.log(x)
        elif t == U.ABS:
            y = np.abs(x)
        elif t == U.THRESHOLD:
            y = np.maximum(p.alpha, x)
        else:
            raise NotImplementedError("layer '%s': unary type %d" % (L.name, t))
    return y.astype(F32)


_ELEMENTWISE = {
    "ceil": np.ceil, "floor": np.floor, "sign": np.sign, "round": _round_half_away,
    "exp2": np.exp2,
    "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "erf": _erf,
}


def _make_elementwise(fn):
    def run(net, L, p, xs):
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return _f32(fn(_f32(xs[0])))
    return run


for _name, _fn in _ELEMENTWISE.items():
    LAYERS[_name] = _make_elementwise(_fn)


@layer_impl("gelu")
def _gelu(net, L, p, xs):
    x = xs[0].astype(np.float64)
    G = NN_pb2.GeluLayerParams
    if p.mode == G.TANH_APPROXIMATION:
        y = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    elif p.mode == G.SIGMOID_APPROXIMATION:
        y = x / (1 + np.exp(-1.702 * x))
    else:
        y = 0.5 * x * (1 + _erf(x / math.sqrt(2)).astype(np.float64))
    return _f32(y)


# --- Broadcastable binary, comparison, logical, where ----------------------------------------

def _binary(fn):
    def run(net, L, p, xs):
        if len(xs) != 2:
            raise ValueError("layer '%s' requires 2 inputs" % L.name)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return _f32(fn(xs[0].astype(np.float64), xs[1].astype(np.float64)))
    return run


LAYERS.update({
    "addBroadcastable": _binary(np.add),
    "subtractBroadcastable": _binary(np.subtract),
    "multiplyBroadcastable": _binary(np.multiply),
    "divideBroadcastable": _binary(np.divide),
    "maxBroadcastable": _binary(np.maximum),
    "minBroadcastable": _binary(np.minimum),
    "powBroadcastable": _binary(np.power),
    "floorDivBroadcastable": _binary(lambda a, b: np.floor(a / b)),
    # AMBIGUOUS: "modular operation" -- floor modulo (result has the divisor's sign).
    "modBroadcastable": _binary(np.mod),
})


def _comparison(fn):
    # "Either 1 or 2 inputs ... y = x1 > x2, or y = x1 > alpha if only one input";
    # output 1.0 if true else 0.0; broadcasting supported.
    def run(net, L, p, xs):
        other = xs[1] if len(xs) > 1 else F32(p.alpha)
        return fn(xs[0], other).astype(F32)
    return run


LAYERS.update({
    "greaterThan": _comparison(np.greater),
    "greaterEqual": _comparison(np.greater_equal),
    "lessThan": _comparison(np.less),
    "lessEqual": _comparison(np.less_equal),
    "equal": _comparison(np.equal),
    "notEqual": _comparison(np.not_equal),
})


def _logical(fn):
    # "Input is considered False if equal to 0.0f otherwise True."
    def run(net, L, p, xs):
        return fn(*[x != 0 for x in xs]).astype(F32)
    return run


LAYERS.update({
    "logicalAnd": _logical(np.logical_and),
    "logicalOr": _logical(np.logical_or),
    "logicalXor": _logical(np.logical_xor),
    "logicalNot": _logical(np.logical_not),
})


@layer_impl("whereBroadcastable")
def _where(net, L, p, xs):
    c, a, b = xs
    return np.where(c != 0, a, b).astype(F32)


# --- Reductions ------------------------------------------------------------------------------

@layer_impl("reduce")
def _reduce_legacy(net, L, p, xs):
    R = NN_pb2.ReduceLayerParams
    x = xs[0].astype(np.float64)
    axes = {R.CHW: (-3, -2, -1), R.HW: (-2, -1), R.C: (-3,), R.H: (-2,), R.W: (-1,)}[p.axis]
    _need_rank(x, len(axes), L)
    m = p.mode
    eps = p.epsilon or 1e-6
    if m == R.ARGMAX:
        if len(axes) != 1:
            raise ValueError("layer '%s': ARGMAX needs a single axis" % L.name)
        return _f32(np.expand_dims(np.argmax(x, axis=axes[0]), axes[0]))
    fns = {
        R.SUM: lambda v: np.sum(v, axis=axes, keepdims=True),
        R.AVG: lambda v: np.mean(v, axis=axes, keepdims=True),
        R.PROD: lambda v: np.prod(v, axis=axes, keepdims=True),
        R.LOGSUM: lambda v: np.sum(np.log(v + eps), axis=axes, keepdims=True),
        R.SUMSQUARE: lambda v: np.sum(v * v, axis=axes, keepdims=True),
        R.L1: lambda v: np.sum(np.abs(v), axis=axes, keepdims=True),
        R.L2: lambda v: np.sqrt(np.sum(v * v, axis=axes, keepdims=True)),
        R.MAX: lambda v: np.max(v, axis=axes, keepdims=True),
        R.MIN: lambda v: np.min(v, axis=axes, keepdims=True),
    }
    with np.errstate(divide="ignore", invalid="ignore"):
        return _f32(fns[m](x))


def _reduce_nd(fn):
    def run(net, L, p, xs):
        x = xs[0].astype(np.float64)
        if p.reduceAll or not len(p.axes):
            # AMBIGUOUS: no axes and no reduceAll is taken as reduceAll.
            axes = tuple(range(x.ndim))
        else:
            axes = tuple(sorted(set(_axis(a, x.ndim) for a in p.axes)))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            y = fn(x, axes)
        if not p.keepDims:
            y = np.squeeze(y, axis=axes)
            if y.ndim == 0:
                y = y.reshape(1)   # AMBIGUOUS: a full reduction without keepDims gives [1]
        return _f32(y)
    return run


LAYERS.update({
    "reduceSum": _reduce_nd(lambda x, a: np.sum(x, axis=a, keepdims=True)),
    "reduceMean": _reduce_nd(lambda x, a: np.mean(x, axis=a, keepdims=True)),
    "reduceProd": _reduce_nd(lambda x, a: np.prod(x, axis=a, keepdims=True)),
    "reduceMax": _reduce_nd(lambda x, a: np.max(x, axis=a, keepdims=True)),
    "reduceMin": _reduce_nd(lambda x, a: np.min(x, axis=a, keepdims=True)),
    "reduceL1": _reduce_nd(lambda x, a: np.sum(np.abs(x), axis=a, keepdims=True)),
    "reduceL2": _reduce_nd(lambda x, a: np.sqrt(np.sum(x * x, axis=a, keepdims=True))),
    "reduceSumSquare": _reduce_nd(lambda x, a: np.sum(x * x, axis=a, keepdims=True)),
    "reduceLogSum": _reduce_nd(lambda x, a: np.log(np.sum(x, axis=a, keepdims=True))),
    "reduceLogSumExp": _reduce_nd(lambda x, a: np.log(np.sum(np.exp(x - np.max(x, axis=a, keepdims=True)),
                                                            axis=a, keepdims=True)) + np.max(x, axis=a, keepdims=True)),
})


@layer_impl("argMax", "argMin")
def _arg_max_min(net, L, p, xs):
    x = xs[0]
    a = _axis(p.axis, x.ndim)
    y = (np.argmax if L.WhichOneof("layer") == "argMax" else np.argmin)(x, axis=a)
    if not p.removeDim or x.ndim == 1:
        y = np.expand_dims(y, a)
    return _f32(y)


@layer_impl("topK")
def _topk(net, L, p, xs):
    x = xs[0]
    a = _axis(p.axis, x.ndim)
    k = int(np.asarray(xs[1]).ravel()[0]) if len(xs) > 1 else int(p.K)
    keys = x if p.useBottomK else -x
    idx = np.argsort(keys, axis=a, kind="stable")
    idx = np.take(idx, np.arange(k), axis=a)
    return [_f32(np.take_along_axis(x, idx, axis=a)), _f32(idx)]


@layer_impl("argSort")
def _argsort(net, L, p, xs):
    x = xs[0]
    a = _axis(p.axis, x.ndim)
    return _f32(np.argsort(-x if p.descending else x, axis=a, kind="stable"))


@layer_impl("cumSum")
def _cumsum(net, L, p, xs):
    x = xs[0].astype(np.float64)
    a = _axis(int(np.asarray(xs[1]).ravel()[0]) if len(xs) > 1 else p.axis, x.ndim)
    if p.reverse:
        x = np.flip(x, a)
    y = np.cumsum(x, axis=a)
    if p.excludeFinalSum:
        y = y - x
    if p.reverse:
        y = np.flip(y, a)
    return _f32(y)


# --- Data reorganisation (legacy) -------------------------------------------------------------

@layer_impl("concat")
def _concat(net, L, p, xs):
    # along axis -3, or -5 if sequenceConcat
    axis = -5 if p.sequenceConcat else -3
    for x in xs:
        _need_rank(x, -axis, L)
    return _f32(np.concatenate(xs, axis=axis))


@layer_impl("split")
def _split(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    n = int(p.nOutputs) or len(L.output)
    if x.shape[-3] % n:
        raise ValueError("layer '%s': %d channels not divisible into %d outputs" % (L.name, x.shape[-3], n))
    return [_f32(v) for v in np.split(x, n, axis=-3)]


@layer_impl("crop")
def _crop(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    H, W = x.shape[-2:]
    if len(xs) == 1:
        t, b, l, r = _border(p.cropAmounts)
        # y = x1[:, top:H_in - bottom, left:W_in - right]
        y = x[..., t:H - b, l:W - r]
    else:
        ref = xs[1]
        if ref.ndim != x.ndim:
            raise ValueError("layer '%s': crop inputs must have equal rank" % L.name)
        oh, ow = _pair(p.offset, (0, 0))
        Ho, Wo = ref.shape[-2:]
        # y = x1[:, offset[0]:offset[0] + H_out, offset[1]:offset[1] + W_out]
        if oh + Ho > H or ow + Wo > W:
            raise ValueError("layer '%s': crop window outside the input" % L.name)
        y = x[..., oh:oh + Ho, ow:ow + Wo]
    if y.size == 0:
        raise ValueError("layer '%s': crop leaves an empty blob" % L.name)
    return _f32(y)


@layer_impl("padding")
def _padding(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 2, L)
    t, b, l, r = _border(p.paddingAmounts)
    widths = [(0, 0)] * (x.ndim - 2) + [(t, b), (l, r)]
    kind = p.WhichOneof("PaddingType")
    if kind == "reflection":
        return _f32(np.pad(x, widths, mode="reflect"))
    if kind == "replication":
        return _f32(np.pad(x, widths, mode="edge"))
    value = p.constant.value if kind == "constant" else 0.0
    return _f32(np.pad(x, widths, mode="constant", constant_values=value))


@layer_impl("flatten")
def _flatten(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    if p.mode == NN_pb2.FlattenLayerParams.CHANNEL_LAST:
        x = np.moveaxis(x, -3, -1)   # [.., C, H, W] -> [.., H, W, C]
    # output [.., C*H*W, 1, 1]
    return _f32(x.reshape(x.shape[:-3] + (-1, 1, 1)))


@layer_impl("reshape")
def _reshape_legacy(net, L, p, xs):
    x = xs[0]
    if x.ndim < 5:
        x = x.reshape((1,) * (5 - x.ndim) + x.shape)
    if x.ndim != 5:
        raise ValueError("layer '%s': reshape needs a rank 5 input" % L.name)
    S, B = x.shape[:2]
    target = [int(v) for v in p.targetShape]
    if len(target) == 3:
        # "[1, 1, C_out, H_out, W_out], and sequence length of the input is preserved"
        out_items = (S, B)
    elif len(target) == 4:
        out_items = (target[0], -1)
        target = target[1:]
    else:
        raise ValueError("layer '%s': targetShape must have length 3 or 4" % L.name)
    if p.mode == NN_pb2.ReshapeLayerParams.CHANNEL_LAST:
        # flatten in H, W, C order, reshape to [H_out, W_out, C_out], permute to C, H, W
        flat = np.moveaxis(x, 2, -1).reshape(S, B, -1)
        C, Ho, Wo = target
        y = flat.reshape(out_items + (Ho, Wo, C))
        y = np.moveaxis(y, -1, 2)
    else:
        y = x.reshape(out_items + tuple(target))
    return _f32(y)


@layer_impl("permute")
def _permute(net, L, p, xs):
    x = xs[0]
    if x.ndim != 5:
        raise ValueError("layer '%s': permute needs a rank 5 input [Seq, B, C, H, W]" % L.name)
    axis = [int(a) for a in p.axis] or [0, 1, 2, 3]
    if sorted(axis) != [0, 1, 2, 3]:
        raise ValueError("layer '%s': axis must be a permutation of [0, 1, 2, 3]" % L.name)
    # axis indexes [Seq, C, H, W]; the batch axis (1) is unchanged.
    blob_axis = [0, 2, 3, 4]
    perm = [blob_axis[axis[0]], 1] + [blob_axis[a] for a in axis[1:]]
    return _f32(np.transpose(x, perm))


@layer_impl("reorganizeData")
def _reorganize(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    R = NN_pb2.ReorganizeDataLayerParams
    bs = int(p.blockSize)
    lead, (C, H, W) = x.shape[:-3], x.shape[-3:]
    x = x.reshape((-1, C, H, W))
    N = x.shape[0]
    if p.mode == R.SPACE_TO_DEPTH:
        # inverse of DEPTH_TO_SPACE: output channel (i * bs + j) * C + c
        y = x.reshape(N, C, H // bs, bs, W // bs, bs).transpose(0, 3, 5, 1, 2, 4)
        y = y.reshape(N, C * bs * bs, H // bs, W // bs)
    elif p.mode == R.DEPTH_TO_SPACE:
        # from the documented example: out[c, h*bs+i, w*bs+j] = in[(i*bs + j)*C_out + c, h, w]
        Co = C // (bs * bs)
        y = x.reshape(N, bs, bs, Co, H, W).transpose(0, 3, 4, 1, 5, 2).reshape(N, Co, H * bs, W * bs)
    else:  # PIXEL_SHUFFLE: out[c, h*bs+i, w*bs+j] = in[c*bs*bs + i*bs + j, h, w]
        Co = C // (bs * bs)
        y = x.reshape(N, Co, bs, bs, H, W).transpose(0, 1, 4, 2, 5, 3).reshape(N, Co, H * bs, W * bs)
    return _f32(y.reshape(lead + y.shape[1:]))


@layer_impl("slice")
def _slice_legacy(net, L, p, xs):
    x = xs[0]
    axis = {0: -3, 1: -2, 2: -1}[p.axis]       # CHANNEL_AXIS, HEIGHT_AXIS, WIDTH_AXIS
    _need_rank(x, -axis, L)
    stride = int(p.stride) or 1
    # [startIndex, endIndex) with negative indexing: AMBIGUOUS for endIndex -1/0; python
    # slicing as the doc states ("-1 denotes N-1", end exclusive).
    index = [slice(None)] * x.ndim
    index[axis] = slice(int(p.startIndex), int(p.endIndex), stride)
    y = x[tuple(index)]
    if y.size == 0:
        raise ValueError("layer '%s': slice [%d:%d:%d] is empty" % (L.name, p.startIndex, p.endIndex, stride))
    return _f32(y)


@layer_impl("sequenceRepeat")
def _sequence_repeat(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 5, L)
    n = int(p.nRepetitions) or 1
    reps = [1] * x.ndim
    reps[-5] = n
    return _f32(np.tile(x, reps))


# --- ND data reorganisation ------------------------------------------------------------------

@layer_impl("copy")
def _copy(net, L, p, xs):
    return _f32(xs[0]).copy()


@layer_impl("transpose")
def _transpose(net, L, p, xs):
    axes = [int(a) for a in p.axes]
    if sorted(axes) != list(range(xs[0].ndim)):
        raise ValueError("layer '%s': axes %s is not a permutation for rank %d" % (L.name, axes, xs[0].ndim))
    return _f32(np.transpose(xs[0], axes))


@layer_impl("concatND")
def _concat_nd(net, L, p, xs):
    a = _axis(p.axis, xs[0].ndim)
    if p.interleave:
        stacked = np.stack(xs, axis=a + 1)
        shape = list(xs[0].shape)
        shape[a] *= len(xs)
        return _f32(stacked.reshape(shape))
    return _f32(np.concatenate(xs, axis=a))


@layer_impl("splitND")
def _split_nd(net, L, p, xs):
    x = xs[0]
    a = _axis(p.axis, x.ndim)
    if len(p.splitSizes):
        cuts = np.cumsum([int(s) for s in p.splitSizes])[:-1]
        parts = np.split(x, cuts, axis=a)
    else:
        parts = np.split(x, int(p.numSplits) or len(L.output), axis=a)
    return [_f32(v) for v in parts]


@layer_impl("stack")
def _stack(net, L, p, xs):
    return _f32(np.stack(xs, axis=_axis(p.axis, xs[0].ndim + 1)))


@layer_impl("sliceStatic")
def _slice_static(net, L, p, xs):
    x = xs[0]
    return _slice_nd(L, x, list(p.beginIds), list(p.beginMasks), list(p.endIds), list(p.endMasks),
                     list(p.strides), list(p.squeezeMasks))


@layer_impl("sliceDynamic")
def _slice_dynamic(net, L, p, xs):
    x = xs[0]

    def given(i, default):
        return [int(v) for v in np.asarray(xs[i]).ravel()] if len(xs) > i else list(default)
    begin = given(1, [])
    end = given(2, p.endIds)
    strides = given(3, p.strides)
    bm = [bool(v) for v in given(4, p.beginMasks)]
    em = [bool(v) for v in given(5, p.endMasks)]
    sm = [bool(v) for v in given(6, p.squeezeMasks)]
    return _slice_nd(L, x, begin, bm, end, em, strides, sm)


def _slice_nd(L, x, begin, begin_masks, end, end_masks, strides, squeeze_masks):
    r = x.ndim
    begin_masks = begin_masks or [False] * r
    end_masks = end_masks or [False] * r
    squeeze_masks = squeeze_masks or [False] * r
    strides = strides or [1] * r
    for name, v in (("beginIds", begin), ("endIds", end), ("strides", strides),
                    ("beginMasks", begin_masks), ("endMasks", end_masks), ("squeezeMasks", squeeze_masks)):
        if len(v) != r:
            raise ValueError("layer '%s': %s has length %d, input rank is %d" % (L.name, name, len(v), r))
    index, squeeze = [], []
    for i in range(r):
        if squeeze_masks[i]:
            # "only beginIds[i] would be sliced out, and all other masks and inputs are ignored"
            index.append(slice(int(begin[i]), (int(begin[i]) + 1) or None, 1))
            squeeze.append(i)
            continue
        s = int(strides[i]) or 1
        b = None if begin_masks[i] else int(begin[i])        # masked begin: from the start
        e = None if end_masks[i] else int(end[i])            # masked end: to the end
        index.append(slice(b, e, s))
    y = x[tuple(index)]
    if squeeze:
        y = np.squeeze(y, axis=tuple(squeeze))
        if y.ndim == 0:
            y = y.reshape(1)
    if y.size == 0:
        raise ValueError("layer '%s': slice is empty" % L.name)
    return _f32(y)


@layer_impl("sliceBySize")
def _slice_by_size(net, L, p, xs):
    x = xs[0]
    a = _axis(p.axis, x.ndim)
    begin = int(np.asarray(xs[1]).ravel()[0])
    index = [slice(None)] * x.ndim
    index[a] = slice(begin, begin + int(p.size))
    return _f32(x[tuple(index)])


def _target_shape(shape, size, L):
    shape = [int(v) for v in shape]
    if shape.count(-1) > 1:
        raise ValueError("layer '%s': more than one -1 in target shape %s" % (L.name, shape))
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        shape[shape.index(-1)] = size // known if known else 0
    if int(np.prod(shape)) != size:
        raise ValueError("layer '%s': cannot reshape %d values to %s" % (L.name, size, shape))
    return shape


@layer_impl("reshapeStatic")
def _reshape_static(net, L, p, xs):
    return _f32(xs[0].reshape(_target_shape(p.targetShape, xs[0].size, L)))


@layer_impl("reshapeLike")
def _reshape_like(net, L, p, xs):
    return _f32(xs[0].reshape(xs[1].shape))


@layer_impl("reshapeDynamic")
def _reshape_dynamic(net, L, p, xs):
    return _f32(xs[0].reshape(_target_shape(_to_int(xs[1]).ravel(), xs[0].size, L)))


@layer_impl("rankPreservingReshape")
def _rank_preserving_reshape(net, L, p, xs):
    x = xs[0]
    target = [int(v) for v in p.targetShape]
    if len(target) != x.ndim:
        raise ValueError("layer '%s': targetShape length must equal the input rank" % L.name)
    # "It can have 0's, in which case the corresponding input dimension is kept intact."
    target = [x.shape[i] if d == 0 else d for i, d in enumerate(target)]
    return _f32(x.reshape(_target_shape(target, x.size, L)))


@layer_impl("flattenTo2D")
def _flatten_to_2d(net, L, p, xs):
    x = xs[0]
    a = int(p.axis)
    a = a + x.ndim if a < 0 else a
    if not 0 <= a <= x.ndim:
        raise ValueError("layer '%s': axis %d out of range" % (L.name, p.axis))
    # first dim: product of input[:axis]; second: product of input[axis:]
    return _f32(x.reshape(int(np.prod(x.shape[:a])), int(np.prod(x.shape[a:]))))


@layer_impl("squeeze")
def _squeeze(net, L, p, xs):
    x = xs[0]
    if p.squeezeAll:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = tuple(sorted(set(_axis(a, x.ndim) for a in p.axes)))
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError("layer '%s': cannot squeeze axis %d of size %d" % (L.name, a, x.shape[a]))
    y = np.squeeze(x, axis=axes)
    return _f32(y.reshape(1) if y.ndim == 0 else y)   # "If input rank is 1, output rank is also 1."


@layer_impl("expandDims")
def _expand_dims(net, L, p, xs):
    x = xs[0]
    out_rank = x.ndim + len(p.axes)
    # axes index the output tensor ("Axis values provided here get dimension 1 in the output")
    axes = sorted(_axis(a, out_rank) for a in p.axes)
    y = x
    for a in axes:
        y = np.expand_dims(y, a)
    return _f32(y)


@layer_impl("tile")
def _tile(net, L, p, xs):
    x = xs[0]
    reps = [int(v) for v in (np.asarray(xs[1]).ravel() if len(xs) > 1 else p.reps)]
    reps = [1] * (x.ndim - len(reps)) + reps   # "made equal to the input rank by prepending 1's"
    return _f32(np.tile(x, reps))


@layer_impl("constantPad")
def _constant_pad(net, L, p, xs):
    x = xs[0]
    amounts = [int(v) for v in (np.asarray(xs[1]).ravel() if len(xs) > 1 else p.padAmounts)]
    if len(amounts) != 2 * x.ndim:
        raise ValueError("layer '%s': padAmounts must have length 2 * rank" % L.name)
    widths = []
    for i in range(x.ndim):
        before, after = amounts[2 * i], amounts[2 * i + 1]
        if p.padToGivenOutputSizeMode:
            # "positive values in padAmounts are equivalent to the output shape"
            before = max(0, before - x.shape[i]) if before else 0
            after = max(0, after - x.shape[i]) if after else 0
        widths.append((before, after))
    return _f32(np.pad(x, widths, mode="constant", constant_values=p.value))


@layer_impl("reverse")
def _reverse(net, L, p, xs):
    x = xs[0]
    dims = list(p.reverseDim)
    if len(dims) != x.ndim:
        raise ValueError("layer '%s': reverseDim length must equal the input rank" % L.name)
    return _f32(np.flip(x, axis=tuple(i for i, d in enumerate(dims) if d)))


@layer_impl("reverseSeq")
def _reverse_seq(net, L, p, xs):
    x, lengths = xs[0], _to_int(xs[1]).ravel()
    ba, sa = _axis(p.batchAxis, x.ndim), _axis(p.sequenceAxis, x.ndim)
    y = x.copy()
    for bi, n in enumerate(lengths):
        src = [slice(None)] * x.ndim
        src[ba] = bi
        src[sa] = slice(0, n)
        dst_view = y[tuple(src)]
        y[tuple(src)] = np.flip(dst_view, axis=sa - (1 if ba < sa else 0))
    return _f32(y)


@layer_impl("slidingWindows")
def _sliding_windows(net, L, p, xs):
    x = xs[0]
    a = _axis(p.axis, x.ndim)
    Wn, step = int(p.windowSize), int(p.step) or 1
    M = (x.shape[a] - Wn) // step + 1
    windows = [np.take(x, np.arange(m * step, m * step + Wn), axis=a) for m in range(M)]
    return _f32(np.stack(windows, axis=a))


@layer_impl("gather")
def _gather(net, L, p, xs):
    data, idx = xs[0], _to_int(xs[1])
    return _f32(np.take(data, idx, axis=_axis(p.axis, data.ndim)))


@layer_impl("gatherAlongAxis")
def _gather_along_axis(net, L, p, xs):
    data, idx = xs[0], _to_int(xs[1])
    a = _axis(p.axis, data.ndim)
    idx = np.where(idx < 0, idx + data.shape[a], idx)
    return _f32(np.take_along_axis(data, idx, axis=a))


@layer_impl("gatherND")
def _gather_nd(net, L, p, xs):
    data, idx = xs[0], _to_int(xs[1])
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    out = np.stack([data[tuple(row)] for row in flat])
    return _f32(out.reshape(idx.shape[:-1] + data.shape[k:]))


_SCATTER = {
    NN_pb2.SCATTER_UPDATE: lambda old, new: new,
    NN_pb2.SCATTER_ADD: np.add, NN_pb2.SCATTER_SUB: np.subtract,
    NN_pb2.SCATTER_MUL: np.multiply, NN_pb2.SCATTER_DIV: np.divide,
    NN_pb2.SCATTER_MAX: np.maximum, NN_pb2.SCATTER_MIN: np.minimum,
}


@layer_impl("scatter")
def _scatter(net, L, p, xs):
    data, idx, updates = xs[0].copy(), _to_int(xs[1]), xs[2]
    a = _axis(p.axis, data.ndim)
    op = _SCATTER[p.mode]
    moved = np.moveaxis(data, a, 0)                           # view on data
    ri = idx.ndim
    upd = np.moveaxis(updates, list(range(a, a + ri)), list(range(ri)))
    for pos in np.ndindex(*idx.shape):
        i = idx[pos]
        moved[i] = op(moved[i], upd[pos])
    return _f32(data)


@layer_impl("scatterND")
def _scatter_nd(net, L, p, xs):
    data, idx, updates = xs[0].copy(), _to_int(xs[1]), xs[2]
    op = _SCATTER[p.mode]
    for pos in np.ndindex(*idx.shape[:-1]):
        i = tuple(idx[pos])
        data[i] = op(data[i], updates[pos])
    return _f32(data)


@layer_impl("scatterAlongAxis")
def _scatter_along_axis(net, L, p, xs):
    data, idx, updates = xs[0].copy(), _to_int(xs[1]), xs[2]
    a = _axis(p.axis, data.ndim)
    op = _SCATTER[p.mode]
    for pos in np.ndindex(*idx.shape):
        target = list(pos)
        target[a] = idx[pos]
        target = tuple(target)
        data[target] = op(data[target], updates[pos])
    return _f32(data)


@layer_impl("getShape")
def _get_shape(net, L, p, xs):
    return np.asarray(xs[0].shape, dtype=F32)


@layer_impl("fillLike")
def _fill_like(net, L, p, xs):
    return np.full(xs[0].shape, p.value, dtype=F32)


@layer_impl("fillStatic")
def _fill_static(net, L, p, xs):
    return np.full([int(v) for v in p.targetShape], p.value, dtype=F32)


@layer_impl("fillDynamic")
def _fill_dynamic(net, L, p, xs):
    return np.full(_to_int(xs[0]).ravel().tolist(), p.value, dtype=F32)


@layer_impl("broadcastToLike")
def _broadcast_like(net, L, p, xs):
    return _f32(np.broadcast_to(xs[0], xs[1].shape)).copy()


@layer_impl("broadcastToStatic")
def _broadcast_static(net, L, p, xs):
    return _f32(np.broadcast_to(xs[0], [int(v) for v in p.targetShape])).copy()


@layer_impl("broadcastToDynamic")
def _broadcast_dynamic(net, L, p, xs):
    return _f32(np.broadcast_to(xs[0], _to_int(xs[1]).ravel().tolist())).copy()


@layer_impl("rangeStatic")
def _range_static(net, L, p, xs):
    if p.stepSizeValue == 0:
        raise ValueError("layer '%s': stepSizeValue is 0" % L.name)
    return np.arange(p.startValue, p.endValue, p.stepSizeValue, dtype=np.float64).astype(F32)


@layer_impl("rangeDynamic")
def _range_dynamic(net, L, p, xs):
    vals = [float(np.asarray(x).ravel()[0]) for x in xs]
    end = vals[0]
    start = vals[1] if len(vals) > 1 else p.startValue
    step = vals[2] if len(vals) > 2 else p.stepSizeValue
    if step == 0:
        raise ValueError("layer '%s': step is 0" % L.name)
    return np.arange(start, end, step, dtype=np.float64).astype(F32)


@layer_impl("whereNonZero")
def _where_non_zero(net, L, p, xs):
    return _f32(np.argwhere(xs[0] != 0))


@layer_impl("matrixBandPart")
def _band_part(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 2, L)
    m = np.arange(x.shape[-2]).reshape(-1, 1)
    n = np.arange(x.shape[-1]).reshape(1, -1)
    band = ((p.numLower < 0) | (m - n <= p.numLower)) & ((p.numUpper < 0) | (n - m <= p.numUpper))
    return _f32(x * band)


@layer_impl("lowerTriangular")
def _lower(net, L, p, xs):
    return _f32(np.tril(xs[0], int(p.k)))


@layer_impl("upperTriangular")
def _upper(net, L, p, xs):
    return _f32(np.triu(xs[0], int(p.k)))


@layer_impl("oneHot")
def _one_hot(net, L, p, xs):
    idx = _to_int(xs[0])
    depth = int(np.asarray(xs[1]).ravel()[0]) if len(xs) > 1 else int(p.oneHotVectorSize)
    a = _axis(p.axis, idx.ndim + 1)
    hot = (idx[..., None] == np.arange(depth))               # out-of-range -> all offValue
    y = np.where(hot, p.onValue, p.offValue)
    return _f32(np.moveaxis(y, -1, a))


# --- Resampling ------------------------------------------------------------------------------

def _bilinear(x, gy, gx):
    """Samples the last two axes of x at grid rows gy and columns gx (bilinear)."""
    H, W = x.shape[-2:]
    y0 = np.clip(np.floor(gy).astype(np.int64), 0, H - 1)
    x0 = np.clip(np.floor(gx).astype(np.int64), 0, W - 1)
    y1, x1 = np.minimum(y0 + 1, H - 1), np.minimum(x0 + 1, W - 1)
    wy = (gy - y0).reshape(-1, 1)
    wx = (gx - x0).reshape(1, -1)
    x64 = x.astype(np.float64)
    top = x64[..., y0, :][..., :, x0] * (1 - wx) + x64[..., y0, :][..., :, x1] * wx
    bottom = x64[..., y1, :][..., :, x0] * (1 - wx) + x64[..., y1, :][..., :, x1] * wx
    return top * (1 - wy) + bottom * wy


@layer_impl("upsample")
def _upsample(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    U = NN_pb2.UpsampleLayerParams
    H, W = x.shape[-2:]
    if len(p.fractionalScalingFactor):
        fh, fw = [float(v) for v in p.fractionalScalingFactor]
        Ho, Wo = int(math.floor(H * fh)), int(math.floor(W * fw))   # AMBIGUOUS: floor
    else:
        fh, fw = _pair(p.scalingFactor, (1, 1))
        Ho, Wo = H * fh, W * fw
    if p.mode == U.NN:
        rows = np.minimum((np.arange(Ho) * H) // Ho, H - 1)
        cols = np.minimum((np.arange(Wo) * W) // Wo, W - 1)
        return _f32(x[..., rows, :][..., :, cols])

    def grid(n_in, n_out):
        i = np.arange(n_out, dtype=np.float64)
        mode = p.linearUpsampleMode
        if mode == U.ALIGN_CORNERS_TRUE:
            spacing = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            g = i * spacing
        elif mode == U.ALIGN_CORNERS_FALSE:
            spacing = n_in / n_out
            g = i * spacing + 0.5 * spacing - 0.5
        else:  # DEFAULT
            spacing = (n_in - n_in / n_out) / (n_out - 1) if n_out > 1 else 0.0
            g = i * spacing
        return np.minimum(n_in - 1, np.maximum(0, g))
    return _f32(_bilinear(x, grid(H, Ho), grid(W, Wo)))


def _sampling_grid(method, X, N):
    """``SamplingMode``: N grid points in [0, X-1]."""
    S = NN_pb2.SamplingMode
    if method == S.STRICT_ALIGN_ENDPOINTS_MODE:
        g = np.linspace(0, X - 1, N)
    elif method == S.ALIGN_ENDPOINTS_MODE:
        g = np.full(N, (X - 1) / 2.0) if N == 1 else np.linspace(0, X - 1, N)
    elif method == S.UPSAMPLE_MODE:
        g = np.minimum(X - 1, np.linspace(0, X - X / N, N))
    else:  # ROI_ALIGN_MODE
        spacing = max(1, X - 1) / N
        start = 0.5 * spacing
        g = np.minimum(X - 1, np.linspace(start, start + (N - 1) * spacing, N))
    return g


@layer_impl("resizeBilinear")
def _resize_bilinear(net, L, p, xs):
    x = xs[0]
    _need_rank(x, 3, L)
    Ho, Wo = _pair(p.targetSize, (1, 1))
    H, W = x.shape[-2:]
    m = p.mode.samplingMethod
    return _f32(_bilinear(x, _sampling_grid(m, H, Ho), _sampling_grid(m, W, Wo)))


# --- NMS layer (NonMaximumSuppressionLayerParams) --------------------------------------------

def _iou(a, b):
    """IoU of two boxes given as (centre x, centre y, width, height)."""
    ax0, ay0, ax1, ay1 = a[0] - a[2] / 2, a[1] - a[3] / 2, a[0] + a[2] / 2, a[1] + a[3] / 2
    bx0, by0, bx1, by1 = b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2
    iw = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    ih = max(0.0, min(ay1, by1) - max(ay0, by0))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def pick_top(scores, labels, boxes, iou_threshold, confidence_threshold, per_class):
    """The PickTop algorithm of ``NonMaximumSuppression``: discard boxes below the
    confidence threshold, sort by descending confidence (stable: ties keep input order), keep
    the top box and suppress every remaining box whose IoU with it exceeds the threshold
    (only boxes with the same label when per_class), repeat.  Returns kept indices in order."""
    candidates = [i for i in range(len(scores)) if scores[i] >= confidence_threshold]
    order = sorted(candidates, key=lambda i: -scores[i])
    keep = []
    for i in order:
        suppressed = False
        for k in keep:
            if per_class and labels[i] != labels[k]:
                continue
            # "Setting it [iouThreshold] to 1.0 means there will be no suppression based on
            # IOU": a box is suppressed when its IoU is strictly greater than the threshold.
            if _iou(boxes[i], boxes[k]) > iou_threshold:
                suppressed = True
                break
        if not suppressed:
            keep.append(i)
    return keep


@layer_impl("NonMaximumSuppression")
def _nms_layer(net, L, p, xs):
    coords, scores = xs[0].astype(np.float64), xs[1].astype(np.float64)
    iou_t = float(np.asarray(xs[2]).ravel()[0]) if len(xs) > 2 else p.iouThreshold
    score_t = float(np.asarray(xs[3]).ravel()[0]) if len(xs) > 3 else p.scoreThreshold
    max_boxes = int(np.asarray(xs[4]).ravel()[0]) if len(xs) > 4 else int(p.maxBoxes)
    B, N, C = scores.shape
    out_boxes = np.zeros((B, max_boxes, 4))
    out_scores = np.zeros((B, max_boxes, C))
    out_idx = np.full((B, max_boxes), -1.0)
    out_n = np.zeros(B)
    for b in range(B):
        best = scores[b].max(axis=1)              # "max of the matrix (N,C) along the columns"
        labels = scores[b].argmax(axis=1)
        keep = pick_top(best, labels, coords[b], iou_t, score_t, p.perClassSuppression)
        if not keep:                               # "number of boxes ... will be 1"
            keep = [int(np.argmax(best))]
        keep = keep[:max_boxes]
        out_boxes[b, :len(keep)] = coords[b][keep]
        out_scores[b, :len(keep)] = scores[b][keep]
        out_idx[b, :len(keep)] = keep
        out_n[b] = len(keep)
    return [_f32(out_boxes), _f32(out_scores), _f32(out_idx), _f32(out_n)]


# --- Control flow (BranchLayerParams, LoopLayerParams) ---------------------------------------

class _LoopBreak(Exception):
    pass


class _LoopContinue(Exception):
    pass


@layer_impl("branch")
def _branch(net, L, p, xs):
    cond = float(np.asarray(xs[0]).ravel()[0])
    if abs(cond) > 1e-6:                 # "absolute value of the input Tensor is greater than 1e-6"
        net.run_layers(p.ifBranch.layers)
    elif p.HasField("elseBranch"):
        net.run_layers(p.elseBranch.layers)
    return []


@layer_impl("loop")
def _loop(net, L, p, xs):
    max_iter = int(np.asarray(xs[0]).ravel()[0]) if xs else int(p.maxLoopIterations)
    has_cond = bool(p.conditionVar)

    def condition():
        net.run_layers(p.conditionNetwork.layers)
        return abs(float(np.asarray(net.blobs[p.conditionVar]).ravel()[0])) > 1e-6
    i = 0
    while True:
        if has_cond:
            if not condition():
                break
            if (xs or max_iter > 0) and i >= max_iter:
                break
        elif i >= max_iter:
            break
        try:
            net.run_layers(p.bodyNetwork.layers)
        except _LoopContinue:
            pass
        except _LoopBreak:
            break
        i += 1
    return []


@layer_impl("loopBreak")
def _loop_break(net, L, p, xs):
    raise _LoopBreak()


@layer_impl("loopContinue")
def _loop_continue(net, L, p, xs):
    raise _LoopContinue()


# ---------------------------------------------------------------------------------------------
# Neural network execution
# ---------------------------------------------------------------------------------------------

def _count_layers(layers, counts):
    for L in layers:
        kind = L.WhichOneof("layer")
        counts[kind] = counts.get(kind, 0) + 1
        p = getattr(L, kind) if kind else None
        if kind == "branch":
            _count_layers(p.ifBranch.layers, counts)
            _count_layers(p.elseBranch.layers, counts)
        elif kind == "loop":
            _count_layers(p.conditionNetwork.layers, counts)
            _count_layers(p.bodyNetwork.layers, counts)
    return counts


class _Network:
    """One run of a NeuralNetwork: the blob table and the layer loop."""

    def __init__(self, trace=False):
        self.blobs = {}
        self.trace = trace
        self.last_output = None

    def run_layers(self, layers):
        for L in layers:
            kind = L.WhichOneof("layer")
            fn = LAYERS.get(kind)
            if fn is None:
                raise NotImplementedError("layer type '%s' (layer '%s') is not implemented" % (kind, L.name))
            missing = [n for n in L.input if n not in self.blobs]
            if missing:
                raise KeyError("layer '%s' reads undefined blob(s) %s" % (L.name, missing))
            xs = [self.blobs[n] for n in L.input]
            try:
                out = fn(self, L, getattr(L, kind), xs)
            except (NotImplementedError, _LoopBreak, _LoopContinue):
                raise
            except Exception as e:
                message = "layer '%s' (%s): %s" % (L.name, kind, e)
                try:
                    wrapped = type(e)(message)
                except Exception:
                    wrapped = RuntimeError(message)
                raise wrapped from e
            outs = out if isinstance(out, list) else [out]
            if len(outs) != len(L.output):
                if kind in ("branch", "loop") or not L.output:
                    outs = outs[:len(L.output)]
                else:
                    raise ValueError("layer '%s' (%s) produced %d outputs, declares %d"
                                     % (L.name, kind, len(outs), len(L.output)))
            for name, value in zip(L.output, outs):
                self.blobs[name] = value
                self.last_output = name
            if self.trace:
                print("  %-28s %-22s %s" % (L.name, kind, [list(v.shape) for v in outs]), file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------

def _array_default_shape(at):
    """The default shape of an ArrayFeatureType ("shape", else enumeratedShapes[0], else the
    shapeRange lower bounds)."""
    if len(at.shape):
        return [int(v) for v in at.shape]
    which = at.WhichOneof("ShapeFlexibility")
    if which == "enumeratedShapes" and len(at.enumeratedShapes.shapes):
        return [int(v) for v in at.enumeratedShapes.shapes[0].shape]
    if which == "shapeRange":
        return [int(r.lowerBound) for r in at.shapeRange.sizeRanges]
    return []


def _image_default_size(it):
    """(width, height) of an ImageFeatureType, with the documented defaults."""
    w, h = int(it.width), int(it.height)
    which = it.WhichOneof("SizeFlexibility")
    if (w == 0 or h == 0) and which == "enumeratedSizes" and len(it.enumeratedSizes.sizes):
        s = it.enumeratedSizes.sizes[0]
        return int(s.width), int(s.height)
    if (w == 0 or h == 0) and which == "imageSizeRange":
        return int(it.imageSizeRange.widthRange.lowerBound), int(it.imageSizeRange.heightRange.lowerBound)
    return w, h


def feature_sample_shape(feature, override=None):
    """Shape of one sample of an input in the CLI's file convention."""
    t = feature.type
    kind = t.WhichOneof("Type")
    if override is not None:
        return list(override)
    if kind == "multiArrayType":
        return _array_default_shape(t.multiArrayType)
    if kind == "imageType":
        w, h = _image_default_size(t.imageType)
        channels = 1 if t.imageType.colorSpace in (FT_pb2.ImageFeatureType.GRAYSCALE,
                                                   FT_pb2.ImageFeatureType.GRAYSCALE_FLOAT16) else 3
        return [channels, h, w]
    if kind in ("doubleType", "int64Type"):
        return [1]
    raise NotImplementedError("input '%s' of type %s cannot be read from a float32 file" % (feature.name, kind))


class Model:
    """A parsed Core ML model that can describe itself and predict."""

    def __init__(self, spec, trace=False):
        if isinstance(spec, (bytes, bytearray)):
            m = Model_pb2.Model()
            m.ParseFromString(bytes(spec))
            spec = m
        self.spec = spec
        self.trace = trace
        self.type = spec.WhichOneof("Type")
        self.inputs = list(spec.description.input)
        self.outputs = list(spec.description.output)
        if self.type in ("pipeline", "pipelineClassifier", "pipelineRegressor"):
            pipe = spec.pipeline if self.type == "pipeline" else getattr(spec, self.type).pipeline
            self.submodels = [Model(m, trace) for m in pipe.models]
            self.subnames = list(pipe.names) or ["model%d" % i for i in range(len(self.submodels))]
        else:
            self.submodels = []

    # --- description ---------------------------------------------------------------------

    def network(self):
        if self.type in ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor"):
            return getattr(self.spec, self.type)
        return None

    def class_labels(self):
        holder = None
        if self.type in ("neuralNetworkClassifier", "nonMaximumSuppression"):
            holder = getattr(self.spec, self.type)
        if holder is not None:
            which = holder.WhichOneof("ClassLabels")
            if which == "stringClassLabels":
                return list(holder.stringClassLabels.vector)
            if which == "int64ClassLabels":
                return [int(v) for v in holder.int64ClassLabels.vector]
            return None
        for sub in self.submodels:
            labels = sub.class_labels()
            if labels is not None:
                return labels
        return None

    def layer_counts(self):
        counts = {}
        nn = self.network()
        if nn is not None:
            _count_layers(nn.layers, counts)
        for sub in self.submodels:
            for k, v in sub.layer_counts().items():
                counts[k] = counts.get(k, 0) + v
        return counts

    def describe(self):
        d = self.spec.description
        md = d.metadata
        return {
            "inputs": [describe_feature(f) for f in d.input],
            "outputs": [describe_feature(f) for f in d.output],
            "predictedFeatureName": d.predictedFeatureName,
            "predictedProbabilitiesName": d.predictedProbabilitiesName,
            "metadata": {"author": md.author, "shortDescription": md.shortDescription,
                         "license": md.license, "versionString": md.versionString,
                         "userDefined": dict(md.userDefined)},
        }

    def report(self):
        """The JSON report without results."""
        out = {
            "specificationVersion": int(self.spec.specificationVersion),
            "type": self.type,
            "description": self.describe(),
            "classLabels": self.class_labels(),
            "layers": self.layer_counts(),
        }
        nn = self.network()
        if nn is not None:
            out["shapeMapping"] = {
                "array": NN_pb2.NeuralNetworkMultiArrayShapeMapping.Name(nn.arrayInputShapeMapping),
                "image": NN_pb2.NeuralNetworkImageShapeMapping.Name(nn.imageInputShapeMapping)}
            out["preprocessing"] = [_describe_preprocessing(pp) for pp in nn.preprocessing]
        if self.submodels:
            out["models"] = [{"name": name, "type": sub.type, "layers": sub.layer_counts(),
                              "classLabels": sub.class_labels(),
                              "inputs": [f.name for f in sub.inputs],
                              "outputs": [f.name for f in sub.outputs]}
                             for name, sub in zip(self.subnames, self.submodels)]
        return out

    # --- prediction --------------------------------------------------------------------

    def predict(self, features):
        """Runs the model on ``features`` (name -> numpy array / float) and returns the
        description's outputs (name -> numpy array / dict / str / int / float)."""
        # NonMaximumSuppression.iouThresholdInputFeatureName / confidenceThresholdInputFeatureName:
        # the threshold "can be optionally overridden by ... providing a corresponding input", so
        # a missing threshold input means the model's default, whether or not it is declared
        # optional (Core ML's validator refuses optional inputs on an NMS model).
        overridable = set()
        if self.type == "nonMaximumSuppression":
            nms = self.spec.nonMaximumSuppression
            overridable = {nms.iouThresholdInputFeatureName, nms.confidenceThresholdInputFeatureName}
        for f in self.inputs:
            if f.name not in features and not f.type.isOptional and f.name not in overridable:
                raise KeyError("missing input '%s'" % f.name)
        if self.type in ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor"):
            return self._predict_nn(features)
        if self.submodels:
            return self._predict_pipeline(features)
        if self.type == "nonMaximumSuppression":
            return self._predict_nms(features)
        if self.type == "identity":
            return {f.name: features[f.name] for f in self.outputs if f.name in features}
        raise NotImplementedError("model type '%s' is not implemented" % self.type)

    def _predict_pipeline(self, features):
        values = dict(features)
        for sub in self.submodels:
            given = {f.name: values[f.name] for f in sub.inputs if f.name in values}
            values.update(sub.predict(given))
        missing = [f.name for f in self.outputs if f.name not in values]
        if missing:
            raise KeyError("pipeline outputs %s were not produced" % missing)
        return {f.name: values[f.name] for f in self.outputs}

    def _input_blob(self, nn, feature, value):
        t = feature.type
        kind = t.WhichOneof("Type")
        if kind == "imageType":
            return self._image_blob(nn, feature, value)
        if kind != "multiArrayType":
            raise NotImplementedError("neural network input '%s' of type %s" % (feature.name, kind))
        x = _f32(value)
        if nn.arrayInputShapeMapping == NN_pb2.EXACT_ARRAY_MAPPING:
            return x.copy()                    # "exact shape and rank ... passed through"
        # RANK5_ARRAY_MAPPING: [C] -> [1,1,C,1,1], [C,H,W] -> [1,1,C,H,W]; rank 5 as given
        if x.ndim == 1:
            return x.reshape(1, 1, -1, 1, 1)
        if x.ndim == 3:
            return x.reshape((1, 1) + x.shape)
        if x.ndim == 5:
            return x.copy()
        raise ValueError("input '%s': RANK5_ARRAY_MAPPING needs a shape of rank 1 or 3, got %s"
                         % (feature.name, list(x.shape)))

    def _image_blob(self, nn, feature, value):
        it = feature.type.imageType
        cs = it.colorSpace
        gray = cs in (FT_pb2.ImageFeatureType.GRAYSCALE, FT_pb2.ImageFeatureType.GRAYSCALE_FLOAT16)
        x = _f32(value)
        if x.ndim != 3 or x.shape[0] != (1 if gray else 3):
            raise ValueError("image input '%s' must be given as [%d, H, W], got %s"
                             % (feature.name, 1 if gray else 3, list(x.shape)))
        if cs == FT_pb2.ImageFeatureType.BGR:
            x = x[::-1].copy()                 # the network sees B, G, R
        for pp in nn.preprocessing:
            if pp.featureName and pp.featureName != feature.name:
                continue
            which = pp.WhichOneof("preprocessor")
            if which == "scaler":
                s = pp.scaler
                if s.channelScale == 0:
                    # AMBIGUOUS: proto3 cannot tell 0 from "not set"; taken literally.
                    _warn("input '%s': NeuralNetworkImageScaler.channelScale is 0: the image is "
                          "multiplied by 0" % feature.name)
                x64 = x.astype(np.float64) * s.channelScale
                if gray:
                    x64[0] += s.grayBias
                elif cs == FT_pb2.ImageFeatureType.BGR:
                    x64[0] += s.blueBias
                    x64[1] += s.greenBias
                    x64[2] += s.redBias
                else:
                    x64[0] += s.redBias
                    x64[1] += s.greenBias
                    x64[2] += s.blueBias
                x = x64.astype(F32)
            elif which == "meanImage":
                mean = np.asarray(pp.meanImage.meanImage, dtype=F32)
                if mean.size != x.size:
                    raise ValueError("input '%s': mean image has %d values for %s"
                                     % (feature.name, mean.size, list(x.shape)))
                x = (x - mean.reshape(x.shape)).astype(F32)
        if nn.imageInputShapeMapping == NN_pb2.RANK4_IMAGE_MAPPING:
            return x.reshape((1,) + x.shape)
        return x.reshape((1, 1) + x.shape)

    def _predict_nn(self, features):
        nn = self.network()
        net = _Network(self.trace)
        for f in self.inputs:
            if f.name in features:
                net.blobs[f.name] = self._input_blob(nn, f, features[f.name])
        net.run_layers(nn.layers)
        rank5 = nn.arrayInputShapeMapping != NN_pb2.EXACT_ARRAY_MAPPING
        result = {}
        d = self.spec.description
        if self.type == "neuralNetworkClassifier":
            name = nn.labelProbabilityLayerName
            if not name:
                # not documented: the blob named like the probabilities output, else the
                # last layer's first output
                name = d.predictedProbabilitiesName if d.predictedProbabilitiesName in net.blobs else net.last_output
            if name not in net.blobs:
                raise KeyError("labelProbabilityLayerName '%s' is not a blob" % name)
            probs = net.blobs[name].astype(np.float64).ravel()
            labels = self.class_labels() or []
            if len(labels) != probs.size:
                raise ValueError("classifier: %d class labels for %d probabilities" % (len(labels), probs.size))
            if d.predictedFeatureName:
                result[d.predictedFeatureName] = labels[int(np.argmax(probs))]
            if d.predictedProbabilitiesName:
                declared = [f for f in self.outputs if f.name == d.predictedProbabilitiesName]
                if declared and declared[0].type.WhichOneof("Type") == "multiArrayType":
                    # declared as an array rather than the documented dictionary: report the array
                    result[d.predictedProbabilitiesName] = _present_output(declared[0], net.blobs[name], rank5)
                else:
                    result[d.predictedProbabilitiesName] = {lab: float(v) for lab, v in zip(labels, probs)}
        for f in self.outputs:
            if f.name in result:
                continue
            if f.name not in net.blobs:
                raise KeyError("output '%s' is not produced by any layer" % f.name)
            result[f.name] = _present_output(f, net.blobs[f.name], rank5)
        return result

    def _predict_nms(self, features):
        p = self.spec.nonMaximumSuppression
        conf = np.asarray(features[p.confidenceInputFeatureName], dtype=np.float64)
        coords = np.asarray(features[p.coordinatesInputFeatureName], dtype=np.float64)
        C = conf.shape[-1] if conf.ndim else 1
        conf = conf.reshape(-1, C)              # "shape N x C"
        coords = coords.reshape(-1, 4)          # "shape N x 4": x, y (centres), width, height
        if conf.shape[0] != coords.shape[0]:
            raise ValueError("NMS: %d confidence rows for %d boxes" % (conf.shape[0], coords.shape[0]))
        iou_t = p.iouThreshold
        if p.iouThresholdInputFeatureName and features.get(p.iouThresholdInputFeatureName) is not None:
            iou_t = float(np.asarray(features[p.iouThresholdInputFeatureName]).ravel()[0])
        conf_t = p.confidenceThreshold
        if p.confidenceThresholdInputFeatureName and features.get(p.confidenceThresholdInputFeatureName) is not None:
            conf_t = float(np.asarray(features[p.confidenceThresholdInputFeatureName]).ravel()[0])
        per_class = p.pickTop.perClass if p.WhichOneof("SuppressionMethod") == "pickTop" else False
        # AMBIGUOUS: a box's confidence (for the threshold and the sort) is its highest class
        # confidence, i.e. that of its label ("argmax of the confidence").
        best = conf.max(axis=1) if C else np.zeros(conf.shape[0])
        labels = conf.argmax(axis=1) if C else np.zeros(conf.shape[0], dtype=np.int64)
        keep = pick_top(best, labels, coords, iou_t, conf_t, per_class)
        # Output row count limits from the output shapes (fixed, or a range on dimension 0);
        # missing rows are "padded with zeros for both confidence and coordinates".
        lo, hi = 0, None
        for f in self.outputs:
            if f.name in (p.confidenceOutputFeatureName, p.coordinatesOutputFeatureName):
                flo, fhi = _row_limits(f)
                lo = max(lo, flo)
                hi = fhi if hi is None else (hi if fhi is None else min(hi, fhi))
        if hi is not None:
            keep = keep[:hi]
        rows = max(len(keep), lo)
        out_conf = np.zeros((rows, C))
        out_coords = np.zeros((rows, 4))
        out_conf[:len(keep)] = conf[keep]
        out_coords[:len(keep)] = coords[keep]
        result = {}
        if p.confidenceOutputFeatureName:
            result[p.confidenceOutputFeatureName] = out_conf
        if p.coordinatesOutputFeatureName:
            result[p.coordinatesOutputFeatureName] = out_coords
        return result


def _row_limits(feature):
    """(min, max or None) rows of an NMS output from its MultiArray shape description."""
    t = feature.type
    if t.WhichOneof("Type") != "multiArrayType":
        return 0, None
    at = t.multiArrayType
    which = at.WhichOneof("ShapeFlexibility")
    if which == "shapeRange" and len(at.shapeRange.sizeRanges):
        r = at.shapeRange.sizeRanges[0]
        return int(r.lowerBound), (int(r.upperBound) if r.upperBound >= 0 else None)
    if which == "enumeratedShapes" and len(at.enumeratedShapes.shapes):
        firsts = [int(s.shape[0]) for s in at.enumeratedShapes.shapes if len(s.shape)]
        if firsts:
            return min(firsts), max(firsts)
    if len(at.shape) and at.shape[0] > 0:
        return int(at.shape[0]), int(at.shape[0])          # a fixed shape pins the row count
    return 0, None


def _present_output(feature, blob, rank5):
    """A blob as the output feature's value (see "Execution model" in the module doc)."""
    t = feature.type
    kind = t.WhichOneof("Type")
    if kind == "doubleType":
        return float(blob.ravel()[0])
    if kind == "int64Type":
        return int(blob.ravel()[0])
    if rank5 and blob.ndim == 5:
        declared = _array_default_shape(t.multiArrayType) if kind == "multiArrayType" else []
        if declared and int(np.prod(declared)) == blob.size:
            return blob.reshape(declared)
        if blob.shape[0] == 1 and blob.shape[1] == 1:
            return blob.reshape(blob.shape[2:])
    return blob


def _describe_preprocessing(pp):
    which = pp.WhichOneof("preprocessor")
    d = {"featureName": pp.featureName}
    if which == "scaler":
        s = pp.scaler
        d["scaler"] = {"channelScale": s.channelScale, "redBias": s.redBias, "greenBias": s.greenBias,
                       "blueBias": s.blueBias, "grayBias": s.grayBias}
    elif which == "meanImage":
        d["meanImage"] = {"count": len(pp.meanImage.meanImage)}
    return d


def describe_feature(f):
    t = f.type
    kind = t.WhichOneof("Type")
    d = {"name": f.name, "shortDescription": f.shortDescription, "optional": bool(t.isOptional)}
    if kind == "multiArrayType":
        at = t.multiArrayType
        d["type"] = "multiArray"
        d["shape"] = [int(v) for v in at.shape]
        d["dataType"] = FT_pb2.ArrayFeatureType.ArrayDataType.Name(at.dataType)
        which = at.WhichOneof("ShapeFlexibility")
        if which == "shapeRange":
            d["shapeRange"] = [[int(r.lowerBound), int(r.upperBound)] for r in at.shapeRange.sizeRanges]
        elif which == "enumeratedShapes":
            d["enumeratedShapes"] = [[int(v) for v in s.shape] for s in at.enumeratedShapes.shapes]
        default = at.WhichOneof("defaultOptionalValue")
        if default:
            d["defaultValue"] = getattr(at, default)
    elif kind == "imageType":
        it = t.imageType
        d["type"] = "image"
        d["width"], d["height"] = int(it.width), int(it.height)
        d["colorSpace"] = FT_pb2.ImageFeatureType.ColorSpace.Name(it.colorSpace)
    elif kind == "dictionaryType":
        d["type"] = "dictionary"
        d["keyType"] = "int64" if t.dictionaryType.WhichOneof("KeyType") == "int64KeyType" else "string"
    elif kind is None:
        d["type"] = None
    else:
        d["type"] = kind[:-len("Type")]   # double, int64, string, sequence, state
    return d


def load(path, trace=False):
    with open(path, "rb") as fh:
        return Model(fh.read(), trace=trace)


# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------

def _json_number(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def to_json_value(v):
    if isinstance(v, dict):
        return {str(k): _json_number(x) for k, x in v.items()}
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return _json_number(v)
    a = np.asarray(v)
    values = a.astype(np.float64).ravel().tolist()
    if not np.all(np.isfinite(a)):
        values = [_json_number(x) for x in values]
    return {"shape": list(a.shape), "values": values}


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------

def _parse_pairs(items, what):
    pairs = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit("%s expects NAME=VALUE, got %r" % (what, item))
        k, v = item.split("=", 1)
        pairs[k] = v
    return pairs


def main(argv=None):
    ap = argparse.ArgumentParser(description="Reference interpreter for Core ML NeuralNetwork models.")
    ap.add_argument("model")
    ap.add_argument("--input", action="append", default=[], metavar="NAME=FILE",
                    help="raw little-endian float32 file for input NAME (one or more samples)")
    ap.add_argument("--shape", action="append", default=[], metavar="NAME=D0,D1,...",
                    help="sample shape of input NAME (for flexible shapes)")
    ap.add_argument("--runs", type=int, default=None,
                    help="number of samples in each input file (0: describe the model without running it)")
    ap.add_argument("--trace", action="store_true", help="print layer output shapes on stderr")
    args = ap.parse_args(argv)

    model = load(args.model, trace=args.trace)
    files = _parse_pairs(args.input, "--input")
    shapes = {k: [int(d) for d in v.split(",") if d] for k, v in _parse_pairs(args.shape, "--shape").items()}
    by_name = {f.name: f for f in model.inputs}
    unknown = [n for n in list(files) + list(shapes) if n not in by_name]
    if unknown:
        raise SystemExit("unknown input(s) %s; the model's inputs are %s" % (unknown, list(by_name)))

    samples = {}
    for name, path in files.items():
        f = by_name[name]
        shape = feature_sample_shape(f, shapes.get(name))
        data = np.fromfile(path, dtype="<f4")
        size = int(np.prod(shape)) if shape else 1
        if size == 0 or data.size % size:
            raise SystemExit("input '%s': %d values in %s are not a whole number of samples of shape %s"
                             % (name, data.size, path, shape))
        samples[name] = data.reshape([data.size // size] + shape)
    missing = [f.name for f in model.inputs if f.name not in samples and not f.type.isOptional]
    if missing and args.runs != 0:
        raise SystemExit("missing --input for %s" % missing)

    counts = {n: s.shape[0] for n, s in samples.items()}
    runs = args.runs if args.runs is not None else max([c for c in counts.values()] or [1])
    for n, c in counts.items():
        if c not in (1, runs):
            raise SystemExit("input '%s' holds %d samples, expected 1 or %d" % (n, c, runs))

    report = model.report()
    results = []
    for r in range(runs):
        features = {}
        for n, s in samples.items():
            sample = s[r if s.shape[0] > 1 else 0]
            kind = by_name[n].type.WhichOneof("Type")
            features[n] = float(sample.ravel()[0]) if kind in ("doubleType", "int64Type") else sample
        if model.trace:
            print("run %d" % r, file=sys.stderr)
        out = model.predict(features)
        results.append({k: to_json_value(v) for k, v in out.items()})
    report["results"] = results
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
