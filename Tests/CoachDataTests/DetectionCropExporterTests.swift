import CoachData
import Foundation
import TestSupport
import XCTest

/// The crop exporter reads a Create ML annotation file's photos by relative name or, as the
/// Create ML reader does, by absolute path; both give the same crops under the same names.
final class DetectionCropExporterTests: XCTestCase {
    func testAbsoluteImagePathsGiveTheCropsOfRelativeOnes() throws {
        let folder = try temporaryDirectory(self)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        var relative: [[String: Any]] = [], absolute: [[String: Any]] = []
        for index in 0..<4 {
            var image = RGBImage(width: 96, height: 64, color: RGBColor(red: 40, green: 120, blue: 40))
            for y in 10..<30 { for x in (10 + index * 5)..<(40 + index * 5) { image[x, y] = RGBColor(red: 200, green: 30, blue: 30) } }
            let name = "photo-\(index).png"
            try image.writePNG(to: photos.appendingPathComponent(name))
            let box: [String: Any] = ["label": "bag", "coordinates": ["x": 25 + index * 5, "y": 20, "width": 30, "height": 20]]
            relative.append(["image": name, "annotations": [box]])
            absolute.append(["image": photos.appendingPathComponent(name).path, "annotations": [box]])
        }
        let relativeFile = photos.appendingPathComponent("annotations.json")
        try JSONSerialization.data(withJSONObject: relative).write(to: relativeFile)
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let absoluteFile = elsewhere.appendingPathComponent("annotations.json")
        try JSONSerialization.data(withJSONObject: absolute).write(to: absoluteFile)

        let exporter = DetectionCropExporter()
        let fromRelative = try exporter.export(annotations: relativeFile, to: folder.appendingPathComponent("a"))
        let fromAbsolute = try exporter.export(annotations: absoluteFile, to: folder.appendingPathComponent("b"))
        XCTAssertEqual(fromRelative.counts, fromAbsolute.counts)
        XCTAssertEqual(fromRelative.counts["train"]?["bag"], 3)
        XCTAssertEqual(fromAbsolute.trainingPhotos.map { ($0 as NSString).lastPathComponent }, fromRelative.trainingPhotos)

        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("a").path).filter { $0.hasSuffix(".jpg") }.sorted()
        XCTAssertEqual(files.count, 8, "a crop of the bag and one of the background per photo: \(files)")
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("b").path)
            .filter { $0.hasSuffix(".jpg") }.sorted(), files)
        for file in files {
            XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("b").appendingPathComponent(file)),
                           try Data(contentsOf: folder.appendingPathComponent("a").appendingPathComponent(file)), file)
        }
    }
}
