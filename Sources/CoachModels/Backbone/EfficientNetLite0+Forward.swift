import CoachNN
import Foundation

/// The sizes and buffers of one backbone forward pass, and the pass itself.
struct ForwardPlan {
    let network: EfficientNetLite0
    let batch, height, width: Int

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

    /// Floats needed for one image's block inputs/outputs (each of two ping-pong
    /// buffers), expanded activations and depthwise outputs.
    func bufferSizes() -> (io: Int, expanded: Int, depthwise: Int) {
        var io = stemSize.0 * stemSize.1 * EfficientNetLite0Layout.stemChannels, expanded = 0, depthwise = 0
        for (i, b) in EfficientNetLite0Layout.blocks.enumerated() {
            let (ih, iw) = inputSize(ofBlock: i), (oh, ow) = blockOutputSizes[i]
            io = max(io, ih * iw * b.inputChannels, oh * ow * b.outputChannels)
            if b.expandRatio != 1 { expanded = max(expanded, ih * iw * b.expandedChannels) }
            depthwise = max(depthwise, oh * ow * b.expandedChannels)
        }
        return (io, expanded, depthwise)
    }

    /// Runs every image on its own, through buffers reused across layers and images.
    ///
    /// One image at a time keeps activations in cache, and makes each image's result
    /// independent of which other images share its batch (bit for bit), so cached
    /// features and trained models do not depend on batching.
    func run(_ images: Tensor, outputs: EfficientNetLite0.Outputs) -> EfficientNetLite0.Result {
        let blocks = EfficientNetLite0Layout.blocks
        let sizes = bufferSizes()
        let stemGeometry = ConvolutionGeometry(inputShape: [1, height, width, 3], kernelHeight: 3, kernelWidth: 3,
                                               strideHeight: 2, strideWidth: 2, padding: .same)
        let im2col = Kernels.convolutionWorkspace(geometry: stemGeometry)
        let (lh, lw) = blockOutputSizes.last!
        let channels = EfficientNetLite0.featureCount
        let headCount = lh * lw * channels
        let (s16h, s16w) = blockOutputSizes[EfficientNetLite0.stride16BlockIndex]
        let s16Channels = blocks[EfficientNetLite0.stride16BlockIndex].outputChannels
        let s16Count = s16h * s16w * s16Channels

        // One allocation per worker holds every buffer of its images' passes.
        let layout = [sizes.io, sizes.io, sizes.expanded, sizes.depthwise, im2col, headCount].map(Kernels.alignedCount)
        let perWorker = layout.reduce(0, +)
        let workers = Swift.max(1, Swift.min(ComputeThreads.count, batch))
        let workspace = Kernels.allocateAligned(perWorker * workers)
        defer { workspace.deallocate() }

        var features = [Float](repeating: 0, count: batch * channels)
        var stride16 = outputs.contains(.stride16) ? [Float](repeating: 0, count: batch * s16Count) : []
        var stride32 = outputs.contains(.stride32) ? [Float](repeating: 0, count: batch * headCount) : []
        let net = network
        let batch = self.batch, height = self.height, width = self.width
        images.withUnsafeBufferPointer { pixels in
        features.withUnsafeMutableBufferPointer { featureBuffer in
        stride16.withUnsafeMutableBufferPointer { stride16Buffer in
        stride32.withUnsafeMutableBufferPointer { stride32Buffer in
            // Several images: one worker (core) per share of the images, each with its own
            // buffers and single-threaded kernels; one image: kernels split the work into
            // fixed pieces (GEMM row chunks, depthwise rows), so results never depend on
            // the batch or the thread count.
            ComputeThreads.forEachWorker(workers) { worker in
                var pointers: [UnsafeMutablePointer<Float>] = []
                var offset = worker * perWorker
                for size in layout { pointers.append(workspace + offset); offset += size }
                let (bufferA, bufferB, expanded, depthwise, columns, head) =
                    (pointers[0], pointers[1], pointers[2], pointers[3], pointers[4], pointers[5])
                for n in (worker * batch / workers)..<((worker + 1) * batch / workers) {
                    let image = pixels.baseAddress! + n * height * width * 3
                    net.stem.bias.withUnsafeBufferPointer { b in
                        Kernels.convolution(input: image, geometry: stemGeometry, weights: net.packedStem, bias: b.baseAddress!,
                                            activation: .relu6, workspace: columns, output: bufferA)
                    }
                    var x = bufferA, y = bufferB
                    for i in 0..<blocks.count {
                        runBlock(i, input: x, expanded: expanded, depthwise: depthwise, output: y)
                        swap(&x, &y)
                        if i == EfficientNetLite0.stride16BlockIndex && outputs.contains(.stride16) {
                            (stride16Buffer.baseAddress! + n * s16Count).update(from: x, count: s16Count)
                        }
                    }
                    net.head.bias.withUnsafeBufferPointer { b in
                        Kernels.pointwise(input: x, rows: lh * lw, weights: net.packedHead, bias: b.baseAddress!,
                                          activation: .relu6, output: head)
                    }
                    let o = featureBuffer.baseAddress! + n * channels
                    for p in 0..<(lh * lw) {
                        let row = head + p * channels
                        for c in 0..<channels { o[c] += row[c] }
                    }
                    let inv = 1 / Float(lh * lw)
                    for c in 0..<channels { o[c] *= inv }
                    if outputs.contains(.stride32) {
                        (stride32Buffer.baseAddress! + n * headCount).update(from: head, count: headCount)
                    }
                }
            }
        }
        }
        }
        }
        return EfficientNetLite0.Result(
            features: Tensor(shape: [batch, channels], scalars: features),
            stride16: outputs.contains(.stride16) ? Tensor(shape: [batch, s16h, s16w, s16Channels], scalars: stride16) : nil,
            stride32: outputs.contains(.stride32) ? Tensor(shape: [batch, lh, lw, channels], scalars: stride32) : nil)
    }

    /// One MBConv block on one image: expand (1×1, ReLU6) → depthwise (ReLU6) →
    /// project (1×1, plus the input when the block has a skip connection).
    func runBlock(_ i: Int, input: UnsafeMutablePointer<Float>, expanded: UnsafeMutablePointer<Float>,
                  depthwise: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>) {
        let block = network.foldedBlocks[i], spec = block.specification
        let (ih, iw) = inputSize(ofBlock: i), (oh, ow) = blockOutputSizes[i]
                var hiddenInput = UnsafePointer(input)
        if let expand = block.expand, let weights = network.packedExpand[i] {
            expand.bias.withUnsafeBufferPointer { b in
                Kernels.pointwise(input: input, rows: ih * iw, weights: weights, bias: b.baseAddress!,
                                  activation: .relu6, output: expanded)
            }
            hiddenInput = UnsafePointer(expanded)
        }
        let g = ConvolutionGeometry(inputShape: [1, ih, iw, spec.expandedChannels], kernelHeight: spec.kernelSize,
                                    kernelWidth: spec.kernelSize, strideHeight: spec.stride, strideWidth: spec.stride,
                                    padding: .same)
        block.depthwise.filter.withUnsafeBufferPointer { f in
            block.depthwise.bias.withUnsafeBufferPointer { b in
                Kernels.depthwise(input: hiddenInput, geometry: g, filter: f.baseAddress!, bias: b.baseAddress!,
                                  activation: .relu6, output: depthwise)
            }
        }
        block.project.bias.withUnsafeBufferPointer { b in
            Kernels.pointwise(input: depthwise, rows: oh * ow, weights: network.packedProject[i], bias: b.baseAddress!,
                              activation: .none, residual: spec.hasSkipConnection ? UnsafePointer(input) : nil,
                              output: output)
        }
    }
}
