import CoachData
import CoachRandom
import Foundation
import TestSupport
import XCTest

/// Reading Create ML, YOLO and Pascal VOC detection annotations, and listing every problem.
final class DetectionAnnotationTests: XCTestCase {
    /// Writes a `width × height` PNG named `name` into `folder`.
    func writePNG(_ name: String, width: Int, height: Int, in folder: URL) throws {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try ImageEncoder.pngData(ImageFixtures.smooth(width: width, height: height)).write(to: url)
    }

    func write(_ text: String, _ name: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
        return url
    }

    func testCreateMLBoxesAreCentreAndSizeWithPathsRelativeToTheJSONFolder() throws {
        let folder = try temporaryDirectory(self)
        try writePNG("images/a.png", width: 64, height: 48, in: folder)
        try writePNG("b.png", width: 40, height: 40, in: folder)
        let json = try write("""
        [ {"image": "images/a.png", "annotations": [
             {"label": "board", "coordinates": {"x": 32, "y": 24, "width": 20, "height": 10}},
             {"label": "hole", "coordinates": {"x": 10.5, "y": 8, "width": 5, "height": 4}} ]},
          {"image": "b.png", "annotations": []} ]
        """, "data/../annotations.json", in: folder)
        let dataset = try DetectionDataset.load(from: json)
        XCTAssertEqual(dataset.format, .createML)
        XCTAssertEqual(dataset.images.count, 2)
        XCTAssertEqual(dataset.labels, ["board", "hole"])
        XCTAssertEqual(dataset.negativeImageCount, 1)
        let a = dataset.images[0]
        XCTAssertEqual(a.width, 64)
        XCTAssertEqual(a.height, 48)
        XCTAssertEqual(a.objects[0].box, BoundingBox(minX: 22, minY: 19, maxX: 42, maxY: 29))
        XCTAssertEqual(a.objects[1].box, BoundingBox(minX: 8, minY: 6, maxX: 13, maxY: 10))
        XCTAssertEqual(a.url.lastPathComponent, "a.png")
        XCTAssertTrue(dataset.images[1].isNegative)
        XCTAssertEqual(dataset.objectCounts, ["board": 1, "hole": 1])
    }

    func testBoxesWithinOnePixelOfTheEdgeAreClippedAndFartherOnesAreErrors() throws {
        let folder = try temporaryDirectory(self)
        try writePNG("a.png", width: 50, height: 30, in: folder)
        // Left edge at −0.9 px (kept, clipped); right edge at 51.5 px (outside by 1.5 px).
        let json = try write("""
        [ {"image": "a.png", "annotations": [
             {"label": "x", "coordinates": {"x": 4.1, "y": 15, "width": 10, "height": 10}},
             {"label": "y", "coordinates": {"x": 46.5, "y": 15, "width": 10, "height": 10}} ]} ]
        """, "a.json", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: json)) { error in
            let problems = (error as? DetectionDataError)?.problems ?? []
            XCTAssertEqual(problems.count, 1, "\(problems)")
            XCTAssertEqual(problems.first?.jsonPath, "$[0].annotations[1]")
            XCTAssertTrue(problems.first?.message.contains("by 1.50 px") == true, problems.first?.message ?? "")
        }
        let fixed = try write("""
        [ {"image": "a.png", "annotations": [ {"label": "x", "coordinates": {"x": 4.1, "y": 15, "width": 10, "height": 10}} ]} ]
        """, "b.json", in: folder)
        let box = try DetectionDataset.load(from: fixed).images[0].objects[0].box
        XCTAssertEqual(box.minX, 0)
        XCTAssertEqual(box.maxX, 9.1, accuracy: 1e-9)
    }

    func testEveryCreateMLProblemIsListedWithItsJSONPath() throws {
        let folder = try temporaryDirectory(self)
        try writePNG("ok.png", width: 32, height: 32, in: folder)
        let json = try write("""
        [ {"image": "missing.png", "annotations": []},
          {"image": "ok.png", "annotations": [
             {"label": "a", "coordinates": {"x": "3", "y": true, "width": 4, "height": 4}},
             {"label": "b", "coordinates": {"x": 10, "y": 10, "width": 0, "height": 4}},
             {"coordinates": {"x": 10, "y": 10, "width": 2, "height": 4}},
             {"label": 7, "coordinates": {"x": 10, "y": 10, "width": 2}},
             {"label": "c", "coordinates": {"x": 10, "y": 10, "width": 80, "height": 4}} ]},
          {"image": 12, "annotations": {}},
          {"image": "ok.png"},
          "nonsense" ]
        """, "bad.json", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: json)) { error in
            guard let error = error as? DetectionDataError else { return XCTFail("\(error)") }
            let found = error.problems.map { "\($0.jsonPath ?? "-") \($0.message)" }
            let expected: [(String, String)] = [
                ("$[0]", "image \"missing.png\" not"),
                ("$[1].annotations[0].coordinates.x", "expected a number of pix"),
                ("$[1].annotations[0].coordinates.y", "expected a number of pix"),
                ("$[1].annotations[1].coordinates", "the box size must be pos"),
                ("$[1].annotations[2]", "required key \"label\" is"),
                ("$[1].annotations[3].label", "expected a non-empty str"),
                ("$[1].annotations[3].coordinates", "required key \"height\" i"),
                ("$[1].annotations[4]", "the \"c\" box (x -30…50, "),
                ("$[2].image", "expected a non-empty str"),
                ("$[2].annotations", "expected an array of ann"),
                ("$[3]", "required key \"annotation"),
                ("$[4]", "expected an object with "),
            ]
            for (path, start) in expected {
                XCTAssertTrue(found.contains { $0.hasPrefix("\(path) \(start)") }, "missing problem at \(path) starting '\(start)'; found \(found)")
            }
            XCTAssertEqual(error.problems.count, expected.count, "\(error.problems)")
            XCTAssertTrue(error.problems.allSatisfy { $0.file == json.path })
            XCTAssertTrue(error.localizedDescription.contains("12 problems"), error.localizedDescription)
            XCTAssertTrue(error.problems[0].message.contains("a string (\"3\")"), error.problems[0].message)
            XCTAssertTrue(error.problems[1].message.contains("found true"), error.problems[1].message)
        }
    }

    func testMalformedJSONNamesTheLine() throws {
        let folder = try temporaryDirectory(self)
        let json = try write("[\n  {\"image\": \"a.png\",\n   \"annotations\": [,]}\n]", "broken.json", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: json)) { error in
            let problem = (error as? DetectionDataError)?.problems.first
            XCTAssertEqual(problem?.line, 3, "\(String(describing: problem))")
            XCTAssertTrue(problem?.message.contains("not valid JSON") == true)
        }
        let object = try write("{\"image\": \"a.png\"}", "object.json", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: object)) { error in
            XCTAssertEqual((error as? DetectionDataError)?.problems.first?.jsonPath, "$")
        }
    }

    func testUndecodableImagesAreProblems() throws {
        let folder = try temporaryDirectory(self)
        _ = try write("not an image", "fake.jpg", in: folder)
        let json = try write("[{\"image\": \"fake.jpg\", \"annotations\": []}]", "a.json", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: json)) { error in
            XCTAssertTrue((error as? DetectionDataError)?.problems.first?.message.contains("cannot be decoded") == true)
        }
    }

    /// Boxes are read in the displayed (EXIF-rotated) orientation; a box that only fits the
    /// stored pixels gets a message saying so.
    func testBoxesFollowTheDisplayedOrientation() throws {
        let folder = try temporaryDirectory(self)
        let jpeg = try ImageEncoder.jpegData(ImageFixtures.smooth(width: 80, height: 40))
        try ImageFixtures.withEXIFOrientation(jpeg, orientation: 6).write(to: folder.appendingPathComponent("r.jpg"))
        // Displayed 40×80: a box 30 px wide at x 20…50 leaves it; it would fit the stored 80×40.
        let json = try write("""
        [{"image": "r.jpg", "annotations": [{"label": "a", "coordinates": {"x": 35, "y": 20, "width": 30, "height": 10}}]}]
        """, "a.json", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: json)) { error in
            let message = (error as? DetectionDataError)?.problems.first?.message ?? ""
            XCTAssertTrue(message.contains("EXIF orientation 6") && message.contains("displayed"), message)
        }
        let upright = try write("""
        [{"image": "r.jpg", "annotations": [{"label": "a", "coordinates": {"x": 20, "y": 60, "width": 30, "height": 10}}]}]
        """, "b.json", in: folder)
        let image = try DetectionDataset.load(from: upright).images[0]
        XCTAssertEqual([image.width, image.height], [40, 80])
    }

    func testYOLOLabelsWithNamesFile() throws {
        let folder = try temporaryDirectory(self)
        try writePNG("images/one.png", width: 100, height: 50, in: folder)
        try writePNG("images/two.png", width: 100, height: 50, in: folder)
        _ = try write("board\nhole\n", "classes.txt", in: folder)
        _ = try write("0 0.5 0.5 0.2 0.4\n\n1 0.1 0.2 0.1 0.2\n", "labels/one.txt", in: folder)
        let dataset = try DetectionDataset.load(from: folder)
        XCTAssertEqual(dataset.format, .yolo)
        XCTAssertEqual(dataset.images.map(\.name), ["one.png", "two.png"])
        XCTAssertEqual(dataset.images[0].objects.map(\.label), ["board", "hole"])
        let box = dataset.images[0].objects[0].box
        XCTAssertEqual(box.minX, 40, accuracy: 1e-9)
        XCTAssertEqual(box.maxX, 60, accuracy: 1e-9)
        XCTAssertEqual(box.minY, 15, accuracy: 1e-9)
        XCTAssertEqual(box.maxY, 35, accuracy: 1e-9)
        XCTAssertTrue(dataset.images[1].isNegative, "an image without a label file is a negative")
        // The resource forks of a Finder zip, and hidden folders, are not images.
        _ = try write("\u{0}\u{5}\u{16}\u{7}", "images/__MACOSX/._one.png", in: folder)
        _ = try write("\u{0}\u{5}\u{16}\u{7}", "images/.thumbnails/one.png", in: folder)
        XCTAssertEqual(try DetectionDataset.load(from: folder).images.map(\.name), ["one.png", "two.png"])
    }

    func testYOLOProblemsNameTheLine() throws {
        let folder = try temporaryDirectory(self)
        try writePNG("one.png", width: 100, height: 50, in: folder)
        _ = try write("names: [board, 'hole']\n", "data.yaml", in: folder)
        _ = try write("2 0.5 0.5 0.2 0.2\n0 0.5 0.5 x 0.2\n0 0.5\n1 0.5 0.5 0 0.1\n0 0.95 0.5 0.2 0.2\n", "one.txt", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: folder.appendingPathComponent("data.yaml"))) { error in
            let problems = (error as? DetectionDataError)?.problems ?? []
            XCTAssertEqual(problems.map(\.line), [1, 2, 3, 4, 5], "\(problems)")
            XCTAssertTrue(problems[0].message.contains("unknown class index 2"), problems[0].message)
            XCTAssertTrue(problems[4].message.contains("outside the 100×50 image"), problems[4].message)
        }
    }

    func testYAMLNamesForms() throws {
        for (index, yaml) in ["names:\n  - board\n  - \"hole\"\n", "path: x\nnames:\n  0: board\n  1: hole\nnc: 2\n",
                              "names: ['board', hole]\n"].enumerated() {
            let folder = try temporaryDirectory(self)
            try writePNG("one.png", width: 10, height: 10, in: folder)
            _ = try write(yaml, "data.yaml", in: folder)
            _ = try write("1 0.5 0.5 0.2 0.2\n0 0.5 0.5 0.4 0.4\n", "one.txt", in: folder)
            let labels = try DetectionDataset.load(from: folder).images[0].objects.map(\.label)
            XCTAssertEqual(labels, ["hole", "board"], "YAML form \(index)")
        }
    }

    func testPascalVOCUsesOneBasedInclusiveCoordinates() throws {
        let folder = try temporaryDirectory(self)
        try writePNG("JPEGImages/a.png", width: 60, height: 40, in: folder)
        _ = try write("""
        <annotation>
          <filename>a.png</filename>
          <size><width>60</width><height>40</height><depth>3</depth></size>
          <object><name>board</name><difficult>0</difficult>
            <bndbox><xmin>11</xmin><ymin>6</ymin><xmax>30</xmax><ymax>25</ymax></bndbox></object>
        </annotation>
        """, "Annotations/a.xml", in: folder)
        let dataset = try DetectionDataset.load(from: folder)
        XCTAssertEqual(dataset.format, .pascalVOC)
        XCTAssertEqual(dataset.images[0].objects, [ObjectAnnotation(label: "board", box: BoundingBox(minX: 10, minY: 5, maxX: 30, maxY: 25))])
    }

    func testPascalVOCProblemsNameTheLine() throws {
        let folder = try temporaryDirectory(self)
        try writePNG("a.png", width: 60, height: 40, in: folder)
        let xml = try write("""
        <annotation>
          <filename>a.png</filename>
          <size><width>61</width><height>40</height></size>
          <object><name>board</name>
            <bndbox><xmin>11</xmin><ymin>six</ymin><xmax>30</xmax></bndbox></object>
          <object><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>3</xmax><ymax>3</ymax></bndbox></object>
        </annotation>
        """, "a.xml", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: xml)) { error in
            let problems = (error as? DetectionDataError)?.problems ?? []
            let lines = problems.map { $0.line ?? -1 }
            XCTAssertEqual(lines, [5, 5, 6, 2], "\(problems)")
            XCTAssertTrue(problems[3].message.contains("61×40"), "\(problems)")
        }
        let broken = try write("<annotation><filename>a.png</filename>\n<object>\n</annotation>", "b.xml", in: folder)
        XCTAssertThrowsError(try DetectionDataset.load(from: broken)) { error in
            XCTAssertTrue((error as? DetectionDataError)?.problems.first?.message.contains("not valid XML") == true)
        }
    }

    func testSeededSplitIsDisjointAndReproducible() throws {
        let images = (0..<10).map {
            AnnotatedImage(url: URL(fileURLWithPath: "/x/\($0).png"), name: "\($0)", width: 10, height: 10, objects: [])
        }
        let dataset = DetectionDataset(source: URL(fileURLWithPath: "/x/a.json"), format: .createML, images: images)
        var g1 = SeededGenerator(seed: 4), g2 = SeededGenerator(seed: 4)
        let a = dataset.split(validationFraction: 0.2, using: &g1), b = dataset.split(validationFraction: 0.2, using: &g2)
        XCTAssertEqual(a.validation.images.map(\.name), b.validation.images.map(\.name))
        XCTAssertEqual(a.validation.images.count, 2)
        XCTAssertEqual(Set(a.training.images.map(\.name)).union(a.validation.images.map(\.name)).count, 10)
    }
}
