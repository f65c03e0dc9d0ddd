import CoachNN
import Foundation

/// Coach's convolution filters in the layout ONNX and Core ML store.
enum ExportedFilter {
    /// `source` (HWIO `[k, k, C_in, C_out]`, or `[k, k, C]` when `depthwise`) as OIHW
    /// `[C_out, C_in / groups, k, k]`, one group per channel when `depthwise`.
    static func oihw(_ source: [Float], kernelSize: Int, inputChannels: Int, outputChannels: Int, depthwise: Bool) -> [Float] {
        let groupInputs = depthwise ? 1 : inputChannels
        var filter = [Float](repeating: 0, count: outputChannels * groupInputs * kernelSize * kernelSize)
        for output in 0..<outputChannels {
            for input in 0..<groupInputs {
                for y in 0..<kernelSize {
                    for x in 0..<kernelSize {
                        let index = depthwise ? (y * kernelSize + x) * outputChannels + output
                            : ((y * kernelSize + x) * inputChannels + input) * outputChannels + output
                        filter[((output * groupInputs + input) * kernelSize + y) * kernelSize + x] = source[index]
                    }
                }
            }
        }
        return filter
    }
}

/// Coach's batch norms as exporters write them.
enum ExportedBatchNorm {
    /// The per-channel `a` and `b` of `norm` in inference mode: `x · a + b`, a = γ / √(σ² + ε),
    /// b = β − μ · a (as `Variable.batchNormalized` computes it).
    static func scaleAndShift(_ norm: BatchNorm) -> (scale: [Float], shift: [Float]) {
        let gamma = norm.scale.value.scalars, beta = norm.offset.value.scalars
        let mean = norm.runningMean.value.scalars, variance = norm.runningVariance.value.scalars
        var a = [Float](repeating: 0, count: gamma.count), b = a
        for k in gamma.indices {
            a[k] = gamma[k] / (variance[k] + norm.epsilon).squareRoot()
            b[k] = beta[k] - mean[k] * a[k]
        }
        return (a, b)
    }
}
