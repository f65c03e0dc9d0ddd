import CoachTensor
import Foundation

/// A Coach model file: named float32 tensors plus metadata, stored as HDF5.
///
/// Layout (format `coach-model`, version 1; readable with h5py or `h5dump`):
/// - root attribute `format` — the string `coach-model`;
/// - root attribute `format_version` — a 64-bit integer, currently 1;
/// - root attribute `metadata` — UTF-8 JSON of `ModelMetadata`, keys sorted;
/// - group `/weights` — one little-endian float32 dataset per tensor, named by its stable
///   dotted parameter name (e.g. `blocks.3.depthwise.conv.weight`), shaped like the tensor;
/// - before the HDF5 data, a 512-byte user block with `ModelFileHeader`'s checksum line.
///
/// Writing is atomic (a temporary file in the same directory, then a rename) and
/// deterministic: the same content always gives the same bytes.
public struct ModelFile: Equatable, Sendable {
    /// The value of the root attribute `format`.
    public static let formatName = "coach-model"
    /// The format version this Coach writes, and the newest it reads.
    public static let formatVersion = 1

    /// Called with the path before libhdf5 reads a file that has no Coach integrity header (written
    /// by a Coach older than the header, or by another HDF5 writer), so nothing vouches for its
    /// bytes and libhdf5's parser can crash on damaged metadata. A host that can afford it reads
    /// such a file somewhere a crash cannot reach first — the `coach` command reads it in a child
    /// process — and throws `ModelFileError.damaged` when that crashes. Nil (the default): read as is.
    nonisolated(unsafe) public static var headerlessFileCheck: ((String) throws -> Void)?

    /// Task, labels, input specification, training and evaluation information.
    public var metadata: ModelMetadata
    /// The weights by stable dotted parameter name.
    public var tensors: [String: Tensor]
    /// The format version of the file this model was read from (`formatVersion` when new).
    public internal(set) var fileFormatVersion: Int
    /// The path this model was read from, used to name the file in errors (`nil` when new).
    public internal(set) var sourcePath: String?
    /// Whether the weights were read from a file that carries their SHA-256 and matched it (false
    /// for files written before the checksum existed, and for models not read from a file).
    public internal(set) var weightsAreChecked = false

    /// For a file read without its weights checksum (`weightsAreChecked` false), what `coach
    /// inspect` says instead of calling it fine: a backbone is refused by every command until it
    /// is imported again; another model still works, but damage to its weights would go unseen.
    public var unverifiedWeightsWarning: String? {
        guard !weightsAreChecked, let path = sourcePath else { return nil }
        if metadata.task == .backbone {
            return BackboneError.unverified(path: path).localizedDescription + "; every command refuses it until then"
        }
        return "\(path) was written by an older Coach and carries no checksum of its weights, so damage to them cannot be "
            + "detected; train or save it again with this Coach to protect it"
    }

    /// A model with `metadata` and `tensors`, not yet on disk.
    public init(metadata: ModelMetadata, tensors: [String: Tensor] = [:]) {
        self.metadata = metadata
        self.tensors = tensors
        self.fileFormatVersion = ModelFile.formatVersion
        self.sourcePath = nil
    }

    /// Tensor names in natural order (`blocks.2` before `blocks.10`).
    public var tensorNames: [String] { tensors.keys.sorted(by: TensorNameOrder.areInIncreasingOrder) }

    /// The total number of scalars in all tensors.
    public var parameterCount: Int { tensors.values.reduce(0) { $0 + $1.count } }

    /// Two models are equal when their metadata and tensors are (where they came from is ignored).
    public static func == (lhs: ModelFile, rhs: ModelFile) -> Bool {
        lhs.metadata == rhs.metadata && lhs.tensors == rhs.tensors
    }

    /// Reads a model file, weights included.
    ///
    /// Throws `ModelFileError` for a missing, non-HDF5, truncated, damaged or foreign
    /// file, a newer format version or malformed metadata.
    public static func read(from url: URL) throws -> ModelFile {
        let contents = try ModelFileReader.read(url, loadingTensors: true)
        var model = ModelFile(metadata: contents.metadata, tensors: contents.tensors)
        model.fileFormatVersion = contents.formatVersion
        model.sourcePath = url.path
        model.weightsAreChecked = contents.weightsChecked
        return model
    }

    /// Writes the model to `url` atomically, replacing any file there only on success.
    ///
    /// Throws `ModelFileError.invalidTensorNames`, `.metadataNotEncodable` or
    /// `.writeFailed`; on failure no temporary file is left behind.
    /// The root attribute holding `weightsDigest` of the file's tensors.
    static let weightsDigestAttribute = "weights_sha256"

    /// SHA-256 over the tensors in name order: each name, a zero byte, its shape as little-endian
    /// 64-bit integers, then its float32 values.
    static func weightsDigest(_ tensors: [(String, Tensor)]) throws -> String {
        var bytes = Data()
        bytes.reserveCapacity(tensors.reduce(0) { $0 + $1.1.count * 4 + 64 })
        for (name, tensor) in tensors {
            bytes.append(contentsOf: Array(name.utf8) + [0])
            for extent in tensor.shape { withUnsafeBytes(of: Int64(extent).littleEndian) { bytes.append(contentsOf: $0) } }
            tensor.withUnsafeBufferPointer { values in
                guard let base = values.baseAddress, values.count > 0 else { return }
                bytes.append(UnsafeRawPointer(base).assumingMemoryBound(to: UInt8.self), count: values.count * 4)
            }
        }
        return try FileDigest.sha256(of: bytes)
    }

    public func write(to url: URL) throws {
        let invalidNames = tensors.keys.filter { $0.isEmpty || $0.contains("/") || $0 == "." }
        guard invalidNames.isEmpty else {
            throw ModelFileError.invalidTensorNames(names: invalidNames.sorted())
        }
        let json = try metadata.jsonString()
        let ordered = tensorNames.map { ($0, tensors[$0]!) }
        try ModelFileWriter.writeAtomically(to: url, metadataJSON: json, tensors: ordered)
    }
}

/// What `coach inspect` needs from a model file: everything but the weights' values.
public struct ModelFileSummary: Equatable, Sendable {
    /// The file's format version.
    public var formatVersion: Int
    /// The file's metadata.
    public var metadata: ModelMetadata
    /// Each tensor's shape by name.
    public var tensorShapes: [String: [Int]]

    /// Reads the format version, metadata and tensor shapes without loading the weights.
    public static func read(from url: URL) throws -> ModelFileSummary {
        let contents = try ModelFileReader.read(url, loadingTensors: false)
        return ModelFileSummary(formatVersion: contents.formatVersion, metadata: contents.metadata,
                                tensorShapes: contents.shapes)
    }

    /// Tensor names in natural order.
    public var tensorNames: [String] { tensorShapes.keys.sorted(by: TensorNameOrder.areInIncreasingOrder) }

    /// The total number of scalars in all tensors.
    public var parameterCount: Int { tensorShapes.values.reduce(0) { $0 + Tensor.count(of: $1) } }
}

/// Natural ordering of dotted names: digit runs compare as numbers.
public enum TensorNameOrder {
    /// Whether `a` sorts before `b` (`blocks.2.x` < `blocks.10.x`; ties broken bytewise).
    public static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        var i = 0, j = 0
        while i < left.count && j < right.count {
            let x = left[i], y = right[j]
            if isDigit(x) && isDigit(y) {
                let startI = i, startJ = j
                while i < left.count && isDigit(left[i]) { i += 1 }
                while j < right.count && isDigit(right[j]) { j += 1 }
                let numberA = left[startI..<i].drop { $0 == 48 }, numberB = right[startJ..<j].drop { $0 == 48 }
                if numberA.count != numberB.count { return numberA.count < numberB.count }
                if !numberA.elementsEqual(numberB) { return numberA.lexicographicallyPrecedes(numberB) }
            } else {
                if x != y { return x < y }
                i += 1
                j += 1
            }
        }
        if left.count - i != right.count - j { return left.count - i < right.count - j }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}
