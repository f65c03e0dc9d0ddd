import CoachData
import XCTest

final class PoseJointSetTests: XCTestCase {
    func testBody18AndHand21AreInCreateMLOrder() {
        XCTAssertEqual(JointSet.body18.names, [
            "nose", "neck", "rightShoulder", "rightElbow", "rightWrist", "leftShoulder", "leftElbow",
            "leftWrist", "rightHip", "rightKnee", "rightAnkle", "leftHip", "leftKnee", "leftAnkle",
            "rightEye", "leftEye", "rightEar", "leftEar"])
        XCTAssertEqual(JointSet.hand21.count, 21)
        XCTAssertEqual(JointSet.hand21.names.first, "wrist")
        XCTAssertEqual(JointSet.hand21.names[4], "thumbTip")
        XCTAssertEqual(JointSet.hand21.names[8], "indexTip")
        XCTAssertEqual(JointSet.hand21.names.last, "littleTip")
        XCTAssertEqual(JointSet.body18.kind, .body18)
        XCTAssertEqual(JointSet.hand21.kind, .hand21)
    }

    func testIdentifyReordersKnownSetsAndKeepsCustomOrder() throws {
        let shuffled = JointSet.body18.names.reversed().map { $0 }
        let (set, indices) = try XCTUnwrap(JointSet.identify(shuffled))
        XCTAssertEqual(set, JointSet.body18)
        // sourceIndices[j] is where canonical joint j sits in the given names.
        for (j, name) in JointSet.body18.names.enumerated() { XCTAssertEqual(indices[j].map { shuffled[$0] }, name) }

        let (hand, handIndices) = try XCTUnwrap(JointSet.identify(JointSet.hand21.names))
        XCTAssertEqual(hand.kind, .hand21)
        XCTAssertEqual(handIndices, Array(0..<21))

        let custom = ["rightHandTip", "leftHandTip", "spine"]
        let (customSet, customIndices) = try XCTUnwrap(JointSet.identify(custom))
        XCTAssertEqual(customSet.kind, .custom)
        XCTAssertEqual(customSet.names, custom)
        XCTAssertEqual(customIndices, [0, 1, 2])

        // At least half of a layout's names, and no others: the layout, the rest never detected
        // (sports annotations without the neck, eyes and ears; Kinect skeletons without eyes and ears).
        let thirteen = JointSet.body18.names.filter { !["neck", "rightEye", "leftEye", "rightEar", "leftEar"].contains($0) }.reversed().map { $0 }
        let (body, bodyIndices) = try XCTUnwrap(JointSet.identify(thirteen))
        XCTAssertEqual(body, JointSet.body18)
        for (j, name) in JointSet.body18.names.enumerated() {
            XCTAssertEqual(bodyIndices[j].map { thirteen[$0] }, thirteen.contains(name) ? name : nil, name)
        }
        let nine = Array(JointSet.body18.names.prefix(9)), eight = Array(JointSet.body18.names.prefix(8))
        XCTAssertEqual(JointSet.identify(nine)?.jointSet, JointSet.body18, "9 of 18 is half")
        XCTAssertEqual(JointSet.identify(eight)?.jointSet.names, eight, "8 of 18 stays a custom set")
        XCTAssertEqual(JointSet.identify(eight)?.jointSet.kind, .custom)
        XCTAssertEqual(JointSet.identify(eight)?.sourceIndices, Array(0..<8))
        XCTAssertEqual(JointSet.identify(Array(JointSet.hand21.names.suffix(11)))?.jointSet, JointSet.hand21)
        XCTAssertEqual(JointSet.identify(Array(JointSet.hand21.names.suffix(10)))?.jointSet.kind, .custom)
        XCTAssertEqual(JointSet.identify(["indexTip"])?.jointSet.kind, .custom, "a fingertip track is its own set")
        XCTAssertEqual(JointSet.identify(thirteen + ["spine"])?.jointSet.kind, .custom, "a name outside the layout")
        XCTAssertNil(JointSet.identify(["a", "a"]))
        XCTAssertNil(JointSet(names: []))
        XCTAssertNil(JointSet(names: ["a", ""]))
    }

    func testMirrorPairsFromPrefixesAndSuffixes() throws {
        let body = JointSet.body18
        func mirror(_ name: String, in set: JointSet) -> String {
            set.names[set.mirroredIndices[set.index(of: name)!]]
        }
        XCTAssertEqual(mirror("leftWrist", in: body), "rightWrist")
        XCTAssertEqual(mirror("rightEar", in: body), "leftEar")
        XCTAssertEqual(mirror("nose", in: body), "nose")
        XCTAssertEqual(mirror("neck", in: body), "neck")
        XCTAssertEqual(body.mirrorPairs.count, 8)
        // Applying the permutation twice is the identity.
        for i in 0..<body.count { XCTAssertEqual(body.mirroredIndices[body.mirroredIndices[i]], i) }

        let suffixed = try XCTUnwrap(JointSet(names: ["handTipLeft", "handTipRight", "spineMid", "elbowLeft"]))
        XCTAssertEqual(suffixed.mirroredIndices, [1, 0, 2, 3], "elbowLeft has no elbowRight, so it maps to itself")
        XCTAssertEqual(JointSet.mirroredName(of: "handTipLeft"), "handTipRight")
        XCTAssertEqual(JointSet.mirroredName(of: "leftHandTip"), "rightHandTip")
        XCTAssertEqual(JointSet.mirroredName(of: "left_wrist"), "right_wrist")
        XCTAssertNil(JointSet.mirroredName(of: "leftover"), "a word that merely starts with 'left' has no side")
        XCTAssertNil(JointSet.mirroredName(of: "wrist"))

        let hand = JointSet.hand21
        XCTAssertEqual(hand.mirroredIndices, Array(0..<21), "one hand's joints have no left/right pairs")
    }
}
