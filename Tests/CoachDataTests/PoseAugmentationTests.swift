import CoachData
import CoachRandom
import Foundation
import XCTest

/// Each augmentation changes windows as its documentation says, and only as it says.
final class PoseAugmentationTests: XCTestCase {
    /// A body18 window of a person whose right wrist is raised, with a few undetected joints.
    func bodyWindow(frames: Int = 6) -> PoseWindow {
        var window = PoseWindow(frameCount: frames, jointCount: 18, frameRate: 30)
        var generator = SeededGenerator(seed: 21)
        for t in 0..<frames {
            for j in 0..<18 {
                let x = 0.3 + 0.02 * Float(j) + 0.01 * Float(t), y = 0.2 + 0.03 * Float(j)
                window[t, j] = Keypoint(x: x + 0.005 * generator.nextNormal(), y: y, confidence: 0.5 + 0.02 * Float(j))
            }
        }
        window[2, 7] = nil  // leftWrist missing in frame 2
        window[4, 14] = nil  // rightEye missing in frame 4
        window.chirality = .left
        return window
    }

    func augmenter(_ augmentations: Set<PoseAugmentation>) -> PoseAugmenter {
        PoseAugmenter(augmentations: augmentations, jointSet: .body18)
    }

    func testNamesParseWithAliases() {
        XCTAssertEqual(PoseAugmentation(name: "horizontal-flip"), .horizontalFlip)
        XCTAssertEqual(PoseAugmentation(name: "Keypoint_Jitter"), .jitter)
        XCTAssertEqual(PoseAugmentation(name: "interpolate-frames"), .interpolateFrames)
        XCTAssertEqual(PoseAugmentation(name: "time-warp"), .interpolateFrames)
        XCTAssertEqual(PoseAugmentation(name: "drop-frames"), .dropFrames)
        let parsed = PoseAugmentation.parseList("flip, rotate,bogus,,scale,warp")
        XCTAssertEqual(parsed.augmentations, [.horizontalFlip, .rotate, .scale])
        XCTAssertEqual(parsed.unknown, ["bogus", "warp"])
        XCTAssertEqual(PoseAugmentation.parseList("all").augmentations, Set(PoseAugmentation.allCases))
        XCTAssertEqual(PoseAugmentation.parseList("none").augmentations, [])
        // The action classifier's default keeps every label: no mirroring (a left-handed signal
        // would become a right-handed one), no pan (each window's centring undoes it).
        XCTAssertEqual(PoseAugmentation.parseList("default").augmentations,
                       [.interpolateFrames, .dropFrames, .jitter, .scale, .rotate, .occlude])
        XCTAssertEqual(PoseAugmentation(name: "hide-joints"), .occlude)
        XCTAssertEqual(PoseAugmentation.parseList("default,flip").augmentations,
                       PoseAugmentation.labelSafe.union([.horizontalFlip]))
    }

    func testHorizontalFlipSwapsLeftAndRightJointsAndMirrorsX() {
        let original = bodyWindow()
        var flipped = original
        let axis = original.centroid.x
        augmenter([.horizontalFlip]).flipHorizontally(&flipped, about: axis)
        let body = JointSet.body18
        let pairs = [("leftWrist", "rightWrist"), ("leftShoulder", "rightShoulder"), ("leftEar", "rightEar"),
                     ("leftAnkle", "rightAnkle")]
        for t in 0..<original.frameCount {
            for (left, right) in pairs {
                let l = body.index(of: left)!, r = body.index(of: right)!
                // The new left joint is the old right one, mirrored: same y and confidence, x reflected.
                XCTAssertEqual(flipped[t, l]?.x, original[t, r].map { 2 * axis - $0.x }, "\(left) at frame \(t)")
                XCTAssertEqual(flipped[t, l]?.y, original[t, r]?.y)
                XCTAssertEqual(flipped[t, l]?.confidence, original[t, r]?.confidence)
                XCTAssertEqual(flipped[t, r]?.x, original[t, l].map { 2 * axis - $0.x }, "\(right) at frame \(t)")
            }
            let nose = body.index(of: "nose")!, neck = body.index(of: "neck")!
            XCTAssertEqual(flipped[t, nose]!.x, 2 * axis - original[t, nose]!.x, accuracy: 1e-6, "unpaired joints stay, mirrored")
            XCTAssertEqual(flipped[t, neck]!.y, original[t, neck]!.y)
        }
        XCTAssertNil(flipped[2, body.index(of: "rightWrist")!], "the missing left wrist became the missing right wrist")
        XCTAssertNotNil(flipped[2, body.index(of: "leftWrist")!])
        XCTAssertNil(flipped[4, body.index(of: "leftEye")!])
        XCTAssertEqual(flipped.chirality, .right, "chirality flips with the image")
        var twice = flipped
        augmenter([.horizontalFlip]).flipHorizontally(&twice, about: axis)
        for i in twice.x.indices { XCTAssertEqual(twice.x[i], original.x[i], accuracy: 1e-6) }
        XCTAssertEqual(twice.confidence, original.confidence)
        XCTAssertEqual(twice.chirality, .left)

        // Through `apply`, a flip happens about half the time (probability 0.5) and always with probability 1.
        var always = augmenter([.horizontalFlip])
        always.flipProbability = 1
        var generator = SeededGenerator(seed: 1)
        var applied = original
        always.apply(to: &applied, generator: &generator)
        XCTAssertEqual(applied.confidence, flipped.confidence)
        var flips = 0
        for _ in 0..<400 {
            var w = original
            augmenter([.horizontalFlip]).apply(to: &w, generator: &generator)
            if w.chirality == .right { flips += 1 }
        }
        XCTAssertTrue((160...240).contains(flips), "\(flips) flips in 400")
    }

    func testRotatePreservesDistancesFromTheCentreAndTurnsEveryPointByOneAngle() {
        let original = bodyWindow()
        let centre = original.centroid
        var generator = SeededGenerator(seed: 5)
        var angles: [Float] = []
        for _ in 0..<20 {
            var rotated = original
            augmenter([.rotate]).apply(to: &rotated, generator: &generator)
            var angle: Float? = nil
            for i in original.confidence.indices where original.confidence[i] > 0 {
                let dx = original.x[i] - centre.x, dy = original.y[i] - centre.y
                let rx = rotated.x[i] - centre.x, ry = rotated.y[i] - centre.y
                XCTAssertEqual((dx * dx + dy * dy).squareRoot(), (rx * rx + ry * ry).squareRoot(), accuracy: 1e-5)
                let a = atan2(dx * ry - dy * rx, dx * rx + dy * ry)
                if let angle { XCTAssertEqual(a, angle, accuracy: 1e-3) } else { angle = a }
            }
            angles.append(angle ?? 0)
            XCTAssertEqual(rotated.confidence, original.confidence)
        }
        XCTAssertTrue(angles.allSatisfy { abs($0) <= 15 * .pi / 180 + 1e-4 }, "within ±15°: \(angles)")
        XCTAssertGreaterThan(angles.map(abs).max()!, 10 * .pi / 180, "uses the range")
    }

    func testRotateTurnsPosesWithDepthRigidlyInThreeDimensions() {
        var original = bodyWindow()
        original.z = original.x.indices.map { Float($0 % 7) * 0.04 - 0.1 }
        let centre = original.centroid
        var generator = SeededGenerator(seed: 9)
        var largestDepthChange: Float = 0
        for _ in 0..<20 {
            var rotated = original
            augmenter([.rotate]).apply(to: &rotated, generator: &generator)
            XCTAssertEqual(rotated.confidence, original.confidence)
            for t in 0..<original.frameCount {
                let detected = (0..<18).map { t * 18 + $0 }.filter { original.confidence[$0] > 0 }
                func distance(_ w: PoseWindow, _ a: Int, _ b: Int) -> Float {
                    let dx = w.x[a] - w.x[b], dy = w.y[a] - w.y[b], dz = w.z![a] - w.z![b]
                    return (dx * dx + dy * dy + dz * dz).squareRoot()
                }
                for a in detected { for b in detected where b > a {
                    XCTAssertEqual(distance(rotated, a, b), distance(original, a, b), accuracy: 1e-5, "rigid")
                } }
            }
            for i in original.confidence.indices where original.confidence[i] > 0 {
                let before = SIMD3(original.x[i] - centre.x, original.y[i] - centre.y, original.z![i] - centre.z)
                let after = SIMD3(rotated.x[i] - centre.x, rotated.y[i] - centre.y, rotated.z![i] - centre.z)
                let cosine = (before * after).sum() / ((before * before).sum().squareRoot() * (after * after).sum().squareRoot())
                XCTAssertGreaterThan(cosine, cos(Float(45) * .pi / 180) - 1e-4, "three turns of at most 15° each")
                largestDepthChange = max(largestDepthChange, abs(rotated.z![i] - original.z![i]))
            }
        }
        XCTAssertGreaterThan(largestDepthChange, 0.01, "depth turns too, not only the image plane")
    }

    func testScaleStretchesEachAxisByOneFactorAboutTheCentre() {
        let original = bodyWindow()
        let centre = original.centroid
        var generator = SeededGenerator(seed: 6)
        var scaled = original
        augmenter([.scale]).apply(to: &scaled, generator: &generator)
        var factorsX: [Float] = [], factorsY: [Float] = []
        for i in original.confidence.indices where original.confidence[i] > 0 {
            if abs(original.x[i] - centre.x) > 0.02 { factorsX.append((scaled.x[i] - centre.x) / (original.x[i] - centre.x)) }
            if abs(original.y[i] - centre.y) > 0.02 { factorsY.append((scaled.y[i] - centre.y) / (original.y[i] - centre.y)) }
        }
        for f in factorsX { XCTAssertEqual(f, factorsX[0], accuracy: 1e-3) }
        for f in factorsY { XCTAssertEqual(f, factorsY[0], accuracy: 1e-3) }
        XCTAssertTrue((0.85...1.15).contains(factorsX[0]) && (0.85...1.15).contains(factorsY[0]))
        XCTAssertNotEqual(factorsX[0], factorsY[0], "the axes are scaled independently")
    }

    func testTranslateShiftsEachFrameByAnOffsetDriftingLinearlyAcrossTheWindow() {
        let original = bodyWindow(frames: 9)
        var generator = SeededGenerator(seed: 8)
        var moved = original
        augmenter([.translate]).apply(to: &moved, generator: &generator)
        var shifts: [Float] = []
        for t in 0..<9 {
            let dx = moved.x[t * 18] - original.x[t * 18]
            for j in 0..<18 where original.confidence[t * 18 + j] > 0 {
                XCTAssertEqual(moved.x[t * 18 + j] - original.x[t * 18 + j], dx, accuracy: 1e-5, "one shift per frame")
            }
            shifts.append(dx)
        }
        let step = shifts[1] - shifts[0]
        for t in 1..<9 { XCTAssertEqual(shifts[t] - shifts[t - 1], step, accuracy: 1e-5, "linear drift") }
        let size = original.spread
        XCTAssertLessThanOrEqual(abs(shifts[4]), 0.1 * size + 1e-5, "the mid-window shift is at most 10% of the pose's size")
        XCTAssertNotEqual(shifts[0], 0)
    }

    func testJitterAddsNoiseOfTheDocumentedSizeToDetectedKeypointsOnly() {
        let original = bodyWindow(frames: 40)
        var generator = SeededGenerator(seed: 9)
        var noisy = original
        augmenter([.jitter]).apply(to: &noisy, generator: &generator)
        var squares: Double = 0, count = 0.0
        for i in original.confidence.indices {
            if original.confidence[i] > 0 {
                let d = Double(noisy.x[i] - original.x[i])
                squares += d * d
                count += 1
            } else {
                XCTAssertEqual(noisy.x[i], 0)
                XCTAssertEqual(noisy.confidence[i], 0, "undetected joints stay undetected")
            }
        }
        let sd = (squares / count).squareRoot()
        XCTAssertEqual(sd, 0.02 * Double(original.spread), accuracy: 0.003 * Double(original.spread))
    }

    func testInterpolateFramesPlaysTheMotionAtOneRandomSpeed() {
        let sampler = PoseWindowSampler(windowLength: 12, frameRate: 30)
        let sequence = tracedSequence(frames: 60)
        var generator = SeededGenerator(seed: 10)
        var speeds: [Float] = []
        for _ in 0..<30 {
            let window = sampler.randomWindow(from: sequence, augmenter: augmenter([.interpolateFrames]), generator: &generator)
            // x = frame index in the source, so steps between window frames are the speed.
            let step = window[1, 0]!.x - window[0, 0]!.x
            for t in 1..<12 { XCTAssertEqual(window[t, 0]!.x - window[t - 1, 0]!.x, step, accuracy: 1e-3) }
            speeds.append(step)
        }
        XCTAssertTrue(speeds.allSatisfy { (0.8 - 1e-4)...(1.25 + 1e-4) ~= $0 }, "\(speeds)")
        XCTAssertGreaterThan(Set(speeds.map { ($0 * 100).rounded() }).count, 10, "speeds vary")
    }

    func testDropFramesSkipsWholeFrames() {
        let sampler = PoseWindowSampler(windowLength: 20, frameRate: 30)
        let sequence = tracedSequence(frames: 200)
        var generator = SeededGenerator(seed: 11)
        var skipped = 0, total = 0
        for _ in 0..<50 {
            let window = sampler.randomWindow(from: sequence, augmenter: augmenter([.dropFrames]), generator: &generator)
            for t in 1..<20 {
                let step = window[t, 0]!.x - window[t - 1, 0]!.x
                XCTAssertEqual(step, step.rounded(), accuracy: 1e-4, "only whole frames are skipped")
                XCTAssertTrue((1...4).contains(Int(step.rounded())), "at most 3 frames in a row")
                skipped += Int(step.rounded()) - 1
                total += 1
            }
        }
        let rate = Double(skipped) / Double(total + skipped)
        XCTAssertTrue((0.06...0.14).contains(rate), "about 10% of frames dropped, got \(rate)")
    }

    /// `proportions` scales every bone by one factor for the whole window, the same on both sides,
    /// keeps the skeleton's centre where it was and its undetected joints undetected; a custom
    /// joint set, whose bones are unknown, is left alone.
    func testProportionsScaleEachBoneByOneFactorForTheWholeWindow() {
        let body = JointSet.body18
        var original = bodyWindow()
        original.z = original.x.indices.map { Float($0 % 5) * 0.03 }
        var generator = SeededGenerator(seed: 4)
        let parents = body.skeletonParents
        XCTAssertNil(parents[body.index(of: "neck")!], "the neck is the centre")
        XCTAssertEqual(parents[body.index(of: "leftWrist")!], body.index(of: "leftElbow"))
        XCTAssertEqual(parents[body.index(of: "rightHip")!], body.index(of: "rightShoulder"))
        XCTAssertEqual(parents.compactMap { $0 }.count, 17, "every other joint hangs from one")
        var seenFactors: [Float] = []
        for _ in 0..<10 {
            var changed = original
            augmenter([.proportions]).apply(to: &changed, generator: &generator)
            XCTAssertEqual(changed.confidence, original.confidence)
            var factors = [Float?](repeating: nil, count: 18)
            for t in 0..<original.frameCount {
                let neck = t * 18 + body.index(of: "neck")!
                XCTAssertEqual(changed.x[neck], original.x[neck])
                XCTAssertEqual(changed.z![neck], original.z![neck])
                for joint in 0..<18 {
                    guard let parent = parents[joint] else { continue }
                    let i = t * 18 + joint, p = t * 18 + parent
                    guard original.confidence[i] > 0, original.confidence[p] > 0 else { continue }
                    // The new bone is the old one times a factor, in all three coordinates.
                    let old = SIMD3(original.x[i] - original.x[p], original.y[i] - original.y[p], original.z![i] - original.z![p])
                    let new = SIMD3(changed.x[i] - changed.x[p], changed.y[i] - changed.y[p], changed.z![i] - changed.z![p])
                    let factor = (new * old).sum() / (old * old).sum()
                    XCTAssertEqual(new.x, factor * old.x, accuracy: 1e-5)
                    XCTAssertEqual(new.y, factor * old.y, accuracy: 1e-5)
                    XCTAssertEqual(new.z, factor * old.z, accuracy: 1e-5)
                    XCTAssertTrue((0.9 - 1e-4...1.1 + 1e-4).contains(factor), "\(body.names[joint]): \(factor)")
                    if let earlier = factors[joint] {
                        XCTAssertEqual(factor, earlier, accuracy: 1e-4, "one factor for the whole window")
                    }
                    factors[joint] = factor
                }
            }
            for (left, right) in [("leftElbow", "rightElbow"), ("leftKnee", "rightKnee"), ("leftEar", "rightEar")] {
                XCTAssertEqual(factors[body.index(of: left)!]!, factors[body.index(of: right)!]!, accuracy: 1e-4,
                               "\(left) and \(right): a person's two sides match")
            }
            seenFactors += factors.compactMap { $0 }
        }
        XCTAssertGreaterThan(seenFactors.max()! - seenFactors.min()!, 0.15, "uses the range")

        // Joints without a known skeleton are left alone, and so is the generator's state after it.
        let custom = JointSet(names: (0..<18).map { "marker\($0)" })!
        XCTAssertTrue(custom.skeletonParents.allSatisfy { $0 == nil })
        var window = original
        var untouched = generator
        PoseAugmenter(augmentations: [.proportions], jointSet: custom).apply(to: &window, generator: &generator)
        XCTAssertEqual(window, original)
        XCTAssertEqual(generator.next(), untouched.next())
    }

    func testAugmentationsAreSeededAndLeaveWindowsAloneWhenOff() {
        let sampler = PoseWindowSampler(windowLength: 6, frameRate: 30)
        let sequence = tracedSequence(frames: 30, joints: 18)
        var a = SeededGenerator(seed: 2), b = SeededGenerator(seed: 2)
        let all = PoseAugmenter(augmentations: Set(PoseAugmentation.allCases), jointSet: JointSet(names: sequence.jointSet.names)!)
        XCTAssertEqual(sampler.randomWindow(from: sequence, augmenter: all, generator: &a),
                       sampler.randomWindow(from: sequence, augmenter: all, generator: &b))
        var c = SeededGenerator(seed: 2), d = SeededGenerator(seed: 2)
        let none = PoseAugmenter(augmentations: [], jointSet: sequence.jointSet)
        XCTAssertEqual(sampler.randomWindow(from: sequence, augmenter: none, generator: &c),
                       sampler.randomWindow(from: sequence, augmenter: nil, generator: &d))
    }

    /// `occlude` only hides keypoints — whole-window joints, stretches and single frames, at about
    /// the documented rates — and never moves a keypoint it keeps or invents one.
    func testOcclusionHidesJointsAndTouchesNothingElse() {
        var occluding = augmenter([.occlude])
        occluding.occlusionProbability = 1
        let original = bodyWindow(frames: 45)
        var generator = SeededGenerator(seed: 5)
        var hidden = 0, detected = 0, wholeWindow = 0, partly = 0, windows = 0
        for _ in 0..<200 {
            var window = original
            occluding.apply(to: &window, generator: &generator)
            windows += 1
            for j in 0..<18 {
                var lost = 0, had = 0, run = 0, longest = 0
                for t in 0..<45 where original.isDetected(frame: t, joint: j) {
                    had += 1
                    if let kept = window[t, j] {
                        XCTAssertEqual(kept, original[t, j], "a kept keypoint is unchanged")
                        run = 0
                    } else {
                        lost += 1
                        run += 1
                        longest = max(longest, run)
                    }
                }
                for t in 0..<45 where !original.isDetected(frame: t, joint: j) { XCTAssertNil(window[t, j]) }
                hidden += lost
                detected += had
                if lost == had { wholeWindow += 1 } else if longest >= 4 { partly += 1 }
            }
            XCTAssertGreaterThan(window.detectedCount, 0)
        }
        let joints = Double(windows * 18)
        XCTAssertEqual(Double(wholeWindow) / joints, 0.05, accuracy: 0.02, "about 5 % of joints hidden in every frame")
        XCTAssertEqual(Double(partly) / joints, 0.15, accuracy: 0.04, "about 15 % hidden for a stretch")
        // 5 % whole, 15 % × 30 % on average for stretches, 3 % single frames: about 12 % in all.
        XCTAssertEqual(Double(hidden) / Double(detected), 0.12, accuracy: 0.025)

        // Off, or a probability of 0, leaves the window and the generator alone.
        occluding.occlusionProbability = 0
        var a = SeededGenerator(seed: 9), b = SeededGenerator(seed: 9)
        var window = original
        occluding.apply(to: &window, generator: &a)
        XCTAssertEqual(window, original)
        XCTAssertEqual(a.next(), b.next())
        // A single joint is never hidden (it is all the window has).
        var single = PoseWindow(frameCount: 10, jointCount: 1, frameRate: 30)
        for t in 0..<10 { single[t, 0] = Keypoint(x: Float(t), y: 1, confidence: 1) }
        var lone = PoseAugmenter(augmentations: [.occlude], mirroredIndices: [0])
        lone.occlusionProbability = 1
        var kept = single
        for _ in 0..<20 { lone.apply(to: &kept, generator: &generator) }
        XCTAssertEqual(kept, single)
    }

    /// The share of missed keypoints counts joints the data has and leaves out joints it never has.
    func testMissedShareCountsOnlyJointsTheDataHas() {
        let set = JointSet(names: ["a", "b", "c"])!
        func sequence(_ frames: [[Keypoint?]]) -> PoseSequence {
            PoseSequence(jointSet: set, frames: frames.enumerated().map { PoseFrame(time: Double($0.offset) / 30, keypoints: $0.element) },
                         source: PoseSource(file: URL(fileURLWithPath: "t.csv")))
        }
        let point = Keypoint(x: 1, y: 2, confidence: 1)
        // Joint c is never detected; a is always; b misses 1 of 4 frames: 1 of 8 keypoints missed.
        let first = sequence([[point, point, nil], [point, nil, nil]])
        let second = sequence([[point, point, nil], [point, point, nil]])
        XCTAssertEqual(PoseSequence.missedShare(of: [first, second]), 1.0 / 8, accuracy: 1e-12)
        XCTAssertEqual(PoseSequence.missedShare(of: [second]), 0)
        XCTAssertEqual(PoseSequence.missedShare(of: []), 0)
        XCTAssertEqual(PoseAugmenter.occlusionProbability(matching: 0), 0)
        XCTAssertEqual(PoseAugmenter.occlusionProbability(matching: 0.1), 0.4, accuracy: 1e-6)
        XCTAssertEqual(PoseAugmenter.occlusionProbability(matching: 0.6), 1)
    }
}
