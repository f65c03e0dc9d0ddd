import ArgumentParser
import CoachModels
import Foundation

/// Keeps commands from destroying what is at their output path (issue 14's data-loss class): a
/// model is written only over nothing or over a Coach model of the same task — never over the
/// command's own data, a backbone, a photo or a device — unless the user says `--overwrite`.
enum OutputGuard {
    /// Throws unless `path` is free, or holds a Coach model of `task`, or `overwrite` is set (a
    /// non-regular file such as a folder or a device is refused even then).
    static func checkModelOutput(_ path: String, task: ModelTask, overwrite: Bool) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }   // nothing there
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw ValidationError("--output \(path) exists and is not a regular file (a folder, device, link or pipe): name a model file (.h5)")
        }
        if overwrite { return }
        let existing = try? ModelFileSummary.read(from: URL(fileURLWithPath: path))
        guard let existing else {
            throw ValidationError("--output \(path) exists and is not a Coach model: it may be your data; choose another path, or pass --overwrite to replace it")
        }
        guard existing.metadata.task == task else {
            throw ValidationError("--output \(path) holds a '\(existing.metadata.task)' model, not a '\(task)' one: choose another path, or pass --overwrite to replace it")
        }
    }

    /// Throws unless `path` (given with `option`, e.g. "--draw") is free, or `overwrite` is set
    /// and it is a regular file that is none of the command's `inputs`: a picture or a pose file
    /// never replaces a folder, a device, the model or the data it was made from.
    static func checkFileOutput(_ path: String, option: String, inputs: [String], overwrite: Bool) throws {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL
        if inputs.contains(where: { URL(fileURLWithPath: $0).resolvingSymlinksInPath().standardizedFileURL == target }) {
            throw ValidationError("\(option) \(path) is one of this command's inputs: choose another path")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { return }   // nothing there
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw ValidationError("\(option) \(path) exists and is not a regular file (a folder, device, link or pipe): choose another path")
        }
        if !overwrite {
            throw ValidationError("\(option) \(path) exists: choose another path, or pass --overwrite to replace it")
        }
    }
}
