import CHDF5
import CoachTensor
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads model files, turning every failure into a `ModelFileError` that names the file.
enum ModelFileReader {
    /// What a model file holds.
    struct Contents {
        var formatVersion: Int
        var metadata: ModelMetadata
        var shapes: [String: [Int]]
        /// Empty unless the tensors were loaded.
        var tensors: [String: Tensor]
        /// Whether the tensors were checked against the file's weights checksum.
        var weightsChecked = false
    }

    /// The 8-byte signature every HDF5 superblock starts with.
    static let signature: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The size of the smallest HDF5 superblock (version 2 and 3, with 8-byte addresses).
    static let minimumSuperblockSize = 48

    /// Reads the file at `url`; weights only when `loadingTensors`.
    static func read(_ url: URL, loadingTensors: Bool) throws -> Contents {
        let path = url.path
        let (header, size) = try sniff(path)
        try ModelFileHeader.verify(path: path, prefix: header, fileSize: size)
        let hasHeader = ModelFileHeader.parse(header) != .absent
        if !hasHeader, header.starts(with: signature), let check = ModelFile.headerlessFileCheck { try check(path) }
        let prefix = hasHeader ? Array(header.dropFirst(ModelFileHeader.size)) : Array(header.prefix(64))
        return try HDF5Library.withLock {
            let isHDF5 = H5Fis_hdf5(path)
            if isHDF5 == 0 || (isHDF5 < 0 && !prefix.starts(with: signature)) {
                if size < signature.count && signature.starts(with: prefix) && size > 0 {
                    throw ModelFileError.truncated(path: path, detail: "only \(size) bytes, shorter than an HDF5 header")
                }
                throw ModelFileError.notHDF5(path: path, looksLike: FileKind.describe(prefix: prefix, size: size))
            }
            let file = H5Fopen(path, coach_H5F_ACC_RDONLY(), coach_H5P_DEFAULT())
            guard file >= 0 else {
                let failure = HDF5Library.failure("open")
                if prefix.starts(with: signature) && size < minimumSuperblockSize {
                    throw ModelFileError.truncated(
                        path: path, detail: "only \(size) bytes, shorter than an HDF5 superblock")
                }
                if failure.reportsTruncation {
                    throw ModelFileError.truncated(path: path, detail: truncationDetail(failure, size: size))
                }
                let reason = failure.messages.last.map { " (\($0))" } ?? ""
                throw ModelFileError.damaged(path: path, detail: "HDF5 cannot open it\(reason)")
            }
            defer { H5Fclose(file) }
            do {
                return try readContents(of: file, path: path, loadingTensors: loadingTensors)
            } catch let failure as HDF5Failure {
                if failure.reportsTruncation {
                    throw ModelFileError.truncated(path: path, detail: truncationDetail(failure, size: size))
                }
                throw ModelFileError.damaged(path: path, detail: "HDF5 could not \(failure.summary)")
            }
        }
    }

    /// Checks the file exists and is a regular file (a FIFO would block the reader forever);
    /// returns its first bytes (the header and the HDF5 signature after it) and its size.
    private static func sniff(_ path: String) throws -> (prefix: [UInt8], size: Int) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ModelFileError.fileNotFound(path: path)
        }
        guard !isDirectory.boolValue else {
            throw ModelFileError.unreadable(path: path, reason: "it is a folder, not a file")
        }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw ModelFileError.unreadable(path: path, reason: "it is not a regular file (a pipe, socket or device)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ModelFileError.unreadable(path: path, reason: "permission denied or I/O error")
        }
        defer { try? handle.close() }
        do {
            let prefix = try handle.read(upToCount: ModelFileHeader.size + 64) ?? Data()
            let size = try handle.seekToEnd()
            return (Array(prefix), Int(size))
        } catch {
            throw ModelFileError.unreadable(path: path, reason: error.localizedDescription)
        }
    }

    /// "N bytes on disk, the file's header says M" from HDF5's truncation message.
    private static func truncationDetail(_ failure: HDF5Failure, size: Int) -> String {
        for message in failure.messages {
            guard let range = message.range(of: "stored_eof = ") else { continue }
            let digits = message[range.upperBound...].prefix { $0.isNumber }
            if let stored = Int(digits) {
                return "\(size) bytes on disk, but its HDF5 header says \(stored)"
            }
        }
        return "\(size) bytes on disk; HDF5: \(failure.summary)"
    }

    /// Reads the root attributes and the weights group of an open file.
    private static func readContents(of file: hid_t, path: String, loadingTensors: Bool) throws -> Contents {
        guard try HDF5Attributes.exists("format", on: file) else {
            throw ModelFileError.notACoachModel(path: path, reason: "it has no root attribute 'format'")
        }
        let format: String
        do {
            format = try HDF5Attributes.readString(named: "format", on: file)
        } catch let problem as HDF5AttributeProblem {
            throw ModelFileError.notACoachModel(path: path, reason: "its root attribute 'format' \(problem.reason)")
        }
        guard format == ModelFile.formatName else {
            throw ModelFileError.notACoachModel(path: path, reason: "its format is \"\(format)\"")
        }

        guard try HDF5Attributes.exists("format_version", on: file) else {
            throw ModelFileError.damaged(path: path, detail: "the root attribute 'format_version' is missing")
        }
        let version: Int64
        do {
            version = try HDF5Attributes.readInteger(named: "format_version", on: file)
        } catch let problem as HDF5AttributeProblem {
            throw ModelFileError.damaged(path: path, detail: "the root attribute 'format_version' \(problem.reason)")
        }
        guard version >= 1 else {
            throw ModelFileError.damaged(path: path, detail: "format_version \(version) is not a valid version (≥ 1)")
        }
        guard version <= ModelFile.formatVersion else {
            throw ModelFileError.unsupportedFormatVersion(path: path, found: Int(clamping: version),
                                                          supported: ModelFile.formatVersion)
        }

        guard try HDF5Attributes.exists("metadata", on: file) else {
            throw ModelFileError.malformedMetadata(path: path, jsonPath: "$",
                                                   reason: "the root attribute 'metadata' is missing")
        }
        let json: String
        do {
            json = try HDF5Attributes.readString(named: "metadata", on: file)
        } catch let problem as HDF5AttributeProblem {
            throw ModelFileError.malformedMetadata(path: path, jsonPath: "$",
                                                   reason: "the root attribute 'metadata' \(problem.reason)")
        }
        let metadata = try ModelMetadata.parse(json: json, path: path)

        guard try HDF5Library.check(truth: H5Lexists(file, "weights", coach_H5P_DEFAULT()), "look for /weights")
        else {
            throw ModelFileError.damaged(path: path, detail: "the group '/weights' is missing")
        }
        let weights = try HDF5Library.check(H5Gopen2(file, "weights", coach_H5P_DEFAULT()), "open the group '/weights'")
        defer { H5Gclose(weights) }
        var shapes: [String: [Int]] = [:]
        var tensors: [String: Tensor] = [:]
        do {
            for name in try HDF5Datasets.memberNames(of: weights, groupName: "/weights") {
                if loadingTensors {
                    let tensor = try HDF5Datasets.read(name, in: weights)
                    shapes[name] = tensor.shape
                    tensors[name] = tensor
                } else {
                    shapes[name] = try HDF5Datasets.shape(of: name, in: weights)
                }
            }
        } catch let problem as HDF5DatasetProblem {
            throw ModelFileError.invalidTensor(path: path, name: problem.name, reason: problem.reason)
        }
        // Files written since the checksum was added carry one: a changed byte in the weights is
        // an error here, not a model that trains or predicts on damaged numbers.
        var checked = false
        if loadingTensors, try HDF5Attributes.exists(ModelFile.weightsDigestAttribute, on: file) {
            let recorded = (try? HDF5Attributes.readString(named: ModelFile.weightsDigestAttribute, on: file)) ?? ""
            let ordered = tensors.keys.sorted(by: TensorNameOrder.areInIncreasingOrder).map { ($0, tensors[$0]!) }
            guard try ModelFile.weightsDigest(ordered) == recorded else {
                throw ModelFileError.damaged(path: path, detail: "its weights do not match the SHA-256 written with them "
                                             + "(bytes changed after writing); get or train the file again")
            }
            checked = true
        }
        return Contents(formatVersion: Int(version), metadata: metadata, shapes: shapes, tensors: tensors, weightsChecked: checked)
    }
}

/// Guesses what a non-HDF5 file is from its first bytes, for friendlier errors.
enum FileKind {
    /// A phrase such as "a JPEG image", or `nil` when unknown.
    static func describe(prefix: [UInt8], size: Int) -> String? {
        if size == 0 { return "an empty file" }
        func starts(_ bytes: [UInt8]) -> Bool { prefix.starts(with: bytes) }
        if starts([0xFF, 0xD8, 0xFF]) { return "a JPEG image" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "a PNG image" }
        if starts(Array("GIF8".utf8)) { return "a GIF image" }
        if starts(Array("%PDF".utf8)) { return "a PDF document" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "a zip archive, e.g. a PyTorch checkpoint or Core ML package" }
        if starts([0x80]) && prefix.count > 1 && prefix[1] <= 5 { return "a Python pickle, e.g. a PyTorch checkpoint" }
        let text = prefix.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if let first = text.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return "a JSON file" }
        if prefix.allSatisfy({ $0 >= 0x09 && !(0x0E...0x1F).contains($0) && $0 != 0x7F }) {
            return "a text file"
        }
        return nil
    }
}
