import Foundation

/// What a dataset may read: only regular files (never a pipe, socket or device, which would block
/// or never end), and within a class folder only what lies in that folder — a symbolic link is
/// followed only when it leads to a regular file inside the same class folder, and links to folders
/// are not followed, so no link loop or link out of a class folder can relabel or repeat a file.
public enum DataFiles {
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

    /// Whether `url` is a real folder (not a link to one).
    public static func isRealFolder(_ url: URL) -> Bool { kind(of: url) == .directory }

    /// Whether `url` may be read as a data file of the class folder `folder`: a regular file, or
    /// a link to a regular file inside `folder`.
    public static func isReadableFile(_ url: URL, inClassFolder folder: URL) -> Bool {
        switch kind(of: url) {
        case .regular: return true
        case .symbolicLink:
            let target = url.resolvingSymlinksInPath(), base = folder.resolvingSymlinksInPath()
            guard kind(of: target) == .regular else { return false }
            return target.path.hasPrefix(base.path.hasSuffix("/") ? base.path : base.path + "/")
        default: return false
        }
    }
}
