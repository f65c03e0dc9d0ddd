import Foundation

/// One problem found while reading a labeled image folder (FORMATS §1).
public enum ImageFolderProblem: Equatable, Sendable, CustomStringConvertible {
    /// A class folder holds no image files it may read (`notRead`: the images it skipped, and why).
    case emptyClass(label: String, path: String, notRead: String? = nil)
    /// A folder could not be listed (permissions, not a folder, I/O error).
    case unreadableFolder(path: String, reason: String)
    /// The folder has no class sub-folders with images.
    case noClasses(path: String)

    /// A sentence naming the path and what was expected.
    public var description: String {
        switch self {
        case let .emptyClass(label, path, notRead):
            let why = notRead.map { " it can read (not read: \($0))" } ?? ""
            return "\(path): class '\(label)' has no images\(why) (expected .jpg, .jpeg or .png files); add images or remove the folder"
        case let .unreadableFolder(path, reason):
            return "\(path): cannot read the folder: \(reason)"
        case let .noClasses(path):
            return "\(path): no class folders found; expected one sub-folder per label holding its images (<root>/<label>/<image>.jpg), or train/ and validation/ or test/ splits of them"
        }
    }
}

/// Why labeled image folders could not be used; lists every problem found.
public enum ImageFolderError: LocalizedError, Equatable {
    /// The given path does not exist.
    case notFound(path: String)
    /// The given path is a file, not a folder.
    case notAFolder(path: String)
    /// The folder was read but is not usable; every problem is listed.
    case invalidDataset(path: String, problems: [ImageFolderProblem])

    /// A message naming the folder and every problem.
    public var errorDescription: String? {
        switch self {
        case let .notFound(path):
            return "\(path): no such folder; expected a folder with one sub-folder of images per label"
        case let .notAFolder(path):
            return "\(path): is a file, not a folder; expected a folder with one sub-folder of images per label"
        case let .invalidDataset(path, problems):
            let count = problems.count
            return "\(path): \(count) problem\(count == 1 ? "" : "s") with the image folders:\n  "
                + problems.map(\.description).joined(separator: "\n  ")
        }
    }
}
