import Foundation

/// Reads YOLO text labels: one `.txt` per image with lines `class cx cy w h` (class a
/// 0-based index into the names file, the rest normalised to the image, 0…1, origin
/// top-left), plus a names file listing one class per line (`classes.txt`, `obj.names`,
/// `*.names`) or a YOLOv5-style `data.yaml` with a `names:` list or map.
///
/// Layouts: `<root>/images/…` with `<root>/labels/…` mirroring them, or each label file
/// beside its image. An image without a label file is a negative. Pass the names file or
/// the dataset folder.
enum YOLOAnnotationReader {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]
    static let namesFileCandidates = ["classes.txt", "obj.names", "classes.names", "data.yaml", "data.yml",
                                      "dataset.yaml", "dataset.yml"]

    /// Whether `url` looks like a YOLO dataset: a names/yaml file or a folder holding one.
    static func recognizes(_ url: URL) -> Bool { namesFile(for: url) != nil }

    static func namesFile(for url: URL) -> URL? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        if !isDirectory.boolValue {
            let ext = url.pathExtension.lowercased()
            return ["names", "yaml", "yml", "txt"].contains(ext) ? url : nil
        }
        for name in namesFileCandidates where FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path) {
            return url.appendingPathComponent(name)
        }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return contents.sorted().first { $0.hasSuffix(".names") }.map { url.appendingPathComponent($0) }
    }

    static func read(_ url: URL, log: inout DetectionProblemLog) -> [PendingAnnotatedImage] {
        guard let namesURL = namesFile(for: url) else {
            log.add(url.path, "no YOLO names file found: expected one of \(namesFileCandidates.joined(separator: ", ")) or a *.names file")
            return []
        }
        let names = readNames(namesURL, log: &log)
        if names.isEmpty { return [] }
        let root = namesURL.deletingLastPathComponent()
        let fm = FileManager.default
        let imagesFolder = root.appendingPathComponent("images"), labelsFolder = root.appendingPathComponent("labels")
        let split = fm.fileExists(atPath: imagesFolder.path) && fm.fileExists(atPath: labelsFolder.path)
        let imageRoot = split ? imagesFolder : root
        let images = files(under: imageRoot, extensions: imageExtensions, skipping: split ? [] : ["labels"])
        var result: [PendingAnnotatedImage] = []
        var usedLabelFiles = Set<String>()
        for relative in images {
            let imageURL = imageRoot.appendingPathComponent(relative)
            let stem = (relative as NSString).deletingPathExtension + ".txt"
            var labelURL = (split ? labelsFolder : root).appendingPathComponent(stem)
            if !split && !fm.fileExists(atPath: labelURL.path) && fm.fileExists(atPath: labelsFolder.path) {
                labelURL = labelsFolder.appendingPathComponent(stem)
            }
            var objects: [PendingAnnotatedImage.PendingObject] = []
            if fm.fileExists(atPath: labelURL.path) {
                usedLabelFiles.insert(labelURL.standardizedFileURL.path)
                objects = readLabels(labelURL, names: names, log: &log)
            }
            result.append(PendingAnnotatedImage(url: imageURL.standardizedFileURL, name: relative,
                                                location: AnnotationLocation(file: labelURL.path), objects: objects))
        }
        // Label files that belong to no image.
        let labelRoot = split ? labelsFolder : root
        for relative in files(under: labelRoot, extensions: ["txt"], skipping: []) {
            let labelURL = labelRoot.appendingPathComponent(relative).standardizedFileURL
            if labelURL.path == namesURL.standardizedFileURL.path || usedLabelFiles.contains(labelURL.path) { continue }
            if !relative.contains("/") && namesFileCandidates.contains(relative) { continue }
            log.warn(labelURL.path, "ignored: a label file without an image (expected \((relative as NSString).deletingPathExtension).jpg, .jpeg or .png)")
        }
        if result.isEmpty {
            log.add(root.path, "no images (.jpg, .jpeg, .png) found for the YOLO labels")
        }
        return result
    }

    /// Class names from a names file (one per line) or a YAML `names:` entry.
    static func readNames(_ url: URL, log: inout DetectionProblemLog) -> [String] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            log.add(url.path, "cannot read the YOLO names file as UTF-8 text")
            return []
        }
        let ext = url.pathExtension.lowercased()
        let names = (ext == "yaml" || ext == "yml") ? yamlNames(text, file: url.path, log: &log)
            : text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if names.isEmpty { log.add(url.path, "the names file lists no class names (expected one name per line)") }
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            log.add(url.path, "class name \"\(name)\" is listed more than once")
        }
        return names
    }

    /// `names: [a, b]`, a block list of `- a`, or a map of `0: a` (YOLOv5/v8 data.yaml).
    static func yamlNames(_ text: String, file: String, log: inout DetectionProblemLog) -> [String] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("names:") }) else {
            log.add(file, "no top-level \"names:\" entry in the YAML file")
            return []
        }
        func unquote(_ s: Substring) -> String {
            var t = s.trimmingCharacters(in: .whitespaces)
            if t.count >= 2, let f = t.first, f == t.last, f == "'" || f == "\"" { t = String(t.dropFirst().dropLast()) }
            return t
        }
        let inline = lines[start].dropFirst("names:".count).trimmingCharacters(in: .whitespaces)
        if inline.hasPrefix("[") {
            guard inline.hasSuffix("]") else {
                log.add(file, line: start + 1, "expected the inline names list to end with ]")
                return []
            }
            return inline.dropFirst().dropLast().split(separator: ",").map(unquote).filter { !$0.isEmpty }
        }
        var indexed: [(Int, String)] = []
        var listed: [String] = []
        for (offset, raw) in lines[(start + 1)...].enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if !raw.hasPrefix(" ") && !raw.hasPrefix("\t") && !raw.hasPrefix("-") { break }
            if trimmed.hasPrefix("- ") || trimmed == "-" {
                listed.append(unquote(trimmed.dropFirst()))
            } else if let colon = trimmed.firstIndex(of: ":"), let index = Int(trimmed[..<colon].trimmingCharacters(in: .whitespaces)) {
                indexed.append((index, unquote(trimmed[trimmed.index(after: colon)...])))
            } else {
                log.add(file, line: start + offset + 2, "expected \"- name\" or \"index: name\" under names:")
            }
        }
        if !indexed.isEmpty {
            let sorted = indexed.sorted { $0.0 < $1.0 }
            if sorted.map(\.0) != Array(0..<sorted.count) {
                log.add(file, line: start + 1, "the names map must use the indices 0…\(sorted.count - 1) once each")
            }
            return sorted.map(\.1)
        }
        return listed
    }

    static func readLabels(_ url: URL, names: [String], log: inout DetectionProblemLog) -> [PendingAnnotatedImage.PendingObject] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            log.add(url.path, "cannot read the label file as UTF-8 text")
            return []
        }
        var objects: [PendingAnnotatedImage.PendingObject] = []
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, raw) in lines.enumerated() {
            let lineNumber = index + 1
            let fields = raw.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            if fields.isEmpty { continue }
            guard fields.count == 5 else {
                log.add(url.path, line: lineNumber, "expected 5 fields \"class cx cy w h\", found \(fields.count)")
                continue
            }
            guard let classIndex = Int(fields[0]) else {
                log.add(url.path, line: lineNumber, "the class \"\(fields[0])\" is not an integer index into the names file")
                continue
            }
            guard classIndex >= 0 && classIndex < names.count else {
                log.add(url.path, line: lineNumber, "unknown class index \(classIndex): the names file lists \(names.count) classes (0…\(names.count - 1))")
                continue
            }
            var values: [Double] = []
            for (k, field) in fields.dropFirst().enumerated() {
                if let v = Double(field), v.isFinite { values.append(v) } else {
                    log.add(url.path, line: lineNumber, "field \(k + 2) (\(["cx", "cy", "w", "h"][k])) \"\(field)\" is not a number")
                }
            }
            guard values.count == 4 else { continue }
            guard values[2] > 0, values[3] > 0 else {
                log.add(url.path, line: lineNumber, "the box size must be positive, found w \(values[2]) and h \(values[3])")
                continue
            }
            objects.append(PendingAnnotatedImage.PendingObject(
                label: names[classIndex],
                box: BoundingBox(centerX: values[0], centerY: values[1], width: values[2], height: values[3]),
                location: AnnotationLocation(file: url.path, line: lineNumber), isNormalized: true))
        }
        return objects
    }

    /// Files under `folder` (recursively) with one of `extensions`, as sorted relative paths.
    static func files(under folder: URL, extensions: Set<String>, skipping: Set<String>) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var result: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let components = relative.split(separator: "/").map(String.init)
            if skipping.contains(components.first ?? relative) || components.contains(where: DataFiles.isIgnoredName) { continue }
            if extensions.contains((relative as NSString).pathExtension.lowercased()) { result.append(relative) }
        }
        return result.sorted()
    }
}
