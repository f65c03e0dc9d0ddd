import Foundation

/// Reads Create ML object-detection annotation JSON (FORMATS.md §2):
/// `[{"image": "0001.jpg", "annotations": [{"label": "board", "coordinates": {"x", "y", "width", "height"}}]}]`.
///
/// `x`/`y` are the box centre and `width`/`height` its size in pixels, origin top-left.
/// Image paths are relative to the JSON file's folder (absolute paths are used as they are).
/// `imagefilename` and `annotation` are accepted as spellings of `image` and `annotations`
/// (older Turi Create / IBM Cloud Annotations exports). Unknown keys are ignored.
enum CreateMLAnnotationReader {
    static func read(_ url: URL, log: inout DetectionProblemLog) -> [PendingAnnotatedImage] {
        let file = url.path
        let data: Data
        do {
            data = StrictJSON.droppingByteOrderMark(try Data(contentsOf: url))
        } catch {
            log.add(file, "cannot read the annotation file: \(error.localizedDescription)")
            return []
        }
        if let problem = StrictJSON.check(data) {
            log.add(file, line: problem.line, "column \(problem.column), at \(problem.path): not valid JSON: \(problem.message)")
            return []
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let (line, column) = JSONSyntaxLocation.locate(error: error, in: data)
            let position = column.map { "column \($0): " } ?? ""
            log.add(file, line: line, "\(position)not valid JSON (\(JSONSyntaxLocation.detail(of: error))); "
                    + "expected a Create ML annotation array like [{\"image\": \"a.jpg\", \"annotations\": [...]}]")
            return []
        }
        guard let entries = root as? [Any] else {
            log.add(file, jsonPath: "$", "expected an array of images, found \(JSONKind.describe(root))")
            return []
        }
        let folder = url.deletingLastPathComponent()
        var images: [PendingAnnotatedImage] = []
        for (index, entry) in entries.enumerated() {
            let path = "$[\(index)]"
            guard let object = entry as? [String: Any] else {
                log.add(file, jsonPath: path, "expected an object with \"image\" and \"annotations\", found \(JSONKind.describe(entry))")
                continue
            }
            let imageKey = object["image"] != nil ? "image" : (object["imagefilename"] != nil ? "imagefilename" : "image")
            var name: String? = nil
            switch object[imageKey] {
            case nil:
                log.add(file, jsonPath: path, "required key \"image\" (the image file name) is missing")
            case let value as String where !value.isEmpty:
                name = value
            case let value?:
                log.add(file, jsonPath: "\(path).\(imageKey)", "expected a non-empty string (the image file name), found \(JSONKind.describe(value))")
            }
            let annotationsKey = object["annotations"] != nil ? "annotations" : (object["annotation"] != nil ? "annotation" : "annotations")
            var objects: [PendingAnnotatedImage.PendingObject] = []
            switch object[annotationsKey] {
            case nil:
                log.add(file, jsonPath: path, "required key \"annotations\" is missing (use [] for an image without objects)")
            case let list as [Any]:
                for (k, item) in list.enumerated() {
                    if let pending = readAnnotation(item, path: "\(path).\(annotationsKey)[\(k)]", file: file, log: &log) {
                        objects.append(pending)
                    }
                }
            case let value?:
                log.add(file, jsonPath: "\(path).\(annotationsKey)", "expected an array of annotations, found \(JSONKind.describe(value))")
            }
            if let name {
                let imageURL = name.hasPrefix("/") ? URL(fileURLWithPath: name) : folder.appendingPathComponent(name)
                images.append(PendingAnnotatedImage(url: imageURL.standardizedFileURL, name: name,
                                                    location: AnnotationLocation(file: file, jsonPath: path),
                                                    objects: objects))
            }
        }
        return images
    }

    private static func readAnnotation(_ item: Any, path: String, file: String,
                                       log: inout DetectionProblemLog) -> PendingAnnotatedImage.PendingObject? {
        guard let object = item as? [String: Any] else {
            log.add(file, jsonPath: path, "expected an object with \"label\" and \"coordinates\", found \(JSONKind.describe(item))")
            return nil
        }
        var label: String? = nil
        switch object["label"] {
        case nil:
            log.add(file, jsonPath: path, "required key \"label\" is missing")
        case let value as String where !value.trimmingCharacters(in: .whitespaces).isEmpty:
            label = value
        case let value?:
            log.add(file, jsonPath: "\(path).label", "expected a non-empty string, found \(JSONKind.describe(value))")
        }
        var numbers: [String: Double] = [:]
        switch object["coordinates"] {
        case nil:
            log.add(file, jsonPath: path, "required key \"coordinates\" ({\"x\", \"y\", \"width\", \"height\"} in pixels) is missing")
        case let coordinates as [String: Any]:
            for key in ["x", "y", "width", "height"] {
                switch coordinates[key] {
                case nil:
                    log.add(file, jsonPath: "\(path).coordinates", "required key \"\(key)\" is missing")
                case let value? where JSONKind.isNumber(value):
                    let number = (value as? NSNumber)?.doubleValue ?? .nan
                    if number.isFinite { numbers[key] = number } else {
                        log.add(file, jsonPath: "\(path).coordinates.\(key)", "expected a finite number of pixels")
                    }
                case let value?:
                    log.add(file, jsonPath: "\(path).coordinates.\(key)", "expected a number of pixels, found \(JSONKind.describe(value))")
                }
            }
        case let value?:
            log.add(file, jsonPath: "\(path).coordinates", "expected an object {\"x\", \"y\", \"width\", \"height\"}, found \(JSONKind.describe(value))")
        }
        guard let label, let x = numbers["x"], let y = numbers["y"], let width = numbers["width"],
              let height = numbers["height"] else { return nil }
        guard width > 0, height > 0 else {
            log.add(file, jsonPath: "\(path).coordinates",
                    "the box size must be positive, found width \(pixelText(width)) and height \(pixelText(height))")
            return nil
        }
        return PendingAnnotatedImage.PendingObject(
            label: label, box: BoundingBox(centerX: x, centerY: y, width: width, height: height),
            location: AnnotationLocation(file: file, jsonPath: path))
    }
}

/// Describes JSON values found by JSONSerialization in messages.
enum JSONKind {
    /// Whether `value` is a JSON number (not a Boolean, which Foundation also bridges to NSNumber).
    static func isNumber(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return !isBoolean(number)
    }

    /// Whether `value` is JSON `true`/`false`.
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return type(of: number) == type(of: NSNumber(value: true))
    }

    /// "a string (\"3\")", "true", "an array", …
    static func describe(_ value: Any) -> String {
        if value is NSNull { return "null" }
        if isBoolean(value) { return (value as? NSNumber)?.boolValue == true ? "true" : "false" }
        if let number = value as? NSNumber { return "the number \(pixelText(number.doubleValue))" }
        if let text = value as? String { return "a string (\"\(text.prefix(40))\")" }
        if value is [Any] { return "an array" }
        if value is [String: Any] { return "an object" }
        return "\(type(of: value))"
    }
}

/// Turns JSONSerialization's "around character N" into a line and column.
enum JSONSyntaxLocation {
    static func locate(error: Error, in data: Data) -> (line: Int?, column: Int?) {
        let text = detail(of: error)
        guard let range = text.range(of: "character ") else { return (nil, nil) }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        guard let offset = Int(digits) else { return (nil, nil) }
        var line = 1, column = 1, index = 0
        for byte in data {
            if index >= offset { break }
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return (line, column)
    }

    static func detail(of error: Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}

/// Formats a pixel value compactly (integers without a fraction).
func pixelText(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.2f", value)
}
