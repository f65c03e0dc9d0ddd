import CoachNN
import Foundation

/// The sizes and buffers of one backbone forward pass, and the pass itself.
struct ForwardPlan {
    let network: EfficientNetLite0
    let batch, height, width: Int

    /// Blocks before this index run one image at a time (their activations are large);
    /// from it on, the batch runs together (the first block reaching stride 16).
    static let firstBatchedBlock = 5

    /// Spatial size after the stem and after each block.
    let stemSize: (Int, Int)
    let blockOutputSizes: [(Int, Int)]

    init(network: EfficientNetLite0, batch: Int, height: Int, width: Int) {
        self.network = network
        self.batch = batch
        self.height = height
        self.width = width
        stemSize = ((height + 1) / 2, (width + 1) / 2)
        var sizes: [(Int, Int)] = []
        var (h, w) = stemSize
        for b in EfficientNetLite0Layout.blocks {
            h = (h + b.stride - 1) / b.stride
            w = (w + b.stride - 1) / b.stride
            sizes.append((h, w))
        }
        blockOutputSizes = sizes
    }

    func inputSize(ofBlock i: Int) -> (Int, Int) { i == 0 ? stemSize : blockOutputSizes[i - 1] }

    /// Floats needed for block inputs/outputs (each of two ping-pong buffers), expanded
    /// activations and depthwise outputs, for images processed `images` at a time.
    func bufferSizes(blocks: Range<Int>, images: Int) -> (io: Int, expanded: Int, depthwise: Int) {
        var io = 0, expanded = 0, depthwise = 0
        for i in blocks {
            let b = EfficientNetLite0Layout.blocks[i]
            let (ih, iw) = inputSize(ofBlock: i), (oh, ow) = blockOutputSizes[i]
            io = max(io, ih * iw * b.inputChannels, oh * ow * b.outputChannels)
            if b.expandRatio != 1 { expanded = max(expanded, ih * iw * b.expandedChannels) }
            depthwise = max(depthwise, oh * ow * b.expandedChannels)
        }
        return (io * images, expanded * images, depthwise * images)
    }

    func run(_ images: Tensor, outputs: EfficientNetLite0.Outputs) -> EfficientNetLite0.Result {
        let blocks = EfficientNetLite0Layout.blocks
        let split = ForwardPlan.firstBatchedBlock
        let early = bufferSizes(blocks: 0..<split, images: 1)
        let late = bufferSizes(blocks: split..<blocks.count, images: batch)
        let stemGeometry = ConvolutionGeometry(inputShape: [1, height, width, 3], kernelHeight: 3, kernelWidth: 3,
                                               strideHeight: 2, strideWidth: 2, padding: .same)
        let stemOut = stemSize.0 * stemSize.1 * EfficientNetLite0Layout.stemChannels
        let im2col = Kernels.convolutionWorkspace(geometry: stemGeometry)
        let (lh, lw) = blockOutputSizes.last!
        let headCount = batch * lh * lw * EfficientNetLite0.featureCount
        let earlyIO = max(early.io, stemOut)

        // One allocation for every buffer of the pass.
        let layout = [earlyIO, earlyIO, early.expanded, early.depthwise, im2col,
                      late.io, late.io, late.expanded, late.depthwise, headCount]
        let workspace = UnsafeMutablePointer<Float>.allocate(capacity: layout.reduce(0, +))
        defer { workspace.deallocate() }
        var offsets: [UnsafeMutablePointer<Float>] = []
        var offset = 0
        for size in layout { offsets.append(workspace + offset); offset += size }
        let (earlyA, earlyB, earlyE, earlyD, columns) = (offsets[0], offsets[1], offsets[2], offsets[3], offsets[4])
        let (lateA, lateB, lateE, lateD, headBuffer) = (offsets[5], offsets[6], offsets[7], offsets[8], offsets[9])

        let net = network
        let splitInput = inputSize(ofBlock: split)
        let splitChannels = blocks[split].inputChannels
        let perImageSplit = splitInput.0 * splitInput.1 * splitChannels
        images.withUnsafeBufferPointer { pixels in
            for n in 0..<batch {
                let image = pixels.baseAddress! + n * height * width * 3
                net.stem.filter.withUnsafeBufferPointer { f in
                    net.stem.bias.withUnsafeBufferPointer { b in
                        Kernels.convolution(input: image, geometry: stemGeometry, filter: f.baseAddress!,
                                            outputChannels: EfficientNetLite0Layout.stemChannels, bias: b.baseAddress!,
                                            activation: .relu6, workspace: columns, output: earlyA)
                    }
                }
                var x = earlyA, y = earlyB
                for i in 0..<split {
                    // The last per-image block writes straight into its slot of the batched buffer.
                    let destination = i == split - 1 ? lateA + n * perImageSplit : y
                    runBlock(i, input: x, images: 1, expanded: earlyE, depthwise: earlyD, output: destination)
                    swap(&x, &y)
                }
            }
        }
        var x = lateA, y = lateB
        var stride16: Tensor? = nil
        for i in split..<blocks.count {
            runBlock(i, input: x, images: batch, expanded: lateE, depthwise: lateD, output: y)
            swap(&x, &y)
            if i == EfficientNetLite0.stride16BlockIndex && outputs.contains(.stride16) {
                let (h, w) = blockOutputSizes[i]
                stride16 = Tensor(shape: [batch, h, w, blocks[i].outputChannels],
                                  scalars: Array(UnsafeBufferPointer(start: x, count: batch * h * w * blocks[i].outputChannels)))
            }
        }
        let rows = batch * lh * lw, channels = EfficientNetLite0.featureCount
        net.head.filter.withUnsafeBufferPointer { f in
            net.head.bias.withUnsafeBufferPointer { b in
                Kernels.pointwise(input: x, rows: rows, inputChannels: blocks.last!.outputChannels, filter: f.baseAddress!,
                                  outputChannels: channels, bias: b.baseAddress!, activation: .relu6, output: headBuffer)
            }
        }
        let pixels = lh * lw
        let features = Tensor(shape: [batch, channels]) { out in
            for n in 0..<batch {
                let o = out.baseAddress! + n * channels
                o.update(repeating: 0, count: channels)
                for p in 0..<pixels {
                    let row = headBuffer + (n * pixels + p) * channels
                    for c in 0..<channels { o[c] += row[c] }
                }
                let inv = 1 / Float(pixels)
                for c in 0..<channels { o[c] *= inv }
            }
        }
        let stride32 = outputs.contains(.stride32)
            ? Tensor(shape: [batch, lh, lw, channels], scalars: Array(UnsafeBufferPointer(start: headBuffer, count: headCount)))
            : nil
        return EfficientNetLite0.Result(features: features, stride16: stride16, stride32: stride32)
    }

    /// One MBConv block on `images` images: expand (1×1, ReLU6) → depthwise (ReLU6) →
    /// project (1×1, plus the input when the block has a skip connection).
    func runBlock(_ i: Int, input: UnsafeMutablePointer<Float>, images: Int, expanded: UnsafeMutablePointer<Float>,
                  depthwise: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>) {
        let block = network.foldedBlocks[i], spec = block.specification
        let (ih, iw) = inputSize(ofBlock: i), (oh, ow) = blockOutputSizes[i]
        let hidden = spec.expandedChannels
        var hiddenInput = UnsafePointer(input)
        if let expand = block.expand {
            expand.filter.withUnsafeBufferPointer { f in
                expand.bias.withUnsafeBufferPointer { b in
                    Kernels.pointwise(input: input, rows: images * ih * iw, inputChannels: spec.inputChannels,
                                      filter: f.baseAddress!, outputChannels: hidden, bias: b.baseAddress!,
                                      activation: .relu6, output: expanded)
                }
            }
            hiddenInput = UnsafePointer(expanded)
        }
        let g = ConvolutionGeometry(inputShape: [images, ih, iw, hidden], kernelHeight: spec.kernelSize,
                                    kernelWidth: spec.kernelSize, strideHeight: spec.stride, strideWidth: spec.stride,
                                    padding: .same)
        block.depthwise.filter.withUnsafeBufferPointer { f in
            block.depthwise.bias.withUnsafeBufferPointer { b in
                Kernels.depthwise(input: hiddenInput, geometry: g, filter: f.baseAddress!, bias: b.baseAddress!,
                                  activation: .relu6, output: depthwise)
            }
        }
        block.project.filter.withUnsafeBufferPointer { f in
            block.project.bias.withUnsafeBufferPointer { b in
                Kernels.pointwise(input: depthwise, rows: images * oh * ow, inputChannels: hidden, filter: f.baseAddress!,
                                  outputChannels: spec.outputChannels, bias: b.baseAddress!, activation: .none,
                                  residual: spec.hasSkipConnection ? UnsafePointer(input) : nil, output: output)
            }
        }
    }
}
