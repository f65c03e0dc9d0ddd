import COpenSSL
import Foundation

/// SHA-256 digests (OpenSSL's EVP API), used to pin a backbone file by content.
public enum FileDigest {
    /// The lowercase hex SHA-256 of the file at `url`, read in 1 MiB chunks.
    ///
    /// Throws `ModelFileError.fileNotFound` or `.unreadable`.
    public static func sha256(ofFileAt url: URL) throws -> String {
        try sha256(ofFileAt: url, from: 0)
    }

    /// The lowercase hex SHA-256 of the file at `url` from byte `offset` to its end.
    public static func sha256(ofFileAt url: URL, from offset: Int) throws -> String {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ModelFileError.fileNotFound(path: url.path)
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw ModelFileError.unreadable(path: url.path, reason: "permission denied, a folder, or an I/O error")
        }
        defer { try? handle.close() }
        let hasher = try Hasher()
        do {
            if offset > 0 { try handle.seek(toOffset: UInt64(offset)) }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try hasher.update(chunk)
            }
        } catch let error as ModelFileError {
            throw error
        } catch {
            throw ModelFileError.unreadable(path: url.path, reason: error.localizedDescription)
        }
        return try hasher.finish()
    }

    /// The lowercase hex SHA-256 of `bytes` (throws only if OpenSSL itself fails).
    public static func sha256<Bytes: DataProtocol>(of bytes: Bytes) throws -> String {
        let hasher = try Hasher()
        try hasher.update(Data(bytes))
        return try hasher.finish()
    }

    /// An incremental SHA-256 context.
    private final class Hasher {
        private let context: OpaquePointer

        init() throws {
            guard let context = EVP_MD_CTX_new() else {
                throw ModelFileError.unreadable(path: "", reason: "OpenSSL could not allocate a digest context")
            }
            self.context = context
            guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
                EVP_MD_CTX_free(context)
                throw ModelFileError.unreadable(path: "", reason: "OpenSSL could not start SHA-256")
            }
        }

        deinit { EVP_MD_CTX_free(context) }

        func update(_ data: Data) throws {
            let status = data.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            guard status == 1 else { throw ModelFileError.unreadable(path: "", reason: "SHA-256 update failed") }
        }

        func finish() throws -> String {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else {
                throw ModelFileError.unreadable(path: "", reason: "SHA-256 finalisation failed")
            }
            return digest.prefix(Int(length)).map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
        }
    }
}
