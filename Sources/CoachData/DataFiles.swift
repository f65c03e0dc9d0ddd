import Foundation

/// What a dataset may read: only regular files (never a pipe, socket or device, which would block
/// or never end). A symbolic link is followed when it leads to a regular file in its own class
/// folder or outside the dataset, never into another class folder or to a folder, so no link loop
/// or link between class folders can relabel or repeat a file (`skipReason`).
public enum DataFiles {
    /// Whether a folder entry named `name` is not data and is passed over (and listed as ignored):
    /// hidden files and folders (`.DS_Store`, macOS's `._photo.jpg` resource forks, `.git`) and
    /// `__MACOSX`, the folder of such files that a zip made by macOS's Finder unpacks beside the
    /// data elsewhere (it would otherwise be a class of its own).
    public static func isIgnoredName(_ name: String) -> Bool {
        name.hasPrefix(".") || name == "__MACOSX"
    }

    /// The kind of filesystem object at `url`, without following a final symbolic link.
    enum Kind { case regular, directory, symbolicLink, other, missing }

    static func kind(of url: URL) -> Kind {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return .missing }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        default: return .other
        }
    }

    /// Why `url` cannot be read as a data file, in words (links followed), or nil when it is a
    /// regular file: a folder, a named pipe (reading one would block), a socket or device, a loop
    /// of symbolic links, a link to nothing, or a missing file. Checked before opening, so a pipe
    /// is never opened and the reason is the real one, not Foundation's "permission denied".
    public static func problem(with url: URL) -> String? {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            let error = errno
            var link = stat()
            if error == ELOOP { return "it is a loop of symbolic links" }
            if error == ENOENT && lstat(url.path, &link) == 0 { return "it is a symbolic link to nothing" }
            return error == ENOENT ? "no such file" : String(cString: strerror(error))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "it is a folder, not a file"
        case S_IFIFO: return "it is a named pipe (FIFO), not a file"
        case S_IFSOCK: return "it is a socket, not a file"
        default: return "it is a device, not a file"
        }
    }

    /// The folders of a dataset laid out as splits (FORMATS §1: `<root>/train/<label>/…` plus
    /// `validation/` and/or `test/`), each a folder of class folders.
    public struct SplitFolders: Equatable, Sendable {
        public var train: URL
        public var validation: URL?
        public var test: URL?
    }

    /// The split folder names, as FORMATS §1 spells them.
    public static let splitNames = ["train", "validation", "test"]

    /// `root`'s split folders when its (non-hidden) sub-folders are only `train`, `validation` and
    /// `test`, `train` among them; nil for any other layout (class folders, or a folder that cannot
    /// be listed: its reader then says why). `folders` are `root`'s sub-folders when already listed.
    public static func splitFolders(of root: URL, folders: [URL]? = nil) -> SplitFolders? {
        let subfolders = folders ?? ((try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? [])
            .filter { !isIgnoredName($0.lastPathComponent) && kind(of: $0.resolvingSymlinksInPath()) == .directory }
        let names = Set(subfolders.map(\.lastPathComponent))
        guard names.contains("train"), names.isSubset(of: Set(splitNames)) else { return nil }
        func folder(_ name: String) -> URL? { names.contains(name) ? root.appendingPathComponent(name) : nil }
        return SplitFolders(train: root.appendingPathComponent("train"), validation: folder("validation"), test: folder("test"))
    }

    /// Whether `url` is a real folder (not a link to one).
    public static func isRealFolder(_ url: URL) -> Bool { kind(of: url) == .directory }

    /// Why the entry `url` of the class folder `folder`, in the dataset folder `root`, is not read
    /// as a data file, in words, or nil when it is read: a regular file, or a symbolic link to a
    /// regular file in the same class folder or outside the dataset — as split folders made of
    /// links to one collection are (`train/cat/x.jpg → all/cat/x.jpg`). A link into another class
    /// folder of the same dataset would give that file a second label, and a link to a folder
    /// could loop, so neither is followed; pipes, sockets and devices are never opened.
    public static func skipReason(_ url: URL, inClassFolder folder: URL, datasetRoot root: URL) -> String? {
        switch kind(of: url) {
        case .regular: return nil
        case .directory: return "a folder"
        case .missing: return "no such file"
        case .other: return "not a regular file (a named pipe, socket or device)"
        case .symbolicLink:
            let target = url.resolvingSymlinksInPath()
            switch kind(of: target) {
            case .regular: break
            case .directory: return "a link to a folder (links to folders are not followed)"
            case .missing, .symbolicLink:
                let problem = self.problem(with: url) ?? "a link to nothing"
                return problem.hasPrefix("it is ") ? String(problem.dropFirst(6)) : problem
            case .other: return "a link to something that is not a regular file"
            }
            if contains(folder.resolvingSymlinksInPath(), target) || !contains(root.resolvingSymlinksInPath(), target) { return nil }
            return "a link to \(target.path), in another class folder (it would be read under two labels)"
        }
    }

    /// Whether `url` lies inside the folder `base` (both with links resolved).
    private static func contains(_ base: URL, _ url: URL) -> Bool {
        url.path.hasPrefix(base.path.hasSuffix("/") ? base.path : base.path + "/")
    }

    /// Up to `limit` entries with their reasons, for an error about a class folder that has
    /// nothing readable ("x.jpg: a link to …; y.jpg: …"), or nil when nothing was skipped.
    public static func skippedSummary(_ skipped: [(url: URL, reason: String)], limit: Int = 3) -> String? {
        guard !skipped.isEmpty else { return nil }
        var parts = skipped.prefix(limit).map { "\($0.url.lastPathComponent): \($0.reason)" }
        if skipped.count > limit { parts.append("\(skipped.count - limit) more") }
        return parts.joined(separator: "; ")
    }
}
