import CoachData
import Foundation
import TestSupport
import XCTest

/// The synthetic cornhole throw dataset: deterministic files in the formats of FORMATS.md
/// §3.2/§3.3/§3.6, balanced classes, throws that differ the way real ones do, mirrored
/// left-handers, and a simulated detector that misses joints at the configured rate.
final class SyntheticThrowDatasetTests: XCTestCase {
    private let body18 = ["nose", "neck", "rightShoulder", "rightElbow", "rightWrist", "leftShoulder",
                          "leftElbow", "leftWrist", "rightHip", "rightKnee", "rightAnkle", "leftHip",
                          "leftKnee", "leftAnkle", "rightEye", "leftEye", "rightEar", "leftEar"]

    /// A configuration without detector noise, misses or dropped frames.
    private var cleanConfiguration: ThrowDatasetConfiguration {
        var configuration = ThrowDatasetConfiguration()
        configuration.keypointNoise = 0
        configuration.jointDropProbability = 0
        configuration.occludedJointDropProbability = 0
        configuration.frameDropProbability = 0
        return configuration
    }

    private func files(in directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            result[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return result
    }

    private func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init).filter { !$0.isEmpty }
    }

    // MARK: Determinism

    func testSameSeedWritesByteIdenticalFilesAndAnotherSeedDoesNot() throws {
        let root = try temporaryDirectory(self)
        let generator = ThrowDatasetGenerator()
        _ = try generator.generate(into: root.appendingPathComponent("a"), clips: 24, seed: 11)
        _ = try generator.generate(into: root.appendingPathComponent("b"), clips: 24, seed: 11)
        _ = try generator.generate(into: root.appendingPathComponent("c"), clips: 24, seed: 12)
        let a = try files(in: root.appendingPathComponent("a"))
        let b = try files(in: root.appendingPathComponent("b"))
        let c = try files(in: root.appendingPathComponent("c"))
        XCTAssertEqual(a.count, 25, "24 clips and one annotation file")
        XCTAssertEqual(a, b, "the same seed must give byte-identical files")
        XCTAssertNotEqual(a["annotations.csv"], c["annotations.csv"])
        let differing = a.keys.filter { a[$0] != c[$0] }.count
        XCTAssertGreaterThan(differing, 20, "another seed must give other clips")
    }

    // MARK: Formats

    func testClipFilesFollowTheFormatContract() throws {
        let directory = try temporaryDirectory(self)
        let summary = try ThrowDatasetGenerator().generate(into: directory, clips: 30, seed: 3)
        XCTAssertEqual(summary.clipFiles.count, 30)
        XCTAssertEqual(summary.jsonClipCount, 3, "10% of the clips are JSON")
        let expectedHeader = "time," + body18.map { "\($0)_x,\($0)_y,\($0)_confidence" }.joined(separator: ",")
        var emptyCellJoints = 0, zeroConfidenceJoints = 0, detectedJoints = 0, frames = 0
        for name in summary.clipFiles {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            var times: [Double] = []
            if name.hasSuffix(".json") {
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], name)
                XCTAssertEqual(object["frameRate"] as? Double, 30, name)
                XCTAssertEqual(object["joints"] as? [String], body18, name)
                let frameObjects = try XCTUnwrap(object["frames"] as? [[String: Any]], name)
                for frame in frameObjects {
                    times.append(try XCTUnwrap(frame["time"] as? Double, name))
                    let keypoints = try XCTUnwrap(frame["keypoints"] as? [Any], name)
                    XCTAssertEqual(keypoints.count, 18, name)
                    for keypoint in keypoints {
                        if keypoint is NSNull { continue }
                        let values = try XCTUnwrap(keypoint as? [Double], "\(name): \(keypoint)")
                        XCTAssertEqual(values.count, 3, name)
                        XCTAssertTrue(values[0] >= 0 && values[0] <= 1 && values[1] >= 0 && values[1] <= 1, name)
                        XCTAssertTrue(values[2] > 0 && values[2] <= 1, name)
                    }
                }
            } else {
                let rows = lines(data)
                XCTAssertEqual(rows.first, expectedHeader, name)
                for (lineIndex, row) in rows.dropFirst().enumerated() {
                    let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                    XCTAssertEqual(cells.count, 1 + 3 * 18, "\(name) line \(lineIndex + 2)")
                    guard cells.count == 55 else { continue }
                    times.append(try XCTUnwrap(Double(cells[0]), "\(name) line \(lineIndex + 2)"))
                    for j in 0..<18 {
                        let triple = cells[1 + 3 * j ... 3 + 3 * j]
                        if triple.allSatisfy(\.isEmpty) { emptyCellJoints += 1; continue }
                        let values = try triple.map { try XCTUnwrap(Double($0), "\(name) line \(lineIndex + 2)") }
                        if values[2] == 0 {
                            XCTAssertEqual(values, [0, 0, 0], "\(name) line \(lineIndex + 2)")
                            zeroConfidenceJoints += 1
                            continue
                        }
                        detectedJoints += 1
                        XCTAssertTrue((0...1).contains(values[0]) && (0...1).contains(values[1]),
                                      "\(name) line \(lineIndex + 2): \(values)")
                        XCTAssertTrue(values[2] > 0 && values[2] <= 1, "\(name) line \(lineIndex + 2)")
                    }
                }
            }
            frames += times.count
            XCTAssertGreaterThan(times.count, 90, "\(name): several seconds at 30 fps")
            XCTAssertEqual(times.first ?? -1, 0, accuracy: 1e-9, "\(name) starts at 0 unless frame 0 was dropped")
            for (previous, next) in zip(times, times.dropFirst()) {
                XCTAssertGreaterThan(next, previous, name)
                let frameIndex = next * 30
                XCTAssertEqual(frameIndex, frameIndex.rounded(), accuracy: 0.01, "\(name): times sit on the 30 fps grid")
            }
        }
        XCTAssertEqual(frames, summary.frameCount)
        XCTAssertGreaterThan(emptyCellJoints, 0, "some missed joints are empty cells")
        XCTAssertGreaterThan(zeroConfidenceJoints, 0, "some missed joints are zeros with confidence 0")
        XCTAssertGreaterThan(detectedJoints, 20 * (emptyCellJoints + zeroConfidenceJoints) / 10)
    }

    func testAnnotationsCoverEveryClipWithOneLabeledThrow() throws {
        let directory = try temporaryDirectory(self)
        let summary = try ThrowDatasetGenerator().generate(into: directory, clips: 40, seed: 5)
        XCTAssertEqual(summary.annotationFile.lastPathComponent, "annotations.csv")
        let rows = lines(try Data(contentsOf: summary.annotationFile))
        XCTAssertEqual(rows.first, "file,label,start,end")
        var segmentsByFile: [String: [(label: String, start: Double, end: Double)]] = [:]
        for row in rows.dropFirst() {
            let cells = row.split(separator: ",").map(String.init)
            XCTAssertEqual(cells.count, 4, row)
            guard cells.count == 4, let start = Double(cells[2]), let end = Double(cells[3]) else { continue }
            segmentsByFile[cells[0], default: []].append((cells[1], start, end))
        }
        XCTAssertEqual(Set(segmentsByFile.keys), Set(summary.clipFiles))
        var throwStarts: [Double] = []
        let plans = try ThrowDatasetGenerator().makePlans(clips: 40, seed: 5)
        for plan in plans {
            let segments = try XCTUnwrap(segmentsByFile[plan.fileName])
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent(plan.fileName).path))
            XCTAssertEqual(segments.first?.start ?? -1, 0, accuracy: 1e-9, plan.fileName)
            // The last segment ends with the clip's last frame interval (whole frames at 30 fps).
            let clipEnd = (plan.duration * 30 + 1e-6).rounded(.down) / 30
            XCTAssertEqual(segments.last?.end ?? -1, clipEnd, accuracy: 0.001, plan.fileName)
            for (a, b) in zip(segments, segments.dropFirst()) {
                XCTAssertEqual(a.end, b.start, accuracy: 1e-9, "\(plan.fileName): segments are contiguous")
                XCTAssertNotEqual(a.label, b.label, "\(plan.fileName): neighbouring background is merged")
            }
            let throwSegments = segments.filter { $0.label != "none" }
            if let kind = plan.throwKind {
                XCTAssertEqual(throwSegments.count, 1, plan.fileName)
                XCTAssertEqual(throwSegments.first?.label, kind.rawValue, plan.fileName)
                if let segment = throwSegments.first {
                    XCTAssertGreaterThanOrEqual(segment.start, 0.3 - 1e-3, plan.fileName)
                    XCTAssertLessThanOrEqual(segment.end, plan.duration - 0.3 + 1e-3, plan.fileName)
                    XCTAssertTrue((0.8...2.5).contains(segment.end - segment.start), "\(plan.fileName): throw length")
                    throwStarts.append(segment.start)
                }
            } else {
                XCTAssertEqual(segments.map(\.label), ["none"], plan.fileName)
            }
        }
        // Throws start at different moments of their clips.
        let mean = throwStarts.reduce(0, +) / Double(throwStarts.count)
        let spread = (throwStarts.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(throwStarts.count)).squareRoot()
        XCTAssertGreaterThan(spread, 0.4, "throw start times vary: \(throwStarts)")
    }

    func testJSONAnnotationFormat() throws {
        let directory = try temporaryDirectory(self)
        var configuration = ThrowDatasetConfiguration()
        configuration.annotationFormat = .json
        let summary = try ThrowDatasetGenerator(configuration: configuration).generate(into: directory, clips: 8, seed: 2)
        XCTAssertEqual(summary.annotationFile.lastPathComponent, "annotations.json")
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: summary.annotationFile))
            as? [[String: Any]])
        XCTAssertEqual(entries.count, summary.segmentsPerLabel.values.reduce(0, +))
        for entry in entries {
            XCTAssertEqual(Set(entry.keys), ["file", "label", "start", "end"])
            XCTAssertTrue(summary.clipFiles.contains(entry["file"] as? String ?? ""))
        }
    }

    // MARK: Balance and splits

    func testClassesAreBalancedAsConfigured() throws {
        let summary = try ThrowDatasetGenerator().generate(into: try temporaryDirectory(self), clips: 40, seed: 8)
        XCTAssertEqual(summary.clipsPerClass, ["none": 10, "overhand": 10, "underhand": 10, "underleg": 10])
        XCTAssertEqual(summary.segmentsPerLabel["overhand"], 10)

        var configuration = ThrowDatasetConfiguration()
        configuration.throwKinds = [.overhand, .underleg]
        configuration.backgroundClipShare = 0.5
        configuration.backgroundLabel = "other"
        let clips = try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: 30, seed: 8)
        var counts: [String: Int] = [:]
        for clip in clips { counts[clip.label, default: 0] += 1 }
        XCTAssertEqual(counts["other"], 15)
        XCTAssertEqual(counts["overhand"], 8)
        XCTAssertEqual(counts["underleg"], 7)
        XCTAssertNil(counts["underhand"])
        XCTAssertTrue(clips.allSatisfy { $0.segments.allSatisfy { ["other", "overhand", "underleg"].contains($0.label) } })
        // Background-only clips show more than standing still.
        for clip in clips where clip.label == "other" {
            XCTAssertTrue(clip.actions.contains { $0.action != .background(.standing) }, clip.plan.name)
        }
    }

    func testHeldOutSplitUsesOtherPeople() throws {
        let root = try temporaryDirectory(self)
        let (training, test) = try ThrowDatasetGenerator().generateSplits(into: root, trainingClips: 16, testClips: 8, seed: 21)
        XCTAssertEqual(training.directory.lastPathComponent, "train")
        XCTAssertEqual(test.directory.lastPathComponent, "test")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("train/annotations.csv").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("test/annotations.csv").path))
        XCTAssertEqual(training.clipFiles.count, 16)
        XCTAssertEqual(test.clipFiles.count, 8)
        let trainingHeights = Set(training.subjects.map(\.height))
        XCTAssertTrue(test.subjects.allSatisfy { !trainingHeights.contains($0.height) }, "test subjects are new people")
        XCTAssertEqual(training.subjects.filter(\.isLeftHanded).count, 3, "a quarter of 12 subjects")
    }

    // MARK: Kinematics

    /// Image positions with x in units of the image height, so distances are isotropic.
    private func squarePositions(_ clip: SyntheticClip) -> [[SIMD2<Float>]] {
        let aspect = clip.plan.camera.aspectRatio
        return clip.truePositions.map { $0.map { SIMD2($0.x * aspect, $0.y) } }
    }

    private func distance(_ a: SIMD2<Float>, _ b: SIMD2<Float>) -> Float { ((a - b) * (a - b)).sum().squareRoot() }

    /// The median neck-to-mid-hip length of a clip in the image.
    private func torsoLength(_ positions: [[SIMD2<Float>]]) -> Float {
        let lengths = positions.map { distance($0[1], ($0[8] + $0[11]) / 2) }.sorted()
        return lengths[lengths.count / 2]
    }

    func testThrowsDifferKinematicallyAsIntended() throws {
        let clips = try ThrowDatasetGenerator(configuration: cleanConfiguration).makeClips(clips: 120, seed: 42)
        var seen: [String: Int] = [:]
        for clip in clips {
            guard let segment = clip.segments.first(where: { $0.label != "none" }) else { continue }
            seen[segment.label, default: 0] += 1
            let positions = squarePositions(clip)
            let torso = torsoLength(positions)
            let (shoulder, wrist) = clip.plan.subject.isLeftHanded ? (5, 7) : (2, 4)
            var wristAboveShoulder: Float = -.infinity   // image y points down
            var kneeAboveHip: Float = -.infinity
            var wristBelowRaisedKnee: Float = -.infinity
            for (k, p) in positions.enumerated() {
                let time = Double(k) / clip.frameRate
                guard time >= segment.start, time <= segment.end else { continue }
                wristAboveShoulder = max(wristAboveShoulder, (p[shoulder].y - p[wrist].y) / torso)
                for (hip, knee) in [(8, 9), (11, 12)] {
                    let lift = (p[hip].y - p[knee].y) / torso
                    kneeAboveHip = max(kneeAboveHip, lift)
                    if lift > -0.35 { wristBelowRaisedKnee = max(wristBelowRaisedKnee, (p[wrist].y - p[knee].y) / torso) }
                }
            }
            let name = "\(clip.plan.name) \(segment.label)"
            switch segment.label {
            case "overhand":
                XCTAssertGreaterThan(wristAboveShoulder, 0.5, "\(name): released above the shoulder")
                XCTAssertLessThan(kneeAboveHip, -0.4, "\(name): no knee raise")
            case "underhand":
                XCTAssertLessThan(wristAboveShoulder, 0.2, "\(name): the hand stays below the shoulder")
                XCTAssertLessThan(kneeAboveHip, -0.4, "\(name): no knee raise")
            case "underleg":
                XCTAssertLessThan(wristAboveShoulder, 0.35, "\(name): the hand stays low")
                XCTAssertGreaterThan(kneeAboveHip, -0.3, "\(name): a knee rises to about hip height")
                XCTAssertGreaterThan(wristBelowRaisedKnee, 0.05, "\(name): the hand passes below the raised knee")
            default:
                XCTFail("unexpected label \(segment.label)")
            }
        }
        XCTAssertEqual(seen, ["overhand": 30, "underhand": 30, "underleg": 30])
    }

    func testUnderhandSwingsBehindTheBodyAndForward() throws {
        // The pendulum: the wrist goes behind the hip, then ahead of it, along the throw direction.
        var configuration = cleanConfiguration
        configuration.throwKinds = [.underhand]
        configuration.backgroundClipShare = 0
        configuration.maximumViewYaw = 20
        for clip in try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: 12, seed: 4) {
            let segment = try XCTUnwrap(clip.segments.first { $0.label == "underhand" })
            let positions = squarePositions(clip)
            let torso = torsoLength(positions)
            // Azimuth near 0 puts the throwing direction to the right of the image, near π to the left.
            let forward: Float = cos(clip.plan.camera.azimuth) > 0 ? 1 : -1
            let wrist = clip.plan.subject.isLeftHanded ? 7 : 4
            var offsets: [Float] = []
            for (k, p) in positions.enumerated() where Double(k) / clip.frameRate >= segment.start
                && Double(k) / clip.frameRate <= segment.end {
                offsets.append(forward * (p[wrist].x - (p[8].x + p[11].x) / 2) / torso)
            }
            let back = try XCTUnwrap(offsets.min()), front = try XCTUnwrap(offsets.max())
            XCTAssertLessThan(back, -0.2, "\(clip.plan.name): backswing behind the hip")
            XCTAssertGreaterThan(front, 0.6, "\(clip.plan.name): forward swing ahead of the hip")
            let backIndex = try XCTUnwrap(offsets.firstIndex(of: back))
            let frontIndex = try XCTUnwrap(offsets.firstIndex(of: front))
            XCTAssertLessThan(backIndex, frontIndex, "\(clip.plan.name): back first, then forward")
        }
    }

    func testMotionIsContinuous() throws {
        // No joint teleports between frames: action changes cross-fade, feet stay planted.
        let clips = try ThrowDatasetGenerator(configuration: cleanConfiguration).makeClips(clips: 60, seed: 9)
        var fastest: Float = 0, fastestOutsideWrists: Float = 0
        for clip in clips {
            let positions = squarePositions(clip)
            let torso = torsoLength(positions)
            for k in 1..<positions.count {
                for j in 0..<18 {
                    let step = distance(positions[k][j], positions[k - 1][j]) / torso
                    fastest = max(fastest, step)
                    if j != 4 && j != 7 { fastestOutsideWrists = max(fastestOutsideWrists, step) }
                }
            }
        }
        // A throwing hand moves up to ~10 m/s (about 0.7 torso lengths per frame); the rest far less.
        XCTAssertLessThan(fastest, 0.9)
        XCTAssertLessThan(fastestOutsideWrists, 0.5)
    }

    func testLeftHandedClipIsTheMirrorImageOfTheRightHandedOne() throws {
        let generator = ThrowDatasetGenerator(configuration: cleanConfiguration)
        let plans = try generator.makePlans(clips: 12, seed: 31)
        for var plan in plans where plan.throwKind != nil {
            plan.subject.isLeftHanded = false
            var mirroredPlan = plan
            mirroredPlan.subject.isLeftHanded = true
            mirroredPlan.camera = plan.camera.mirrored
            let right = generator.render(plan), left = generator.render(mirroredPlan)
            XCTAssertEqual(right.truePositions.count, left.truePositions.count)
            let partner = body18.map { name -> Int in
                let swapped = name.hasPrefix("left") ? "right" + name.dropFirst(4)
                    : name.hasPrefix("right") ? "left" + name.dropFirst(5) : name
                return body18.firstIndex(of: swapped)!
            }
            var worst: Float = 0, unswapped: Float = 0
            for (r, l) in zip(right.truePositions, left.truePositions) {
                for j in 0..<18 {
                    let mirrored = SIMD2(1 - r[j].x, r[j].y)
                    worst = max(worst, distance(l[partner[j]], mirrored))
                    unswapped = max(unswapped, distance(l[j], mirrored))
                }
            }
            XCTAssertLessThan(worst, 1e-4, "\(plan.name): left-handed = mirror image with left/right swapped")
            XCTAssertGreaterThan(unswapped, 0.01, "\(plan.name): the joint names really are swapped")
            // The throwing hand is now the left one.
            if plan.throwKind == .overhand {
                let segment = try XCTUnwrap(left.segments.first { $0.label == "overhand" })
                let frames = left.truePositions.enumerated().filter {
                    Double($0.offset) / left.frameRate >= segment.start && Double($0.offset) / left.frameRate <= segment.end
                }.map(\.element)
                XCTAssertTrue(frames.contains { $0[7].y < $0[5].y }, "\(plan.name): the left wrist rises above the left shoulder")
            }
        }
    }

    // MARK: The simulated detector

    func testMissedJointsAndDroppedFramesAppearAtTheConfiguredRates() throws {
        var configuration = cleanConfiguration
        configuration.jointDropProbability = 0.1
        configuration.frameDropProbability = 0.05
        let clips = try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: 24, seed: 13)
        var missed = 0, joints = 0, written = 0, videoFrames = 0
        for clip in clips {
            videoFrames += clip.truePositions.count
            written += clip.frames.count
            for frame in clip.frames {
                joints += frame.keypoints.count
                missed += frame.keypoints.filter { $0 == nil }.count
            }
        }
        let missRate = Double(missed) / Double(joints)
        let frameRate = 1 - Double(written) / Double(videoFrames)
        XCTAssertEqual(missRate, 0.1, accuracy: 0.01, "\(missed) of \(joints) joints missed")
        XCTAssertEqual(frameRate, 0.05, accuracy: 0.015, "\(videoFrames - written) of \(videoFrames) frames dropped")

        // Without noise, a detected keypoint is exactly where the joint is.
        let clip = clips[0]
        for frame in clip.frames.prefix(20) {
            let k = Int((frame.time * clip.frameRate).rounded())
            for (j, keypoint) in frame.keypoints.enumerated() {
                guard let keypoint else { continue }
                XCTAssertEqual(keypoint.x, clip.truePositions[k][j].x, accuracy: 1e-6)
                XCTAssertEqual(keypoint.y, clip.truePositions[k][j].y, accuracy: 1e-6)
            }
        }
    }

    func testHiddenJointsAreMissedMoreOften() throws {
        var configuration = cleanConfiguration
        configuration.occludedJointDropProbability = 0.6
        configuration.maximumViewYaw = 10          // side views: one ear faces away
        let clips = try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: 12, seed: 17)
        var missedPerJoint = [Int](repeating: 0, count: 18), frames = 0
        for clip in clips {
            for frame in clip.frames {
                frames += 1
                for (j, keypoint) in frame.keypoints.enumerated() where keypoint == nil { missedPerJoint[j] += 1 }
            }
        }
        XCTAssertEqual(missedPerJoint[1], 0, "the neck is never hidden")
        let ears = Double(missedPerJoint[16] + missedPerJoint[17]) / Double(2 * frames)
        XCTAssertGreaterThan(ears, 0.15, "in side views the far ear is usually missed")
    }

    func testNoiseScalesWithTheConfiguredLevel() throws {
        var configuration = ThrowDatasetConfiguration()
        configuration.jointDropProbability = 0
        configuration.occludedJointDropProbability = 0
        configuration.keypointNoise = 0.01
        let clips = try ThrowDatasetGenerator(configuration: configuration).makeClips(clips: 6, seed: 19)
        var ratios: [Float] = []
        for clip in clips {
            let positions = squarePositions(clip)
            // Subject height in the image ≈ torso length / 0.295.
            let height = torsoLength(positions) / 0.295
            var squared: Float = 0, count = 0
            for frame in clip.frames {
                let k = Int((frame.time * clip.frameRate).rounded())
                for (j, keypoint) in frame.keypoints.enumerated() {
                    guard let keypoint, keypoint.y > 0.001, keypoint.y < 0.999 else { continue }
                    let error = keypoint.y - clip.truePositions[k][j].y
                    squared += error * error
                    count += 1
                }
            }
            ratios.append((squared / Float(count)).squareRoot() / height)
        }
        for ratio in ratios {
            XCTAssertEqual(ratio, 0.01, accuracy: 0.0025, "vertical noise ≈ 1% of body height")
        }
    }

    func testMissedJointsAreWrittenInBothForms() throws {
        var configuration = cleanConfiguration
        configuration.jointDropProbability = 0.2
        let generator = ThrowDatasetGenerator(configuration: configuration)
        var plan = try XCTUnwrap(generator.makePlans(clips: 1, seed: 23).first)
        plan.writesJSON = false
        plan.writesMissingJointsAsEmptyCells = true
        let empty = String(decoding: generator.render(plan).csvText(), as: UTF8.self)
        plan.writesMissingJointsAsEmptyCells = false
        let zeros = String(decoding: generator.render(plan).csvText(), as: UTF8.self)
        XCTAssertTrue(empty.contains(",,,"))
        XCTAssertFalse(zeros.contains(",,"))
        XCTAssertTrue(zeros.contains(",0.0000,0.0000,0.000"))
        XCTAssertEqual(empty.split(separator: "\n").count, zeros.split(separator: "\n").count)
        plan.writesJSON = true
        let json = generator.render(plan).fileText()
        XCTAssertTrue(String(decoding: json, as: UTF8.self).contains("null"))
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json)))
    }

    // MARK: Errors

    func testInvalidConfigurationListsEveryProblem() {
        var configuration = ThrowDatasetConfiguration()
        configuration.frameRate = -1
        configuration.backgroundClipShare = 2
        configuration.subjectCount = 0
        configuration.backgroundLabel = "over,hand"
        XCTAssertThrowsError(try ThrowDatasetGenerator(configuration: configuration).makePlans(clips: 0, seed: 1)) { error in
            guard case SyntheticDataError.invalidConfiguration(let problems) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(problems.count, 5, problems.joined(separator: "\n"))
            let message = error.localizedDescription
            for word in ["frameRate", "backgroundClipShare", "subjectCount", "backgroundLabel", "clips"] {
                XCTAssertTrue(message.contains(word), "\(word) in: \(message)")
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
}
