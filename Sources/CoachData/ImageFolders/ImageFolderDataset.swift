import Foundation

/// The labeled image folders of one image-classifier dataset: training images and,
/// when the data has them, validation and test images (FORMATS §1).
///
/// A root whose sub-folders are only `train`, `validation` and/or `test` (with `train`
/// present) is read as splits, each a folder of class folders; any other root is one
/// folder of class folders (training only: the trainer then holds out a seeded,
/// stratified validation split).
public struct ImageFolderDataset: Equatable, Sendable {
    /// The training images.
    public var training: LabeledImageFolder
    /// Validation images, from `validation/` or a separate folder.
    public var validation: LabeledImageFolder?
    /// Test images, from `test/`.
    public var test: LabeledImageFolder?

    /// A dataset from already-read folders.
    public init(training: LabeledImageFolder, validation: LabeledImageFolder? = nil, test: LabeledImageFolder? = nil) {
        self.training = training
        self.validation = validation
        self.test = test
    }

    /// Reads `root` (class folders, or `train/` + `validation/`/`test/` splits); a separate
    /// `validationRoot` (class folders) replaces any `validation/` split.
    ///
    /// Throws `ImageFolderError` listing every problem of every folder read.
    public static func read(_ root: URL, validationRoot: URL? = nil) throws -> ImageFolderDataset {
        try LabeledImageFolder.checkIsFolder(root)
        var dataset: ImageFolderDataset
        if let splits = try splitFolders(root) {
            var errors: [ImageFolderError] = []
            func attempt(_ url: URL?) -> LabeledImageFolder? {
                guard let url else { return nil }
                do { return try LabeledImageFolder.read(url) } catch let error as ImageFolderError {
                    errors.append(error)
                    return nil
                } catch {
                    errors.append(.invalidDataset(path: url.path, problems: [
                        .unreadableFolder(path: url.path, reason: LabeledImageFolder.describe(error))]))
                    return nil
                }
            }
            let training = attempt(splits.train)
            let validation = validationRoot == nil ? attempt(splits.validation) : nil
            let test = attempt(splits.test)
            if let first = errors.first {
                if errors.count == 1 { throw first }
                throw ImageFolderError.invalidDataset(path: root.path, problems: errors.flatMap(problems(of:)))
            }
            dataset = ImageFolderDataset(training: training!, validation: validation, test: test)
        } else {
            dataset = ImageFolderDataset(training: try LabeledImageFolder.read(root))
        }
        if let validationRoot { dataset.validation = try LabeledImageFolder.read(validationRoot) }
        return dataset
    }

    /// `train`/`validation`/`test` folders when `root` is laid out as splits, else nil.
    public static func splitFolders(_ root: URL) throws -> (train: URL, validation: URL?, test: URL?)? {
        let entries: [URL]
        do {
            entries = try LabeledImageFolder.listFolder(root)
        } catch {
            throw ImageFolderError.invalidDataset(path: root.path, problems: [
                .unreadableFolder(path: root.path, reason: LabeledImageFolder.describe(error))])
        }
        let folders = entries.filter { !DataFiles.isIgnoredName($0.lastPathComponent) && LabeledImageFolder.isFolder($0) }
        return DataFiles.splitFolders(of: root, folders: folders).map { ($0.train, $0.validation, $0.test) }
    }

    private static func problems(of error: ImageFolderError) -> [ImageFolderProblem] {
        switch error {
        case let .invalidDataset(_, problems): return problems
        case let .notFound(path): return [.unreadableFolder(path: path, reason: "no such folder")]
        case let .notAFolder(path): return [.unreadableFolder(path: path, reason: "not a folder")]
        }
    }
}
