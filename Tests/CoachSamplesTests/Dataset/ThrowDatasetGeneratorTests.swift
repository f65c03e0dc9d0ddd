import CoachData
import CoachRandom
import CoachSamples
import Foundation
import TestSupport
import XCTest

/// The generated cornhole throw dataset: deterministic files in the formats of FORMATS.md
/// §3.2/§3.3/§3.6, balanced classes, throws among background motion, real motion capture of
/// the split's own subjects, mirrored left-handers, cameras all around and a detector that
/// misses hidden joints.
final class ThrowDatasetGeneratorTests: XCTestCase {
    private let body18 = ["nose", "neck", "rightShoulder", "rightElbow", "rightWrist", "leftShoulder",
                          "leftElbow", "leftWrist", "rightHip", "rightKnee", "rightAnkle", "leftHip",
                          "leftKnee", "leftAnkle", "rightEye", "leftEye", "rightEar", "leftEar"]

    private func files(in directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            result[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return result
    }

    private func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testSameSeedWritesByteIdenticalFilesAndAnotherSeedDoesNot() throws {
        let root = try temporaryDirectory(self)
        let generator = ThrowDatasetGenerator()
        _ = try generator.generate(into: root.appendingPathComponent("a"), clips: 12, seed: 7)
        _ = try generator.generate(into: root.appendingPathComponent("b"), clips: 12, seed: 7)
        _ = try generator.generate(into: root.appendingPathComponent("c"), clips: 12, seed: 8)
        let a = try files(in: root.appendingPathComponent("a")), b = try files(in: root.appendingPathComponent("b"))
        XCTAssertEqual(a.count, 13)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, try files(in: root.appendingPathComponent("c")))
    }

    func testClipFilesFollowTheFormatContract() throws {
        let directory = try temporaryDirectory(self)
        let summary = try ThrowDatasetGenerator().generate(into: directory, clips: 30, seed: 3)
        XCTAssertEqual(summary.clipFiles.count, 30)
        XCTAssertEqual(summary.jsonClipCount, 3, "10% of the clips are JSON")
        let expectedHeader = "time," + body18.map { "\($0)_x,\($0)_y,\($0)_confidence" }.joined(separator: ",")
        var missing = 0, detected = 0, frames = 0
        var rates = Set<Double>()
        for name in summary.clipFiles {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            var times: [Double] = []
            if name.hasSuffix(".json") {
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], name)
                XCTAssertEqual(object["joints"] as? [String], body18, name)
                for frame in try XCTUnwrap(object["frames"] as? [[String: Any]], name) {
                    times.append(try XCTUnwrap(frame["time"] as? Double, name))
                    XCTAssertEqual((frame["keypoints"] as? [Any])?.count, 18, name)
                }
            } else {
                let rows = lines(data)
                XCTAssertEqual(rows.first, expectedHeader, name)
                for row in rows.dropFirst() {
                    let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                    XCTAssertEqual(cells.count, 55, name)
                    guard cells.count == 55 else { continue }
                    times.append(try XCTUnwrap(Double(cells[0]), name))
                    for j in 0..<18 {
                        let triple = cells[1 + 3 * j ... 3 + 3 * j]
                        if triple.allSatisfy(\.isEmpty) || triple.last == "0.000" { missing += 1; continue }
                        let values = try triple.map { try XCTUnwrap(Double($0), name) }
                        XCTAssertTrue((0...1).contains(values[0]) && (0...1).contains(values[1]), "\(name): \(values)")
                        XCTAssertTrue(values[2] >= 0.1 && values[2] <= 1, name)
                        detected += 1
                    }
                }
            }
            frames += times.count
            XCTAssertGreaterThan(times.count, 20, name)
            let steps = zip(times, times.dropFirst()).map { $1 - $0 }
            if let step = steps.min() { rates.insert((1 / step).rounded()) }
        }
        XCTAssertEqual(frames, summary.frameCount)
        XCTAssertEqual(rates, [24, 30, 60], "videos at 24, 30 and 60 fps")
        XCTAssertGreaterThan(missing, 0)
        XCTAssertGreaterThan(detected, 4 * missing)
    }

    func testAnnotationsCoverEveryClipAroundOneThrow() throws {
        let directory = try temporaryDirectory(self)
        let summary = try ThrowDatasetGenerator().generate(into: directory, clips: 40, seed: 5)
        let rows = lines(try Data(contentsOf: summary.annotationFile))
        XCTAssertEqual(rows.first, "file,label,start,end")
        var byFile: [String: [(label: String, start: Double, end: Double)]] = [:]
        for row in rows.dropFirst() {
            let cells = row.split(separator: ",").map(String.init)
            byFile[cells[0], default: []].append((cells[1], Double(cells[2])!, Double(cells[3])!))
        }
        XCTAssertEqual(Set(byFile.keys), Set(summary.clipFiles))
        for (file, segments) in byFile {
            let throwsInClip = segments.filter { $0.label != "none" }
            XCTAssertLessThanOrEqual(throwsInClip.count, 1, file)
            for (previous, next) in zip(segments, segments.dropFirst()) {
                XCTAssertEqual(previous.end, next.start, accuracy: 1e-3, "\(file): segments are contiguous")
            }
            for segment in throwsInClip { XCTAssertTrue((0.5...5).contains(segment.end - segment.start), "\(file) \(segment)") }
        }
        XCTAssertEqual(summary.clipsPerClass["none"], 12, "30% of 40 clips have no throw")
        for kind in ThrowKind.allCases { XCTAssertTrue([9, 10].contains(summary.clipsPerClass[kind.rawValue]), "\(kind)") }
        XCTAssertGreaterThan(summary.segmentsPerLabel["none"]!, 40, "background before and after throws too")
        XCTAssertFalse(summary.motionCaptureTrials.isEmpty)
    }

    func testJSONAnnotationFormat() throws {
        var configuration = ThrowDatasetConfiguration()
        configuration.annotationFormat = .json
        let directory = try temporaryDirectory(self)
        let summary = try ThrowDatasetGenerator(configuration: configuration).generate(into: directory, clips: 6, seed: 2)
        XCTAssertEqual(summary.annotationFile.lastPathComponent, "annotations.json")
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: summary.annotationFile)) as? [[String: Any]])
        XCTAssertEqual(array.count, summary.segmentsPerLabel.values.reduce(0, +))
    }

    func testSplitsShowOtherPeopleAndOtherMotionCaptureSubjects() throws {
        let root = try temporaryDirectory(self)
        let (training, test) = try ThrowDatasetGenerator().generateSplits(into: root, trainingClips: 40, testClips: 30, seed: 21)
        let library = try MotionCaptureLibrary(directory: MotionCaptureLibrary.bundledDirectory)
        func subjects(_ trials: [String]) -> Set<Int> {
            Set(trials.compactMap { trial in library.clips.first { $0.name == trial }?.subject })
        }
        XCTAssertTrue(subjects(training.motionCaptureTrials).isSubset(of: [2, 5, 7]))
        XCTAssertTrue(subjects(test.motionCaptureTrials).isSubset(of: [1, 3]))
        XCTAssertFalse(test.motionCaptureTrials.isEmpty)
        let generator = ThrowDatasetGenerator()
        var seeds = SeededGenerator(seed: 21)
        let trainingPeople = generator.performers(seed: seeds.next()), testPeople = generator.performers(seed: seeds.next())
        XCTAssertNotEqual(trainingPeople.map(\.proportions), testPeople.map(\.proportions))
        XCTAssertEqual(trainingPeople.filter(\.isLeftHanded).count, 3, "20% of 16")
    }

    /// Cameras all around: the thrower is seen from the front, the side and behind.
    func testCamerasSurroundThePerson() throws {
        let clips = try ThrowDatasetGenerator().makeClips(clips: 60, seed: 4)
        var front = 0, back = 0, side = 0, portrait = 0
        for clip in clips {
            let toCamera = clip.camera.position - clip.bodies[0][.neck]
            let facing = (clip.bodies[0].chestForward * toCamera).sum() / (toCamera * toCamera).sum().squareRoot()
            if facing > 0.7 { front += 1 } else if facing < -0.7 { back += 1 } else { side += 1 }
            if clip.camera.height > clip.camera.width { portrait += 1 }
            // At the release the thrower fills about 20–90% of the frame height (less when crouching).
            if let release = clip.releaseTime {
                let ys = clip.truePositions[Int(release * clip.frameRate)].map(\.y)
                XCTAssertTrue((0.1...1.1).contains(ys.max()! - ys.min()!), "\(clip.name): \(ys.max()! - ys.min()!)")
            }
        }
        XCTAssertGreaterThan(front, 5); XCTAssertGreaterThan(back, 5); XCTAssertGreaterThan(side, 5)
        XCTAssertGreaterThan(portrait, 5)
    }

    /// Left-handed people throw with the left hand: the fastest wrist at release is the left one.
    func testLeftHandedPeopleThrowWithTheLeftHand() throws {
        let clips = try ThrowDatasetGenerator().makeClips(clips: 80, seed: 6)
        var checked = 0
        for clip in clips {
            guard let release = clip.releaseTime, clip.throwPerformance?.kind == .overhand else { continue }
            let frame = Int((release * clip.frameRate).rounded())
            guard frame >= 1, frame < clip.bodies.count else { continue }
            func speed(_ joint: Body18) -> Float {
                let d = clip.bodies[frame][joint] - clip.bodies[frame - 1][joint]
                return (d * d).sum()
            }
            XCTAssertEqual(speed(.leftWrist) > speed(.rightWrist), clip.isLeftHanded, clip.name)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }

    /// The far-side arm behind the trunk is missed or low-confidence far more often than the near one.
    func testHiddenJointsAreMissedMoreOften() throws {
        var configuration = ThrowDatasetConfiguration()
        configuration.detector.dropProbability = 0
        let clips = try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: 40, seed: 17)
        var nearMissed = 0, farMissed = 0, near = 0, far = 0
        for clip in clips {
            for (index, frame) in clip.frames.enumerated() {
                let body = clip.bodies[Int((frame.time * clip.frameRate).rounded())]
                let toCamera = clip.camera.position - body[.neck]
                let left = SIMD3<Float>(body.chestForward.z, 0, -body.chestForward.x)
                let leftFacing = (left * toCamera).sum() / (toCamera * toCamera).sum().squareRoot()
                guard abs(leftFacing) > 0.8, index % 2 == 0 else { continue }
                let (nearJoint, farJoint): (Body18, Body18) = leftFacing > 0 ? (.leftElbow, .rightElbow) : (.rightElbow, .leftElbow)
                near += 1; far += 1
                if (frame.keypoints[nearJoint.rawValue]?.confidence ?? 0) < 0.45 { nearMissed += 1 }
                if (frame.keypoints[farJoint.rawValue]?.confidence ?? 0) < 0.45 { farMissed += 1 }
            }
        }
        XCTAssertGreaterThan(near, 100)
        XCTAssertGreaterThan(Double(farMissed) / Double(far), 1.5 * Double(nearMissed) / Double(near))
    }

    /// Over a whole generated clip the bones keep their lengths and the joints their limits.
    func testBonesKeepTheirLengthsOverAClip() throws {
        let clips = try ThrowDatasetGenerator().makeClips(clips: 8, seed: 14)
        for clip in clips where !clip.poses.isEmpty {
            let first = clip.bodies[0]
            for (body, pose) in zip(clip.bodies, clip.poses) {
                XCTAssertTrue(JointLimits.human.contains(pose), clip.name)
                for (a, b) in [(Body18.rightShoulder, Body18.rightElbow), (.leftElbow, .leftWrist), (.rightHip, .rightKnee),
                               (.leftKnee, .leftAnkle), (.rightHip, .leftHip)] {
                    let now = body[a] - body[b], then = first[a] - first[b]
                    XCTAssertEqual((now * now).sum().squareRoot(), (then * then).sum().squareRoot(), accuracy: 1e-4, clip.name)
                }
                XCTAssertGreaterThanOrEqual(min(body[.rightAnkle].y, body[.leftAnkle].y), 0.02, "on or above the floor")
            }
        }
    }

    /// Some clips look like skeleton sources with one head point and no confidences.
    func testSomeClipsHaveOnlyAHeadPointOrNoConfidences() throws {
        let clips = try ThrowDatasetGenerator().makeClips(clips: 60, seed: 12)
        var headOnly = 0, unit = 0
        for clip in clips {
            let face = [Body18.rightEye, .leftEye, .rightEar, .leftEar].map(\.rawValue)
            if clip.frames.allSatisfy({ frame in face.allSatisfy { frame.keypoints[$0] == nil } }) { headOnly += 1 }
            if clip.frames.allSatisfy({ $0.keypoints.allSatisfy { $0 == nil || $0!.confidence == 1 } }) { unit += 1 }
        }
        XCTAssertTrue((5...30).contains(headOnly), "\(headOnly)")
        XCTAssertTrue((4...25).contains(unit), "\(unit)")
    }

    func testInvalidConfigurationListsEveryProblem() {
        var configuration = ThrowDatasetConfiguration()
        configuration.frameRates = [-1]
        configuration.backgroundClipShare = 2
        configuration.performerCount = 0
        configuration.backgroundLabel = "over,hand"
        XCTAssertThrowsError(try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: 0, seed: 1)) { error in
            guard case SyntheticDataError.invalidConfiguration(let problems) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(problems.count, 5, problems.joined(separator: "\n"))
            for word in ["frameRates", "backgroundClipShare", "performerCount", "backgroundLabel", "clips"] {
                XCTAssertTrue(error.localizedDescription.contains(word), word)
            }
        }
    }

    func testUnwritableDirectoryGivesAnErrorNamingIt() throws {
        let directory = try temporaryDirectory(self)
        let blocker = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        let target = blocker.appendingPathComponent("dataset")
        XCTAssertThrowsError(try ThrowDatasetGenerator().generate(into: target, clips: 2, seed: 1)) { error in
            XCTAssertTrue(error.localizedDescription.contains(target.path), error.localizedDescription)
        }
    }

    func testMissingMotionCaptureFolderIsAnError() {
        var configuration = ThrowDatasetConfiguration()
        configuration.motionCaptureDirectory = URL(fileURLWithPath: "/nonexistent/mocap")
        XCTAssertThrowsError(try ThrowDatasetGenerator(configuration: configuration)
            .generate(into: FileManager.default.temporaryDirectory.appendingPathComponent("never"), clips: 2, seed: 1)) { error in
            XCTAssertTrue(error.localizedDescription.contains("/nonexistent/mocap"), error.localizedDescription)
        }
    }
}
