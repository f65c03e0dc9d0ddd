import CoachModels
import Foundation
import XCTest

final class ModelMetadataTests: XCTestCase {
    func testOnlyTheTaskIsRequiredAndUnknownKeysAreIgnored() throws {
        let metadata = try ModelMetadata.parse(json: #"{"task": "action-classifier", "addedInVersion7": [1, 2]}"#)
        XCTAssertEqual(metadata, ModelMetadata(task: .actionClassifier, creator: CreatorInfo(coachVersion: "unknown")))
    }

    func testJSONIsDeterministicAndSorted() throws {
        var metadata = ModelMetadata(task: .handPoseClassifier, classLabels: ["Open", "Close"])
        metadata.metrics = ["z": 1, "a": 0.5, "m": 0.25]
        metadata.training = ["seed": 1, "batchSize": 32]
        let json = try metadata.jsonString()
        XCTAssertEqual(json, try metadata.jsonString())
        XCTAssertTrue(json.contains(#""metrics":{"a":0.5,"m":0.25,"z":1}"#), json)
        XCTAssertTrue(json.contains(#""training":{"batchSize":32,"seed":1}"#), json)
        XCTAssertFalse(json.contains("\n"))
    }

    func testPoseInputAndBackboneRoundTrip() throws {
        let metadata = ModelMetadata(
            task: .actionClassifier, classLabels: ["wave", "other"],
            input: InputSpecification(pose: PoseInputSpecification(
                windowLength: 45, frameRate: 30, jointNames: ["nose", "neck"], keypointOrigin: .bottomLeft)),
            backbone: BackboneReference(name: "efficientnet-lite0", sha256: "00ff"),
            extra: ["graph": ["edges": [[0, 1]]]])
        let parsed = try ModelMetadata.parse(json: try metadata.jsonString())
        XCTAssertEqual(parsed, metadata)
        XCTAssertEqual(parsed.input?.pose?.keypointOrigin, .bottomLeft)
        XCTAssertNil(parsed.input?.image)
        XCTAssertTrue(try metadata.jsonString().contains(#""keypointOrigin":"bottom-left""#))
    }

    func testNonFiniteMetricsSurvive() throws {
        var metadata = ModelMetadata(task: .objectDetector)
        metadata.metrics = ["nan": .nan, "inf": .infinity, "negative": -.infinity]
        let parsed = try ModelMetadata.parse(json: try metadata.jsonString())
        XCTAssertTrue(parsed.metrics["nan"]!.isNaN)
        XCTAssertEqual(parsed.metrics["inf"], .infinity)
        XCTAssertEqual(parsed.metrics["negative"], -.infinity)
    }

    func testTypedExtraValues() throws {
        struct Anchor: Codable, Equatable { var width: Double; var height: Double }
        var metadata = ModelMetadata(task: .objectDetector)
        metadata.extra["anchors"] = try JSONValue(encoding: [Anchor(width: 1, height: 2)])
        metadata.extra["broken"] = ["width": "wide"]
        let parsed = try ModelMetadata.parse(json: try metadata.jsonString())
        XCTAssertEqual(try parsed.extraValue("anchors", as: [Anchor].self), [Anchor(width: 1, height: 2)])
        XCTAssertNil(try parsed.extraValue("absent", as: [Anchor].self))
        XCTAssertThrowsError(try parsed.extraValue("broken", as: Anchor.self)) { error in
            guard case .malformedMetadata(nil, let path, _)? = error as? ModelFileError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(path, "$.extra.broken.width")
        }
    }

    func testJSONValueKeepsKinds() throws {
        let value: JSONValue = ["flag": true, "count": 3, "ratio": 0.5, "name": "x", "list": [1, "two", nil], "none": nil]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        XCTAssertEqual(decoded, value)
        XCTAssertEqual(decoded.objectValue?["flag"]?.boolValue, true)
        XCTAssertEqual(decoded.objectValue?["count"]?.numberValue, 3)
        XCTAssertEqual(decoded.objectValue?["list"]?.arrayValue?.count, 3)
    }
}
