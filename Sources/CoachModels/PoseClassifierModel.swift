import CoachData
import CoachNN

/// What the pose classifiers (actions over windows, hand poses over one frame) have in common:
/// labels in output order, a network, and logits for a batch of `PoseWindow`s. Training and
/// evaluation code that only needs these works for both.
public protocol PoseClassifierModel: AnyObject {
    associatedtype Network: Module
    /// Class labels in output order.
    var labels: [String] { get }
    /// The network whose parameters training updates.
    var network: Network { get }
    /// Logits [N, classes] for `windows` on `tape` (training or inference mode).
    func logits(for windows: [PoseWindow], tape: Tape) -> Variable
    /// The model as a model file, with `training`, `metrics` and `extra` metadata added.
    func modelFile(name: String?, training: [String: JSONValue], metrics: [String: Double],
                   extra: [String: JSONValue]) throws -> ModelFile
}

extension PoseClassifierModel {
    /// Class probabilities for each window (inference mode), in `labels` order, running
    /// `batchSize` windows at a time. GEMMs run on one thread: a pose network's matrices are
    /// too small for OpenBLAS's threads to pay (measured slower than one thread on 2 cores).
    public func batchedProbabilities(for windows: [PoseWindow], batchSize: Int) -> [[Float]] {
        ComputeThreads.withSingleThreadedBLAS { batchedProbabilitiesOnOneBLASThread(for: windows, batchSize: batchSize) }
    }

    private func batchedProbabilitiesOnOneBLASThread(for windows: [PoseWindow], batchSize: Int) -> [[Float]] {
        var result: [[Float]] = []
        result.reserveCapacity(windows.count)
        let c = labels.count
        var start = 0
        while start < windows.count {
            let batch = Array(windows[start..<min(start + max(batchSize, 1), windows.count)])
            let tape = Tape(mode: .inference, recordsGradients: false)
            let probabilities = logits(for: batch, tape: tape).value.softmax(axis: -1)
            probabilities.withUnsafeBufferPointer { p in
                for n in 0..<batch.count { result.append(Array(p[(n * c)..<((n + 1) * c)])) }
            }
            start += batch.count
        }
        return result
    }
}
