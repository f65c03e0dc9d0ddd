import Foundation

extension DetectionDataset {
    /// The format of the annotations at `url`: `.json` is Create ML; an `.xml` file or a
    /// folder of them (or with `Annotations/`) is Pascal VOC; a names/YAML file or a folder
    /// holding one is YOLO. Nil when none fits.
    public static func detectFormat(of url: URL) -> DetectionAnnotationFormat? {
        if url.pathExtension.lowercased() == "json" { return .createML }
        if url.pathExtension.lowercased() == "xml" { return .pascalVOC }
        if YOLOAnnotationReader.recognizes(url) { return .yolo }
        if PascalVOCAnnotationReader.recognizes(url) { return .pascalVOC }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            let jsons = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { $0.hasSuffix(".json") }
            if jsons.count == 1 { return .createML }
        }
        return nil
    }

    /// Reads and checks a detection dataset.
    ///
    /// Every problem is collected before throwing one `DetectionDataError` that lists them
    /// all with file and line or JSON path: unreadable or malformed files, wrong value
    /// types, missing keys, missing or undecodable images, non-positive box sizes, boxes
    /// outside the image by more than 1 px, unknown YOLO class indices.
    ///
    /// - Parameters:
    ///   - url: a Create ML `.json` file (or a folder holding exactly one), a YOLO names file
    ///     or dataset folder, or a Pascal VOC `.xml` file or folder.
    ///   - format: the format, or nil to detect it from `url`.
    public static func load(from url: URL, format: DetectionAnnotationFormat? = nil) throws -> DetectionDataset {
        var log = DetectionProblemLog()
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw DetectionDataError(problems: [DetectionDataProblem(file: url.path, message: "no such file or folder")])
        }
        var source = url
        guard let format = format ?? detectFormat(of: url) else {
            throw DetectionDataError(problems: [DetectionDataProblem(
                file: url.path, message: "cannot tell the annotation format: expected a Create ML .json file, "
                    + "a YOLO names file (classes.txt, *.names, data.yaml) or folder holding one, or Pascal VOC .xml files")])
        }
        var isDirectory: ObjCBool = false
        if format == .createML, FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue,
           let json = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter({ $0.hasSuffix(".json") }).first {
            source = url.appendingPathComponent(json)
        }
        let pending: [PendingAnnotatedImage]
        switch format {
        case .createML: pending = CreateMLAnnotationReader.read(source, log: &log)
        case .yolo: pending = YOLOAnnotationReader.read(source, log: &log)
        case .pascalVOC: pending = PascalVOCAnnotationReader.read(source, log: &log)
        }
        let images = resolve(pending, log: &log)
        try log.throwIfAny()
        return DetectionDataset(source: source, format: format, images: images, warnings: log.warnings)
    }

    /// Merges duplicate entries, checks every image (exists, decodes, its size) and every
    /// box against that size.
    static func resolve(_ pending: [PendingAnnotatedImage], log: inout DetectionProblemLog) -> [AnnotatedImage] {
        var order: [String] = []
        var merged: [String: PendingAnnotatedImage] = [:]
        for entry in pending {
            let key = entry.url.path
            if var existing = merged[key] {
                log.warn(entry.location.file, line: entry.location.line, jsonPath: entry.location.jsonPath,
                         "image \"\(entry.name)\" is listed again; its boxes are added to the earlier entry")
                existing.objects += entry.objects
                merged[key] = existing
            } else {
                merged[key] = entry
                order.append(key)
            }
        }
        var images: [AnnotatedImage] = []
        for key in order {
            let entry = merged[key]!
            guard let size = ImageSizeProbe.displayedSize(of: entry, log: &log) else { continue }
            var objects: [ObjectAnnotation] = []
            for object in entry.objects {
                var box = object.box
                if object.isNormalized {
                    box = BoundingBox(minX: box.minX * Double(size.width), minY: box.minY * Double(size.height),
                                      maxX: box.maxX * Double(size.width), maxY: box.maxY * Double(size.height))
                }
                if let checked = checkBox(box, size: size, object: object, entry: entry, log: &log) {
                    objects.append(ObjectAnnotation(label: object.label, box: checked))
                }
            }
            images.append(AnnotatedImage(url: entry.url, name: entry.name, width: size.width, height: size.height,
                                         objects: objects))
        }
        return images
    }

    /// The box clipped to the image when it sticks out by at most 1 px; a problem otherwise.
    static func checkBox(_ box: BoundingBox, size: ImageSizeProbe.Size, object: PendingAnnotatedImage.PendingObject,
                         entry: PendingAnnotatedImage, log: inout DetectionProblemLog) -> BoundingBox? {
        let tolerance = 1.0
        let width = Double(size.width), height = Double(size.height)
        let excess = max(-box.minX, -box.minY, box.maxX - width, box.maxY - height)
        if excess > tolerance {
            var message = "the \"\(object.label)\" box (x \(pixelText(box.minX))…\(pixelText(box.maxX)), "
                + "y \(pixelText(box.minY))…\(pixelText(box.maxY)) px) is outside the \(size.width)×\(size.height) image "
                + "\"\(entry.name)\" by \(pixelText(excess)) px"
            if let stored = size.storedIfRotated {
                let fitsStored = box.minX >= -tolerance && box.minY >= -tolerance
                    && box.maxX <= Double(stored.width) + tolerance && box.maxY <= Double(stored.height) + tolerance
                message += fitsStored
                    ? "; the file has EXIF orientation \(size.orientation.rawValue) (stored \(stored.width)×\(stored.height)) and the box fits the stored pixels: Coach reads boxes in the displayed (upright) orientation, as Create ML's tools draw them"
                    : "; the file has EXIF orientation \(size.orientation.rawValue) and is shown rotated"
            }
            if object.isNormalized { message += " (YOLO coordinates must be normalised to 0…1)" }
            log.add(object.location.file, line: object.location.line, jsonPath: object.location.jsonPath, message)
            return nil
        }
        guard let clipped = box.clipped(width: size.width, height: size.height) else {
            log.add(object.location.file, line: object.location.line, jsonPath: object.location.jsonPath,
                    "the \"\(object.label)\" box has no area inside the image")
            return nil
        }
        return clipped
    }
}

/// Reads an image's displayed size cheaply (JPEGs decoded at 1/8 scale).
enum ImageSizeProbe {
    struct Size {
        var width: Int
        var height: Int
        var orientation: ImageOrientation
        /// The stored (unrotated) size when EXIF orientation swaps width and height.
        var storedIfRotated: (width: Int, height: Int)? {
            orientation.swapsWidthAndHeight ? (height, width) : nil
        }
    }

    static func displayedSize(of entry: PendingAnnotatedImage, log: inout DetectionProblemLog) -> Size? {
        let location = entry.location
        guard FileManager.default.fileExists(atPath: entry.url.path) else {
            log.add(location.file, line: location.line, jsonPath: location.jsonPath,
                    "image \"\(entry.name)\" not found (looked for \(entry.url.path))")
            return nil
        }
        do {
            let decoded = try ImageDecoder.decode(contentsOf: entry.url, options: ImageDecodingOptions(minimumShortSide: 1))
            let size = Size(width: decoded.fullWidth, height: decoded.fullHeight, orientation: decoded.orientation)
            if let declared = entry.declaredSize, declared != (size.width, size.height) {
                let stored = size.storedIfRotated
                if stored.map({ $0 == declared }) != true {
                    log.add(location.file, line: location.line, jsonPath: location.jsonPath,
                            "the annotation says the image is \(declared.width)×\(declared.height), but \"\(entry.name)\" is \(size.width)×\(size.height)")
                    return nil
                }
            }
            return size
        } catch {
            let reason = (error as? LocalizedError)?.errorDescription ?? "\(error)"
            log.add(location.file, line: location.line, jsonPath: location.jsonPath,
                    "image \"\(entry.name)\" cannot be decoded: \(reason)")
            return nil
        }
    }
}
