import CKernels

/// MiniRocket's pooling of one convolution output against many biases (`coach_positive_values`):
/// for each bias b in `biases`, features[2b] = (frames t in `frames` with output[t] − bias > 0) ·
/// `inverse`, and features[2b + 1] = the mean of those positive values (0 when there are none).
/// Each is summed over the frames in order, the same bits on every instruction set.
public func poolPositiveValues(_ output: UnsafeBufferPointer<Float>, frames: Range<Int>, biases: UnsafeBufferPointer<Float>,
                               inverse: Float, into features: UnsafeMutableBufferPointer<Float>) {
    precondition(frames.lowerBound >= 0 && frames.upperBound <= output.count && features.count >= 2 * biases.count,
                 "poolPositiveValues: frames \(frames) of \(output.count), \(biases.count) biases, \(features.count) features")
    guard let out = output.baseAddress, let first = biases.baseAddress, let destination = features.baseAddress else { return }
    coach_positive_values(out, Int32(frames.lowerBound), Int32(frames.upperBound), first, Int32(biases.count), inverse,
                          destination)
}
