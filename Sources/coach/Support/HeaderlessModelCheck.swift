import CoachModels
import Foundation

/// Model files without Coach's integrity header (from a Coach older than the header, or from
/// another HDF5 writer) are read once in a child `coach` process before this one reads them:
/// libhdf5 can crash on damaged metadata, and nothing else vouches for such a file's bytes. A
/// crash there becomes a clear "damaged" error here (issue 14). Files with the header are checked
/// by their SHA-256 and never need this.
enum HeaderlessModelCheck {
    /// Set in the child's environment to the file it must read.
    static let variable = "COACH_INTERNAL_READ_MODEL"

    /// In the child: reads the file fully and exits 0 (a file libhdf5 refuses cleanly is the
    /// parent's to report); a crash ends the child by a signal. Returns at once otherwise.
    static func runChildIfAsked() {
        guard let path = ProcessInfo.processInfo.environment[variable] else { return }
        _ = try? ModelFile.read(from: URL(fileURLWithPath: path))
        exit(0)
    }

    /// Installs the check for this process.
    static func install() {
        ModelFile.headerlessFileCheck = { path in try check(path) }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var passed: Set<String> = []

    /// Reads `path` in a child process; throws `ModelFileError.damaged` when that crashes.
    static func check(_ path: String) throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let key = "\(path)|\((attributes?[.size] as? NSNumber)?.intValue ?? -1)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        lock.lock()
        let known = passed.contains(key)
        lock.unlock()
        if known { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return   // no child to read it in: read it here, as the library does by default
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            throw ModelFileError.damaged(
                path: path, detail: "it has no Coach integrity header (an older Coach or another program wrote it), and reading it "
                    + "crashed libhdf5 (signal \(process.terminationStatus), in a separate process): its HDF5 structure is damaged")
        }
        lock.lock()
        passed.insert(key)
        lock.unlock()
    }
}
