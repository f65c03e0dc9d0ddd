import CoachTensor
import Foundation

extension GraphNetwork {
    /// Runs the graph on `inputs` (one tensor per input port, of its shape) and returns the
    /// outputs in port order. The graph must have passed `shapes()` (every loader checks it);
    /// intermediate values are released as soon as no later node reads them.
    public func run(_ inputs: [Tensor]) -> [Tensor] {
        precondition(inputs.count == self.inputs.count, "expected \(self.inputs.count) inputs, got \(inputs.count)")
        var values = [Tensor?](repeating: nil, count: valueCount)
        for (port, tensor) in zip(self.inputs, inputs) {
            precondition(tensor.shape == port.shape, "input '\(port.name)' must be \(port.shape), got \(tensor.shape)")
            values[port.value] = tensor
        }
        for (id, tensor) in constants { values[id] = tensor }
        let lastUse = lastUses
        for (index, node) in nodes.enumerated() {
            let operands = node.inputs.map { values[$0]! }
            values[node.output] = GraphNetwork.evaluate(node, operands)
            for id in node.inputs where lastUse[id] == index && constants[id] == nil { values[id] = nil }
        }
        return outputs.map { values[$0.value]! }
    }

    /// Per value, the index of the last node that reads it (outputs are read after every node).
    var lastUses: [Int] {
        var last = [Int](repeating: -1, count: valueCount)
        for (index, node) in nodes.enumerated() { for id in node.inputs { last[id] = index } }
        for port in outputs { last[port.value] = Int.max }
        return last
    }

    static func activation(_ name: String?) -> FusedActivation {
        switch name {
        case "relu": return .relu
        case "relu6": return .relu6
        default: return .none
        }
    }

    /// One node's result.
    public static func evaluate(_ node: Node, _ x: [Tensor]) -> Tensor {
        let activation = GraphNetwork.activation(node.activation)
        func activated(_ t: Tensor) -> Tensor {
            switch activation {
            case .none: return t
            case .relu: return t.relu()
            case .relu6: return t.relu6()
            }
        }
        switch node.operation {
        case .conv2D:
            let stride = node.stride!
            return Tensor.conv2D(x[0], filter: x[1], bias: x.count > 2 ? x[2] : nil, stride: (stride[0], stride[1]),
                                 padding: padding(node.padding!)!, activation: activation)
        case .depthwiseConv2D:
            let stride = node.stride!
            return Tensor.depthwiseConv2D(x[0], filter: x[1], bias: x.count > 2 ? x[2] : nil, stride: (stride[0], stride[1]),
                                          padding: padding(node.padding!)!, activation: activation)
        case .maxPool2D:
            let stride = node.stride!, window = node.window!
            return activated(Tensor.maxPool2D(x[0], kernel: (window[0], window[1]), stride: (stride[0], stride[1]),
                                              padding: padding(node.padding!)!).values)
        case .add:
            return activated(x[0] + x[1])
        case .pad:
            let amounts = node.amounts!
            return x[0].padded((0..<x[0].rank).map { (amounts[2 * $0], amounts[2 * $0 + 1]) })
        case .reshape:
            return x[0].reshaped(to: node.shape!)
        case .depthToSpace:
            return x[0].depthToSpace(blockSize: node.blockSize!)
        case .resizeBilinear:
            let size = node.size!
            return x[0].resizedBilinear(height: size[0], width: size[1], alignCorners: node.alignCorners ?? false,
                                        halfPixelCenters: node.halfPixelCenters ?? false)
        case .concatenate:
            return activated(Tensor.concatenate(x, axis: node.axis!))
        case .prelu:
            return Tensor.zip(x[0], x[1]) { value, slope in value >= 0 ? value : value * slope }
        case .fullyConnected:
            let weight = x[1]
            var result = Tensor.matmul(x[0].reshaped(to: [x[0].count / weight.shape[0], weight.shape[0]]), weight)
            if x.count > 2 { result = result + x[2] }
            result = activated(result)
            return node.keepDimensions == true ? result.reshaped(to: Array(x[0].shape.dropLast()) + [weight.shape[1]]) : result
        case .mean:
            return x[0].mean(alongAxes: node.axes!, keepingDimensions: node.keepDimensions ?? false)
        case .logistic:
            return x[0].sigmoid()
        }
    }
}
