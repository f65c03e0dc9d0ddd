import Foundation

/// Small helpers the synthetic dataset writers share: folder creation and atomic writes
/// that turn Foundation's errors into `SyntheticDataError`s naming the path.
enum SyntheticFileWriting {
    /// Creates `directory` (and its parents) unless it exists.
    static func createDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SyntheticDataError.cannotWrite(path: directory.path, reason: error.localizedDescription)
        }
    }

    /// Writes `bytes` to `url`, replacing any previous file.
    static func write(_ bytes: [UInt8], to url: URL) throws {
        do {
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw SyntheticDataError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
    }
}
