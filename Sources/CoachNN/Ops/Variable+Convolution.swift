/// Convolutions and pooling on NHWC variables.
extension Variable {
    /// 2-D convolution with an HWIO filter variable [kh, kw, Cin, Cout].
    public static func conv2D(_ input: Variable, filter: Variable, stride: (Int, Int) = (1, 1),
                              padding: Padding = .valid) -> Variable {
        let x = input.value, w = filter.value
        let y = Tensor.conv2D(x, filter: w, stride: stride, padding: padding)
        return input.tape.record(y, inputs: [input, filter]) { g in
            [Tensor.conv2DBackwardInput(g, filter: w, inputShape: x.shape, stride: stride, padding: padding),
             Tensor.conv2DBackwardFilter(g, input: x, filterShape: w.shape, stride: stride, padding: padding)]
        }
    }

    /// Depthwise 2-D convolution with a filter variable [kh, kw, C].
    public static func depthwiseConv2D(_ input: Variable, filter: Variable, stride: (Int, Int) = (1, 1),
                                       padding: Padding = .valid) -> Variable {
        let x = input.value, w = filter.value
        let y = Tensor.depthwiseConv2D(x, filter: w, stride: stride, padding: padding)
        return input.tape.record(y, inputs: [input, filter]) { g in
            [Tensor.depthwiseConv2DBackwardInput(g, filter: w, inputShape: x.shape, stride: stride, padding: padding),
             Tensor.depthwiseConv2DBackwardFilter(g, input: x, filterShape: w.shape, stride: stride, padding: padding)]
        }
    }

    /// 1-D convolution over time: input [N, T, Cin], filter [k, Cin, Cout].
    public static func conv1D(_ input: Variable, filter: Variable, stride: Int = 1,
                              padding: Padding = .valid) -> Variable {
        let n = input.shape[0], t = input.shape[1], c = input.shape[2]
        let k = filter.shape[0], ci = filter.shape[1], co = filter.shape[2]
        let y = conv2D(input.reshaped(to: [n, t, 1, c]), filter: filter.reshaped(to: [k, 1, ci, co]),
                       stride: (stride, 1), padding: padding.timeOnly)
        return y.reshaped(to: [n, y.shape[1], co])
    }

    /// Average pooling (padded positions excluded from each average).
    public static func averagePool2D(_ input: Variable, kernel: (Int, Int), stride: (Int, Int),
                                     padding: Padding = .valid) -> Variable {
        let inShape = input.shape
        return input.tape.record(Tensor.averagePool2D(input.value, kernel: kernel, stride: stride, padding: padding),
                                 inputs: [input]) { g in
            [Tensor.averagePool2DBackward(g, inputShape: inShape, kernel: kernel, stride: stride, padding: padding)]
        }
    }

    /// Max pooling.
    public static func maxPool2D(_ input: Variable, kernel: (Int, Int), stride: (Int, Int),
                                 padding: Padding = .valid) -> Variable {
        let inShape = input.shape
        let (y, argmax) = Tensor.maxPool2D(input.value, kernel: kernel, stride: stride, padding: padding)
        return input.tape.record(y, inputs: [input]) { g in
            [Tensor.maxPool2DBackward(g, argmax: argmax, inputShape: inShape)]
        }
    }

    /// Global average pooling [N, H, W, C] → [N, C].
    public static func globalAveragePool(_ input: Variable) -> Variable {
        let s = input.shape
        return input.reshaped(to: [s[0], s[1] * s[2], s[3]]).mean(alongAxes: [1])
    }
}
