import CHDF5
import CoachTensor
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes model files: HDF5 built in memory, then written to a temporary file beside the
/// target and renamed over it.
///
/// HDF5 works on an in-memory file (the core driver without a backing store), so a disk
/// failure can never leave libhdf5 holding a half-closed file; the bytes reach the disk
/// through plain POSIX calls whose every failure is handled here.
enum ModelFileWriter {
    /// Writes the model file to `url` atomically; the previous file survives any failure.
    static func writeAtomically(to url: URL, metadataJSON: String, tensors: [(String, Tensor)]) throws {
        let path = url.path
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw ModelFileError.writeFailed(path: path, reason: "the folder '\(directory.path)' does not exist")
        }
        guard isDirectory.boolValue else {
            throw ModelFileError.writeFailed(path: path, reason: "'\(directory.path)' is a file, not a folder")
        }
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) != S_IFREG {
            throw ModelFileError.writeFailed(path: path, reason: "it exists and is not a regular file (a folder, device, link or pipe); Coach replaces only regular files")
        }
        removeStaleTemporaries(of: url)
        let image: [UInt8]
        do {
            image = try HDF5Library.withLock {
                try makeImage(name: path, metadataJSON: metadataJSON, tensors: tensors)
            }
        } catch let failure as HDF5Failure {
            throw ModelFileError.writeFailed(path: path, reason: "HDF5 could not \(failure.summary)")
        }
        // Same directory, so the final rename is atomic; the name matches `*.h5.tmp*`.
        let temporary = directory.appendingPathComponent(
            "\(url.lastPathComponent).tmp-\(getpid())-\(UUID().uuidString)").path
        do {
            try writeAndSynchronise(image, to: temporary)
            guard rename(temporary, path) == 0 else { throw SystemCallFailure("rename the temporary file") }
        } catch let failure as SystemCallFailure {
            unlink(temporary)
            throw ModelFileError.writeFailed(path: path, reason: failure.description)
        }
    }

    /// Removes `<name>.tmp-<pid>-<uuid>` files an interrupted write of `url` left behind (their
    /// process no longer runs); a running writer's temporary is left alone.
    static func removeStaleTemporaries(of url: URL) {
        let directory = url.deletingLastPathComponent(), prefix = url.lastPathComponent + ".tmp-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ Int32($0) }), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory.appendingPathComponent(name).path) }
        }
    }

    /// An `errno`-reporting failure of a POSIX call.
    private struct SystemCallFailure: Error, CustomStringConvertible {
        var description: String
        init(_ operation: String) { description = "could not \(operation): \(String(cString: strerror(errno)))" }
    }

    /// Writes `bytes` to a new file at `path` and flushes it to disk.
    private static func writeAndSynchronise(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemCallFailure("create a temporary file") }
        var isOpen = true
        defer { if isOpen { close(descriptor) } }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw SystemCallFailure("write \(buffer.count) bytes (stopped after \(offset))")
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw SystemCallFailure("flush the file to disk") }
        isOpen = false
        guard close(descriptor) == 0 else { throw SystemCallFailure("close the file") }
    }

    /// The bytes of an HDF5 file with the layout `ModelFile` documents.
    ///
    /// Determinism: object time stamps are off on the root group, the weights group and
    /// every dataset; the format is pinned to HDF5 1.8 (readable by every HDF5 since
    /// 2008, and able to store large attributes such as long label lists); memory the
    /// in-memory file grows into is zeroed.
    private static func makeImage(name: String, metadataJSON: String, tensors: [(String, Tensor)]) throws -> [UInt8] {
        let fileCreation = try HDF5Library.check(H5Pcreate(coach_H5P_FILE_CREATE()), "create file properties")
        defer { H5Pclose(fileCreation) }
        try HDF5Library.check(status: H5Pset_obj_track_times(fileCreation, false), "turn off time stamps")
        try HDF5Library.check(status: H5Pset_userblock(fileCreation, hsize_t(ModelFileHeader.size)), "reserve the header")
        let fileAccess = try HDF5Library.check(H5Pcreate(coach_H5P_FILE_ACCESS()), "create access properties")
        defer { H5Pclose(fileAccess) }
        try HDF5Library.check(status: H5Pset_fapl_core(fileAccess, 1 << 20, false), "use an in-memory file")
        try HDF5Library.check(status: H5Pset_libver_bounds(fileAccess, H5F_LIBVER_V18, H5F_LIBVER_V18),
                              "pin the HDF5 format version")
        try HDF5Library.check(status: H5Pset_fclose_degree(fileAccess, H5F_CLOSE_STRONG), "set the close mode")
        let capture = FileImageCapture()
        return try withExtendedLifetime(capture) {
            var callbacks = capture.callbacks()
            try HDF5Library.check(status: H5Pset_file_image_callbacks(fileAccess, &callbacks),
                                  "install file-image callbacks")
            let file = try HDF5Library.check(H5Fcreate(name, coach_H5F_ACC_TRUNC(), fileCreation, fileAccess),
                                             "create the in-memory file")
            do {
                try HDF5Attributes.writeString(ModelFile.formatName, named: "format", on: file)
                try HDF5Attributes.writeInteger(Int64(ModelFile.formatVersion), named: "format_version", on: file)
                try HDF5Attributes.writeString(metadataJSON, named: "metadata", on: file)
                try HDF5Attributes.writeString(try ModelFile.weightsDigest(tensors), named: ModelFile.weightsDigestAttribute, on: file)
                try writeWeights(tensors, in: file)
            } catch {
                H5Fclose(file)
                throw error
            }
            // Closing writes the final superblock; the core driver then hands the buffer
            // to `FileImageCapture`, which keeps a copy.
            try HDF5Library.check(status: H5Fclose(file), "finish the in-memory file")
            var image = try capture.finishedImage()
            try ModelFileHeader.stamp(&image)
            return image
        }
    }

    /// Writes the group `/weights` with one dataset per tensor.
    private static func writeWeights(_ tensors: [(String, Tensor)], in file: hid_t) throws {
        let groupCreation = try HDF5Library.check(H5Pcreate(coach_H5P_GROUP_CREATE()), "create group properties")
        defer { H5Pclose(groupCreation) }
        try HDF5Library.check(status: H5Pset_obj_track_times(groupCreation, false), "turn off time stamps")
        let weights = try HDF5Library.check(
            H5Gcreate2(file, "weights", coach_H5P_DEFAULT(), groupCreation, coach_H5P_DEFAULT()),
            "create the group 'weights'")
        defer { H5Gclose(weights) }

        let datasetCreation = try HDF5Library.check(H5Pcreate(coach_H5P_DATASET_CREATE()), "create dataset properties")
        defer { H5Pclose(datasetCreation) }
        try HDF5Library.check(status: H5Pset_obj_track_times(datasetCreation, false), "turn off time stamps")
        // Every element is written, so HDF5 need not write fill values first.
        try HDF5Library.check(status: H5Pset_fill_time(datasetCreation, H5D_FILL_TIME_NEVER), "set fill time")

        for (name, tensor) in tensors {
            try HDF5Datasets.write(tensor, named: name, in: weights, creationProperties: datasetCreation)
        }
    }
}

/// Receives the core driver's memory through HDF5's file-image callbacks and keeps the
/// final image when the file closes.
///
/// (`H5Fget_file_image` in HDF5 1.10 clears the superblock's status flags without
/// recomputing its checksum, so its images of 1.8-format files do not open; the buffer
/// handed over at close is the real, finished file.)
private final class FileImageCapture {
    /// Bytes currently allocated for the in-memory file.
    var allocatedSize = 0
    /// A copy of the buffer as the file closed.
    var closedImage: [UInt8]?

    /// Callbacks whose `udata` points at this object (which must outlive the file).
    func callbacks() -> H5FD_file_image_callbacks_t {
        H5FD_file_image_callbacks_t(
            image_malloc: { size, _, context in
                guard let context else { return nil }
                FileImageCapture.from(context).allocatedSize = size
                return calloc(1, max(size, 1))
            },
            image_memcpy: { destination, source, size, _, _ in
                guard let destination, let source else { return destination }
                return memcpy(destination, source, size)
            },
            image_realloc: { pointer, size, _, context in
                guard let context else { return nil }
                let capture = FileImageCapture.from(context)
                guard let grown = realloc(pointer, max(size, 1)) else { return nil }
                if size > capture.allocatedSize {
                    memset(grown + capture.allocatedSize, 0, size - capture.allocatedSize)
                }
                capture.allocatedSize = size
                return grown
            },
            image_free: { pointer, operation, context in
                if let pointer, let context, operation == H5FD_FILE_IMAGE_OP_FILE_CLOSE {
                    let capture = FileImageCapture.from(context)
                    capture.closedImage = Array(UnsafeRawBufferPointer(start: pointer, count: capture.allocatedSize)
                        .bindMemory(to: UInt8.self))
                }
                free(pointer)
                return 0
            },
            udata_copy: { $0 },
            udata_free: { _ in 0 },
            udata: Unmanaged.passUnretained(self).toOpaque())
    }

    private static func from(_ context: UnsafeMutableRawPointer) -> FileImageCapture {
        Unmanaged<FileImageCapture>.fromOpaque(context).takeUnretainedValue()
    }

    /// The closed file's bytes, cut to the end-of-file address its superblock records (the
    /// superblock follows the user block reserved for `ModelFileHeader`).
    func finishedImage() throws -> [UInt8] {
        guard let image = closedImage else {
            throw HDF5Failure(operation: "collect the in-memory file", messages: ["HDF5 did not hand over the image"])
        }
        // Superblock version 2: signature (8), version, offset size, length size, flags,
        // base address, extension address, end-of-file address (8 bytes each, little endian;
        // the end of file is relative to the base address, the superblock's own position).
        let start = ModelFileHeader.size
        guard image.count >= start + 48, image[start...].starts(with: ModelFileReader.signature),
              image[start + 8] == 2, image[start + 9] == 8 else {
            throw HDF5Failure(operation: "collect the in-memory file", messages: ["unexpected superblock"])
        }
        let endOfFile = start + (0..<8).reduce(0) { $0 | Int(image[start + 28 + $1]) << (8 * $1) }
        guard endOfFile >= start + 48, endOfFile <= image.count else {
            throw HDF5Failure(operation: "collect the in-memory file",
                              messages: ["end of file \(endOfFile) outside the \(image.count)-byte image"])
        }
        return Array(image.prefix(endOfFile))
    }
}
