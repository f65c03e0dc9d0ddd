import Foundation

/// One image file and the label its folder gives it.
public struct LabeledImageFile: Hashable, Sendable {
    /// The file.
    public var url: URL
    /// The name of its class folder.
    public var label: String

    /// An image file with its label.
    public init(url: URL, label: String) {
        self.url = url
        self.label = label
    }
}

/// A folder of labeled images (FORMATS §1): `<root>/<label>/<any name>.{jpg,jpeg,png}`.
///
/// The folder name is the label; images may also sit in sub-folders of a class folder.
/// Hidden files and folders (names starting with `.`) and files with other extensions
/// are ignored and listed in `ignoredFiles`; files directly in the root are ignored too.
/// Nothing is decoded here: undecodable images are found (and skipped, named) later.
public struct LabeledImageFolder: Equatable, Sendable {
    /// The folder that was read.
    public var root: URL
    /// Class labels in sorted order (folder names), each with at least one image.
    public var labels: [String]
    /// Every image, by label in `labels` order, then by path.
    public var images: [LabeledImageFile]
    /// Files that are not images or are hidden (not fatal; reported).
    public var ignoredFiles: [URL]

    /// The file extensions read as images (compared case-insensitively).
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]

    /// The number of images of each label.
    public var countsByLabel: [String: Int] {
        images.reduce(into: [:]) { $0[$1.label, default: 0] += 1 }
    }

    /// Reads the class folders under `root`.
    ///
    /// Throws `ImageFolderError.notFound`/`.notAFolder` for a bad root, and
    /// `.invalidDataset` listing every empty class, unreadable folder, or the absence of
    /// any class folder.
    public static func read(_ root: URL) throws -> LabeledImageFolder {
        try checkIsFolder(root)
        var problems: [ImageFolderProblem] = []
        var images: [LabeledImageFile] = [], ignored: [URL] = [], labels: [String] = []
        let entries: [URL]
        do {
            entries = try listFolder(root)
        } catch {
            throw ImageFolderError.invalidDataset(path: root.path, problems: [
                .unreadableFolder(path: root.path, reason: describe(error))])
        }
        for entry in entries {
            let name = entry.lastPathComponent
            if DataFiles.isIgnoredName(name) {
                ignored.append(entry)
                continue
            }
            guard isFolder(entry) else {
                ignored.append(entry)
                continue
            }
            var classImages: [URL] = []
            var skipped: [(url: URL, reason: String)] = []
            collectImages(in: entry, classFolder: entry, root: root, into: &classImages, ignored: &ignored, skipped: &skipped,
                          problems: &problems)
            if classImages.isEmpty {
                if !problems.contains(where: { if case let .unreadableFolder(path, _) = $0 { return path == entry.path } else { return false } }) {
                    problems.append(.emptyClass(label: name, path: entry.path, notRead: DataFiles.skippedSummary(skipped)))
                }
                continue
            }
            labels.append(name)
            images += classImages.map { LabeledImageFile(url: $0, label: name) }
        }
        if labels.isEmpty && !problems.contains(where: { if case .emptyClass = $0 { return true } else { return false } }) {
            problems.append(.noClasses(path: root.path))
        }
        if !problems.isEmpty { throw ImageFolderError.invalidDataset(path: root.path, problems: problems) }
        return LabeledImageFolder(root: root, labels: labels, images: images, ignoredFiles: ignored)
    }

    /// A folder over the given images (e.g. a subset), labels recomputed.
    public init(root: URL, labels: [String], images: [LabeledImageFile], ignoredFiles: [URL] = []) {
        self.root = root
        self.labels = labels
        self.images = images
        self.ignoredFiles = ignoredFiles
    }

    /// The name of the photo format `url`'s extension says it holds, when it is one Coach does not
    /// read (HEIC, an iPhone's default, WebP, GIF, BMP, TIFF, AVIF), else nil: such a file was
    /// most likely meant as data, so it is named in warnings, not only listed as ignored.
    public static func unreadPhotoFormat(_ url: URL) -> String? {
        switch url.pathExtension.lowercased() {
        case "heic", "heif", "hif": return "HEIC"
        case "webp": return "WebP"
        case "gif": return "GIF"
        case "bmp": return "BMP"
        case "tif", "tiff": return "TIFF"
        case "avif": return "AVIF"
        default: return nil
        }
    }

    /// What to tell people about `files` (of `unreadPhotoFormat`), or nil when there are none:
    /// how many of each format, an example, and how to convert them.
    public static func unreadPhotosWarning(_ files: [URL]) -> String? {
        let formats = files.compactMap(unreadPhotoFormat)
        guard !formats.isEmpty, let example = files.first(where: { unreadPhotoFormat($0) != nil }) else { return nil }
        let counts = Dictionary(grouping: formats, by: { $0 }).map { ($0.key, $0.value.count) }.sorted { $0.0 < $1.0 }
        return "\(formats.count) photo\(formats.count == 1 ? " is" : "s are") left out, in formats Coach does not read ("
            + counts.map { "\($0.0): \($0.1)" }.joined(separator: ", ") + "; e.g. \(example.path)): convert "
            + (formats.count == 1 ? "it" : "them") + " to JPEG or PNG (HEIC: heif-convert from Debian's libheif-examples; others: ImageMagick's convert)"
    }

    /// Whether `url` names a file Coach reads as an image (by extension).
    public static func isImageFile(_ url: URL) -> Bool {
        imageExtensions.contains(url.pathExtension.lowercased())
    }

    static func checkIsFolder(_ url: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ImageFolderError.notFound(path: url.path)
        }
        guard isDirectory.boolValue else { throw ImageFolderError.notAFolder(path: url.path) }
    }

    static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The folder's entries sorted by name (byte order, so every machine agrees).
    static func listFolder(_ url: URL) throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { url.appendingPathComponent($0) }
    }

    /// The images under `folder` (recursively through real subfolders) that `DataFiles` allows for
    /// `classFolder` of the dataset at `root`; links to folders, links into other class folders,
    /// pipes and devices are ignored (listed, and with their reasons in `skipped`).
    private static func collectImages(in folder: URL, classFolder: URL, root: URL, into images: inout [URL], ignored: inout [URL],
                                      skipped: inout [(url: URL, reason: String)], problems: inout [ImageFolderProblem]) {
        let entries: [URL]
        do {
            entries = try listFolder(folder)
        } catch {
            problems.append(.unreadableFolder(path: folder.path, reason: describe(error)))
            return
        }
        for entry in entries {
            if DataFiles.isIgnoredName(entry.lastPathComponent) {
                ignored.append(entry)
            } else if DataFiles.isRealFolder(entry) {
                collectImages(in: entry, classFolder: classFolder, root: root, into: &images, ignored: &ignored, skipped: &skipped,
                              problems: &problems)
            } else if !isImageFile(entry) {
                if let format = unreadPhotoFormat(entry) { skipped.append((entry, "\(format), which Coach does not read")) }
                ignored.append(entry)
            } else if let reason = DataFiles.skipReason(entry, inClassFolder: classFolder, datasetRoot: root) {
                skipped.append((entry, reason))
                ignored.append(entry)
            } else {
                images.append(entry)
            }
        }
    }

    static func describe(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoPermissionError {
            return "permission denied"
        }
        return nsError.localizedDescription
    }
}
