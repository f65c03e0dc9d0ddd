import Foundation

/// Small helpers the synthetic dataset writers share: folder creation and file writes
/// that turn system errors into `SyntheticDataError`s naming the path.
package enum SyntheticFileWriting {
    /// Creates `directory` (and its parents) unless it exists.
    package static func createDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SyntheticDataError.cannotWrite(path: directory.path, reason: error.localizedDescription)
        }
    }

    /// Writes `bytes` to `url`, replacing any previous file.
    ///
    /// Uses C stdio: on Linux, Foundation's `Data.write(to:)` costs about 3 ms per file,
    /// thirty times more than `fwrite`, which dominates writing a few hundred clips.
    package static func write(_ bytes: [UInt8], to url: URL) throws {
        let path = url.path
        guard let file = fopen(path, "wb") else {
            throw SyntheticDataError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        let written = bytes.withUnsafeBytes { buffer in
            buffer.isEmpty ? 0 : fwrite(buffer.baseAddress, 1, buffer.count, file)
        }
        let writeError = written != bytes.count ? errno : 0
        let closeFailed = fclose(file) != 0
        if written != bytes.count || closeFailed {
            let reason = String(cString: strerror(writeError != 0 ? writeError : errno))
            throw SyntheticDataError.cannotWrite(path: path, reason: reason)
        }
    }
}
