import CoachNN
import Foundation

/// The trainable part of the object detector, on top of the frozen backbone's maps.
///
/// ```
/// stride-32 map [N, H/32, W/32, 1280] ─ lateral32 (1×1) ─┐ (×2 nearest upsampling for stride 16)
/// stride-16 map [N, H/16, W/16, 112]  ─ lateral16 (1×1) ─┴─ + ─ norm ─ swish
///     (for stride 32 the stride-16 map is first folded 2×2 → [N, H/32, W/32, 448])
///   ─ blocks.i: x + norm2(pointwise(swish(norm1(depthwise3×3(x)))))   (headBlocks times)
///   ─ output (1×1) → [N, gridHeight, gridWidth, slots · (5 + K)]
/// ```
/// Parameter names: `lateral32.weight`, `lateral16.bias`, `norm.scale`,
/// `blocks.0.depthwise.weight`, `blocks.0.norm1.runningMean`, `output.weight`, …
public final class DetectionHead: Module {
    /// The configuration the head was built for.
    public let configuration: DetectorConfiguration
    /// 1×1 projection of the stride-32 map.
    public let lateral32: Linear
    /// 1×1 projection of the stride-16 map (folded 2×2 for stride 32).
    public let lateral16: Linear
    /// Batch norm after the sum of the projections.
    public let norm: BatchNorm
    /// The residual depthwise-separable blocks.
    public let blocks: [Block]
    /// The prediction layer.
    public let output: Linear

    /// One residual depthwise-separable block.
    public final class Block: Module {
        /// 3×3 depthwise convolution.
        public let depthwise: DepthwiseConv2D
        /// Batch norm after it.
        public let norm1: BatchNorm
        /// 1×1 convolution.
        public let pointwise: Linear
        /// Batch norm after it.
        public let norm2: BatchNorm

        init(width: Int, generator: inout SeededGenerator) {
            depthwise = DepthwiseConv2D(kernelSize: (3, 3), channels: width, padding: .same, useBias: false,
                                        generator: &generator)
            norm1 = BatchNorm(featureCount: width)
            pointwise = Linear(inputSize: width, outputSize: width, useBias: false, initializer: .heNormal,
                               generator: &generator)
            norm2 = BatchNorm(featureCount: width)
        }

        public var children: [(String, Module)] {
            [("depthwise", depthwise), ("norm1", norm1), ("pointwise", pointwise), ("norm2", norm2)]
        }

        func callAsFunction(_ x: Variable) -> Variable {
            x + norm2.fused(pointwise(norm1.fused(depthwise(x), swish: true)), swish: false)
        }
    }

    /// Channels of the stride-16 input as the head sees it (112, or 448 folded for stride 32).
    public static func stride16InputChannels(_ configuration: DetectorConfiguration) -> Int {
        EfficientNetLite0.stride16Channels * (configuration.stride == 32 ? 4 : 1)
    }

    /// A freshly initialised head; the objectness bias starts at logit(0.01) so training
    /// begins from "almost nothing here" (RetinaNet's prior).
    public init(configuration: DetectorConfiguration, generator: inout SeededGenerator) {
        self.configuration = configuration
        let width = configuration.headWidth
        lateral32 = Linear(inputSize: EfficientNetLite0.featureCount, outputSize: width, initializer: .heNormal,
                           generator: &generator)
        lateral16 = Linear(inputSize: Self.stride16InputChannels(configuration), outputSize: width,
                           initializer: .heNormal, generator: &generator)
        norm = BatchNorm(featureCount: width)
        var blocks: [Block] = []
        for _ in 0..<configuration.headBlocks { blocks.append(Block(width: width, generator: &generator)) }
        self.blocks = blocks
        let outputs = configuration.slotsPerCell * configuration.valuesPerSlot
        output = Linear(inputSize: width, outputSize: outputs, initializer: .normal(standardDeviation: 0.01),
                        generator: &generator)
        if let bias = output.bias {
            var initial = bias.value.scalars
            let prior = Float(Foundation.log(0.01 / 0.99))
            for slot in 0..<configuration.slotsPerCell { initial[slot * configuration.valuesPerSlot + 4] = prior }
            bias.value = Tensor(shape: bias.value.shape, scalars: initial)
        }
    }

    public var children: [(String, Module)] {
        var result: [(String, Module)] = [("lateral32", lateral32), ("lateral16", lateral16), ("norm", norm)]
        for (i, block) in blocks.enumerated() { result.append(("blocks.\(i)", block)) }
        result.append(("output", output))
        return result
    }

    /// Raw outputs [N, gridHeight, gridWidth, slots·(5+K)] for a batch of cached maps.
    public func callAsFunction(_ features: DetectorFeatureBatch, tape: Tape) -> Variable {
        let c = configuration
        let n = features.count
        let h32 = c.inputHeight / 32, w32 = c.inputWidth / 32
        let width = c.headWidth
        func project(_ input: Tensor, _ layer: Linear) -> Variable {
            var y = Variable.constantProduct(input, tape.variable(for: layer.weight))
            if let bias = layer.bias { y = y + tape.variable(for: bias) }
            return y
        }
        let top = project(features.stride32, lateral32).reshaped(to: [n, h32, w32, width])
        var x: Variable
        if c.stride == 16 {
            let side = project(features.stride16, lateral16).reshaped(to: [n, 2 * h32, 2 * w32, width])
            x = top.upsampledTwice() + side
        } else {
            x = top + project(features.stride16, lateral16).reshaped(to: [n, h32, w32, width])
        }
        x = norm.fused(x, swish: true)
        for block in blocks { x = block(x) }
        return output(x)
    }
}
