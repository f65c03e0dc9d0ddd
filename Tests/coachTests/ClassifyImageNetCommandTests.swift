import Foundation
import TestSupport
import XCTest

/// `coach classify-imagenet` end to end: the reference photos and bad image files.
final class ClassifyImageNetCommandTests: XCTestCase {
    func testReferencePhotosGetTheReferenceTopLabelAsJSON() throws {
        _ = try BackboneFixture.load()
        let images = try SharedData.require("reference/efficientnet-lite0/images")
        let result = try CoachExecutable.run(["classify-imagenet", "--backbone", BackboneFixture.url.path, "--json", "--top", "2",
                                              images.appendingPathComponent("chelsea.png").path,
                                              images.appendingPathComponent("rocket.jpg").path])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let array = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [[String: Any]]
        XCTAssertEqual(array.count, 2)
        let first = (array[0]["predictions"] as! [[String: Any]])[0]
        XCTAssertEqual(first["class"] as? Int, 282)  // reference.json: tiger cat, 0.3928
        XCTAssertEqual(first["label"] as? String, "tiger cat")
        XCTAssertEqual(first["probability"] as! Double, 0.3928, accuracy: 2e-3)
        XCTAssertEqual(((array[1]["predictions"] as! [[String: Any]])[0]["label"]) as? String, "missile")
    }

    func testBadImagesGiveTypedErrorsNamingTheFileAndAFailingExitCode() throws {
        _ = try BackboneFixture.load()
        let photos = try SharedData.require("reference/efficientnet-lite0/images")
        let dir = try temporaryDirectory(self)
        let jpeg = try Data(contentsOf: photos.appendingPathComponent("rocket.jpg"))
        let truncated = dir.appendingPathComponent("truncated.jpg")
        try jpeg.prefix(jpeg.count / 2).write(to: truncated)
        let empty = dir.appendingPathComponent("empty.jpg")
        try Data().write(to: empty)
        let text = dir.appendingPathComponent("notes.jpg")
        try Data("not an image\n".utf8).write(to: text)
        let good = photos.appendingPathComponent("coffee.png")
        let result = try CoachExecutable.run(["classify-imagenet", "--backbone", BackboneFixture.url.path,
                                              truncated.path, empty.path, text.path, good.path])
        XCTAssertEqual(result.exitCode, 1)
        XCTAssertTrue(result.standardError.contains("truncated.jpg") && result.standardError.contains("truncated"), result.standardError)
        XCTAssertTrue(result.standardError.contains("empty.jpg"), result.standardError)
        XCTAssertTrue(result.standardError.contains("notes.jpg") && result.standardError.contains("not a JPEG or PNG"), result.standardError)
        XCTAssertTrue(result.standardOutput.contains("coffee.png"), "good images are still classified")
        XCTAssertFalse(result.standardError.contains("Fatal"), result.standardError)
    }

    func testMissingBackboneExplainsHowToGetIt() throws {
        let dir = try temporaryDirectory(self)
        let result = try CoachExecutable.run(["classify-imagenet", "--backbone", dir.appendingPathComponent("none.h5").path, "x.jpg"])
        XCTAssertEqual(result.exitCode, 1)
        XCTAssertTrue(result.standardError.contains("none.h5"), result.standardError)
    }
}
