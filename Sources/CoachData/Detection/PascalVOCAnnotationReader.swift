import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads Pascal VOC XML annotations: one file per image with `<filename>`, optional
/// `<size><width>/<height>`, and `<object><name>` + `<bndbox><xmin>/<ymin>/<xmax>/<ymax>`.
///
/// VOC coordinates are 1-based, inclusive pixel indices, so a box covers continuous
/// pixels `[xmin − 1, xmax] × [ymin − 1, ymax]`. `<difficult>` objects are kept (Coach
/// does not ignore them). The image is looked for in `../JPEGImages/`, beside the XML,
/// then in `../images/`; an absolute `<path>` that exists is used as is. Pass one XML file,
/// a folder of them, or a VOC root holding `Annotations/`.
enum PascalVOCAnnotationReader {
    /// Whether `url` is an XML file, or a folder holding XML files (or `Annotations/`).
    static func recognizes(_ url: URL) -> Bool { !xmlFiles(for: url).isEmpty }

    static func xmlFiles(for url: URL) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return [] }
        if !isDirectory.boolValue { return url.pathExtension.lowercased() == "xml" ? [url] : [] }
        let annotations = url.appendingPathComponent("Annotations")
        let folder = FileManager.default.fileExists(atPath: annotations.path) ? annotations : url
        return YOLOAnnotationReader.files(under: folder, extensions: ["xml"], skipping: [])
            .map { folder.appendingPathComponent($0) }
    }

    static func read(_ url: URL, log: inout DetectionProblemLog) -> [PendingAnnotatedImage] {
        let files = xmlFiles(for: url)
        if files.isEmpty { log.add(url.path, "no Pascal VOC .xml annotation files found") }
        return files.compactMap { readFile($0, log: &log) }
    }

    /// The line of the first byte sequence that is not UTF-8, or nil when all of `data` is.
    static func firstInvalidUTF8Line(_ data: Data) -> Int? {
        var decoder = UTF8()
        var iterator = data.makeIterator()
        var line = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
            case .emptyInput: return nil
            case .error: return line
            }
        }
    }

    static func readFile(_ url: URL, log: inout DetectionProblemLog) -> PendingAnnotatedImage? {
        let file = url.path
        guard let data = try? Data(contentsOf: url) else {
            log.add(file, "cannot read the annotation file")
            return nil
        }
        // Foundation's XML parser traps on a name that is not valid UTF-8 (found by `make fuzz`),
        // so the bytes are checked first; Pascal VOC files are UTF-8 (or ASCII).
        if let line = firstInvalidUTF8Line(data) {
            log.add(file, line: line, "not valid UTF-8 text; expected a Pascal VOC <annotation> document in UTF-8")
            return nil
        }
        let builder = XMLTreeBuilder()
        let parser = XMLParser(data: data)
        parser.delegate = builder
        // Foundation on Linux can report success after a parse error: check both.
        let succeeded = parser.parse()
        guard succeeded, builder.firstError == nil, parser.parserError == nil, let root = builder.root else {
            let code = builder.firstError?.code ?? (parser.parserError as NSError?)?.code
            let line = builder.firstError?.line ?? (parser.lineNumber > 0 ? parser.lineNumber : nil)
            log.add(file, line: line, "not valid XML (\(XMLTreeBuilder.describe(code: code))); expected a Pascal VOC <annotation> document")
            return nil
        }
        guard root.name == "annotation" else {
            log.add(file, line: root.line, "expected the root element <annotation>, found <\(root.name)>")
            return nil
        }
        guard let filenameElement = root.child("filename"), !filenameElement.text.isEmpty else {
            log.add(file, line: root.line, "<annotation> has no <filename> naming its image")
            return nil
        }
        let filename = filenameElement.text
        var declaredSize: (Int, Int)? = nil
        if let size = root.child("size") {
            let width = size.child("width").flatMap { Int($0.text) }, height = size.child("height").flatMap { Int($0.text) }
            if let width, let height, width > 0, height > 0 { declaredSize = (width, height) }
            else if width != 0 || height != 0 {  // VOC files from some tools write 0 when unknown
                log.add(file, line: size.line, "<size> must hold positive integer <width> and <height>")
            }
        }
        var objects: [PendingAnnotatedImage.PendingObject] = []
        for object in root.children where object.name == "object" {
            guard let name = object.child("name")?.text, !name.isEmpty else {
                log.add(file, line: object.line, "<object> has no <name> (its label)")
                continue
            }
            guard let box = object.child("bndbox") else {
                log.add(file, line: object.line, "<object> \"\(name)\" has no <bndbox>")
                continue
            }
            var values: [String: Double] = [:]
            for key in ["xmin", "ymin", "xmax", "ymax"] {
                guard let element = box.child(key) else {
                    log.add(file, line: box.line, "<bndbox> has no <\(key)>")
                    continue
                }
                if let v = Double(element.text), v.isFinite { values[key] = v } else {
                    log.add(file, line: element.line, "<\(key)> \"\(element.text)\" is not a number")
                }
            }
            guard let xmin = values["xmin"], let ymin = values["ymin"], let xmax = values["xmax"], let ymax = values["ymax"] else { continue }
            let pixelBox = BoundingBox(minX: xmin - 1, minY: ymin - 1, maxX: xmax, maxY: ymax)
            guard pixelBox.width > 0, pixelBox.height > 0 else {
                log.add(file, line: box.line, "the box size must be positive, found xmin \(pixelText(xmin)) xmax \(pixelText(xmax)) ymin \(pixelText(ymin)) ymax \(pixelText(ymax))")
                continue
            }
            objects.append(PendingAnnotatedImage.PendingObject(label: name, box: pixelBox,
                                                               location: AnnotationLocation(file: file, line: object.line)))
        }
        let imageURL = locateImage(filename: filename, path: root.child("path")?.text, xml: url)
        return PendingAnnotatedImage(url: imageURL.standardizedFileURL, name: filename,
                                     location: AnnotationLocation(file: file, line: filenameElement.line),
                                     objects: objects, declaredSize: declaredSize)
    }

    static func locateImage(filename: String, path: String?, xml: URL) -> URL {
        let folder = xml.deletingLastPathComponent()
        var candidates = [folder.deletingLastPathComponent().appendingPathComponent("JPEGImages").appendingPathComponent(filename),
                          folder.appendingPathComponent(filename),
                          folder.deletingLastPathComponent().appendingPathComponent("images").appendingPathComponent(filename)]
        if let path, path.hasPrefix("/") { candidates.insert(URL(fileURLWithPath: path), at: 0) }
        let preferred = filename.hasPrefix("/") ? URL(fileURLWithPath: filename) : candidates[path?.hasPrefix("/") == true ? 1 : 0]
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? preferred
    }
}

/// A minimal element tree with line numbers, built by XMLParser.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    final class Element {
        let name: String
        let line: Int
        var children: [Element] = []
        var characters = ""
        init(name: String, line: Int) {
            self.name = name
            self.line = line
        }
        var text: String { characters.trimmingCharacters(in: .whitespacesAndNewlines) }
        func child(_ name: String) -> Element? { children.first { $0.name == name } }
    }

    var root: Element?
    private var stack: [Element] = []
    /// The first error the parser reported, with its line.
    var firstError: (code: Int, line: Int)?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if firstError == nil { firstError = ((parseError as NSError).code, parser.lineNumber) }
    }

    /// A few libxml2 error codes in words.
    static func describe(code: Int?) -> String {
        switch code {
        case nil: return "malformed XML"
        case 4: return "the document is empty"
        case 5: return "unexpected content at the end of the document"
        case 73, 74: return "a tag is not closed with >"
        case 76: return "an end tag does not match its start tag"
        case 77: return "the document ends before all tags are closed"
        default: return "XML parser error \(code!)"
        }
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        let element = Element(name: elementName, line: parser.lineNumber)
        if let parent = stack.last { parent.children.append(element) } else if root == nil { root = element }
        stack.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        _ = stack.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.characters += string
    }
}
