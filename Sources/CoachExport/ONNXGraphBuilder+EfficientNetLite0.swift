import CoachModels
import Foundation

extension ONNXGraphBuilder {
    /// The maps of EfficientNet-Lite0 a graph uses, NCHW value names.
    public struct EfficientNetLite0Maps {
        /// After block `EfficientNetLite0.stride16BlockIndex`: [1, 112, ⌈H/16⌉, ⌈W/16⌉].
        public var stride16: String
        /// The head's ReLU6 activations: [1, 1280, ⌈H/32⌉, ⌈W/32⌉].
        public var stride32: String
    }

    /// Adds EfficientNet-Lite0 on a normalised NCHW `input` [1, 3, height, width], batch norm
    /// folded into its convolutions as Coach folds it (TensorFlow SAME padding as explicit
    /// `pads`, ReLU6 as `Clip(0, 6)`, depthwise convolutions as `group = channels`); returns
    /// the stride-16 and stride-32 maps.
    public mutating func efficientNetLite0(_ network: EfficientNetLite0, input: String, height: Int, width: Int) -> EfficientNetLite0Maps {
        var (value, height, width) = convolution("backbone.stem", input: input, height: height, width: width,
                                                 inputChannels: 3, kernelSize: 3, stride: 2, depthwise: false,
                                                 weights: network.stem)
        value = relu6("backbone.stem.relu6", input: value)
        var stride16 = value
        for (index, block) in network.foldedBlocks.enumerated() {
            let prefix = "backbone.blocks.\(index)", specification = block.specification
            let blockInput = value
            if let expand = block.expand {
                value = convolution("\(prefix).expand", input: value, height: height, width: width,
                                    inputChannels: specification.inputChannels, kernelSize: 1, stride: 1,
                                    depthwise: false, weights: expand).output
                value = relu6("\(prefix).expand.relu6", input: value)
            }
            (value, height, width) = convolution("\(prefix).depthwise", input: value, height: height, width: width,
                                                 inputChannels: specification.expandedChannels,
                                                 kernelSize: specification.kernelSize, stride: specification.stride,
                                                 depthwise: true, weights: block.depthwise)
            value = relu6("\(prefix).depthwise.relu6", input: value)
            value = convolution("\(prefix).project", input: value, height: height, width: width,
                                inputChannels: specification.expandedChannels, kernelSize: 1, stride: 1,
                                depthwise: false, weights: block.project).output
            if specification.hasSkipConnection {
                value = node("Add", "\(prefix).residual", inputs: [value, blockInput])
            }
            if index == EfficientNetLite0.stride16BlockIndex { stride16 = value }
        }
        value = convolution("backbone.head", input: value, height: height, width: width,
                            inputChannels: EfficientNetLite0.blocks.last!.outputChannels, kernelSize: 1, stride: 1,
                            depthwise: false, weights: network.head).output
        return EfficientNetLite0Maps(stride16: stride16, stride32: relu6("backbone.head.relu6", input: value))
    }
}
