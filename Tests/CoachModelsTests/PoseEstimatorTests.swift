import CoachData
import CoachModels
import Foundation
import TestSupport
import XCTest

/// Coach's run of MediaPipe's body and hand pipelines against MediaPipe 0.10.21's own answers on
/// real photos (`../shared/reference/mediapipe/reference.json`).
final class PoseEstimatorTests: XCTestCase {
    /// The imported models: `$COACH_POSE_MODELS` or `models/pose` (`make build` writes them).
    static func modelFolder(file: String = #fileID, function: String = #function) throws -> URL {
        try SharedData.poseModels(holding: MediaPipeModel.handLandmarks.modelFileName, file: file, function: function)
    }

    struct Reference: Decodable {
        struct Body: Decodable {
            var file: String
            var landmarks: [String: [Float]]
        }
        struct HandPhoto: Decodable {
            struct Hand: Decodable {
                var handedness: String
                var handednessScore: Float
                var landmarks: [String: [Float]]
            }
            var file: String
            var hands: [Hand]
        }
        var body: Body
        var hands: [HandPhoto]
    }

    func reference() throws -> (Reference, URL) {
        let url = try SharedData.require("reference/mediapipe/reference.json")
        return (try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url)), url.deletingLastPathComponent())
    }

    func testBodyLandmarksMatchMediaPipe() throws {
        let estimator = try BodyPoseEstimator(folder: try PoseEstimatorTests.modelFolder())
        let (reference, folder) = try reference()
        let image = try ImageDecoder.decode(contentsOf: folder.appendingPathComponent(reference.body.file)).image
        let pose = try XCTUnwrap(estimator.estimate(image), "no person found in the astronaut photo")
        var worst: Float = 0, worstName = ""
        for (index, name) in BodyLandmarks.names.enumerated() {
            let expected = try XCTUnwrap(reference.body.landmarks[name], name)
            let found = pose.landmarks[index]
            let error = max(abs(found.x - expected[0]), abs(found.y - expected[1]))
            if error > worst { worst = error; worstName = name }
            XCTAssertLessThanOrEqual(error, 0.02, "\(name): Coach (\(found.x), \(found.y)), MediaPipe (\(expected[0]), \(expected[1]))")
            XCTAssertEqual(found.confidence, expected[3], accuracy: 0.05, "\(name) visibility")
        }
        print("body: 33 landmarks, largest difference \(worst) of the image size (\(worstName))")
        // body18: neck halfway between the shoulders.
        let neck = pose.body18[JointSet.body18.names.firstIndex(of: "neck")!]
        let l = reference.body.landmarks["leftShoulder"]!, r = reference.body.landmarks["rightShoulder"]!
        XCTAssertEqual(neck.x, (l[0] + r[0]) / 2, accuracy: 0.02)
        XCTAssertEqual(neck.y, (l[1] + r[1]) / 2, accuracy: 0.02)
    }

    func testHandLandmarksMatchMediaPipe() throws {
        let estimator = try HandPoseEstimator(folder: try PoseEstimatorTests.modelFolder())
        let (reference, folder) = try reference()
        XCTAssertEqual(reference.hands.count, 10)
        var worst: Float = 0
        for photo in reference.hands {
            let image = try ImageDecoder.decode(contentsOf: folder.appendingPathComponent(photo.file)).image
            let hands = estimator.estimate(image)
            XCTAssertEqual(hands.count, photo.hands.count, photo.file)
            for (found, expected) in zip(hands, photo.hands) {
                for (index, name) in JointSet.hand21.names.enumerated() {
                    let point = try XCTUnwrap(expected.landmarks[name], name)
                    let error = max(abs(found.landmarks[index].x - point[0]), abs(found.landmarks[index].y - point[1]))
                    worst = max(worst, error)
                    XCTAssertLessThanOrEqual(error, 0.02, "\(photo.file) \(name)")
                }
                // MediaPipe's label assumes a mirrored image; in this ordinary photo it names the other hand.
                let mirroredLabel = found.isLeftHand(mirrored: true)
                XCTAssertEqual(mirroredLabel.isLeft ? "Left" : "Right", expected.handedness, photo.file)
                XCTAssertEqual(mirroredLabel.confidence, expected.handednessScore, accuracy: 0.02, photo.file)
                XCTAssertEqual(found.isLeftHand(mirrored: false).isLeft, expected.handedness == "Right", photo.file)
            }
        }
        print("hands: 10 photos, largest landmark difference \(worst) of the image size")
    }
}
