import CoachNN
import Foundation

/// The trainable part of the object detector, on top of the frozen backbone's maps.
///
/// ```
/// stride-32 map [N, H/32, W/32, 1280] ─ lateral32 (1×1) ─ a
/// stride-16 map [N, H/16, W/16, 112]  ─ lateral16 (1×1) ─ b
/// level of stride 16:  upsample×2(a) + b            ┐
/// level of stride 32:  a + averagePool2×2(b)        ┴─ norm ─ swish
///   ─ blocks.i: x + norm2(pointwise(swish(norm1(depthwise3×3(x)))))   (headBlocks times)
///   ─ output (1×1) → [N, gridHeight, gridWidth, slots · (5 + K)]
/// ```
/// Parameter names: `lateral32.weight`, `lateral16.bias`, `levels.0.norm.scale`,
/// `levels.0.blocks.1.depthwise.weight`, `levels.1.output.weight`, …
public final class DetectionHead: Module {
    /// The configuration the head was built for.
    public let configuration: DetectorConfiguration
    /// 1×1 projection of the stride-32 map.
    public let lateral32: Linear
    /// 1×1 projection of the stride-16 map.
    public let lateral16: Linear
    /// One branch per output level, finest first.
    public let levels: [Level]

    /// One output level's branch: normalisation, residual blocks, prediction layer.
    public final class Level: Module {
        /// Batch norm of the summed projections.
        public let norm: BatchNorm
        /// The residual depthwise-separable blocks.
        public let blocks: [Block]
        /// The prediction layer.
        public let output: Linear

        init(width: Int, blocks count: Int, outputs: Int, slots: Int, valuesPerSlot: Int, generator: inout SeededGenerator) {
            norm = BatchNorm(featureCount: width, activation: .swish)
            var blocks: [Block] = []
            for _ in 0..<count { blocks.append(Block(width: width, generator: &generator)) }
            self.blocks = blocks
            output = Linear(inputSize: width, outputSize: outputs, initializer: .normal(standardDeviation: 0.01),
                            generator: &generator)
            if let bias = output.bias {
                var initial = bias.value.scalars
                let prior = Float(Foundation.log(0.01 / 0.99))
                for slot in 0..<slots { initial[slot * valuesPerSlot + 4] = prior }
                bias.value = Tensor(shape: bias.value.shape, scalars: initial)
            }
        }

        public var children: [(String, Module)] {
            var result: [(String, Module)] = [("norm", norm)]
            for (i, block) in blocks.enumerated() { result.append(("blocks.\(i)", block)) }
            result.append(("output", output))
            return result
        }

        func callAsFunction(_ x: Variable) -> Variable {
            var h = norm(x)
            for block in blocks { h = block(h) }
            return output(h)
        }
    }

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
            norm1 = BatchNorm(featureCount: width, activation: .swish)
            pointwise = Linear(inputSize: width, outputSize: width, useBias: false, initializer: .heNormal,
                               generator: &generator)
            norm2 = BatchNorm(featureCount: width)
        }

        public var children: [(String, Module)] {
            [("depthwise", depthwise), ("norm1", norm1), ("pointwise", pointwise), ("norm2", norm2)]
        }

        func callAsFunction(_ x: Variable) -> Variable {
            x + norm2(pointwise(norm1(depthwise(x))))
        }
    }

    /// A freshly initialised head; the objectness biases start at logit(0.01) so training
    /// begins from "almost nothing here" (RetinaNet's prior).
    public init(configuration: DetectorConfiguration, generator: inout SeededGenerator) {
        self.configuration = configuration
        let width = configuration.headWidth
        lateral32 = Linear(inputSize: EfficientNetLite0.featureCount, outputSize: width, initializer: .heNormal,
                           generator: &generator)
        lateral16 = Linear(inputSize: EfficientNetLite0.stride16Channels, outputSize: width, initializer: .heNormal,
                           generator: &generator)
        var levels: [Level] = []
        for grid in configuration.grids {
            levels.append(Level(width: width, blocks: configuration.headBlocks, outputs: grid.slotsPerCell * grid.valuesPerSlot,
                                slots: grid.slotsPerCell, valuesPerSlot: grid.valuesPerSlot, generator: &generator))
        }
        self.levels = levels
    }

    public var children: [(String, Module)] {
        var result: [(String, Module)] = [("lateral32", lateral32), ("lateral16", lateral16)]
        for (i, level) in levels.enumerated() { result.append(("levels.\(i)", level)) }
        return result
    }

    /// Raw outputs per level, [N, gridHeight, gridWidth, slots·(5+K)], for a batch of cached maps.
    public func callAsFunction(_ features: DetectorFeatureBatch, tape: Tape) -> [Variable] {
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
        let side = project(features.stride16, lateral16).reshaped(to: [n, 2 * h32, 2 * w32, width])
        return zip(c.levels, levels).map { description, level in
            let x = description.stride == 16
                ? top.upsampledTwice() + side
                : top + Variable.averagePool2D(side, kernel: (2, 2), stride: (2, 2))
            return level(x)
        }
    }
}
