import Foundation

/// The first 512 bytes of a model file: an HDF5 user block (bytes libhdf5 skips) holding one text
/// line, `coach-model <size> <sha256>`, the file's size and the SHA-256 of everything after the
/// header, then zeros. A reader checks them before libhdf5 sees the file, so a copied-short or
/// bit-flipped file is refused with a clear error instead of reaching libhdf5's parser, which
/// can crash on damaged metadata. Files written before the header existed have none and are read
/// as before.
enum ModelFileHeader {
    /// Bytes reserved at the start (HDF5's smallest user block).
    static let size = 512
    /// What the header line starts with.
    static let magic = Array("coach-model ".utf8)

    /// What a file's first bytes say about it.
    enum Parsed: Equatable {
        /// No header: an HDF5 file written before headers, or not a model at all.
        case absent
        /// A header cut off before its size is known (`length` bytes on disk).
        case cut
        /// The recorded size and digest.
        case present(size: Int, digest: String)
        /// A header that is not well formed (the reason).
        case malformed(String)
    }

    /// Fills the reserved first bytes of `image` (zeros from libhdf5) with the header line.
    static func stamp(_ image: inout [UInt8]) throws {
        precondition(image.count > size && image[0..<size].allSatisfy { $0 == 0 }, "the user block must be reserved and empty")
        let digest = try FileDigest.sha256(of: image[size...])
        let line = Array("coach-model \(image.count) \(digest)\n".utf8)
        image.replaceSubrange(0..<line.count, with: line)
    }

    /// Parses the first bytes of a file (at least `size` of them when the file has that many).
    static func parse(_ prefix: [UInt8]) -> Parsed {
        let head = Array(prefix.prefix(magic.count))
        guard head == Array(magic.prefix(head.count)), !head.isEmpty else { return .absent }
        guard prefix.count >= magic.count else { return .cut }
        let rest = prefix[magic.count...]
        guard let space = rest.firstIndex(of: 0x20) else { return rest.count < 20 ? .cut : .malformed("no size") }
        guard let sizeText = String(bytes: rest[rest.startIndex..<space], encoding: .ascii), let total = Int(sizeText),
              total > size else { return .malformed("its size field is not a number") }
        let digestStart = space + 1
        guard prefix.count >= digestStart + 65 else { return .present(size: total, digest: "") }
        let digestBytes = prefix[digestStart..<(digestStart + 64)]
        guard let digest = String(bytes: digestBytes, encoding: .ascii),
              digest.allSatisfy({ $0.isHexDigit && !$0.isUppercase }), prefix[digestStart + 64] == 0x0A else {
            return .malformed("its checksum field is not 64 hex digits")
        }
        guard prefix.count >= size, prefix[(digestStart + 65)..<size].allSatisfy({ $0 == 0 }) else {
            return prefix.count >= size ? .malformed("bytes after the header line are not zero") : .present(size: total, digest: digest)
        }
        return .present(size: total, digest: digest)
    }

    /// Checks the file at `path` (of `fileSize` bytes, starting with `prefix`) against its
    /// header. Throws `ModelFileError.truncated` or `.damaged`; returns quietly for files
    /// without a header.
    static func verify(path: String, prefix: [UInt8], fileSize: Int) throws {
        switch parse(prefix) {
        case .absent:
            // HDF5 after a user block that is not Coach's header: a header whose first bytes changed.
            if !prefix.starts(with: ModelFileReader.signature), prefix.count >= size + ModelFileReader.signature.count,
               prefix[size...].starts(with: ModelFileReader.signature) {
                throw ModelFileError.damaged(path: path, detail: "its header is damaged (it does not start with \"coach-model\")")
            }
            return
        case .cut:
            throw ModelFileError.truncated(path: path, detail: "only \(fileSize) bytes, shorter than a Coach model header")
        case .malformed(let reason):
            throw ModelFileError.damaged(path: path, detail: "its header is damaged (\(reason))")
        case .present(let total, let digest):
            if fileSize < total {
                throw ModelFileError.truncated(path: path, detail: "\(fileSize) bytes on disk, but its header says \(total)")
            }
            if fileSize > total {
                throw ModelFileError.damaged(path: path, detail: "\(fileSize) bytes on disk, but its header says \(total): something was appended")
            }
            guard !digest.isEmpty else {
                throw ModelFileError.damaged(path: path, detail: "its header is damaged (the checksum is cut off)")
            }
            let actual = try FileDigest.sha256(ofFileAt: URL(fileURLWithPath: path), from: size)
            guard actual == digest else {
                throw ModelFileError.damaged(path: path, detail: "its contents do not match the SHA-256 checksum Coach wrote into it "
                                             + "(bytes were changed after it was written)")
            }
        }
    }
}
