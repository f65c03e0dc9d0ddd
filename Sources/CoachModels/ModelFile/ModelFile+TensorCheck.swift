import CoachTensor
import Foundation

extension ModelFile {
    /// Checks that the file has exactly the tensors a model expects, with the expected shapes.
    ///
    /// Lists every mismatch at once (missing, wrongly shaped and — unless
    /// `allowingUnexpected` — unused tensors) in `ModelFileError.tensorMismatch`.
    public func checkTensors(_ expected: [String: [Int]], allowingUnexpected: Bool = false) throws {
        let mismatches = ModelFile.mismatches(actual: tensors.mapValues(\.shape), expected: expected,
                                              allowingUnexpected: allowingUnexpected)
        guard mismatches.isEmpty else {
            throw ModelFileError.tensorMismatch(path: sourcePath, mismatches: mismatches)
        }
    }

    /// The tensor `name`, which must have `shape`.
    ///
    /// Throws `ModelFileError.tensorMismatch` naming the file when it is missing or shaped differently.
    public func tensor(_ name: String, shape: [Int]) throws -> Tensor {
        guard let tensor = tensors[name] else {
            throw ModelFileError.tensorMismatch(
                path: sourcePath, mismatches: [TensorMismatch(name: name, kind: .missing(expectedShape: shape))])
        }
        guard tensor.shape == shape else {
            throw ModelFileError.tensorMismatch(
                path: sourcePath,
                mismatches: [TensorMismatch(name: name, kind: .wrongShape(expected: shape, actual: tensor.shape))])
        }
        return tensor
    }

    /// Every difference between `actual` and `expected` shapes, in natural name order.
    public static func mismatches(actual: [String: [Int]], expected: [String: [Int]],
                                  allowingUnexpected: Bool = false) -> [TensorMismatch] {
        var result: [TensorMismatch] = []
        let names = Set(actual.keys).union(expected.keys).sorted(by: TensorNameOrder.areInIncreasingOrder)
        for name in names {
            switch (actual[name], expected[name]) {
            case (nil, let wanted?):
                result.append(TensorMismatch(name: name, kind: .missing(expectedShape: wanted)))
            case (let found?, let wanted?) where found != wanted:
                result.append(TensorMismatch(name: name, kind: .wrongShape(expected: wanted, actual: found)))
            case (let found?, nil) where !allowingUnexpected:
                result.append(TensorMismatch(name: name, kind: .unexpected(actualShape: found)))
            default:
                break
            }
        }
        return result
    }
}
