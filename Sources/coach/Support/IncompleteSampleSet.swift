import ArgumentParser
import Foundation

/// Refuses data inside a sample set that `coach generate-samples` began but did not finish (its
/// `.coach-generated` marker still says it is being written, as a killed run leaves it): trained
/// on, it would give a model of part of the data with no warning.
enum IncompleteSampleSet {
    /// Throws a `ValidationError` naming `option` when `path`, or one of the three folders above
    /// it, holds a marker that says the set is still being written.
    static func check(_ path: String?, option: String) throws {
        guard let path else { return }
        var folder = URL(fileURLWithPath: path).standardizedFileURL
        if !FileManager.default.isReadableFile(atPath: folder.appendingPathComponent(GenerateSamplesCommand.marker).path) {
            var isFolder: ObjCBool = false
            if !(FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) && isFolder.boolValue) {
                folder = folder.deletingLastPathComponent()
            }
        }
        for _ in 0..<4 {
            let marker = folder.appendingPathComponent(GenerateSamplesCommand.marker)
            if let data = FileManager.default.contents(atPath: marker.path),
               String(decoding: data.prefix(200), as: UTF8.self).hasPrefix(GenerateSamplesCommand.unfinishedPrefix) {
                throw ValidationError("\(option) '\(path)' is in the sample set \(folder.path), which generate-samples did not finish "
                                      + "(\(marker.path) says it is still being written; the run was interrupted): run "
                                      + "coach generate-samples again to complete it")
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
    }
}
