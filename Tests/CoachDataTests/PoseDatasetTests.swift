import CoachData
import CoachRandom
import TestSupport
import XCTest

final class PoseDatasetTests: XCTestCase {
    func testClassFoldersWithCSVAndJSONClips() throws {
        let root = try temporaryDirectory(self)
        try writePoseFixture(root, "Wave hello/1.csv", "a_x,a_y,b_x,b_y\n0,0,1,1\n0,0,1,1\n")
        try writePoseFixture(root, "Wave hello/2.json", #"{"joints": ["b", "a"], "frames": [{"keypoints": [[7, 8, 1], [5, 6, 1]]}]}"#)
        try writePoseFixture(root, "Wave hello/notes.txt", "not a clip")
        try writePoseFixture(root, "Wave hello/.DS_Store", "hidden")
        try writePoseFixture(root, "Other/3.csv", "b_x,b_y,a_x,a_y\n1,1,0,0\n")
        try writePoseFixture(root, "README.md", "top-level files are not classes")
        let dataset = try PoseDataset.load(root)
        XCTAssertEqual(dataset.jointSet.names, ["b", "a"], "the first clip's (Other/3.csv) order, since all clips share the names")
        XCTAssertEqual(dataset.labels, ["Other", "Wave hello"])
        XCTAssertEqual(dataset.classCounts, ["Other": 1, "Wave hello": 2])
        XCTAssertEqual(dataset.examples.map { $0.sequence.source.file.lastPathComponent }, ["3.csv", "1.csv", "2.json"])
        // 1.csv listed a before b; it is reordered to the dataset's order (b, a).
        XCTAssertEqual(dataset.examples[1].sequence.jointSet.names, ["b", "a"])
        XCTAssertEqual(dataset.examples[1].sequence.frames[0].keypoints, [Keypoint(x: 1, y: 1), Keypoint(x: 0, y: 0)])
        XCTAssertEqual(dataset.examples[2].sequence.frames[0].keypoints, [Keypoint(x: 7, y: 8), Keypoint(x: 5, y: 6)])
        XCTAssertEqual(dataset.ignoredFiles.map(\.lastPathComponent).sorted(), ["README.md", "notes.txt"])
        XCTAssertEqual(dataset.backgroundLabel, "Other")
    }

    func testClipLackingJointsOthersHaveIsReported() throws {
        let root = try temporaryDirectory(self)
        try writePoseFixture(root, "A/1.csv", "a_x,a_y,b_x,b_y\n0,0,1,1\n")
        try writePoseFixture(root, "A/2.csv", "a_x,a_y,b_x,b_y\n0,0,1,1\n")
        let short = try writePoseFixture(root, "B/3.csv", "\n\na_x,a_y,c_x,c_y\n0,0,1,1\n")
        let json = try writePoseFixture(root, "B/4.json", #"{"joints": ["a"], "frames": [{"keypoints": [[1, 2, 1]]}]}"#)
        let deep = try writePoseFixture(root, "B/5.csv", "a_x,a_y,a_z,b_x,b_y,b_z\n0,0,0,1,1,1\n")
        try writePoseFixture(root, "Empty/readme.txt", "no clips here")
        expectPoseError([
            "\(short.path):3: lacks b and has unknown joints c: expected the 2 joints a, b, like the other clips",
            "\(json.path): joints: lacks b: expected the 2 joints a, b",
            "\(deep.path):1: has z coordinates: expected x, y only",
            "\(root.appendingPathComponent("Empty").path): class folder 'Empty' has no .csv or .json clips",
        ]) { _ = try PoseDataset.load(root) }
    }

    /// The root of `train/<label>/…` and `test/<label>/…` given as the data is named as such.
    func testAFolderOfSplitsIsRecognised() throws {
        let root = try temporaryDirectory(self)
        for split in ["train", "test"] {
            for label in ["wave", "clap", "bow", "nod"] { try writePoseFixture(root, "\(split)/\(label)/1.csv", "a_x,a_y\n0,0\n1,1\n") }
        }
        expectPoseError([
            "class folder 'train' holds no clips itself but its folders 'bow', 'clap', 'nod', … do: \(root.path) looks like a folder of splits; give \(root.appendingPathComponent("train").path) as the data",
            "class folder 'test' holds no clips itself",
        ]) { _ = try PoseDataset.load(root) }
        XCTAssertEqual(try PoseDataset.load(root.appendingPathComponent("train")).clips.count, 4)
    }

    func testSplitsAreStratifiedSeededAndBlocked() throws {
        // 10 of "a", 4 of "b", 1 of "c", interleaved.
        var labels: [String] = []
        for i in 0..<10 { labels.append("a"); if i < 4 { labels.append("b") }; if i == 5 { labels.append("c") } }
        var generator = SeededGenerator(seed: 7)
        let split = PoseDatasetSplit.stratified(labels: labels, testFraction: 0.25, generator: &generator)
        XCTAssertEqual(Set(split.trainIndices).union(split.testIndices), Set(labels.indices))
        XCTAssertTrue(Set(split.trainIndices).isDisjoint(with: split.testIndices))
        XCTAssertEqual(PoseClasses.counts(of: split.testIndices.map { labels[$0] }), ["a": 3, "b": 1], "⌈10/4⌉ = 3, ⌈4/4⌉ = 1, a single item stays in training")
        var same = SeededGenerator(seed: 7)
        XCTAssertEqual(PoseDatasetSplit.stratified(labels: labels, testFraction: 0.25, generator: &same), split)
        let differentSeeds = (1...5).map { seed -> PoseDatasetSplit in
            var g = SeededGenerator(seed: UInt64(100 + seed))
            return PoseDatasetSplit.stratified(labels: labels, testFraction: 0.25, generator: &g)
        }
        XCTAssertGreaterThan(Set(differentSeeds.map(\.testIndices)).count, 1, "the seed changes the split")

        let block = PoseDatasetSplit.block(labels: labels)
        let aIndices = labels.indices.filter { labels[$0] == "a" }, bIndices = labels.indices.filter { labels[$0] == "b" }
        XCTAssertEqual(block.testIndices, (Array(aIndices.suffix(3)) + Array(bIndices.suffix(1))).sorted())
        XCTAssertEqual(PoseDatasetSplit.testCount(classSize: 30, testFraction: 0.25), 8)
        XCTAssertEqual(PoseDatasetSplit.testCount(classSize: 30, testFraction: 0.1), 3, "no rounding up of 3.0000000000000004")
        XCTAssertEqual(PoseDatasetSplit.testCount(classSize: 2, testFraction: 1), 1)
        XCTAssertEqual(PoseDatasetSplit.testCount(classSize: 5, testFraction: 0), 0)
    }

    func testGroupedSplitKeepsEveryClipOnOneSide() {
        // 40 clips: each has one or two background segments, and every second clip one throw
        // ("over" or "under", alternating) between them.
        var labels: [String] = [], groups: [Int] = []
        for clip in 0..<40 {
            let segments = clip % 2 == 0 ? ["none", clip % 4 == 0 ? "over" : "under", "none"] : ["none"]
            for label in segments { labels.append(label); groups.append(clip) }
        }
        var generator = SeededGenerator(seed: 3)
        let split = PoseDatasetSplit.stratified(labels: labels, groups: groups, testFraction: 0.25, generator: &generator)
        XCTAssertEqual(Set(split.trainIndices).union(split.testIndices), Set(labels.indices))
        let heldClips = Set(split.testIndices.map { groups[$0] }), trainingClips = Set(split.trainIndices.map { groups[$0] })
        XCTAssertTrue(heldClips.isDisjoint(with: trainingClips), "a clip on both sides")
        // Strata: the 10 "over" clips, the 10 "under" clips and the 20 background-only clips; ⌈n/4⌉ of each.
        let held = PoseClasses.counts(of: split.testIndices.map { labels[$0] })
        XCTAssertEqual(held["over"], 3)
        XCTAssertEqual(held["under"], 3)
        XCTAssertEqual(held["none"], 2 * 6 + 5, "the throw clips' background segments go with them")
        var same = SeededGenerator(seed: 3)
        XCTAssertEqual(PoseDatasetSplit.stratified(labels: labels, groups: groups, testFraction: 0.25, generator: &same), split)

        // One item per group: the plain stratified split, drawing the same numbers.
        var a = SeededGenerator(seed: 9), b = SeededGenerator(seed: 9)
        let singles = PoseDatasetSplit.stratified(labels: labels, groups: Array(labels.indices.reversed()), testFraction: 0.25, generator: &a)
        XCTAssertEqual(singles, PoseDatasetSplit.stratified(labels: labels, testFraction: 0.25, generator: &b))
        XCTAssertEqual(a.next(), b.next())

        // A class that is never a clip's rarest label keeps training items: here every clip holds
        // "rare" and "common", so whichever clips are held out, "common" is also in training.
        let pairs = (0..<6).flatMap { _ in ["rare", "common", "common"] }
        let pairGroups = (0..<6).flatMap { [$0, $0, $0] }
        var g = SeededGenerator(seed: 1)
        let pairSplit = PoseDatasetSplit.stratified(labels: pairs, groups: pairGroups, testFraction: 0.5, generator: &g)
        XCTAssertEqual(PoseClasses.counts(of: pairSplit.testIndices.map { pairs[$0] }), ["rare": 3, "common": 6])
        XCTAssertEqual(PoseClasses.counts(of: pairSplit.trainIndices.map { pairs[$0] }), ["rare": 3, "common": 6])

        // "y" lives in one clip whose stratum is "x" (a tie broken by name): when that clip is
        // drawn for holding out, it goes back to training rather than leave "y" unseen.
        var heldY = 0
        for seed in 0..<20 {
            var s = SeededGenerator(seed: UInt64(seed))
            let tie = PoseDatasetSplit.stratified(labels: ["x", "x", "y", "y"], groups: [0, 1, 1, 1], testFraction: 0.5, generator: &s)
            XCTAssertEqual(tie.trainIndices.filter { $0 >= 2 }, [2, 3], "seed \(seed)")
            heldY += tie.testIndices.isEmpty ? 1 : 0
        }
        XCTAssertGreaterThan(heldY, 0, "some seed draws the clip with \"y\"")
    }

    func testBackgroundLabelDetection() {
        XCTAssertEqual(PoseClasses.backgroundLabel(among: ["jump", "NONE", "run"]), "NONE")
        XCTAssertEqual(PoseClasses.backgroundLabel(among: ["Negative", "other"]), "other", "preference follows the conventional order")
        XCTAssertEqual(PoseClasses.backgroundCandidates(among: ["Negative", "other", "x", "Background"]), ["other", "Background", "Negative"])
        XCTAssertNil(PoseClasses.backgroundLabel(among: ["others", "nothing", "jump"]))
    }

    func testResamplingInterpolatesJointsPresentInBothNeighbours() throws {
        let joints = try XCTUnwrap(JointSet(names: ["a", "b"]))
        let frames = [
            PoseFrame(time: 0.0, keypoints: [Keypoint(x: 0, y: 10, z: 1, confidence: 1), Keypoint(x: 5, y: 5)]),
            PoseFrame(time: 0.1, keypoints: [Keypoint(x: 1, y: 20, z: 3, confidence: 0.5), nil]),
            PoseFrame(time: 0.4, keypoints: [Keypoint(x: 4, y: 50, z: 9, confidence: 0.5), Keypoint(x: 8, y: 8)]),
        ]
        let clip = PoseSequence(jointSet: joints, frames: frames, source: PoseSource(file: URL(fileURLWithPath: "/x.csv")), hasDepth: true)
        let resampled = clip.resampled(toFrameRate: 20)
        XCTAssertEqual(resampled.frames.count, 9)
        assertClose(resampled.frames.map { Float($0.time) }, (0...8).map { Float($0) * 0.05 })
        XCTAssertEqual(resampled.nominalFrameRate, 20)
        // t = 0.05: halfway between frames 0 and 1; joint b is missing in frame 1.
        let k = try XCTUnwrap(resampled.frames[1].keypoints[0])
        assertClose([k.x, k.y, k.z ?? .nan, k.confidence], [0.5, 15, 2, 0.75])
        XCTAssertNil(resampled.frames[1].keypoints[1])
        // t = 0.1 coincides with frame 1: copied, b stays missing.
        XCTAssertEqual(resampled.frames[2].keypoints, frames[1].keypoints)
        // t = 0.25: halfway between 0.1 and 0.4.
        let m = try XCTUnwrap(resampled.frames[5].keypoints[0])
        assertClose([m.x, m.y, m.z ?? .nan, m.confidence], [2.5, 35, 6, 0.5])
        XCTAssertNil(resampled.frames[5].keypoints[1])
        XCTAssertEqual(resampled.frames[8].keypoints, frames[2].keypoints)
        XCTAssertEqual(clip.resampled(toFrameRate: 0), clip, "a non-positive rate leaves the clip alone")
    }
}
