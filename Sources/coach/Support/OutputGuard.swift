import ArgumentParser
import CoachModels
import Foundation

/// Keeps commands from destroying what is at their output path (issue 14's data-loss class): a
/// model is written only over nothing or over a Coach model of the same task — never over the
/// command's own data, a backbone, a photo or a device — unless the user says `--overwrite`.
enum OutputGuard {
    /// Throws unless `path` is free, or holds a Coach model of `task`, or `overwrite` is set (a
    /// non-regular file such as a folder or a device is refused even then). Never, even with
    /// `overwrite`, over one of the command's `inputs` (its data file, annotation file, backbone)
    /// or over a file that is not a Coach model inside one of its `dataFolders` (the photos and
    /// clips it trains on, the files an annotation file names beside it).
    static func checkModelOutput(_ path: String, task: ModelTask, overwrite: Bool,
                                 inputs: [String?] = [], dataFolders: [String?] = []) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }   // nothing there
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw ValidationError("--output \(path) exists and is not a regular file (a folder, device, link or pipe): name a model file (.h5)")
        }
        let target = resolved(path)
        if inputs.compactMap({ $0 }).contains(where: { resolved($0) == target }) {
            throw ValidationError("--output \(path) is one of this command's inputs: choose another path")
        }
        let existing = try? ModelFileSummary.read(from: URL(fileURLWithPath: path))
        if overwrite, existing == nil, let folder = dataFolders.compactMap({ $0 }).first(where: { target.hasPrefix(resolved($0) + "/") }) {
            throw ValidationError("--output \(path) is a file inside this command's data (\(folder)), not a Coach model: choose another path")
        }
        if overwrite { return }
        guard let existing else {
            throw ValidationError("--output \(path) exists and is not a Coach model: it may be your data; choose another path, or pass --overwrite to replace it")
        }
        guard existing.metadata.task == task else {
            throw ValidationError("--output \(path) holds a '\(existing.metadata.task)' model, not a '\(task)' one: choose another path, or pass --overwrite to replace it")
        }
    }

    /// Throws when something other than a Coach model (a checkpoint) sits where training keeps its
    /// checkpoint (`<output>.checkpoint.h5`), which training writes over and removes at the end.
    static func checkCheckpoint(_ url: URL) throws {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return }
        let foreign = ValidationError("\(url.path) is where this run keeps its checkpoint, and it holds something that is not a Coach checkpoint: move it, or choose another --output")
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw foreign }
        do {
            _ = try ModelFileSummary.read(from: url)
        } catch let error as ModelFileError {
            switch error {
            case .truncated, .damaged:
                // A checkpoint cut short by a full disk or a crash: say so, not "something else".
                throw ValidationError("\(url.path), this run's checkpoint, is damaged and cannot be resumed: "
                                      + "\(error.localizedDescription). Delete it to train from the start, or choose another --output")
            default: throw foreign
            }
        } catch {
            throw foreign
        }
    }

    /// `path` with links resolved, as a standardised path.
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }

    /// The folder holding the file at `path` (where an annotation file's images and clips live).
    static func folder(of path: String?) -> String? {
        path.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    }

    /// Throws unless `path` (given with `option`, e.g. "--draw") is free, or `overwrite` is set
    /// and it is a regular file that is none of the command's `inputs`: a picture or a pose file
    /// never replaces a folder, a device, the model or the data it was made from.
    static func checkFileOutput(_ path: String, option: String, inputs: [String], overwrite: Bool) throws {
        let target = resolved(path)
        if inputs.contains(where: { resolved($0) == target }) {
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
