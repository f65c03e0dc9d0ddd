import CHDF5
import Foundation

/// A failed libhdf5 call: what Coach was doing and the messages on HDF5's error stack.
///
/// Internal: the model-file reader and writer turn it into a `ModelFileError` that names
/// the file.
struct HDF5Failure: Error {
    /// What Coach asked HDF5 to do, e.g. "create dataset 'stem.conv.weight'".
    var operation: String
    /// HDF5's own error descriptions, outermost call first.
    var messages: [String]

    /// The operation followed by HDF5's most specific message (if any).
    var summary: String {
        guard let detail = messages.last(where: { !$0.isEmpty }) else { return operation }
        return "\(operation): \(detail)"
    }

    /// Whether HDF5 reported that the file is shorter than its superblock says.
    var reportsTruncation: Bool {
        messages.contains { $0.localizedCaseInsensitiveContains("truncated file") }
    }
}

/// Serialised access to libhdf5.
///
/// Debian's serial libhdf5 is not built thread-safe, so every Coach call into it goes
/// through one lock. HDF5's automatic error printing is turned off: failures become
/// typed Swift errors instead of text on stderr.
enum HDF5Library {
    private static let lock = NSLock()

    /// Runs `body` while holding the library lock, with HDF5's error printing silenced.
    static func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        H5open()
        coach_H5_silence_errors()
        return try body()
    }

    /// The descriptions on HDF5's default error stack (outermost first).
    static func errorMessages() -> [String] {
        final class Collector { var messages: [String] = [] }
        let collector = Collector()
        let callback: H5E_walk2_t = { _, description, clientData in
            guard let description, let clientData else { return 0 }
            let collector = Unmanaged<Collector>.fromOpaque(clientData).takeUnretainedValue()
            let function = description.pointee.func_name.map { String(cString: $0) } ?? ""
            let text = description.pointee.desc.map { String(cString: $0) } ?? ""
            collector.messages.append(function.isEmpty ? text : "\(text) (\(function))")
            return 0
        }
        withExtendedLifetime(collector) {
            _ = H5Ewalk2(coach_H5E_DEFAULT(), H5E_WALK_DOWNWARD, callback,
                         Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.messages
    }

    /// A failure for `operation` carrying the current HDF5 error stack.
    static func failure(_ operation: String) -> HDF5Failure {
        HDF5Failure(operation: operation, messages: errorMessages())
    }

    /// Returns `id` when it is a valid identifier, otherwise throws a failure for `operation`.
    @discardableResult
    static func check(_ id: hid_t, _ operation: @autoclosure () -> String) throws -> hid_t {
        guard id >= 0 else { throw failure(operation()) }
        return id
    }

    /// Throws a failure for `operation` when `status` is negative.
    static func check(status: herr_t, _ operation: @autoclosure () -> String) throws {
        guard status >= 0 else { throw failure(operation()) }
    }

    /// Throws when a tri-state result is negative, otherwise returns whether it was positive.
    static func check(truth: htri_t, _ operation: @autoclosure () -> String) throws -> Bool {
        guard truth >= 0 else { throw failure(operation()) }
        return truth > 0
    }
}
